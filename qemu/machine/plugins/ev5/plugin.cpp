// libdcpi_ev5.so: QEMU TCG plugin that runs the guest on 21164 time (issue
// 14; docs/ev5-machine.md). Usage, under -icount shift=2,sleep=off:
//   qemu-system-alpha ... -plugin file=libdcpi_ev5.so,out=PATH[,tuning=N...]
//
// At translation each block gets its static timing (block_timing.h) and
// only the callbacks where something dynamic happens: block entry (I-cache,
// ITB, branch outcome of the previous block), memory accesses, the first
// reader of a loaded register (a conditional callback: only while a load is
// outstanding) and the first multiply/divide. Every instruction whose cost is
// not one cycle, or that may stall, gets an icount charge of its static cost
// - 1 (at an issue group's first instruction, less the units of the others)
// plus the per-vCPU `stall` word the callbacks fill.
//
// Exact exits (docs/ev5-machine.md): a charge that runs into a timer
// deadline leaves `stall` non-zero and the vCPU leaves the block before the
// charged instruction. The next block entry sees it, finds the instruction
// in `last_charged`, and tells the model (VcpuModel::aborted), which neither
// re-models nor re-counts its re-run.

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "firmware/ev5_counters.h"
#include "firmware/memory_map.h"
#include "firmware/pal_abi.h"
#include "firmware/profileme.h"
#include "isa/decode.h"
#include "qemu/machine/plugins/contexts/transfer_kind.h"
#include "qemu/machine/plugins/ev5/block_record.h"
#include "qemu/machine/plugins/ev5/coherence.h"
#include "qemu/machine/plugins/ev5/context_metrics.h"
#include "qemu/machine/plugins/ev5/machine_options.h"
#include "qemu/machine/plugins/ev5/truth_file.h"
#include "qemu/machine/plugins/ev5/vcpu_model.h"
#include "qemu/machine/plugins/qemu_plugin.h"
#include "qemu/machine/plugins/swpctx_watch.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

namespace {

using dcpi::ev5::BlockRecord;
using dcpi::ev5::InstructionRef;

// Per-vCPU words that inline operations and charges read and write.
struct ChargeWords {
  uint64_t stall;         // cycles for the next charge with an entry; 0 after it
  uint64_t last_charged;  // InstructionRef* of the last charge that could be positive
  uint64_t pending;       // non-zero while a load is outstanding (gates operand callbacks)
  uint64_t fetching;      // non-zero while a later line of the block missed (line callbacks)
  uint64_t forced;        // non-zero: the next charge delivers a counter interrupt
};

struct State {
  dcpi::ev5::PluginOptions options;
  dcpi::ev5::BlockTable blocks;
  std::vector<std::unique_ptr<dcpi::ev5::VcpuModel>> vcpus;
  qemu_plugin_scoreboard* words = nullptr;
  std::vector<ChargeWords*> words_of;  // per vCPU, into `words`
  qemu_plugin_u64 stall{}, last_charged{}, pending{}, fetching{};
  // Our patched QEMU (charges, step blocks, access charges) under -icount.
  bool charging = false;
  // ... that also delivers the model's counter interrupts (issue 26).
  bool interrupts = false;
  qemu_plugin_register* a0 = nullptr;
  qemu_plugin_register* a1 = nullptr;
  bool probed = false;
  // The CPUs' caches kept coherent (coherence.h), with more than one CPU.
  dcpi::ev5::Coherence coherence;
  // Round-robin icount's one virtual clock: every CPU's modelled cycles.
  std::atomic<uint64_t> clock{0};
  // Address spaces by page-table base, numbered from 1 as ASNs (0: boot).
  std::mutex spaces_lock;
  std::unordered_map<uint64_t, uint32_t> spaces;
  // The truth's address spaces (qemu/machine/truth/truth_space.h).
  dcpi::truth::TruthSpaces truth_spaces;
  GByteArray* pid_buffer = nullptr;  // under spaces_lock
  // dcpi run --contexts (contexts=PATH) and --paths (paths=PATH): the
  // calling contexts and path profiles with the model's metrics, and the
  // user calls and returns they follow.
  std::unique_ptr<dcpi::ev5::ContextMetrics> contexts;
  struct Transfer {
    uint64_t pc;
    dcpi::contexts::TransferKind kind;
    uint64_t target;  // kJump's
  };
  std::deque<Transfer> transfers;  // under spaces_lock; never shrinks (callbacks hold them)
};

State* state = nullptr;

// The scoreboard moves only when QEMU adds a vCPU (on_vcpu_init forgets the
// cached pointers then).
ChargeWords& words_of(unsigned int vcpu) {
  ChargeWords*& words = state->words_of[vcpu];
  if (!words) words = static_cast<ChargeWords*>(qemu_plugin_scoreboard_find(state->words, vcpu));
  return *words;
}

void on_vcpu_init(qemu_plugin_id_t, unsigned int) {
  std::fill(state->words_of.begin(), state->words_of.end(), nullptr);
}

// A counter the model just made overflow interrupts at the charge of the
// instruction it was counting for: the patch ends that charge as a deadline
// would (an exact exit, which `forced` lets the next entry recognise even
// when nothing was charged) and raises the interrupt (docs/ev5-machine.md
// "Event counters").
// With a skid (counter_skid=N) the interrupt comes N cycles after the
// event's instruction issues, at whatever instruction runs then, as the
// 21164's does (the patch's deadline of the vCPU's own, no forced exit here).
[[gnu::noinline]] void deliver_raised_overflow(ChargeWords& words, dcpi::ev5::VcpuModel& model) {
  const uint64_t bits = model.take_overflow();
  if (!bits || !state->interrupts) return;
  const uint32_t skid = state->options.machine.counter_skid;
  if (skid != 0 && &qemu_plugin_icount_interrupt_after != nullptr) {
    qemu_plugin_icount_interrupt_after(bits, skid);
    return;
  }
  if (qemu_plugin_icount_interrupt_at_charge(bits)) words.forced = 1;
}

// After every callback: almost always nothing raised, a test without a call.
void deliver_overflow(ChargeWords& words, dcpi::ev5::VcpuModel& model) {
  if (model.overflow_raised()) deliver_raised_overflow(words, model);
}

void enter(unsigned int vcpu, BlockRecord& block, bool step) {
  ChargeWords& words = words_of(vcpu);
  dcpi::ev5::VcpuModel& model = *state->vcpus[vcpu];
  if (state->charging && (words.stall != 0 || words.forced != 0) && words.last_charged != 0) {
    const auto* ref = reinterpret_cast<const InstructionRef*>(words.last_charged);
    model.aborted(*ref->block, ref->index, ref->step, ref->access);
    if (state->contexts)
      state->contexts->stopped_before(vcpu, ref->block->timing.instructions[ref->index].pc);
  }
  words.forced = 0;
  // A pending call or return is resolved at this head before the model books it.
  if (state->contexts) state->contexts->block_head(vcpu, block);
  words.stall = state->charging ? model.enter(block, step) : (model.enter(block, step), 0);
  words.pending = model.pending_loads();
  words.fetching = model.fetch_pending();
  deliver_overflow(words, model);
}

// An instruction raised an exception inside its block, from a helper or
// its access (an arithmetic trap, a memory fault: plugin-trap-insn.patch),
// before the CPU enters PALcode's vector: the block was left after it.
void on_trap(unsigned int vcpu, uint64_t vaddr) {
  if (vcpu >= state->vcpus.size()) return;
  const uint64_t cut_before = state->vcpus[vcpu]->raised(vaddr);
  if (state->contexts && cut_before != 0) state->contexts->stopped_before(vcpu, cut_before);
}

void on_block_entry(unsigned int vcpu, void* userdata) {
  if (vcpu < state->vcpus.size()) enter(vcpu, *static_cast<BlockRecord*>(userdata), false);
}

void on_step_block_entry(unsigned int vcpu, void* userdata) {
  if (vcpu < state->vcpus.size()) enter(vcpu, *static_cast<BlockRecord*>(userdata), true);
}

void deposit(ChargeWords& words, uint64_t cycles, dcpi::ev5::VcpuModel& model) {
  if (state->charging) words.stall += cycles;
  words.pending = model.pending_loads();
  words.fetching = model.fetch_pending();
  deliver_overflow(words, model);
}

// Before the access (the patch's access charge): its DTB miss and a full
// write buffer are charged at the load or store itself, which is where the
// 21164 takes them. Without charging (the truth alone), after the access.
// Registered for loads or for stores only (register_access), so the
// direction is the registration's: no call into QEMU to ask it per access.
template <bool kStore>
void on_memory(unsigned int vcpu, qemu_plugin_meminfo_t, uint64_t vaddr, void* userdata) {
  if (vcpu >= state->vcpus.size()) return;
  const auto* ref = static_cast<const InstructionRef*>(userdata);
  dcpi::ev5::VcpuModel& model = *state->vcpus[vcpu];
  ChargeWords& words = words_of(vcpu);
  if (ref->access) words.last_charged = reinterpret_cast<uint64_t>(ref);
  // Caches are looked up by virtual address: asking QEMU for the physical
  // one costs a TLB walk per access (docs/ev5-machine.md).
  const uint64_t cycles = model.memory_access(*ref->block, ref->index, vaddr, ~0ull, kStore);
  // deposit() without the words an access cannot change: no access touches
  // the fetch of later lines, and a store starts no load (issue 31).
  if (state->charging) words.stall += cycles;
  if (!kStore) words.pending = model.pending_loads();
  deliver_overflow(words, model);
}

void on_operands(unsigned int vcpu, void* userdata) {
  if (vcpu >= state->vcpus.size()) return;
  const auto* ref = static_cast<const InstructionRef*>(userdata);
  dcpi::ev5::VcpuModel& model = *state->vcpus[vcpu];
  deposit(words_of(vcpu), model.operands_ready(*ref->block, ref->index), model);
}

// A word of the running vCPU's code, for the path profiles' back edges
// (contexts/procedure_loops.h).
bool read_code_word(uint64_t address, uint32_t& word) {
  thread_local GByteArray* buffer = g_byte_array_new();
  g_byte_array_set_size(buffer, 0);
  if (!qemu_plugin_read_memory_vaddr(address, buffer, sizeof word) || buffer->len < sizeof word)
    return false;
  std::memcpy(&word, buffer->data, sizeof word);
  return true;
}

// The contexts follow threads (a thread's own pid, as the contexts plugin
// reads it at swpctx), the truth address spaces (its process's). Under
// spaces_lock (pid_buffer).
void switch_context_thread(unsigned int vcpu, uint64_t pcb, uint64_t ptbr) {
  const auto thread =
      dcpi::plugins::pcb_field<uint32_t>(pcb, DCPI_PCB_PID_OFFSET, state->pid_buffer);
  const auto process =
      dcpi::plugins::pcb_field<uint32_t>(pcb, DCPI_PCB_TGID_OFFSET, state->pid_buffer);
  state->contexts->switch_thread(vcpu, thread, process, pcb, ptbr);
}

// PAL's swpctx loads the new page-table base from the process control block
// (pal.S: `ldq p1, 16(a0)`, OSF/1's PCB layout): the CPU changes address
// space, which the model numbers as an ASN (vcpu_model.h), and the truth
// as the process's generation (firmware/truth_format.h).
void on_page_table_base(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void*) {
  if (vcpu >= state->vcpus.size()) return;
  const qemu_plugin_mem_value value = qemu_plugin_mem_get_value(info);
  if (value.type != QEMU_PLUGIN_MEM_VALUE_U64) return;
  uint32_t number = 0, space = 0;
  {
    std::lock_guard<std::mutex> hold(state->spaces_lock);
    auto [it, added] = state->spaces.try_emplace(value.data.u64, 0);
    if (added) it->second = static_cast<uint32_t>(state->spaces.size());
    number = it->second;
    if (!state->pid_buffer) state->pid_buffer = g_byte_array_new();
    const uint32_t pid = dcpi::plugins::process_of_pcb_load(vaddr, state->pid_buffer);
    space = state->truth_spaces.switch_to(pid, value.data.u64);
    if (state->contexts) switch_context_thread(vcpu, vaddr - DCPI_PCB_PTBR_OFFSET, value.data.u64);
  }
  state->vcpus[vcpu]->switch_address_space(number & ((1u << 20) - 1));
  state->vcpus[vcpu]->switch_truth_space(space);
}

// PAL's cserve CSERVE_SLEPT stores how long the CPU slept in the kernel's
// last wtint, which QEMU runs inline (firmware/pal_abi.h PAL_WAIT_SLEPT).
void on_slept(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t, void* userdata) {
  if (vcpu >= state->vcpus.size()) return;
  const qemu_plugin_mem_value value = qemu_plugin_mem_get_value(info);
  if (value.type != QEMU_PLUGIN_MEM_VALUE_U64) return;
  const auto* ref = static_cast<const InstructionRef*>(userdata);
  // Under icount's round robin a vCPU may read the virtual clock a little
  // behind where it read it before it slept: no sleep then.
  const auto slept_ns = static_cast<int64_t>(value.data.u64);
  if (slept_ns > 0)
    state->vcpus[vcpu]->slept(*ref->block, ref->index,
                              static_cast<uint64_t>(slept_ns) / PAL_NS_PER_CYCLE);
}

// Alpha has no gdb XML: QEMU 10.0's register handles are the gdb number + 1
// (as plugins/contexts reads them); gdb's r8-r14 and r25 are PAL's shadow
// registers in PAL mode, as QEMU's own instructions see them.
qemu_plugin_register* register_handle(unsigned number) {
  return reinterpret_cast<qemu_plugin_register*>(static_cast<intptr_t>(number + 1));
}

uint64_t read_register(qemu_plugin_register* handle) {
  thread_local GByteArray* buffer = g_byte_array_new();
  g_byte_array_set_size(buffer, 0);
  if (qemu_plugin_read_register(handle, buffer) < 8) return 0;
  uint64_t value = 0;
  std::memcpy(&value, buffer->data, sizeof value);
  return value;
}

// Before an instruction that sets the IPL: PAL's hw_mtpr to PS (QEMU's IPR
// 0; the register is its rb) or the kernel's CALL_PAL swpipl, which QEMU
// runs inline (a0). userdata: the register's number.
void on_ipl_write(unsigned int vcpu, void* userdata) {
  if (vcpu >= state->vcpus.size()) return;
  const auto number = static_cast<unsigned>(reinterpret_cast<uintptr_t>(userdata));
  state->vcpus[vcpu]->set_ipl(
      static_cast<uint8_t>(read_register(register_handle(number)) & PS_IPL_MASK));
}

// The register whose value becomes the IPL at `word`, or -1.
int ipl_source(uint32_t word, bool palcode) {
  constexpr uint32_t kHwMtpr = 0x1D, kIprPs = 0, kA0 = 16;
  if (palcode)
    return (word >> 26) == kHwMtpr && (word & 0xffff) == kIprPs
               ? static_cast<int>((word >> 16) & 31)
               : -1;
  const dcpi::isa::Instruction in = dcpi::isa::decode(word);
  return in.is(dcpi::isa::Operation::kCallPal) && in.pal_function == CALL_PAL_SWPIPL ? kA0 : -1;
}

// Before the driver's reload of counter 0: rtiperf takes the period in a0,
// wrperfmon's write (a0 = PERFMON_WRITE) the counter's start value in a1
// (2^16 - period, shifted): the period a sample's weight follows
// (sample_visibility.h). ProfileMe's return (rtiperf a0 = 0) leaves
// counter 0 counting: no new count, as for wrperfmon's other functions.
void on_rtiperf(unsigned int vcpu, void*) {
  if (vcpu >= state->vcpus.size()) return;
  const uint64_t period = read_register(register_handle(16));
  if (period == 0)
    state->vcpus[vcpu]->keeps_count();
  else
    state->vcpus[vcpu]->next_period(period);
}

void on_wrperfmon_write(unsigned int vcpu, void*) {
  if (vcpu >= state->vcpus.size()) return;
  if (read_register(register_handle(16)) != PERFMON_WRITE) {
    state->vcpus[vcpu]->keeps_count();  // the event counters' functions (issue 26)
    return;
  }
  const uint64_t start = (read_register(register_handle(17)) >> PERFMON_CTR0_SHIFT) &
                         ((uint64_t{1} << PERFMON_CTR0_WIDTH) - 1);
  state->vcpus[vcpu]->next_period((uint64_t{1} << PERFMON_CTR0_WIDTH) - start);
}

// PALcode's own record of a sample (firmware/pal_abi.h PAL_COUNTER_RELOAD):
// the period it drew is in p1 ($9, the shadow register PAL mode reads).
void on_pal_reload(unsigned int vcpu, void* pc) {
  if (vcpu >= state->vcpus.size()) return;
  state->vcpus[vcpu]->reloaded_in_pal(read_register(register_handle(9)),
                                      reinterpret_cast<uintptr_t>(pc));
}

void watch_reload(qemu_plugin_tb* tb, const std::vector<uint32_t>& words) {
  const uint64_t start = qemu_plugin_tb_vaddr(tb);
  if (!state->options.sampling || start < dcpi::kKsegBase || dcpi::is_palcode_address(start))
    return;
  for (size_t i = 0; i < words.size(); ++i) {
    const dcpi::isa::Instruction in = dcpi::isa::decode(words[i]);
    if (!in.is(dcpi::isa::Operation::kCallPal)) continue;
    if (in.pal_function == CALL_PAL_RTIPERF)
      qemu_plugin_register_vcpu_insn_exec_cb(qemu_plugin_tb_get_insn(tb, i), on_rtiperf,
                                             QEMU_PLUGIN_CB_R_REGS, nullptr);
    if (in.pal_function == CALL_PAL_WRPERFMON)
      qemu_plugin_register_vcpu_insn_exec_cb(qemu_plugin_tb_get_insn(tb, i), on_wrperfmon_write,
                                             QEMU_PLUGIN_CB_R_REGS, nullptr);
  }
}

// Kernel and PAL blocks: follow the IPL (sample_visibility.h), only when
// the run samples (no other part of the model needs it).
void watch_ipl(qemu_plugin_tb* tb, const std::vector<uint32_t>& words) {
  const uint64_t start = qemu_plugin_tb_vaddr(tb);
  if (!state->options.sampling || start < dcpi::kKsegBase) return;
  const bool palcode = dcpi::is_palcode_address(start);
  for (size_t i = 0; i < words.size(); ++i) {
    const int source = ipl_source(words[i], palcode);
    if (source >= 0)
      qemu_plugin_register_vcpu_insn_exec_cb(
          qemu_plugin_tb_get_insn(tb, i), on_ipl_write, QEMU_PLUGIN_CB_R_REGS,
          reinterpret_cast<void*>(static_cast<uintptr_t>(source)));
  }
}

// ProfileMe's dedicated delivery reads Profile Registers 0, 1, 2 and 9
// with its first four mfpr's of the read word (firmware/pal_abi.h
// PAL_PROFILEME_READS): the word is set before each runs.
constexpr uint64_t kProfileMeDeliveryRegisters[] = {PROFILEME_REG_PC, PROFILEME_REG_EVENTS,
                                                    PROFILEME_REG_LATENCY, PROFILEME_REG_LATENCY2};

void on_profileme_read(unsigned int vcpu, void* userdata) {
  if (vcpu >= state->vcpus.size()) return;
  qemu_plugin_set_read_word(
      state->vcpus[vcpu]->profileme_register(reinterpret_cast<uintptr_t>(userdata)));
}

// The PAL instructions that tell the model something: swpctx's load of
// the page-table base, the wait's store of its sleep, ProfileMe's reads.
void watch_pal(qemu_plugin_tb* tb, const std::vector<uint32_t>& words, BlockRecord& block) {
  const uint64_t start = qemu_plugin_tb_vaddr(tb);
  if (!dcpi::is_palcode_address(start)) return;
  for (size_t i = 0; i < words.size(); ++i) {
    qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    if (dcpi::plugins::loads_page_table_base(words[i]))
      qemu_plugin_register_vcpu_mem_cb(insn, on_page_table_base, QEMU_PLUGIN_CB_NO_REGS,
                                       QEMU_PLUGIN_MEM_R, nullptr);
    if (start + 4 * i - dcpi::kKsegBase == PAL_WAIT_SLEPT)
      qemu_plugin_register_vcpu_mem_cb(insn, on_slept, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_W,
                                       &block.refs[i]);
    const uint64_t offset = start + 4 * i - dcpi::kKsegBase;
    if (offset == PAL_COUNTER_RELOAD && state->options.sampling)
      qemu_plugin_register_vcpu_insn_exec_cb(insn, on_pal_reload, QEMU_PLUGIN_CB_R_REGS,
                                             reinterpret_cast<void*>(start + 4 * i));
    for (size_t k = 0; k < std::size(kProfileMeDeliveryRegisters); ++k)
      if (offset == PAL_PROFILEME_READS + 4 * k)
        qemu_plugin_register_vcpu_insn_exec_cb(
            insn, on_profileme_read, QEMU_PLUGIN_CB_NO_REGS,
            reinterpret_cast<void*>(static_cast<uintptr_t>(kProfileMeDeliveryRegisters[k])));
  }
}

// wrperfmon (a0 = function, a1 = argument) as the kernel calls it: the
// model's counters 1 and 2 take the arguments for them that PALcode takes
// (firmware/ev5_counters.h); counter 0 is PALcode's own.
void on_wrperfmon(unsigned int vcpu, void*) {
  if (vcpu >= state->vcpus.size()) return;
  dcpi::ev5::PerfCounters& counters = state->vcpus[vcpu]->counters();
  const uint64_t function = read_register(state->a0), argument = read_register(state->a1);
  std::string error;
  bool ok = true;
  switch (function) {
    case PERFMON_DISABLE:
      counters.disable(argument);
      break;
    case PERFMON_ENABLE:
      counters.enable(argument);
      break;
    case PERFMON_ENABLE_CLEAR:
      counters.write(0);
      counters.enable(argument);
      state->vcpus[vcpu]->event_counters_written();
      break;
    case PERFMON_MUX:
      ok = counters.mux(argument, &error);
      break;
    case PERFMON_OPTIONS:
      ok = counters.options(argument, &error);
      break;
    case PERFMON_FREQ:
      ok = counters.frequency(argument, &error);
      break;
    case PERFMON_WRITE_EVENTS:
      counters.write(argument);
      state->vcpus[vcpu]->event_counters_written();
      break;
    case PERFMON_READ:  // PALcode ORs the word (mfpr 247) into v0 (issue 26 item 4)
      qemu_plugin_set_read_word(counters.read());
      break;
    case PERFMON_PROFILEME_ARM:  // issue 27: the Fetched Instruction Counter
      state->vcpus[vcpu]->profileme_arm(argument);
      break;
    case PERFMON_PROFILEME_READ:  // PALcode returns the word (mfpr 247) in v0
      qemu_plugin_set_read_word(state->vcpus[vcpu]->profileme_register(argument));
      break;
    default:
      break;
  }
  if (!ok)
    std::fprintf(stderr, "ev5: wrperfmon %lu %#lx refused: %s\n",
                 static_cast<unsigned long>(function), static_cast<unsigned long>(argument),
                 error.c_str());
}

// ProfileMe's return (CALL_PAL rtiperf, a0 = 0) re-arms the Fetched
// Instruction Counter with a2 when nonzero (firmware/profileme.h
// PERFMON_PROFILEME_ENTRY): the assembly record's re-arm without a
// wrperfmon of its own.
void on_profileme_return(unsigned int vcpu, void*) {
  if (vcpu >= state->vcpus.size() || read_register(state->a0) != 0) return;
  const uint64_t arm = read_register(register_handle(18));
  if (arm != 0) state->vcpus[vcpu]->profileme_arm(arm);
}

void watch_wrperfmon(qemu_plugin_tb* tb, const std::vector<uint32_t>& words) {
  if (!state->interrupts || dcpi::is_palcode_address(qemu_plugin_tb_vaddr(tb))) return;
  for (size_t i = 0; i < words.size(); ++i) {
    const dcpi::isa::Instruction in = dcpi::isa::decode(words[i]);
    if (in.operation == dcpi::isa::Operation::kCallPal && in.pal_function == CALL_PAL_WRPERFMON)
      qemu_plugin_register_vcpu_insn_exec_cb(qemu_plugin_tb_get_insn(tb, i), on_wrperfmon,
                                             QEMU_PLUGIN_CB_R_REGS, nullptr);
    if (in.operation == dcpi::isa::Operation::kCallPal && in.pal_function == CALL_PAL_RTIPERF)
      qemu_plugin_register_vcpu_insn_exec_cb(qemu_plugin_tb_get_insn(tb, i), on_profileme_return,
                                             QEMU_PLUGIN_CB_R_REGS, nullptr);
  }
}

// A user call, return or jsr_coroutine about to run: the stack pointer
// (r30) says which frames it enters or leaves.
void on_transfer(unsigned int vcpu, void* userdata) {
  if (vcpu >= state->vcpus.size()) return;
  const auto* transfer = static_cast<const State::Transfer*>(userdata);
  const uint64_t sp = read_register(register_handle(30));
  if (transfer->kind == dcpi::contexts::TransferKind::kJump) {
    // A tail call only with the frame freed and a procedure's entry as the
    // target (contexts/transfer_kind.h): the code is read only then.
    if (!state->contexts->at_frame_sp(vcpu, sp) ||
        !dcpi::contexts::lands_on_tail_call_target(transfer->target, read_code_word))
      return;
  }
  state->contexts->transfer(vcpu, transfer->kind, transfer->pc, sp);
}

// Registered after the instruction's charge: an exact exit there leaves
// before the instruction, and its transfer is seen when it runs again.
void watch_transfers(qemu_plugin_tb* tb, const std::vector<uint32_t>& words) {
  const uint64_t start = qemu_plugin_tb_vaddr(tb);
  if (!state->contexts || !dcpi::truth::is_user_pc(start)) return;
  for (size_t i = 0; i < words.size(); ++i) {
    const auto kind = dcpi::contexts::transfer_kind(words[i], true);
    if (kind == dcpi::contexts::TransferKind::kPlain) continue;
    State::Transfer* transfer = nullptr;
    {
      std::lock_guard<std::mutex> hold(state->spaces_lock);
      transfer = &state->transfers.emplace_back(State::Transfer{
          start + 4 * i, kind, dcpi::contexts::jump_target(start + 4 * i, words[i])});
    }
    qemu_plugin_register_vcpu_insn_exec_cb(qemu_plugin_tb_get_insn(tb, i), on_transfer,
                                           QEMU_PLUGIN_CB_R_REGS, transfer);
  }
}

void on_line_fetch(unsigned int vcpu, void* userdata) {
  if (vcpu >= state->vcpus.size()) return;
  const auto* ref = static_cast<const InstructionRef*>(userdata);
  dcpi::ev5::VcpuModel& model = *state->vcpus[vcpu];
  deposit(words_of(vcpu), model.line_fetch(*ref->block, ref->index), model);
}

void on_unit(unsigned int vcpu, void* userdata) {
  if (vcpu >= state->vcpus.size()) return;
  const auto* ref = static_cast<const InstructionRef*>(userdata);
  dcpi::ev5::VcpuModel& model = *state->vcpus[vcpu];
  deposit(words_of(vcpu), model.unit_ready(*ref->block, ref->index), model);
}

// In a step block: the instruction's whole static time, charged with its
// dynamic stall by the charge after this.
void on_step_units(unsigned int vcpu, void* userdata) {
  if (vcpu >= state->vcpus.size()) return;
  const auto* ref = static_cast<const InstructionRef*>(userdata);
  dcpi::ev5::VcpuModel& model = *state->vcpus[vcpu];
  deposit(words_of(vcpu), model.step_units(*ref->block, ref->index), model);
}

// The charge of one instruction: its static charge (block_timing.h), plus
// `stall` when a callback may have put a stall there. A charge that can be
// positive first names its instruction in last_charged and goes whole
// through `stall`: the immediate is added to it inline, so that an exact
// exit always leaves `stall` non-zero and is seen at the next block entry,
// even when the dynamic part was 0 (an exit missed there charged the re-run
// instruction's static cost twice: a cycle no truth recorded).
void register_charge(qemu_plugin_insn* insn, const InstructionRef& ref, bool dynamic, int64_t imm) {
  if (!state->charging || (!dynamic && imm == 0)) return;
  if (!dynamic && imm < 0) {  // a refund: it cannot run into a deadline
    qemu_plugin_register_vcpu_insn_exec_icount_charge(insn, {nullptr, 0}, imm);
    return;
  }
  qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
      insn, QEMU_PLUGIN_INLINE_STORE_U64, state->last_charged, reinterpret_cast<uint64_t>(&ref));
  if (imm != 0)
    qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64,
                                                        state->stall, static_cast<uint64_t>(imm));
  qemu_plugin_register_vcpu_insn_exec_icount_charge(insn, state->stall, 0);
}

// Whether charges work (our patched QEMU, -icount on): asked once, with a
// charge of nothing at the first block's head (registered either way; the
// head's own charge follows it). The patch's three parts come together;
// without step blocks QEMU would cut a block at each deadline and time the
// rest as a block of its own, exactly where the deadline falls
// (docs/ev5-machine.md "Step blocks").
void probe_charging(qemu_plugin_insn* first) {
  state->probed = true;
  state->charging = &qemu_plugin_register_vcpu_insn_exec_icount_charge != nullptr &&
                    &qemu_plugin_icount_use_step_tbs != nullptr &&
                    &qemu_plugin_tb_is_icount_step != nullptr &&
                    &qemu_plugin_register_vcpu_mem_icount_charge != nullptr &&
                    qemu_plugin_register_vcpu_insn_exec_icount_charge(first, {nullptr, 0}, 0);
  if (state->charging) qemu_plugin_icount_use_step_tbs();
  // Several vCPUs: turns that do not end where a sample will fall.
  if (state->charging && &qemu_plugin_icount_random_slices != nullptr)
    qemu_plugin_icount_random_slices(state->options.machine.rr_slice);
  // The model's counters 1 and 2, announced to PALcode (mfpr 248 bit 63).
  state->interrupts = state->charging && &qemu_plugin_icount_interrupt_at_charge != nullptr &&
                      &qemu_plugin_icount_interrupt_capable != nullptr;
  if (!state->interrupts) return;
  qemu_plugin_icount_interrupt_capable(uint64_t{1} << EV5_HAS_EVENT_COUNTERS_SHIFT);
  state->a0 = register_handle(16);  // a0, a1
  state->a1 = register_handle(17);
}

// Instructions where a callback may put a stall into `stall` before their
// charge: a block's head, the first reader of a loaded register, the first
// multiply or divide (a memory access charges its own, register_access).
bool may_stall(const dcpi::ev5::BlockTiming& timing, size_t i) {
  const dcpi::ev5::InstructionTiming& t = timing.instructions[i];
  return i == 0 || t.reads_loaded || t.first_multiply || t.first_divide || t.starts_line;
}

void register_access(qemu_plugin_insn* insn, const dcpi::ev5::InstructionTiming& t, void* userdata,
                     const InstructionRef& access) {
  const qemu_plugin_mem_rw rw = t.store ? QEMU_PLUGIN_MEM_W : QEMU_PLUGIN_MEM_R;
  const qemu_plugin_vcpu_mem_cb_t callback = t.store ? on_memory<true> : on_memory<false>;
  if (state->charging)
    qemu_plugin_register_vcpu_mem_icount_charge(insn, callback, rw, state->stall,
                                                const_cast<InstructionRef*>(&access));
  else  // the truth alone: nothing to charge
    qemu_plugin_register_vcpu_mem_cb(insn, callback, QEMU_PLUGIN_CB_NO_REGS, rw, userdata);
}

void register_callbacks(qemu_plugin_insn* insn, const dcpi::ev5::InstructionTiming& t,
                        void* userdata, const InstructionRef& access) {
  if (t.load || t.store) register_access(insn, t, userdata, access);
  if (t.reads_loaded)
    qemu_plugin_register_vcpu_insn_exec_cond_cb(insn, on_operands, QEMU_PLUGIN_CB_NO_REGS,
                                                QEMU_PLUGIN_COND_NE, state->pending, 0, userdata);
  if (t.first_multiply || t.first_divide)
    qemu_plugin_register_vcpu_insn_exec_cb(insn, on_unit, QEMU_PLUGIN_CB_NO_REGS, userdata);
  if (t.starts_line)
    qemu_plugin_register_vcpu_insn_exec_cond_cb(insn, on_line_fetch, QEMU_PLUGIN_CB_NO_REGS,
                                                QEMU_PLUGIN_COND_NE, state->fetching, 0, userdata);
}

// Every charge stays at its instruction, so that a deadline inside it is
// taken there: a positive one where the time goes, the -1 of an instruction
// that issues with its predecessor at itself (block_timing.h).
void register_block(qemu_plugin_tb* tb, BlockRecord& block) {
  const dcpi::ev5::BlockTiming& timing = block.timing;
  for (size_t i = 0; i < timing.instructions.size(); ++i) {
    qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    const dcpi::ev5::InstructionTiming& t = timing.instructions[i];
    register_callbacks(insn, t, const_cast<InstructionRef*>(&block.refs[i]), block.access_refs[i]);
    register_charge(insn, block.refs[i], may_stall(timing, i), t.charge);
  }
}

// A step block: every instruction charged its whole time (step_units) and
// its dynamic stall, so that the charges find the deadline's instruction.
void register_step_block(qemu_plugin_tb* tb, BlockRecord& block) {
  const dcpi::ev5::BlockTiming& timing = block.timing;
  for (size_t i = 0; i < timing.instructions.size(); ++i) {
    qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    auto* ref = const_cast<InstructionRef*>(&block.step_refs[i]);
    register_callbacks(insn, timing.instructions[i], ref, block.step_access_refs[i]);
    qemu_plugin_register_vcpu_insn_exec_cb(insn, on_step_units, QEMU_PLUGIN_CB_NO_REGS, ref);
    register_charge(insn, *ref, true, 0);
  }
}

void on_translation(qemu_plugin_id_t, qemu_plugin_tb* tb) {
  const size_t n = qemu_plugin_tb_n_insns(tb);
  if (n == 0) return;
  std::vector<uint32_t> words(n);
  for (size_t i = 0; i < n; ++i)
    qemu_plugin_insn_data(qemu_plugin_tb_get_insn(tb, i), &words[i], sizeof words[i]);
  BlockRecord& block = state->blocks.find_or_add(qemu_plugin_tb_vaddr(tb), words);
  if (!state->probed) probe_charging(qemu_plugin_tb_get_insn(tb, 0));
  watch_pal(tb, words, block);
  watch_ipl(tb, words);
  watch_reload(tb, words);
  watch_wrperfmon(tb, words);
  if (state->charging && qemu_plugin_tb_is_icount_step(tb)) {
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_step_block_entry, QEMU_PLUGIN_CB_NO_REGS, &block);
    register_step_block(tb, block);
    watch_transfers(tb, words);
    return;
  }
  qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block_entry, QEMU_PLUGIN_CB_NO_REGS, &block);
  register_block(tb, block);
  watch_transfers(tb, words);
}

void on_exit(qemu_plugin_id_t, void*) {
  const std::string& contexts = state->options.contexts_path;
  if (state->contexts && !contexts.empty() && !state->contexts->write(contexts))
    std::fprintf(stderr, "ev5: cannot write %s\n", contexts.c_str());
  const std::string& paths = state->options.paths_path;
  if (state->contexts && !paths.empty() && !state->contexts->write_paths(paths))
    std::fprintf(stderr, "ev5: cannot write %s\n", paths.c_str());
  if (state->options.out_path.empty()) return;
  std::vector<const dcpi::ev5::VcpuModel*> vcpus;
  for (const auto& vcpu : state->vcpus) {
    vcpu->settle_truth();
    vcpus.push_back(vcpu.get());
  }
  if (!dcpi::ev5::write_truth_file(state->options.out_path, vcpus, state->truth_spaces,
                                   state->options.images_path))
    std::fprintf(stderr, "ev5: cannot write %s\n", state->options.out_path.c_str());
}

}  // namespace

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                           char** argv) {
  state = new State();  // lives until QEMU exits
  for (int i = 0; i < argc; ++i) {
    std::string error;
    if (!dcpi::ev5::apply_option(argv[i], state->options, error)) {
      // qemu_plugin_outs is silent without -d plugin.
      std::fprintf(stderr, "%s\n", error.c_str());
      return -1;
    }
  }
  const int vcpus = info->system_emulation ? std::max(info->system.max_vcpus, 1) : 1;
  const dcpi::ev5::PluginOptions& o = state->options;
  for (int v = 0; v < vcpus; ++v)
    state->vcpus.push_back(std::make_unique<dcpi::ev5::VcpuModel>(
        o.machine, dcpi::ev5::SampleVisibility(o.sampling != 0, o.period, o.period_range)));
  // No out=PATH: nobody reads the truth (the contexts are told apart).
  if (o.out_path.empty())
    for (auto& vcpu : state->vcpus) vcpu->record_truth(false);
  if (vcpus > 1)
    for (int v = 0; v < vcpus; ++v)
      state->vcpus[v]->join(&state->coherence, static_cast<size_t>(v), &state->clock);
  if (!o.contexts_path.empty() || !o.paths_path.empty()) {
    state->contexts = std::make_unique<dcpi::ev5::ContextMetrics>(
        static_cast<size_t>(vcpus), !o.paths_path.empty(), read_code_word);
    for (int v = 0; v < vcpus; ++v)
      state->vcpus[v]->observe_truth(state->contexts->observer(static_cast<unsigned int>(v)));
  }
  state->words = qemu_plugin_scoreboard_new(sizeof(ChargeWords));
  state->words_of.assign(static_cast<size_t>(vcpus), nullptr);
  state->stall = {state->words, offsetof(ChargeWords, stall)};
  state->last_charged = {state->words, offsetof(ChargeWords, last_charged)};
  state->pending = {state->words, offsetof(ChargeWords, pending)};
  state->fetching = {state->words, offsetof(ChargeWords, fetching)};
  // Our QEMU names the instruction that raised an exception in its block.
  if (&qemu_plugin_register_vcpu_trap_cb != nullptr) qemu_plugin_register_vcpu_trap_cb(id, on_trap);
  qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translation);
  qemu_plugin_register_atexit_cb(id, on_exit, nullptr);
  return 0;
}
