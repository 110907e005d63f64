// What spawn (kernel/process.cpp), clone (kernel/clone.cpp) and execve
// (kernel/exec.cpp) share to build a process: slots, kernel stacks, the
// program image and the initial user stack. Kernel-internal.
#pragma once
#include <cstdint>

#include "firmware/load_map.h"
#include "kernel/elf_loader.h"
#include "kernel/process.h"

namespace kernel::build {

inline constexpr uint64_t kSwitchFrameBytes = 64;  // kernel/switch.S
inline constexpr uint64_t kMaxArgs = 64, kMaxEnv = 64;

// A free slot with a kernel stack, marked blocked (not yet runnable).
Process* allocate_slot();
// Frees the slot's stack and drops its parts (with sched::lock held).
void release_slot(Process* p);
uint64_t stack_top(const Process* p);
// A switch frame (s0-s6, ra) at `at`: the thread starts in `start`.
void build_switch_frame(Process* p, uint64_t at, void (*start)(), uint64_t s0, uint64_t s1);
// The next pid (never reused).
uint32_t next_pid_locked();

// A program loaded into `mm`, ready to start: entry, initial sp and what
// the load map says about it.
struct Image {
  LoadedImage program, interpreter;
  bool dynamic;
  uint64_t entry, usp;
};
// Loads `path` (found in the initrd as `file`), maps its stack and builds
// the initial stack with argv and envp. 0 or a positive errno; the console
// says why a program cannot run.
int load_image(Mm* mm, const char* path, const char* const* argv, uint64_t argc,
               const char* const* envp, uint64_t envc, Image* image);
// The trap frame at the top of p's kernel stack that "returns" to `entry`
// in user mode, and the switch frame below it.
void start_in_user_mode(Process* p, uint64_t entry);

// The parent blocked in vfork until this child execs or exits goes on
// (kernel/clone.cpp).
void release_vfork_parent(Process* child);

void append_image_record(dcpi::LoadKind kind, uint32_t pid, uint32_t parent,
                         const LoadedImage& image, const char* path);

}  // namespace kernel::build
