/* The C.UTF-8 locale, which Debian's libc-bin installs and programs ask
 * for by name (setlocale(LC_ALL, "C.UTF-8")): dcpi run copies the host's
 * /usr/lib/locale/C.utf8 into the guest, as qemu-alpha reads the host's.
 * Before, setlocale returned NULL and multibyte text was bytes. The
 * codeset, mbstowcs and wcstombs of accented and non-Latin text, wcwidth,
 * towupper, iswalpha, printf's %ls and %lc, a bad sequence's EILSEQ.
 * Output equals qemu-alpha's. */
#define _GNU_SOURCE
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

int main(void) {
  printf("C: codeset %s, MB_CUR_MAX %d\n", nl_langinfo(CODESET), (int)MB_CUR_MAX);
  const char *got = setlocale(LC_ALL, "C.UTF-8");
  printf("setlocale C.UTF-8: %s\n", got ? got : "(null)");
  if (!got) return 0;
  printf("codeset %s, MB_CUR_MAX %d\n", nl_langinfo(CODESET), (int)MB_CUR_MAX);
  const char *text = "h\xc3\xa9llo w\xc3\xb6rld \xe2\x82\xac \xce\xb1\xce\xb2\xce\xb3 \xe4\xb8\xad";
  wchar_t wide[64];
  size_t n = mbstowcs(wide, text, 64);
  printf("%zu bytes, %zu characters:", strlen(text), n);
  int width = 0;
  for (size_t i = 0; i < n; i++) {
    printf(" %04x", (unsigned)wide[i]);
    width += wcwidth(wide[i]);
  }
  printf("\ncolumns %d\n", width);
  for (size_t i = 0; i < n; i++) wide[i] = towupper(wide[i]);
  char back[128];
  printf("upper: %zu bytes '%s'\n", wcstombs(back, wide, sizeof back), back);
  printf("%%ls: '%ls' %%lc: '%lc'\n", wide, (wint_t)0x263a);
  printf("alpha: %d %d %d\n", iswalpha(0xe9), iswalpha(0x4e2d), iswalpha(0x20ac));
  mbstate_t state;
  memset(&state, 0, sizeof state);
  wchar_t one;
  size_t r = mbrtowc(&one, "\xc3\x28", 2, &state);
  printf("bad sequence: %zd %s\n", (ssize_t)r, r == (size_t)-1 ? strerror(errno) : "");
  return 0;
}
