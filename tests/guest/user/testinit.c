/* init for the kernel's guest tests: argv[1] ("script") names the test,
 * optionally followed by ":ARG". */
#include "sys.h"

static long run(const char* path, const char* const* argv) {
  long pid = spawn(path, argv);
  if (pid < 0) {
    put("init: spawn ");
    put(path);
    put(" failed ");
    put_num(-pid, 10);
    put("\n");
    return pid;
  }
  int status = -1;
  long got = wait_pid(pid, &status);
  put("init: ");
  put(path);
  put(" pid ");
  put_num(pid, 10);
  put(" reaped ");
  put_num(got, 10);
  put(" status 0x");
  put_num(status, 16);
  put("\n");
  return status;
}

int main(int argc, char** argv) {
  const char* test = argc > 1 ? argv[1] : "hello";
  char name[64];
  const char* arg = "";
  u64 i = 0;
  for (; test[i] && test[i] != ':' && i < sizeof name - 1; ++i) name[i] = test[i];
  name[i] = 0;
  if (test[i] == ':') arg = test + i + 1;
  put("init: test ");
  put(name);
  put("\n");

  if (str_eq(name, "hello")) {
    const char* const args[] = {"/bin/hello", "one", "two words", 0};
    run("/bin/hello", args);
    return 5;
  }
  if (str_eq(name, "faults")) {
    const char* const none[] = {0};
    run("/bin/null", none);
    run("/bin/illegal", none);
    run("/bin/unaligned", none);
    run("/bin/overflow", none);
    run("/bin/efault", none);
    const char* const peek[] = {"/bin/peek", arg, 0};
    run("/bin/peek", peek);
    put_kv("init: spawn badelf = ", spawn("/bin/badelf", none));
    put_kv("init: spawn missing = ", spawn("/bin/missing", none));
    const char* const args[] = {"/bin/hello", "still", "running", 0};
    run("/bin/hello", args);
    return 0;
  }
  if (str_eq(name, "leak")) {
    const char* const args[] = {"/bin/true", 0};
    run("/bin/true", args);  // warm up: first-use allocations
    long before = sys1(SYS_kinfo, DCPI_KINFO_FREE_PAGES);
    long failures = 0;
    for (int k = 0; k < 1000; ++k) {
      long pid = spawn("/bin/true", args);
      int status = -1;
      if (pid < 0 || wait_pid(pid, &status) != pid || status != 0) ++failures;
    }
    long after = sys1(SYS_kinfo, DCPI_KINFO_FREE_PAGES);
    put_kv("init: leak failures ", failures);
    put_kv("init: leak free_before ", before);
    put_kv("init: leak free_after ", after);
    return 0;
  }
  if (str_eq(name, "smp")) {
    const char* const args[] = {"/bin/spin", 0};
    long pids[4];
    for (int k = 0; k < 4; ++k) pids[k] = spawn("/bin/spin", args);
    for (int k = 0; k < 4; ++k) {
      int status = -1;
      wait_pid(pids[k], &status);
      put("init: spin status 0x");
      put_num(status, 16);
      put("\n");
    }
    return 0;
  }
  if (str_eq(name, "loadmap")) {
    const char* const args[] = {"/bin/hello", 0};
    run("/bin/hello", args);
    run("/bin/hello", args);
    sys1(SYS_kinfo, DCPI_KINFO_PRINT_LOAD_MAP);
    return 0;
  }
  if (str_eq(name, "fp")) {
    static const char* const args[][3] = {
        {"/bin/fpsum", "0", 0}, {"/bin/fpsum", "1", 0}, {"/bin/fpsum", "2", 0}};
    long pids[3];
    for (int k = 0; k < 3; ++k) pids[k] = spawn("/bin/fpsum", args[k]);
    for (int k = 0; k < 3; ++k) {
      int status = -1;
      wait_pid(pids[k], &status);
      put("init: fpsum status 0x");
      put_num(status, 16);
      put("\n");
    }
    return 0;
  }
  if (str_eq(name, "files")) {
    const char* const args[] = {"/bin/files", 0};
    run("/bin/files", args);
    return 0;
  }
  put("init: unknown test\n");
  return 1;
}
