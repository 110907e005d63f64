// A test plugin for qemu/machine/patches/plugin-icount-charge.patch: charges fixed
// icount units before the instructions it is told about, through the new
// qemu_plugin_register_vcpu_insn_exec_icount_charge, and counts how often
// a charge left the translation block early (an exact exit).
//   -plugin libdcpi_icount_charge_probe.so,pc=ADDR:UNITS[,pc=...],out=FILE
// ADDR hex, UNITS decimal (may be -1: the instruction costs no time). The
// probe follows the exit protocol of the API's documentation: a callback
// that finds the per-vCPU entry non-zero knows the charge was interrupted,
// and the re-executed instruction is not charged twice.
#include <glib.h>  // first, as C++: qemu-plugin.h includes it
extern "C" {       // QEMU's header is C without C++ guards
#include <qemu-plugin.h>
}

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

namespace {

struct Probe {
  std::map<uint64_t, int64_t> charges;  // PC → units
  std::map<uint64_t, int64_t> refunds;  // PC → units refunded by a second call
  std::string out_path;
  uint64_t every = 1;                         // charge on every N-th execution of a charged PC only
  qemu_plugin_scoreboard* pending = nullptr;  // per vCPU: units this instruction owes
  std::atomic<uint64_t> exits{0}, charged{0};
};
// Never destroyed: QEMU calls the atexit callback after the module's
// static destructors have run.
Probe& probe = *new Probe;

struct VcpuState {
  uint64_t units;       // the charge entry: first member, read by the patch's helper
  uint64_t last_pc;     // the instruction charged last
  uint64_t skip_pc;     // its re-execution after an exact exit
  uint64_t executions;  // of charged instructions, by this vCPU
  uint64_t countdown;   // executions until the next charge (every=N)
};

VcpuState* vcpu_state(unsigned vcpu) {
  return static_cast<VcpuState*>(qemu_plugin_scoreboard_find(probe.pending, vcpu));
}

// Runs before the charge: stores the instruction's units in the entry.
void on_charged_instruction(unsigned vcpu, void* userdata) {
  const auto pc = reinterpret_cast<uint64_t>(userdata);
  VcpuState* state = vcpu_state(vcpu);
  if (state->units != 0) {  // the last charge was interrupted: it runs again
    state->units = 0;
    state->skip_pc = state->last_pc;
    probe.exits.fetch_add(1, std::memory_order_relaxed);
  }
  if (state->skip_pc == pc) {
    state->skip_pc = 1;  // odd: never an instruction address
    return;
  }
  ++state->executions;
  if (state->countdown++ % probe.every != 0) return;  // a cheap execution this time
  state->units = static_cast<uint64_t>(probe.charges.at(pc));
  state->last_pc = pc;
  probe.charged.fetch_add(1, std::memory_order_relaxed);
}

void on_translation(qemu_plugin_id_t, qemu_plugin_tb* tb) {
  const qemu_plugin_u64 entry = {probe.pending, offsetof(VcpuState, units)};
  for (size_t i = 0; i < qemu_plugin_tb_n_insns(tb); ++i) {
    qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    const uint64_t pc = qemu_plugin_insn_vaddr(insn);
    if (probe.refunds.count(pc) && !probe.charges.count(pc)) {
      qemu_plugin_register_vcpu_insn_exec_icount_charge(insn, {nullptr, 0}, -probe.refunds.at(pc));
      continue;
    }
    if (!probe.charges.count(pc)) continue;
    qemu_plugin_register_vcpu_insn_exec_cb(insn, on_charged_instruction, QEMU_PLUGIN_CB_NO_REGS,
                                           reinterpret_cast<void*>(pc));
    if (!qemu_plugin_register_vcpu_insn_exec_icount_charge(insn, entry, 0)) {
      std::fprintf(stderr, "icount_charge_probe: icount is off\n");
      std::exit(2);
    }
    if (probe.refunds.count(pc))  // after the charge: shortens the unit after it
      qemu_plugin_register_vcpu_insn_exec_icount_charge(insn, {nullptr, 0}, -probe.refunds.at(pc));
  }
}

void on_exit(qemu_plugin_id_t, void*) {
  FILE* out = std::fopen(probe.out_path.c_str(), "w");
  if (!out) return;
  std::fprintf(out, "charged %" PRIu64 "\nexits %" PRIu64 "\n", probe.charged.load(),
               probe.exits.load());
  for (int vcpu = 0; vcpu < qemu_plugin_num_vcpus(); ++vcpu)
    std::fprintf(out, "vcpu%d %" PRIu64 "\n", vcpu, vcpu_state(vcpu)->executions);
  std::fclose(out);
}

bool parse_charge(const char* text, std::map<uint64_t, int64_t>& into) {
  char* colon = nullptr;
  const uint64_t pc = std::strtoull(text, &colon, 16);
  if (colon == text || *colon != ':') return false;
  char* end = nullptr;
  const long long units = std::strtoll(colon + 1, &end, 10);
  if (end == colon + 1 || *end || units < -1 || units > 100000) return false;
  into[pc] = units;
  return true;
}

}  // namespace

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t*, int argc,
                                           char** argv) {
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "pc=", 3) == 0 && parse_charge(argv[i] + 3, probe.charges)) continue;
    if (std::strncmp(argv[i], "refund=", 7) == 0 && parse_charge(argv[i] + 7, probe.refunds))
      continue;
    if (std::strncmp(argv[i], "every=", 6) == 0) {
      probe.every = std::strtoull(argv[i] + 6, nullptr, 10);
      if (probe.every == 0) return -1;
      continue;
    }
    if (std::strncmp(argv[i], "out=", 4) == 0) {
      probe.out_path = argv[i] + 4;
      continue;
    }
    std::fprintf(stderr, "icount_charge_probe: bad argument %s\n", argv[i]);
    return -1;
  }
  probe.pending = qemu_plugin_scoreboard_new(sizeof(VcpuState));
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translation);
  if (!probe.out_path.empty()) qemu_plugin_register_atexit_cb(id, on_exit, nullptr);
  return 0;
}
