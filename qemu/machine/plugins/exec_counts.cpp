// exec_counts: a QEMU TCG plugin that records the exact execution count of
// every guest instruction (by virtual PC) and of every non-sequential
// control transfer — the ground truth dcpix gave DCPI (§6.2, Figures 8 and
// 9). Usage:
//   qemu-system-alpha … -plugin file=libdcpi_exec_counts.so,out=PATH
// At exit it writes PATH (docs/exec-counts-format.md, version 1, with the
// one truth writer qemu/machine/truth/): one "insn PC COUNT"
// line per executed instruction and one "edge FROM TO COUNT" line per
// transfer FROM → TO with TO ≠ FROM + 4, per vCPU's instruction stream.
//
// Timing: the plugin only adds host-side callbacks; under -icount the guest's
// virtual clock advances per guest instruction, so guest time (RPCC, the
// counter ALARM) is unchanged (tests/guest/plugin_counts.py checks this).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "firmware/truth_format.h"
#include "qemu/machine/plugins/qemu_plugin.h"
#include "qemu/machine/truth/truth_writer.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

namespace {

struct InstructionCounter {
  uint64_t pc = 0;
  std::atomic<uint64_t> count{0};
};

struct PairHash {
  size_t operator()(const std::pair<uint64_t, uint64_t>& p) const {
    return std::hash<uint64_t>()(p.first * 0x9e3779b97f4a7c15ull ^ p.second);
  }
};

// Touched only by its own vCPU thread while the guest runs.
struct VcpuStream {
  bool started = false;
  uint64_t last_pc = 0;
  std::unordered_map<std::pair<uint64_t, uint64_t>, uint64_t, PairHash> edges;
};

struct State {
  std::string out_path = "exec_counts.txt";
  std::string images_path;       // images=: the run's images for the truth's `image` lines
  std::mutex translation_mutex;  // translations may run on several vCPU threads
  std::unordered_map<uint64_t, std::unique_ptr<InstructionCounter>> counters;
  std::vector<VcpuStream> vcpus;
};

State* state = nullptr;

void on_instruction(unsigned int vcpu_index, void* userdata) {
  auto* counter = static_cast<InstructionCounter*>(userdata);
  counter->count.fetch_add(1, std::memory_order_relaxed);
  if (vcpu_index >= state->vcpus.size()) return;
  VcpuStream& stream = state->vcpus[vcpu_index];
  if (stream.started && counter->pc != stream.last_pc + 4)
    ++stream.edges[{stream.last_pc, counter->pc}];
  stream.last_pc = counter->pc;
  stream.started = true;
}

void on_translation(qemu_plugin_id_t, struct qemu_plugin_tb* tb) {
  const size_t n = qemu_plugin_tb_n_insns(tb);
  std::lock_guard<std::mutex> lock(state->translation_mutex);
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    const uint64_t pc = qemu_plugin_insn_vaddr(insn);
    std::unique_ptr<InstructionCounter>& counter = state->counters[pc];
    if (!counter) {
      counter = std::make_unique<InstructionCounter>();
      counter->pc = pc;
    }
    qemu_plugin_register_vcpu_insn_exec_cb(insn, on_instruction, QEMU_PLUGIN_CB_NO_REGS,
                                           counter.get());
  }
}

void on_exit(qemu_plugin_id_t, void*) {
  std::map<uint64_t, uint64_t> instructions;
  for (const auto& [pc, counter] : state->counters) {
    const uint64_t count = counter->count.load(std::memory_order_relaxed);
    if (count) instructions[pc] = count;
  }
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> edges;
  for (const VcpuStream& stream : state->vcpus)
    for (const auto& [edge, count] : stream.edges) edges[edge] += count;

  dcpi::truth::TruthWriter out;
  if (!out.open(state->out_path, DCPI_TRUTH_VERSION_COUNTS, state->images_path)) {
    const std::string message = "exec_counts: cannot write " + state->out_path + ".tmp\n";
    qemu_plugin_outs(message.c_str());
    return;
  }
  out.comment(DCPI_TRUTH_COUNTS_COMMENT);
  out.vcpus(state->vcpus.size());
  for (const auto& [pc, count] : instructions) out.insn(pc, count);
  for (const auto& [edge, count] : edges) out.edge(edge.first, edge.second, count);
  out.close();
}

}  // namespace

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                           char** argv) {
  state = new State();  // lives until QEMU exits
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "out=", 4) == 0) {
      state->out_path = argv[i] + 4;
    } else if (std::strncmp(argv[i], "images=", 7) == 0) {
      state->images_path = argv[i] + 7;
    } else {
      const std::string message = std::string("exec_counts: unknown argument ") + argv[i] + "\n";
      qemu_plugin_outs(message.c_str());
      return -1;
    }
  }
  const int vcpus = info->system_emulation ? std::max(info->system.max_vcpus, 1) : 64;
  state->vcpus.resize(static_cast<size_t>(vcpus));
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translation);
  qemu_plugin_register_atexit_cb(id, on_exit, nullptr);
  return 0;
}
