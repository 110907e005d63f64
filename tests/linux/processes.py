#!/usr/bin/env python3
"""Threads, signals and processes of unmodified glibc programs (issue 29)
under `dcpi run -- PROGRAM`, checked against qemu-alpha user mode.

  processes.py BUILD LINUX_DIR threads CPUS   pthreads: mutex, condition variable,
                                              TLS, timed waits, futex errors; on 4
                                              CPUs the threads use several CPUs and
                                              16 threads are created and joined
  processes.py BUILD LINUX_DIR signals CPUS   handlers (both frames), masks,
                                              sigsuspend, SIGCHLD, default actions
                                              killing children, error paths
  processes.py BUILD LINUX_DIR pipes CPUS     a producer child and its consumer
                                              parent over a pipe, stdout into a pipe
                                              (dup2), EOF, EPIPE, O_NONBLOCK,
                                              /dev/null, error paths
  processes.py BUILD LINUX_DIR files CPUS     RAM files: create, write, append,
                                              truncate, rename, unlink, mkdir, rmdir,
                                              stat, listing, error paths
  processes.py BUILD LINUX_DIR stacks CPUS    48 threads alive at once with default 8 MB
                                              stacks in a 256 MB guest (demand-zero
                                              anonymous memory), little time zeroing
  processes.py BUILD LINUX_DIR stress CPUS    300 threads in waves, signals during a
                                              blocking read, fork under memory
                                              pressure until it fails
  processes.py BUILD LINUX_DIR tidprof CPUS   profiles per thread: prof --by tid and the
                                              process table (dcpi procs) against what
                                              the program prints (gettid, names, its
                                              fork+execve+wait child's pid and status)
  processes.py BUILD LINUX_DIR openmp CPUS    an OpenMP program (GCC's libgomp, a team of
                                              4): the same output as qemu-alpha, every
                                              team member has samples, and on 4 CPUs
                                              the team's samples come from all 4
  processes.py BUILD LINUX_DIR exits CPUS     90 threaded children ending in three
                                              orders (exit_group, the last thread,
                                              a worker's _exit) while the parent
                                              waits: each reaped with its status
  processes.py BUILD LINUX_DIR timers CPUS    setitimer's three timers, alarm and pause,
                                              select and pselect (timeouts, EBADF,
                                              EINTR whatever SA_RESTART), getrusage,
                                              clock_getres, process vs thread CPU time
  processes.py BUILD LINUX_DIR posix_timers CPUS  timer_create's SIGEV_SIGNAL (value,
                                              SI_TIMER, overruns while blocked),
                                              SIGEV_THREAD, a CPU-time timer, sigqueue
  processes.py BUILD LINUX_DIR shared CPUS    MAP_SHARED anonymous memory across fork
                                              (also moved by mremap, and after the
                                              parent's munmap), private memory staying
                                              private, mkstemp/tmpfile in /tmp, a RAM
                                              file mapped back
  processes.py BUILD LINUX_DIR affinity CPUS  sched_setaffinity on the caller, on another
                                              thread and inherited by fork; sched_getcpu
                                              confirms each stays on its CPU
  processes.py BUILD LINUX_DIR limits CPUS    200 threads alive at once, 48 files open
                                              (FD_CLOEXEC, fork), /dev/zero (read and
                                              mmap), /dev/urandom, gethostname
  processes.py BUILD LINUX_DIR dirs CPUS      renaming directories (also over an
                                              empty one), fchdir, sysinfo, error
                                              paths; an initrd directory is EXDEV
  processes.py BUILD LINUX_DIR filestate CPUS record locks between a parent and
                                              a child (conflicts, F_GETLK, splits,
                                              release on close, F_SETLKW), pwrite,
                                              fsync, fadvise, fchmod, futimens,
                                              error paths
  processes.py BUILD LINUX_DIR links CPUS     symbolic links (stat/lstat, readlink,
                                              relative and absolute targets, ".." after
                                              a link, ELOOP, O_NOFOLLOW, DT_LNK) and
                                              FIFOs (a forked writer and reader,
                                              O_NONBLOCK opens, O_RDWR, mknod)
  processes.py BUILD LINUX_DIR stderr_split CPUS  the program's stderr apart from its
                                              stdout, both equal to qemu-alpha's
  processes.py BUILD LINUX_DIR overcommit CPUS  twice the machine's RAM refused by mmap
                                              and malloc at once, MAP_NORESERVE not
  processes.py BUILD LINUX_DIR stream_sockets CPUS  named stream sockets: an AF_UNIX
                                              server and a forked client, an abstract
                                              name, an AF_INET loopback server (an
                                              ephemeral port) and a client thread, a
                                              thread pool accepting, non-blocking
                                              accept and connect, poll, ECONNREFUSED,
                                              EADDRINUSE, shutdown, EINTR
  processes.py BUILD LINUX_DIR buffering CPUS  stdio's buffering as Linux's with stdout a
                                              file (fully buffered: a line printed
                                              before fork comes out twice) and a
                                              terminal (by line: once); the guest's
                                              isatty() follows dcpi run's stdout
  processes.py BUILD LINUX_DIR signalfd CPUS  blocked signals read from a signalfd:
                                              kill, sigqueue's value, pthread_kill,
                                              a child's SIGCHLD (exit code, killing
                                              signal), poll, select, epoll,
                                              O_NONBLOCK, a new mask, a blocking read
                                              woken by another process, EINTR
  processes.py BUILD LINUX_DIR opath CPUS     O_PATH descriptors: fstat, fchdir, *at()
                                              calls, dup, fcntl; read, write and the
                                              rest EBADF; O_NOFOLLOW on a link opens
                                              the link
  processes.py BUILD LINUX_DIR copy_calls CPUS  sendfile (a 100 KB RAM file with and
                                              without an offset to a file, a pipe a
                                              child reads, a socket, stdout,
                                              /dev/null; from /dev/zero; interrupted),
                                              copy_file_range, splice and tee, and
                                              their error paths
  processes.py BUILD LINUX_DIR fpieee CPUS    IEEE arithmetic of -mieee code: NaN, inf,
                                              1/0, overflow and their fenv status,
                                              feraiseexcept, denormal operands,
                                              an enabled trap's SIGFPE handler
  processes.py BUILD LINUX_DIR poll_advice CPUS  poll's negative fds, a reader-less
                                              pipe's POLLERR|POLLOUT, many pipes;
                                              MADV_DONTNEED zeroing private pages
  processes.py BUILD LINUX_DIR pgroups CPUS   a three-stage job in its own process group
                                              killed with kill(-pgid) and reaped by
                                              group, kill(0), setsid, WNOWAIT, wait4(0),
                                              PR_SET_PDEATHSIG, RLIMIT_NOFILE enforced
  processes.py BUILD LINUX_DIR job_control CPUS  stop signals and SIGCONT: raise(SIGSTOP),
                                              SIGTSTP/SIGTTOU from the parent, wait4's
                                              WUNTRACED/WCONTINUED, waitid's WSTOPPED/
                                              WCONTINUED/WNOWAIT, SIGCHLD's CLD_STOPPED/
                                              CLD_CONTINUED (also from a signalfd),
                                              SIGKILL and SIGTERM to a
                                              stopped child, SIGCONT blocked, ignored or
                                              handled, a threaded child stopped as a
                                              whole, threads asleep in calls; SA_NOCLDSTOP
                                              and an orphaned process group against
                                              fixed text
  processes.py BUILD LINUX_DIR altstack CPUS  sigaltstack: SA_ONSTACK handlers for a guard
                                              page's and a stack overflow's SIGSEGV, a
                                              nested signal on the alternate stack
  processes.py BUILD LINUX_DIR utf8_locale CPUS  setlocale("C.UTF-8") with the host's
                                              locale files in the guest: wide
                                              characters, widths, case, EILSEQ
  processes.py BUILD LINUX_DIR ucontext CPUS  coroutines (makecontext, swapcontext) and
                                              the signal mask getcontext saves and
                                              setcontext restores (osf_sigprocmask)
  processes.py BUILD LINUX_DIR shell CPUS     system() and popen() through /bin/sh
                                              (the real mix's dash), status, a
                                              command not found, a killed shell,
                                              ECHILD, EINVAL
  processes.py BUILD LINUX_DIR procs CPUS     fork, vfork, execve, posix_spawn,
                                              wait4/waitid, error paths (the exec
                                              lines against fixed text: qemu-alpha
                                              cannot exec an Alpha program)

Every case: the program exits 0, its output equals qemu-alpha's, no system
call is missing, every sample is placed (unknown <= 0.05 %) and the
database checks out.
"""
import json
import os
import pty
import re
import subprocess
import sys
import tempfile
import termios
import threading

from support.common import Checks, dcpi_binary

BUILD, LINUX, CASE, CPUS = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
DCPI = dcpi_binary(BUILD)
SYSROOT = "/usr/alpha-linux-gnu"
CHECKS = Checks()
expect = CHECKS.expect


def oracle(name, *args, stdin=subprocess.DEVNULL, env=None, stdout=subprocess.PIPE):
    with tempfile.TemporaryDirectory() as cwd:  # an empty working directory (files)
        done = subprocess.run(["qemu-alpha", "-L", SYSROOT, os.path.join(LINUX, name), *args],
                              stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=120,
                              cwd=cwd, stdin=stdin, env=env)
    expect(done.returncode == 0, f"{name} {' '.join(args)} exits 0 under qemu-alpha")
    return done.stdout


def dcpi_run(db, name, *args, options=(), stdin=subprocess.DEVNULL, status=0,
             stdout=subprocess.PIPE):
    """`stdout`: where the program's output goes (done.stdout is None unless a pipe)."""
    argv = [DCPI, "run", "--cpus", str(CPUS), "--db", db, "--timeout", "240", *options, "--",
            os.path.join(LINUX, name), *args]
    done = subprocess.run(argv, stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=280,
                          stdin=stdin)
    expect(done.returncode == status,
           f"dcpi run -- {name}: exit {status} (got {done.returncode}: {done.stderr[-800:]})")
    expect("not implemented (ENOSYS)" not in done.stderr,
           "every system call it made is implemented: " +
           " ".join(re.findall(r"system call \S+ \(\d+\)", done.stderr)))
    expect("panic" not in done.stderr, "no kernel panic")
    unknown = re.search(r"unknown = ([0-9.e+-]+)%", done.stderr)
    expect(unknown and float(unknown.group(1)) <= 0.05,
           f"every sample placed: unknown {unknown.group(1) if unknown else '?'} % <= 0.05 %")
    check = subprocess.run([DCPI, "db", "check", db], capture_output=True, text=True)
    expect(check.returncode == 0, f"dcpi db check: {check.stdout[-300:]}{check.stderr[-300:]}")
    return done


def same(name, got, want):
    expect(got == want, f"{name}: the same output as under qemu-alpha\n--- dcpi run:\n{got}"
                        f"--- qemu-alpha:\n{want}")


def case_threads(tmp):
    want = oracle("threads")
    same("threads", dcpi_run(os.path.join(tmp, "t.db"), "threads").stdout, want)
    if CPUS < 2:
        return
    # The threads spread over the CPUs (the kernel's kinfo says where each ran).
    done = dcpi_run(os.path.join(tmp, "t8.db"), "threads", "--cpus", "8", "20000")
    used = re.search(r"cpus used: (\d+)", done.stdout)
    expect(used and int(used.group(1)) >= 2, f"8 threads ran on several of {CPUS} CPUs: "
                                             f"{used.group(0) if used else done.stdout[-200:]}")
    same("threads --cpus 8", "\n".join(l for l in done.stdout.splitlines()
                                       if not l.startswith("cpus used")) + "\n",
         oracle("threads", "8", "20000"))
    # Stress: 16 threads created and joined, many short critical sections.
    same("threads 16", dcpi_run(os.path.join(tmp, "t16.db"), "threads", "16", "3000").stdout,
         oracle("threads", "16", "3000"))


def case_stacks(tmp):
    """48 threads alive at once, 384 MB of default stacks in 256 MB: anonymous
    memory is demand-zero, and zeroing is no longer most of the run."""
    db = os.path.join(tmp, "stacks.db")
    same("many_threads", dcpi_run(db, "many_threads").stdout, oracle("many_threads"))
    rows = json.loads(subprocess.run([DCPI, "prof", "--db", db, "--json"], capture_output=True,
                                     text=True).stdout or "{}").get("rows", [])
    total = sum(row["samples"] for row in rows)
    zeroing = sum(row["samples"] for row in rows if "pages::allocate" in row["procedure"])
    expect(total > 0 and zeroing <= 0.1 * total,
           f"page allocation {zeroing} of {total} samples (<= 10 %; a third when every "
           "stack page was zeroed at mmap)")


def case_signals(tmp):
    done = dcpi_run(os.path.join(tmp, "s.db"), "signals")
    same("signals", done.stdout, oracle("signals"))
    expect(re.search(r"pid \d+ \(/bin/signals\) killed by signal 15\n", done.stderr),
           "the kernel names the child SIGTERM killed")
    expect(re.search(r"pid \d+ \(/bin/signals\) killed by signal 6\n", done.stderr),
           "SIGABRT under RLIMIT_CORE's default 0 is reported as no core dump")


EXEC_LINES = """\
  child: argc 3 argv[2] 5 DCPI_TEST=from-execve parent is caller: yes
exec: fork+execve: child status 5
  child: argc 3 argv[2] 6 DCPI_TEST=(unset) parent is caller: yes
exec: vfork+execve: child status 6
  child: argc 3 argv[2] 8 DCPI_TEST=from-posix_spawn parent is caller: yes
exec: posix_spawn: 0, child status 8
exec: execve with a bad argv: EFAULT
  child: argc 3 argv[2] 11 DCPI_TEST=from-a-threaded-process parent is caller: yes
exec: execve from a threaded process: child status 11
"""


def case_procs(tmp):
    done = dcpi_run(os.path.join(tmp, "p.db"), "procs")
    lines = done.stdout.splitlines(keepends=True)
    exec_part = [l for l in lines if l.startswith("exec:") or l.startswith("  child:")]
    rest = [l for l in lines if l not in exec_part]
    same("procs (without exec)", "".join(rest), oracle("procs", "--no-exec"))
    expect("".join(exec_part) == EXEC_LINES,
           f"the exec cases: {''.join(exec_part)!r}")
    # Each forked and exec'd child is a process of its own in the load map: its
    # samples are placed (checked above: unknown <= 0.05 %).


def case_files(tmp):
    same("files", dcpi_run(os.path.join(tmp, "f.db"), "files").stdout, oracle("files"))
    # stdin from the host (dcpi run ... < FILE) and a written file back out.
    text = os.path.join(tmp, "input.txt")
    with open(text, "w") as f:
        f.write("line one\nline two\n")
    result = os.path.join(tmp, "result.txt")
    with open(text) as a, open(text) as b:
        done = dcpi_run(os.path.join(tmp, "fo.db"), "files", "--stdin",
                        options=("--output", f"result.txt:{result}"), stdin=a)
        same("files --stdin < input.txt", done.stdout, oracle("files", "--stdin", stdin=b))
    expect("stdin: 18 bytes, first line: line one" in done.stdout, "the host's stdin arrived")
    written = open(result).read() if os.path.exists(result) else None
    expect(written == "files: done\n", f"--output copied result.txt back: {written!r}")
    # An --output the guest does not have fails the run, saying so.
    done = dcpi_run(os.path.join(tmp, "fm.db"), "files",
                    options=("--output", f"missing.txt:{result}"), status=1)
    expect("dcpi run: --output: the guest has no file missing.txt" in done.stderr,
           "a missing --output file is named: " + done.stderr[-300:])


def case_stress(tmp):
    done = dcpi_run(os.path.join(tmp, "st.db"), "stress")
    same("stress", done.stdout, oracle("stress"))
    expect("DCPI-DONE" in done.stderr, "the run ended normally (no hang, no panic)")


def case_exits(tmp):
    done = dcpi_run(os.path.join(tmp, "ex.db"), "exits")
    same("exits", done.stdout, oracle("exits"))
    expect(done.stdout.count("30 of 30") == 3, f"every child reaped right: {done.stdout}")


def case_pipes(tmp):
    same("pipes", dcpi_run(os.path.join(tmp, "pp.db"), "pipes").stdout, oracle("pipes"))


def case_timers(tmp):
    same("timers", dcpi_run(os.path.join(tmp, "tm.db"), "timers").stdout, oracle("timers"))


def case_posix_timers(tmp):
    same("posix_timers", dcpi_run(os.path.join(tmp, "pt.db"), "posix_timers").stdout,
         oracle("posix_timers"))


def case_shared(tmp):
    same("shared", dcpi_run(os.path.join(tmp, "sh.db"), "shared").stdout, oracle("shared"))


def case_affinity(tmp):
    same("affinity", dcpi_run(os.path.join(tmp, "af.db"), "affinity").stdout, oracle("affinity"))


def case_limits(tmp):
    same("limits", dcpi_run(os.path.join(tmp, "li.db"), "limits").stdout, oracle("limits"))


# What dcpi run gives every program (qemu/bundle/guest_environment.cpp), in
# its order, then --env's.
LOGIN = {"PATH": "/bin:/usr/bin", "HOME": "/", "PWD": "/", "SHELL": "/bin/sh", "USER": "root",
         "LOGNAME": "root", "LANG": "C", "TERM": "dumb"}


def case_events(tmp):
    same("events", dcpi_run(os.path.join(tmp, "ev.db"), "events").stdout, oracle("events"))


# Arguments a shell would pass as they are: init must not split or drop them.
AWKWARD = ("a b", "", "x'y", "#c", "&", "tail&", "back\\slash", '"q"', "!", "t\tab")


def case_sockets(tmp):
    same("sockets", dcpi_run(os.path.join(tmp, "so.db"), "sockets").stdout, oracle("sockets"))


def case_stream_sockets(tmp):
    same("stream_sockets", dcpi_run(os.path.join(tmp, "ss.db"), "stream_sockets").stdout,
         oracle("stream_sockets"))


def case_fpieee(tmp):
    same("fpieee", dcpi_run(os.path.join(tmp, "fp.db"), "fpieee").stdout, oracle("fpieee"))


def case_poll_advice(tmp):
    same("poll_advice", dcpi_run(os.path.join(tmp, "pa.db"), "poll_advice").stdout,
         oracle("poll_advice"))


def case_pgroups(tmp):
    same("pgroups", dcpi_run(os.path.join(tmp, "pg.db"), "pgroups").stdout, oracle("pgroups"))


# qemu-alpha does not pass SA_NOCLDSTOP on to the host (linux-user/signal.c's
# do_sigaction), so its parent gets SIGCHLD for the stop: Linux's answer here.
NOCLDSTOP_LINES = """\
SA_NOCLDSTOP: SIGSTOP: stopped by SIGSTOP (status 0x117f)
SA_NOCLDSTOP: SIGCONT: continued (status 0xffff)
SA_NOCLDSTOP: SIGKILL: killed by SIGKILL
SA_NOCLDSTOP: the first SIGCHLD: SIGCHLD CLD_KILLED SIGKILL, from the child: yes
"""

# SIGTSTP stops a child in the program's own group (init's under dcpi run,
# never orphaned: it stands for a shell's); an orphaned process group with
# a stopped process is hung up (SIGHUP, then SIGCONT), and SIGTSTP no
# longer stops its processes: Linux's answer when the orphan's new parent
# is init. Under qemu-alpha the harness's groups and the host's choice of
# that parent (a subreaper in the session would keep the group from being
# orphaned) decide, so this is fixed text too.
ORPHANED_LINES = """\
own group: SIGTSTP: stopped by SIGTSTP (status 0x127f)
orphaned: the child: exited 0
orphaned: the grandchild: grandchild: continued, SIGHUP handler ran 1 times
orphaned: SIGTSTP then SIGUSR1: u
orphaned: SIGSTOP then SIGUSR1: nothing
"""


def case_job_control(tmp):
    same("job_control", dcpi_run(os.path.join(tmp, "jc.db"), "job_control").stdout,
         oracle("job_control"))
    got = dcpi_run(os.path.join(tmp, "jcn.db"), "job_control", "--nocldstop").stdout
    expect(got == NOCLDSTOP_LINES, f"SA_NOCLDSTOP: no SIGCHLD for the stop and the "
                                   f"continuation, one for the end: {got!r}")
    got = dcpi_run(os.path.join(tmp, "jco.db"), "job_control", "--orphaned").stdout
    expect(got == ORPHANED_LINES, f"an orphaned group with a stopped process hung up, "
                                  f"SIGTSTP dropped in it: {got!r}")


def case_altstack(tmp):
    same("altstack", dcpi_run(os.path.join(tmp, "as.db"), "altstack").stdout, oracle("altstack"))


def case_utf8_locale(tmp):
    same("utf8_locale", dcpi_run(os.path.join(tmp, "ul.db"), "utf8_locale").stdout,
         oracle("utf8_locale"))


def case_ucontext(tmp):
    same("ucontext", dcpi_run(os.path.join(tmp, "uc.db"), "ucontext").stdout, oracle("ucontext"))


def case_procfs(tmp):
    got = dcpi_run(os.path.join(tmp, "pf.db"), "procfs", "--guest").stdout
    common = "".join(line for line in got.splitlines(True) if not line.startswith("guest: "))
    same("procfs", common, oracle("procfs"))
    expect(f"guest: cpus detected = online = {CPUS}: yes" in got,
           f"/proc/cpuinfo's cpus detected is the CPUs online ({CPUS}): {got!r}")
    expect("guest: /sys online is yes" in got, f"/sys/devices/system/cpu/online lists them: {got!r}")
    expect("guest: status Threads 1" in got, f"/proc/self/status counts one thread: {got!r}")
    expect("guest: re-exec through /proc/self/exe: exit 42" in got,
           f"a program runs itself again through /proc/self/exe: {got!r}")


def case_cxxfs(tmp):
    same("cxxfs", dcpi_run(os.path.join(tmp, "fs.db"), "cxxfs").stdout, oracle("cxxfs"))


def case_login(tmp):
    want = oracle("login", *AWKWARD, env={**LOGIN, "HOME": "/tmp", "DCPI_TEST": "a=b"})
    got = dcpi_run(os.path.join(tmp, "lg.db"), "login", *AWKWARD,
                   options=("--env", "HOME=/tmp", "--env", "DCPI_TEST=a=b")).stdout
    same("login", got, want)


def dcpi_json(*args):
    done = subprocess.run([DCPI, *args, "--json"], capture_output=True, text=True, timeout=60)
    expect(done.returncode == 0, f"dcpi {' '.join(args)}: {done.stderr[-300:]}")
    return json.loads(done.stdout or "{}")


def case_tidprof(tmp):
    db = os.path.join(tmp, "tp.db")
    done = dcpi_run(db, "tidprof", "--fork")
    out = done.stdout

    def fixed(text):  # the lines whose numbers do not depend on the run
        return "".join(l for l in text.splitlines(True) if not l.startswith(("tid ", "child ")))
    same("tidprof (fixed lines)", fixed(out), fixed(oracle("tidprof")))
    main = re.search(r"^tid main (\d+) pid (\d+)$", out, re.M)
    expect(main and main.group(1) == main.group(2), "the main thread's tid is the pid")
    pid = int(main.group(2)) if main else -1
    expect("tid other-setname No such file or directory" in out and
           "no /proc/self/task here" in done.stderr,
           "naming another thread (/proc/self/task/TID/comm) is refused and named: " +
           done.stderr[-300:])
    printed = {int(t): name for _, t, name in re.findall(r"^tid (\d) (\d+) (\S+)$", out, re.M)}
    expect(len(printed) == 4, f"four threads printed their tids: {printed}")
    rows = dcpi_json("prof", "--db", db, "--by", "tid").get("rows", [])
    samples = {r["tid"]: r for r in rows if r.get("pid") == pid}
    for tid, name in printed.items():
        row = samples.get(tid)
        expect(row is not None and row["samples"] > 0, f"thread {tid} ({name}) has samples")
        expect(row is not None and row.get("thread") == name,
               f"thread {tid} is named {name} in prof --by tid: {row}")
    by_id = sorted(printed.items(), key=lambda item: item[1])  # cruncher-1 .. cruncher-4
    counts = [samples.get(tid, {}).get("samples", 0) for tid, _ in by_id]
    if CPUS == 1:  # samples count this CPU's instructions: 1x, 2x, 3x, 4x the work
        expect(counts[3] > 2 * counts[0], f"cruncher-4 did 4x cruncher-1's work: {counts}")
    elif CPUS >= 4:  # icount's one clock for all CPUs: a cruncher's samples count the
        # virtual time it ran, alone on its CPU (its lifetime in the process
        # table), not its work: QEMU's round-robin shares the clock unevenly,
        # so 2x the work can take less time (seen: [884, 882, 1323, 1529]).
        prof = dcpi_json("prof", "--db", db, "--by", "tid")
        period = prof["estimated_totals"]["cycles"] / prof["totals"]["cycles"]
        table = (dcpi_json("procs", "--db", db).get("epochs") or [{}])[-1]
        lifetimes = {t["tid"]: t["end"] - t["start"] for t in table.get("threads", [])}
        for (tid, name), count in zip(by_id, counts):
            ran = lifetimes.get(tid, 0) / period  # samples its lifetime stands for
            expect(ran > 0 and 0.8 <= count / ran <= 1.15,
                   f"{name}'s samples, {count}, are its lifetime's {ran:.0f} periods "
                   "within -20..+15 % (a sample taken late at the end of a turn counts short)")
    # The process table against the program's own view of its child.
    child = re.search(r"^child (\d+) exit (\d+)$", out, re.M)
    expect(child and child.group(2) == "7", f"the child exited 7: {child and child.group(0)}")
    epochs = dcpi_json("procs", "--db", db).get("epochs", [])
    expect(epochs and epochs[-1]["has_table"], "the database holds a process table")
    table = epochs[-1] if epochs else {"processes": [], "threads": []}
    processes = {p["pid"]: p for p in table["processes"]}
    parent = processes.get(pid, {})
    expect(parent.get("program", "").endswith("/tidprof") and parent.get("wait_status") == 0,
           f"the program's process: {parent}")
    kid = processes.get(int(child.group(1)) if child else -1, {})
    expect(kid.get("parent") == pid and kid.get("wait_status") == 7 << 8 and
           kid.get("argv0") == "tidprof-child" and kid.get("program") == parent.get("program")
           and kid.get("end", 0) > kid.get("start", 0),
           f"the child's parent, exit status, argv[0], program and times: {kid}")
    threads = {t["tid"]: t for t in table["threads"] if t["pid"] == pid}
    expect(sorted(threads) == sorted([pid, *printed]) and
           all(threads[t]["name"] == name for t, name in printed.items()),
           f"the process's threads and their names: {threads}")


def case_openmp(tmp):
    db = os.path.join(tmp, "omp.db")
    out = dcpi_run(db, "openmp").stdout

    def fixed(text):
        return "".join(l for l in text.splitlines(True) if not l.startswith("tid "))
    same("openmp (fixed lines)", fixed(out), fixed(oracle("openmp")))
    team = [int(t) for t in re.findall(r"^tid \d (\d+)$", out, re.M)]
    expect(len(team) == 4, f"a team of 4 printed its tids: {team}")
    rows = dcpi_json("prof", "--db", db, "--by", "tid,cpu").get("rows", [])
    samples = {}
    cpus = set()
    for row in rows:
        if row.get("tid") in team:
            samples[row["tid"]] = samples.get(row["tid"], 0) + row["samples"]
            cpus.add(row["cpu"])
    expect(all(samples.get(t, 0) > 0 for t in team), f"every team member has samples: {samples}")
    expect(len(cpus) == CPUS, f"the team's samples come from all {CPUS} CPUs: {sorted(cpus)}")


def case_dirs(tmp):
    same("dirs", dcpi_run(os.path.join(tmp, "d.db"), "dirs").stdout, oracle("dirs"))
    # The initrd's directories are a lower layer: EXDEV, as overlayfs answers
    # (the guest only: qemu-alpha has no initrd).
    done = dcpi_run(os.path.join(tmp, "di.db"), "dirs", "--initrd")
    expect(done.stdout == "rename lib: EXDEV\nrename a directory over lib: ENOTEMPTY\n"
                          "ls lib2: ENOENT\nrmdir data: ok\nmkdir data: ok\n"
                          "rename data data2: ok\nstat data: ENOENT\nls data2:\n",
           f"dirs --initrd: {done.stdout!r}")


def case_filestate(tmp):
    same("filestate", dcpi_run(os.path.join(tmp, "fs.db"), "filestate").stdout,
         oracle("filestate"))


def case_links(tmp):
    same("links", dcpi_run(os.path.join(tmp, "ln.db"), "links").stdout, oracle("links"))


def case_signalfd(tmp):
    same("signalfd", dcpi_run(os.path.join(tmp, "sf.db"), "signalfd").stdout, oracle("signalfd"))


def case_opath(tmp):
    same("opath", dcpi_run(os.path.join(tmp, "op.db"), "opath").stdout, oracle("opath"))


def case_copy_calls(tmp):
    same("copy_calls", dcpi_run(os.path.join(tmp, "cc.db"), "copy_calls").stdout,
         oracle("copy_calls"))


def to_file(tmp, name, run):
    """What `run(stdout)` writes with its stdout a file."""
    path = os.path.join(tmp, name)
    with open(path, "w") as out:
        run(out)
    with open(path) as written:
        return written.read()


def to_terminal(run):
    """What `run(stdout)` writes with its stdout a pseudo-terminal (its
    output processing off, so newlines stay newlines)."""
    master, slave = pty.openpty()
    modes = termios.tcgetattr(slave)
    modes[1] &= ~termios.OPOST
    termios.tcsetattr(slave, termios.TCSANOW, modes)
    chunks = []

    def drain():  # the terminal's buffer is small: read while the run writes
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: every writer closed the terminal
                return
            if not chunk:
                return
            chunks.append(chunk)
    reader = threading.Thread(target=drain)
    reader.start()
    try:
        run(slave)
    finally:
        os.close(slave)
        reader.join(timeout=30)
        os.close(master)
    return b"".join(chunks).decode()


def case_buffering(tmp):
    """The guest's isatty() follows dcpi run's stdout: to a file, stdio buffers
    fully and a line printed before fork comes out twice, as under Linux; to
    a terminal, once."""
    want = to_file(tmp, "qemu.txt", lambda out: oracle("buffering", stdout=out))
    got = to_file(tmp, "dcpi.txt", lambda out: dcpi_run(os.path.join(tmp, "bf.db"), "buffering",
                                                        stdout=out))
    same("buffering > file", got, want)
    expect(want.count("before the fork") == 2 and "stdout is a terminal: no" in want,
           f"redirected, the line before fork is printed by both processes: {want!r}")
    want = to_terminal(lambda out: oracle("buffering", stdout=out))
    got = to_terminal(lambda out: dcpi_run(os.path.join(tmp, "bt.db"), "buffering", stdout=out))
    same("buffering on a terminal", got, want)
    expect(want.count("before the fork") == 1 and "stdout is a terminal: yes" in want,
           f"on a terminal, the line before fork is printed once: {want!r}")


def case_stderr_split(tmp):
    """The program's stdout to dcpi run's stdout, its stderr to dcpi's stderr
    (only dcpi's summary beside it under --quiet), each equal to qemu-alpha's; a stream
    is a terminal to the program when dcpi's is."""
    def oracle_streams(stderr):
        with tempfile.TemporaryDirectory() as cwd:
            return subprocess.run(["qemu-alpha", "-L", SYSROOT,
                                   os.path.join(LINUX, "stderr_split")],
                                  stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=120,
                                  cwd=cwd, stdin=subprocess.DEVNULL)

    def dcpi_streams(db, stderr):
        return subprocess.run([DCPI, "run", "--quiet", "--cpus", str(CPUS), "--db", db,
                               "--timeout", "240", "--", os.path.join(LINUX, "stderr_split")],
                              stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=280,
                              stdin=subprocess.DEVNULL)
    want = oracle_streams(subprocess.PIPE)
    got = dcpi_streams(os.path.join(tmp, "q.db"), subprocess.PIPE)
    expect(got.returncode == 0 and want.returncode == 0,
           f"exit 0 under both (dcpi {got.returncode}, qemu-alpha {want.returncode})")
    same("stderr_split's stdout", got.stdout, want.stdout)
    # --quiet keeps dcpi's own summary lines (they may follow the program's
    # unfinished last line, as perf's would on a terminal).
    same("stderr_split's stderr (dcpi run --quiet)",
         re.sub(r"dcpi run: [^\n]*\n", "", got.stderr), want.stderr)
    expect("err:" in want.stderr and "err:" not in want.stdout and
           "out: stderr after dup2(1, 2)" in want.stdout,
           f"the oracle has the two streams apart: {want.stderr!r}")
    done = dcpi_run(os.path.join(tmp, "s.db"), "stderr_split")  # dcpi's own lines too
    same("stderr_split's stdout beside dcpi's messages", done.stdout, want.stdout)
    expect("err: from the child\n" in done.stderr and "init:" not in done.stdout,
           f"the program's stderr among the system's lines: {done.stderr[-600:]!r}")
    master, slave = pty.openpty()  # stderr a terminal, stdout a pipe
    try:
        want = oracle_streams(slave)
        got = dcpi_streams(os.path.join(tmp, "t.db"), slave)
    finally:
        os.close(slave)
        os.close(master)
    same("stderr_split with stderr a terminal", got.stdout, want.stdout)
    expect("stdout 0 stderr 1" in want.stdout, f"qemu-alpha saw the terminal: {want.stdout[:60]!r}")


def case_overcommit(tmp):
    """More than the machine's RAM and swap is refused at mmap/malloc, as
    Linux's heuristic overcommit does (the machine is the guest's, or
    qemu-alpha's host: twice its own either way); MAP_NORESERVE and
    read-only mappings are not counted."""
    done = dcpi_run(os.path.join(tmp, "oc.db"), "overcommit")
    same("overcommit", done.stdout, oracle("overcommit"))


def case_shell(tmp):
    """system() and popen() run /bin/sh: dash in the guest, under qemu-alpha
    the host's dash of the same Debian version (its execve is the host's)."""
    dash = os.path.join(BUILD, "mixes", "real", "bin", "dash")
    if not os.path.exists(dash):
        print(f"SKIPPED: no {dash} (the real mix is not built): no /bin/sh in the guest")
        return
    done = dcpi_run(os.path.join(tmp, "sh.db"), "shell")
    same("shell", done.stdout, oracle("shell"))
    expect("dcpi run: no /bin/sh" not in done.stderr, "dcpi run provided /bin/sh")
    # Every sh started was a process with its program in the table.
    table = dcpi_json("procs", "--db", os.path.join(tmp, "sh.db")).get("epochs", [{}])[-1]
    shells = [p for p in table.get("processes", []) if p.get("program") == "/bin/sh"]
    expect(len(shells) >= 8, f"the table has each /bin/sh (system and popen): {len(shells)}")
    killed = [p for p in shells if p.get("wait_status") == 9]
    expect(len(killed) == 1, f"one sh was killed by SIGKILL (kill -9 $$): {killed}")
    # A build without the real mix has no dash: dcpi run says so before it
    # boots, and system() finds no shell (127), popen fails.
    bare = os.path.join(tmp, "bare-build")
    os.makedirs(bare)
    os.symlink(os.path.join(os.path.abspath(BUILD), "guest"), os.path.join(bare, "guest"))
    done = dcpi_run(os.path.join(tmp, "nosh.db"), "shell", options=("--build", bare))
    expect("dcpi run: no /bin/sh in the guest" in done.stderr,
           "without dash, dcpi run says there is no /bin/sh: " + done.stderr[:300])
    expect("system(NULL): no shell\nsystem echo: exit 127\n" in done.stdout and
           "popen r: " in done.stdout and "popen w: " in done.stdout,
           f"without /bin/sh system() returns 127 and popen fails: {done.stdout[:400]!r}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        cases = {"threads": case_threads, "stacks": case_stacks, "signals": case_signals,
                 "procs": case_procs,
                 "pipes": case_pipes, "files": case_files, "stress": case_stress,
                 "exits": case_exits,
                 "tidprof": case_tidprof, "openmp": case_openmp, "dirs": case_dirs, "filestate": case_filestate,
                 "shell": case_shell, "timers": case_timers, "posix_timers": case_posix_timers,
                 "shared": case_shared,
                 "affinity": case_affinity, "limits": case_limits, "login": case_login,
                 "events": case_events, "sockets": case_sockets,
                 "stream_sockets": case_stream_sockets,
                 "procfs": case_procfs, "cxxfs": case_cxxfs, "links": case_links,
                 "buffering": case_buffering, "signalfd": case_signalfd, "opath": case_opath,
                 "copy_calls": case_copy_calls,
                 "fpieee": case_fpieee, "poll_advice": case_poll_advice,
                 "pgroups": case_pgroups, "altstack": case_altstack,
                 "job_control": case_job_control,
                 "utf8_locale": case_utf8_locale, "ucontext": case_ucontext,
                 "stderr_split": case_stderr_split, "overcommit": case_overcommit}
        cases[CASE](tmp)
    sys.exit(CHECKS.exit_code())


if __name__ == "__main__":
    main()
