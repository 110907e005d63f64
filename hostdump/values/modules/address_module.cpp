// A plug-in customization module (seed 001 §2.4), built as a shared object:
// for loads and stores, the virtual address they accessed (kind "address")
// and, for the first instruction of each interpretation run, the return
// address register (kind "ra"), which makes values semi-invariant by call
// site identifiable (§2.3). Load it with `dcpi run --values-module
// build/libdcpi_values_address.so`.
#include "hostdump/values/customization_module.h"

namespace {

using namespace dcpi::values;

class AddressModule final : public CustomizationModule {
 public:
  std::string name() const override { return "addresses"; }
  std::vector<ValueKind> kinds() const override {
    return {{"address", ValueFormat::kAddress}, {"ra", ValueFormat::kAddress}};
  }
  // The address of every memory access (other opcodes: the tuple head, so
  // runs stay whole) and the run context (Table 2(a) "with context").
  CaptureRequest capture() const override {
    CaptureRequest request = CaptureRequest::everywhere(dcpi::kFieldTuple | dcpi::kFieldAddress);
    request.context = true;
    return request;
  }
  void transform(TupleSequence sequence, ValueEmitter& emit) override {
    for (const dcpi::ValueTuple& t : sequence) {
      if ((t.flags & dcpi::kTupleMemory) && (t.fields & dcpi::kFieldAddress))
        emit.emit(t.pc, 0, t.va);
      if ((t.flags & dcpi::kTupleFirst) && t.has_context) emit.emit(t.pc, 1, t.ra);
    }
  }
};

}  // namespace

extern "C" int dcpi_values_module_abi() { return kModuleAbiVersion; }
extern "C" CustomizationModule* dcpi_values_module_create() { return new AddressModule(); }
