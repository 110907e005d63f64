// contexts: a QEMU TCG plugin that builds the exact calling context tree of
// every thread the guest runs (seed 002 §3), with no instrumentation of the
// guest and no effect on its clock (it only adds host-side callbacks).
// `dcpi run --contexts` loads it on the `qemu` machine; on `ev5` the model
// plugin builds the same trees with its cycles and events (contexts=PATH,
// ev5/context_metrics.h). Standalone:
//   qemu-system-alpha … -plugin file=libdcpi_contexts.so,out=PATH[,paths=PATH2][,machine=ev5]
// At exit it writes PATH (firmware/contexts_format.h, raw guest PCs); with
// paths=PATH2 also the path profiles (firmware/paths_format.h), one cycle
// per instruction (and only those, without out=).
//
// Threads: the kernel switches with CALL_PAL swpctx, a0 = the next PCB, whose
// Process holds the pid at DCPI_PCB_PID_OFFSET; each vCPU charges the thread
// it last switched to (before its first switch, a boot context of its own).
// Modes: KSEG PCs are the kernel's or PALcode's (firmware/memory_map.h).
#include <glib.h>

#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "firmware/memory_map.h"
#include "firmware/pal_abi.h"
#include "isa/decode.h"
#include "qemu/machine/plugins/contexts/contexts_file_writer.h"
#include "qemu/machine/plugins/contexts/path_follower.h"
#include "qemu/machine/plugins/contexts/paths_file_writer.h"
#include "qemu/machine/plugins/contexts/thread_contexts.h"
#include "qemu/machine/plugins/contexts/thread_table.h"
#include "qemu/machine/plugins/contexts/transfer_kind.h"
#include "qemu/machine/plugins/qemu_plugin.h"
#include "qemu/machine/plugins/swpctx_watch.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

namespace {

using dcpi::contexts::ContextThread;
using dcpi::contexts::ThreadContexts;
using Kind = dcpi::contexts::TransferKind;

// One per translated instruction: the same PC holds different code in
// different address spaces (every program starts at 0x120000000).
struct InsnInfo {
  uint64_t pc;
  Kind kind;
  bool user;
  uint64_t target = 0;  // kJump's
};

struct Vcpu {
  GByteArray* buffer = nullptr;
};

// A translated user block, for the path profiles: its first and last PC.
struct BlockInfo {
  uint64_t first, last;
};

bool read_code_word(uint64_t address, uint32_t& word);

struct State {
  explicit State(size_t vcpus) : threads(vcpus), vcpus(vcpus), follower(vcpus, read_code_word) {}
  std::string out_path = "contexts.cct";
  bool out_given = false;
  std::string paths_path;  // paths=PATH: the path profiles too (thread_paths.h)
  uint16_t machine = DCPI_CONTEXTS_MACHINE_QEMU;
  std::mutex mutex;  // translations
  std::deque<InsnInfo> insns;
  dcpi::contexts::ThreadTable threads;
  std::vector<Vcpu> vcpus;
  qemu_plugin_register* sp = nullptr;
  qemu_plugin_register* a0 = nullptr;
  std::deque<BlockInfo> blocks;  // under mutex; callbacks hold them
  dcpi::contexts::PathFollower follower;
};

State* state = nullptr;

// Alpha has no gdb XML, so QEMU 10.0's qemu_plugin_get_registers() lists
// nothing; its handles are the gdb register number + 1 (plugins/api.c), and
// gdb's Alpha numbering is r0-r31 first. A handle named r30/sp, when some
// QEMU does list one, is preferred.
qemu_plugin_register* register_handle(const char* name, const char* alias, int number) {
  GArray* registers = qemu_plugin_get_registers();
  qemu_plugin_register* found = nullptr;
  for (guint i = 0; registers && i < registers->len; ++i) {
    const auto& d = g_array_index(registers, qemu_plugin_reg_descriptor, i);
    if (std::strcmp(d.name, name) == 0 || std::strcmp(d.name, alias) == 0) found = d.handle;
  }
  if (registers) g_array_free(registers, true);
  return found ? found : reinterpret_cast<qemu_plugin_register*>(static_cast<intptr_t>(number + 1));
}

uint64_t read_register(Vcpu& vcpu, qemu_plugin_register* handle) {
  g_byte_array_set_size(vcpu.buffer, 0);
  if (qemu_plugin_read_register(handle, vcpu.buffer) < 8) return 0;
  uint64_t value = 0;
  std::memcpy(&value, vcpu.buffer->data, sizeof value);
  return value;
}

// On `qemu` a cycle is an instruction. The ev5 machine books its own
// cycles and events into the same trees (ev5/context_metrics.h: dcpi run
// loads this plugin on `qemu` only); here they would be 0.
void charge(ContextThread& thread, const InsnInfo& info) {
  const uint64_t cycles = state->machine == DCPI_CONTEXTS_MACHINE_QEMU ? 1 : 0;
  if (!info.user) return thread.tree.kernel_instruction(cycles);
  thread.tree.user_instruction(info.pc, cycles);
  if (state->paths_path.empty()) return;
  state->follower.instruction(thread, info.pc);
  dcpi::contexts::PathCosts& path = thread.paths.current();
  ++path.instructions;
  path.cycles += cycles;
  thread.paths.ran(info.pc);
}

// A word of the running vCPU's code (the path profiles' back edges,
// procedure_loops.h).
bool read_code_word(uint64_t address, uint32_t& word) {
  thread_local GByteArray* buffer = g_byte_array_new();
  g_byte_array_set_size(buffer, 0);
  if (!qemu_plugin_read_memory_vaddr(address, buffer, sizeof word) || buffer->len < sizeof word)
    return false;
  std::memcpy(&word, buffer->data, sizeof word);
  return true;
}

// A user block's head: a pending call or return resolves here (as the
// first instruction would resolve it), then the paths follow.
void on_user_block(unsigned int index, void* userdata) {
  ContextThread* thread = state->threads.current(index);
  if (!thread) return;
  const auto& block = *static_cast<const BlockInfo*>(userdata);
  thread->tree.user_block(block.first);
  state->follower.block_head(index, *thread, block.first, block.first);
}

void on_plain(unsigned int index, void* userdata) {
  if (ContextThread* thread = state->threads.current(index))
    charge(*thread, *static_cast<const InsnInfo*>(userdata));
}

// The swpctx itself is the old thread's; what follows is the new one's.
void switch_thread(unsigned int index, Vcpu& vcpu) {
  const uint64_t pcb = read_register(vcpu, state->a0);
  const auto pid = dcpi::plugins::pcb_field<uint32_t>(pcb, DCPI_PCB_PID_OFFSET, vcpu.buffer);
  const auto tgid = dcpi::plugins::pcb_field<uint32_t>(pcb, DCPI_PCB_TGID_OFFSET, vcpu.buffer);
  // Its page-table base: the code the paths read is that space's.
  const auto ptbr = dcpi::plugins::pcb_field<uint64_t>(pcb, DCPI_PCB_PTBR_OFFSET, vcpu.buffer);
  state->threads.switch_to(index, pid, tgid, pcb, ptbr);
}

void on_control(unsigned int index, void* userdata) {
  ContextThread* thread = state->threads.current(index);
  if (!thread) return;
  Vcpu& vcpu = state->vcpus[index];
  const auto& info = *static_cast<const InsnInfo*>(userdata);
  charge(*thread, info);
  if (info.kind == Kind::kSwitch) return switch_thread(index, vcpu);
  const uint64_t sp = read_register(vcpu, state->sp);
  ThreadContexts& tree = thread->tree;
  if (info.kind == Kind::kCall) tree.call(info.pc, sp);
  if (info.kind == Kind::kReturn) tree.ret(sp);
  if (info.kind == Kind::kCoroutine) tree.coroutine(info.pc, sp);
  // The target's code is read each time (its page may be mapped later),
  // and only for jumps made with the frame freed (transfer_kind.h).
  if (info.kind == Kind::kJump && tree.at_frame_sp(sp) &&
      dcpi::contexts::lands_on_tail_call_target(info.target, read_code_word))
    tree.tail_jump(sp);
}

void on_translation(qemu_plugin_id_t, struct qemu_plugin_tb* tb) {
  const size_t n = qemu_plugin_tb_n_insns(tb);
  std::lock_guard<std::mutex> lock(state->mutex);
  const uint64_t first = qemu_plugin_tb_vaddr(tb);
  if (!state->paths_path.empty() && n && !dcpi::is_kseg_address(first)) {
    BlockInfo& block = state->blocks.emplace_back(BlockInfo{first, first + 4 * (n - 1)});
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_user_block, QEMU_PLUGIN_CB_NO_REGS, &block);
  }
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    uint32_t word = 0;
    qemu_plugin_insn_data(insn, &word, sizeof word);
    const uint64_t pc = qemu_plugin_insn_vaddr(insn);
    const bool user = !dcpi::is_kseg_address(pc);
    InsnInfo& info =
        state->insns.emplace_back(InsnInfo{pc, dcpi::contexts::transfer_kind(word, user), user,
                                           dcpi::contexts::jump_target(pc, word)});
    if (info.kind == Kind::kPlain)
      qemu_plugin_register_vcpu_insn_exec_cb(insn, on_plain, QEMU_PLUGIN_CB_NO_REGS, &info);
    else
      qemu_plugin_register_vcpu_insn_exec_cb(insn, on_control, QEMU_PLUGIN_CB_R_REGS, &info);
  }
}

void on_vcpu_init(qemu_plugin_id_t, unsigned int index) {
  std::lock_guard<std::mutex> lock(state->mutex);
  if (!state->sp) state->sp = register_handle("r30", "sp", 30);
  if (!state->a0) state->a0 = register_handle("r16", "a0", 16);
  if (index < state->vcpus.size() && !state->vcpus[index].buffer)
    state->vcpus[index].buffer = g_byte_array_sized_new(16);
}

void on_exit(qemu_plugin_id_t, void*) {
  const bool contexts = state->out_given || state->paths_path.empty();
  if (contexts && !dcpi::contexts::write_contexts_file(state->out_path, state->machine,
                                                       state->threads.entries())) {
    const std::string message = "contexts: cannot write " + state->out_path + "\n";
    qemu_plugin_outs(message.c_str());
  }
  if (state->paths_path.empty()) return;
  state->threads.finish_paths();
  if (!dcpi::contexts::write_paths_file(state->paths_path, state->machine,
                                        state->threads.entries())) {
    const std::string message = "contexts: cannot write " + state->paths_path + "\n";
    qemu_plugin_outs(message.c_str());
  }
}

}  // namespace

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                           char** argv) {
  const int vcpus = info->system_emulation ? std::max(info->system.max_vcpus, 1) : 1;
  state = new State(static_cast<size_t>(vcpus));  // lives until QEMU exits
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "out=", 4) == 0) {
      state->out_path = argv[i] + 4;
      state->out_given = true;
    } else if (std::strncmp(argv[i], "paths=", 6) == 0) {
      state->paths_path = argv[i] + 6;
    } else if (std::strcmp(argv[i], "machine=ev5") == 0) {
      state->machine = DCPI_CONTEXTS_MACHINE_EV5;
    } else if (std::strcmp(argv[i], "machine=qemu") != 0) {
      const std::string message = std::string("contexts: unknown argument ") + argv[i] + "\n";
      qemu_plugin_outs(message.c_str());
      return -1;
    }
  }
  qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translation);
  qemu_plugin_register_atexit_cb(id, on_exit, nullptr);
  return 0;
}
