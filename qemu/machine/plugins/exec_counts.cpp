// exec_counts: a QEMU TCG plugin that records the exact execution count of
// every guest instruction (by virtual PC) and of every non-sequential
// control transfer — the ground truth dcpix gave DCPI (§6.2, Figures 8 and
// 9). Usage:
//   qemu-system-alpha … -plugin file=libdcpi_exec_counts.so,out=PATH
// At exit it writes PATH (docs/exec-counts-format.md, version 1, with the
// one truth writer qemu/machine/truth/): one "insn PC COUNT"
// line per executed instruction and one "edge FROM TO COUNT" line per
// transfer FROM → TO with TO ≠ FROM + 4, per vCPU's instruction stream.
// Built against QEMU's real qemu-plugin.h it keeps user code per address
// space (version 5: `space PID GENERATION` sections; every program is linked
// at the same addresses), learning the process at each swpctx
// (swpctx_watch.h).
//
// Timing: the plugin only adds host-side callbacks; under -icount the guest's
// virtual clock advances per guest instruction, so guest time (RPCC, the
// counter ALARM) is unchanged (tests/guest/plugin_counts.py checks this).
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "firmware/memory_map.h"
#include "firmware/truth_format.h"
#include "qemu/machine/plugins/qemu_plugin.h"
#include "qemu/machine/truth/truth_space.h"
#include "qemu/machine/truth/truth_writer.h"
#ifdef DCPI_REAL_QEMU_PLUGIN_H
#include "qemu/machine/plugins/swpctx_watch.h"
#endif

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

namespace {

using dcpi::truth::truth_key;
using dcpi::truth::truth_pc_of;
using dcpi::truth::truth_space_of;

// Each instruction's callback gets its guest PC as its userdata: the
// counts are per vCPU (VcpuStream), so nothing is shared.
static_assert(sizeof(void*) >= sizeof(uint64_t), "a guest PC fits a callback's userdata");

struct PairHash {
  size_t operator()(const std::pair<uint64_t, uint64_t>& p) const {
    return std::hash<uint64_t>()(p.first * 0x9e3779b97f4a7c15ull ^ p.second);
  }
};

// Touched only by its own vCPU thread while the guest runs. PCs are truth
// keys (truth_space.h): a user PC with its address space.
struct VcpuStream {
  bool started = false;
  uint64_t last_pc = 0;
  uint32_t space = 0;
  std::unordered_map<uint64_t, uint64_t> counts;
  std::unordered_map<std::pair<uint64_t, uint64_t>, uint64_t, PairHash> edges;
};

struct State {
  std::string out_path = "exec_counts.txt";
  std::string images_path;  // images=: the run's images for the truth's `image` lines
  std::vector<VcpuStream> vcpus;
  std::mutex spaces_mutex;
  dcpi::truth::TruthSpaces spaces;
  GByteArray* pid_buffer = nullptr;  // under spaces_mutex
};

State* state = nullptr;

void on_instruction(unsigned int vcpu_index, void* userdata) {
  const auto pc = reinterpret_cast<uint64_t>(userdata);
  if (vcpu_index >= state->vcpus.size()) return;
  VcpuStream& stream = state->vcpus[vcpu_index];
  const uint64_t key = truth_key(pc, stream.space);
  ++stream.counts[key];
  if (stream.started && pc != truth_pc_of(stream.last_pc) + 4)
    ++stream.edges[{stream.last_pc, key}];
  stream.last_pc = key;
  stream.started = true;
}

#ifdef DCPI_REAL_QEMU_PLUGIN_H
// swpctx loads the next process's page-table base: its address space.
void on_page_table_base(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void*) {
  if (vcpu >= state->vcpus.size()) return;
  const qemu_plugin_mem_value value = qemu_plugin_mem_get_value(info);
  if (value.type != QEMU_PLUGIN_MEM_VALUE_U64) return;
  std::lock_guard<std::mutex> hold(state->spaces_mutex);
  if (!state->pid_buffer) state->pid_buffer = g_byte_array_new();
  const uint32_t pid = dcpi::plugins::process_of_pcb_load(vaddr, state->pid_buffer);
  state->vcpus[vcpu].space = state->spaces.switch_to(pid, value.data.u64);
}

void watch_address_space(struct qemu_plugin_tb* tb) {
  if (!dcpi::is_palcode_address(qemu_plugin_tb_vaddr(tb))) return;
  for (size_t i = 0; i < qemu_plugin_tb_n_insns(tb); ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    uint32_t word = 0;
    qemu_plugin_insn_data(insn, &word, sizeof word);
    if (dcpi::plugins::loads_page_table_base(word))
      qemu_plugin_register_vcpu_mem_cb(insn, on_page_table_base, QEMU_PLUGIN_CB_NO_REGS,
                                       QEMU_PLUGIN_MEM_R, nullptr);
  }
}
#else
void watch_address_space(struct qemu_plugin_tb*) {}  // no memory callbacks declared
#endif

void on_translation(qemu_plugin_id_t, struct qemu_plugin_tb* tb) {
  const size_t n = qemu_plugin_tb_n_insns(tb);
  watch_address_space(tb);
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    const uint64_t pc = qemu_plugin_insn_vaddr(insn);
    qemu_plugin_register_vcpu_insn_exec_cb(insn, on_instruction, QEMU_PLUGIN_CB_NO_REGS,
                                           reinterpret_cast<void*>(pc));
  }
}

// One address space's lines (0: the shared kernel and PALcode ones).
struct SpaceLines {
  std::map<uint64_t, uint64_t> instructions;
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> edges;
};

std::map<uint32_t, SpaceLines> collect() {
  std::map<uint32_t, SpaceLines> spaces;
  for (const VcpuStream& stream : state->vcpus) {
    for (const auto& [key, count] : stream.counts)
      spaces[truth_space_of(key)].instructions[truth_pc_of(key)] += count;
    for (const auto& [edge, count] : stream.edges) {
      // With its first user PC's space (an edge into user code from the kernel).
      const uint32_t space =
          truth_space_of(edge.first) ? truth_space_of(edge.first) : truth_space_of(edge.second);
      spaces[space].edges[{truth_pc_of(edge.first), truth_pc_of(edge.second)}] += count;
    }
  }
  return spaces;
}

void write_lines(dcpi::truth::TruthWriter& out, const SpaceLines& lines) {
  for (const auto& [pc, count] : lines.instructions) out.insn(pc, count);
  for (const auto& [edge, count] : lines.edges) out.edge(edge.first, edge.second, count);
}

void on_exit(qemu_plugin_id_t, void*) {
  std::map<uint32_t, SpaceLines> spaces = collect();
  const bool has_spaces = spaces.size() > 1 || (!spaces.empty() && !spaces.count(0));
  dcpi::truth::TruthWriter out;
  const int version = has_spaces ? DCPI_TRUTH_VERSION_SPACES : DCPI_TRUTH_VERSION_COUNTS;
  if (!out.open(state->out_path, version, state->images_path)) {
    const std::string message = "exec_counts: cannot write " + state->out_path + ".tmp\n";
    qemu_plugin_outs(message.c_str());
    return;
  }
  out.comment(DCPI_TRUTH_COUNTS_COMMENT);
  out.vcpus(state->vcpus.size());
  write_lines(out, spaces[0]);
  for (const auto& [space, lines] : spaces) {
    if (space == 0) continue;
    const auto [pid, generation] = state->spaces.process(space);
    out.space(pid, generation);
    write_lines(out, lines);
  }
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
