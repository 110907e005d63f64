#include "hostdump/values/customization_module.h"

#include <dlfcn.h>

#include <stdexcept>

namespace dcpi::values {

std::string CustomizationModule::format(uint32_t kind, uint64_t value) const {
  const std::vector<ValueKind> all = kinds();
  return format_value(kind < all.size() ? all[kind].format : ValueFormat::kHex, value);
}

namespace {

// Seed 001 §2.4's default: the operands and result of each instruction.
class OperandModule final : public CustomizationModule {
 public:
  enum Kind : uint32_t { kResult, kA, kB, kFpResult, kFpA, kFpB };
  std::string name() const override { return "operands"; }
  std::vector<ValueKind> kinds() const override {
    return {{"result", ValueFormat::kHex},  {"a", ValueFormat::kHex},
            {"b", ValueFormat::kHex},       {"fp_result", ValueFormat::kDouble},
            {"fp_a", ValueFormat::kDouble}, {"fp_b", ValueFormat::kDouble}};
  }
  CaptureRequest capture() const override {
    return CaptureRequest::everywhere(kFieldTuple | kFieldOperands | kFieldResult);
  }
  void transform(TupleSequence sequence, ValueEmitter& emit) override {
    // Each value under its FP kind only if it is an FP register image: an
    // FP load's base register is an integer, a cvttq's result too.
    for (const ValueTuple& t : sequence) {
      if (t.fields & kFieldResult)
        emit.emit(t.pc, (t.flags & kTupleFpResult) ? kFpResult : kResult, t.result);
      if (t.fields & kFieldA) emit.emit(t.pc, (t.flags & kTupleFpA) ? kFpA : kA, t.a);
      if (t.fields & kFieldB) emit.emit(t.pc, (t.flags & kTupleFpB) ? kFpB : kB, t.b);
    }
  }
};

}  // namespace

std::shared_ptr<CustomizationModule> make_operand_module() {
  return std::make_shared<OperandModule>();
}

std::shared_ptr<CustomizationModule> load_module(const std::string& path) {
  // RTLD_NOW: a missing symbol fails here, not in the middle of a run.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw std::runtime_error("cannot load value module " + path + ": " + ::dlerror());
  auto* abi = reinterpret_cast<int (*)()>(::dlsym(handle, kModuleAbiSymbol));
  auto* create = reinterpret_cast<CustomizationModule* (*)()>(::dlsym(handle, kModuleCreateSymbol));
  if (!abi || !create) {
    ::dlclose(handle);
    throw std::runtime_error("value module " + path + " does not export " + kModuleAbiSymbol +
                             " and " + kModuleCreateSymbol);
  }
  if (abi() != kModuleAbiVersion) {
    const int found = abi();
    ::dlclose(handle);
    throw std::runtime_error("value module " + path + " has ABI version " + std::to_string(found) +
                             ", this dcpi expects " + std::to_string(kModuleAbiVersion));
  }
  std::shared_ptr<CustomizationModule> module(create());
  if (!module) throw std::runtime_error("value module " + path + " created no module");
  for (const ValueKind& kind : module->kinds())
    if (!valid_kind_name(kind.name) || static_cast<uint8_t>(kind.format) >= kValueFormatCount)
      throw std::runtime_error("value module " + path + " declares a bad kind '" + kind.name +
                               "' (names are [a-z0-9_]{1,32})");
  return module;  // the handle is deliberately never closed
}

}  // namespace dcpi::values
