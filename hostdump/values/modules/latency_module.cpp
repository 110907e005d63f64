// A plug-in customization module (seed 001 §2.4, §3.3: "a module for
// capturing load latencies"): for every load, the cycle-counter delta the
// interpreter measured around the access (kind "latency"). Under QEMU icount
// the cycle counter counts instructions and there is no memory hierarchy, so
// this is the interpreter's own access path (a page-table walk or its
// one-page cache hit), the same for every address: a handful of distinct
// values, not cache behaviour (docs/qemu-deviations.md). Load it with
// `dcpi run --values-module build/libdcpi_values_latency.so`.
#include "hostdump/values/customization_module.h"

namespace {

using namespace dcpi::values;

// Major opcodes of the loads the interpreter times: ldbu ldq_u ldwu, lds
// ldt, ldl ldq ldl_l ldq_l (ldf/ldg are VAX formats it gives up on).
constexpr uint8_t kLoadOpcodes[] = {0x0a, 0x0b, 0x0c, 0x22, 0x23, 0x28, 0x29, 0x2a, 0x2b};

class LatencyModule final : public CustomizationModule {
 public:
  std::string name() const override { return "latency"; }
  std::vector<ValueKind> kinds() const override { return {{"latency", ValueFormat::kSigned}}; }
  CaptureRequest capture() const override {
    CaptureRequest request;
    for (uint8_t opcode : kLoadOpcodes) request.fields[opcode] = dcpi::kFieldLatency;
    return request;
  }
  void transform(TupleSequence sequence, ValueEmitter& emit) override {
    for (const dcpi::ValueTuple& t : sequence)
      if ((t.flags & dcpi::kTupleLoad) && (t.fields & dcpi::kFieldLatency))
        emit.emit(t.pc, 0, t.latency);
  }
};

}  // namespace

extern "C" int dcpi_values_module_abi() { return kModuleAbiVersion; }
extern "C" CustomizationModule* dcpi_values_module_create() { return new LatencyModule(); }
