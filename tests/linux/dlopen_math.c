// A program that loads a system library by name at run time (dlopen), as
// plug-in hosts do: `dcpi run` must bundle what an image names but does not
// link (qemu/bundle/elf_facts.h named_libraries), and the profile must
// attribute the samples in the loaded library.
#include <dlfcn.h>
#include <stdio.h>

int main(void) {
  void* libm = dlopen("libm.so.6.1", RTLD_NOW);  // Alpha's libm soname
  if (!libm) {
    printf("dlopen libm: %s\n", dlerror());
    return 1;
  }
  double (*cosine)(double) = (double (*)(double))dlsym(libm, "cos");
  double sum = 0;
  for (int i = 0; i < 400000; ++i) sum += cosine(i * 1e-5);
  printf("sum of cos: %.6f\n", sum);
  dlclose(libm);
  void* missing = dlopen("libdcpinothere.so.1", RTLD_NOW);
  printf("a library nobody has: %s\n", missing ? "loaded" : dlerror());
  return 0;
}
