/* init: the first process.  Runs the workload script named by argv[1]
   (default /etc/default.mix), one command per line:

     # comment                (blank lines and comments are skipped)
     /bin/copy                run and wait for it
     /bin/stream 5 &          run in the background
     wait                     wait for every background child
     ! /bin/dcpictl events x  run it and expect it to fail (a non-zero exit
                              is then no failure; an exit 0 is one)

   Words are split at blanks as a shell splits them: 'a b', "a b" and a\ b
   are one argument, '' an empty one.

   An argument that does not start with '/' is a comma-separated list of
   programs in /bin run one after the other (`copy,stream` runs /bin/copy,
   then /bin/stream): what `dcpi run --workloads` passes.

   For each child that ends it prints `init: <prog> pid N exit S` (or
   `signal S`; an expected failure adds `(expected failure)`, or `(expected
   to fail)` when it exited 0), and `init: done` at the end, after waiting for any
   background child still running.  Exit status 0 if every child exited 0,
   1 otherwise (or if a spawn failed, the script cannot be read or has a
   line longer than 510 bytes, which is not run: issue 30).

   Every program starts with the environment of /etc/environment, one
   NAME=VALUE a line (what `dcpi run -- PROGRAM` writes: a shell's login
   variables and --env's), or none when the initrd has no such file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "dcpi_user.h"

#define MAX_ARGS 32
#define MAX_CHILDREN 64

struct child {
  int pid;
  int expect_failure; /* the script line began with "!" */
  char prog[64];
};

static struct child running[MAX_CHILDREN];
static int nrunning, failures;

#define MAX_ENV 63
static char env_text[8192];
static char *env[MAX_ENV + 1]; /* NULL-terminated; empty without /etc/environment */

/* /etc/environment's NAME=VALUE lines into env; blank lines and comments
   skipped. Too many or too long: the rest is left out, said once. */
static void load_environment(void) {
  FILE *f = fopen("/etc/environment", "r");
  if (!f) return;
  size_t used = 0;
  int count = 0, left_out = 0;
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '\0' || line[0] == '#' || !strchr(line, '=')) continue;
    size_t len = strlen(line) + 1;
    if (count == MAX_ENV || used + len > sizeof env_text) {
      left_out++;
      continue;
    }
    env[count++] = memcpy(env_text + used, line, len);
    used += len;
  }
  fclose(f);
  if (left_out) printf("init: %d environment strings of /etc/environment left out\n", left_out);
}

static void report(int pid, int status) {
  const char *prog = "?";
  int expect_failure = 0;
  for (int i = 0; i < nrunning; i++)
    if (running[i].pid == pid) {
      static char name[64];
      strcpy(name, running[i].prog);
      prog = name;
      expect_failure = running[i].expect_failure;
      running[i] = running[--nrunning];
      break;
    }
  if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    const char *note = !expect_failure ? "" : code ? " (expected failure)" : " (expected to fail)";
    printf("init: %s pid %d exit %d%s\n", prog, pid, code, note);
    if ((code != 0) != expect_failure) failures++;
  } else {
    printf("init: %s pid %d signal %d\n", prog, pid, WIFSIGNALED(status) ? WTERMSIG(status) : -1);
    failures++;
  }
  fflush(stdout);
}

static void wait_for(int pid) {
  for (;;) {
    int status = 0, got = dcpi_wait(pid, &status);
    if (got < 0) {
      if (errno != ECHILD) {
        printf("init: wait failed: %s\n", strerror(errno));
        failures++;
      }
      return;
    }
    report(got, status);
    if (got == pid) return;
  }
}

static void wait_all(void) {
  while (nrunning > 0) {
    int before = nrunning;
    wait_for(-1);
    if (nrunning == before) { /* the kernel has no child left we know of */
      printf("init: %d background children lost\n", nrunning);
      failures += nrunning;
      nrunning = 0;
    }
  }
}

/* The next word of a mix line at *cursor, decoded in place, as a shell
   splits words: blanks separate them, '...' is literal, "..." literal but
   for \" and \\, a backslash makes the next character literal. NULL at
   the end or at an unquoted '#' (a comment). *literal_end: the last
   character was quoted (so a final '&' is an argument); *plain: nothing in
   it was quoted ("!" and "&" are markers only then). */
static char *next_word(char **cursor, int *literal_end, int *plain) {
  char *in = *cursor;
  while (*in == ' ' || *in == '\t' || *in == '\r' || *in == '\n') in++;
  if (*in == '\0' || *in == '#') return NULL;
  char *word = in, *out = in;
  *literal_end = 0;
  *plain = 1;
  while (*in && *in != ' ' && *in != '\t' && *in != '\r' && *in != '\n') {
    const char c = *in++;
    *literal_end = c == '\\' || c == '\'' || c == '"';
    if (*literal_end) *plain = 0;
    if (c == '\\') {
      if (*in) *out++ = *in++;
    } else if (c == '\'') {
      while (*in && *in != '\'') *out++ = *in++;
      if (*in) in++;
    } else if (c == '"') {
      while (*in && *in != '"') {
        if (*in == '\\' && (in[1] == '"' || in[1] == '\\')) in++;
        *out++ = *in++;
      }
      if (*in) in++;
    } else {
      *out++ = c;
    }
  }
  *cursor = *in ? in + 1 : in;
  *out = '\0';
  return word;
}

static void run_line(char *line) {
  char *argv[MAX_ARGS + 1];
  int argc = 0, background = 0, expect_failure = 0, literal_end, plain;
  for (char *tok; (tok = next_word(&line, &literal_end, &plain));) {
    if (argc == 0 && plain && strcmp(tok, "!") == 0) {
      expect_failure = 1;
      continue;
    }
    size_t len = strlen(tok);
    if (plain && strcmp(tok, "&") == 0) {
      background = 1;
      continue;
    }
    if (len > 1 && !literal_end && tok[len - 1] == '&') {
      tok[len - 1] = '\0';
      background = 1;
    }
    if (argc < MAX_ARGS) argv[argc++] = tok;
  }
  argv[argc] = NULL;
  if (argc == 0) return;
  if (strcmp(argv[0], "wait") == 0) {
    wait_all();
    return;
  }
  if (nrunning == MAX_CHILDREN) wait_all();
  int pid = dcpi_spawn_env(argv[0], argv, env);
  if (pid < 0) {
    printf("init: %s spawn failed: %s\n", argv[0], strerror(errno));
    fflush(stdout);
    failures++;
    return;
  }
  const char *base = strrchr(argv[0], '/');
  base = base ? base + 1 : argv[0];
  running[nrunning].pid = pid;
  running[nrunning].expect_failure = expect_failure;
  snprintf(running[nrunning].prog, sizeof running[nrunning].prog, "%s", base);
  nrunning++;
  if (!background) wait_for(pid);
}

static void run_list(const char *list) {
  printf("init: running %s on %s\n", list, dcpi_platform());
  fflush(stdout);
  char copy[512];
  snprintf(copy, sizeof copy, "%s", list);
  char *save = NULL;
  for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
    char line[600];
    snprintf(line, sizeof line, "/bin/%s", name);
    run_line(line);
  }
}

int main(int argc, char **argv) {
  const char *script = argc > 1 ? argv[1] : "/etc/default.mix";
  load_environment();
  if (script[0] != '/') {
    run_list(script);
    wait_all();
    printf("init: %d failed\n", failures);
    printf("init: done\n");
    fflush(stdout);
    return failures == 0 ? 0 : 1;
  }
  FILE *f = fopen(script, "r");
  if (!f) {
    printf("init: cannot open %s: %s\n", script, strerror(errno));
    printf("init: done\n");
    return 1;
  }
  printf("init: running %s on %s\n", script, dcpi_platform());
  fflush(stdout);
  char line[512];
  for (int number = 1; fgets(line, sizeof line, f); number++) {
    size_t len = strlen(line);
    if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
      /* Its rest would run as a command of its own: run none of it. */
      printf("init: line %d of %s is longer than %d bytes: not run\n", number, script,
             (int)sizeof line - 2);
      fflush(stdout);
      failures++;
      int c;
      while ((c = fgetc(f)) != EOF && c != '\n') {
      }
      continue;
    }
    run_line(line);
  }
  fclose(f);
  wait_all();
  printf("init: %d failed\n", failures);
  printf("init: done\n");
  fflush(stdout);
  return failures == 0 ? 0 : 1;
}
