// Customization modules (seed 001 §2.4): a module turns the tuple sequence of
// one interpretation run into (PC, kind, value) pairs that are reduced into
// per-(image, PC, kind) hotlists (§2.2), and formats values for reports
// ("the operands of floating-point instructions can be printed as
// floating-point numbers"). The default module (operand values) is built in;
// others are plug-ins loaded with dlopen (`dcpi run --values-module M.so`).
//
// Plug-in ABI: a shared object exporting
//   extern "C" int dcpi_values_module_abi();                  // == kModuleAbiVersion
//   extern "C" dcpi::values::CustomizationModule* dcpi_values_module_create();
// The object must be built from the same headers (C++ ABI of this class).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "firmware/value_tuples.h"
#include "profiledb/value_format.h"  // ValueFormat, format_value, valid_kind_name

namespace dcpi::values {

inline constexpr int kModuleAbiVersion = 2;  // 2: capture(), variable tuples
inline constexpr const char* kModuleAbiSymbol = "dcpi_values_module_abi";
inline constexpr const char* kModuleCreateSymbol = "dcpi_values_module_create";

struct ValueKind {
  std::string name;  // [a-z0-9_]{1,32}, unique among the loaded modules
  ValueFormat format = ValueFormat::kHex;
};

// One interpretation run's tuples, in execution order (seed 001 §2.4's
// "tuple sequence"); all share one PID.
using TupleSequence = std::span<const ValueTuple>;

class ValueEmitter {
 public:
  virtual ~ValueEmitter() = default;
  // `pc`: a runtime PC of the sequence's process (attributed to an image with
  // the load map, like samples); `kind`: an index into the module's kinds().
  virtual void emit(uint64_t pc, uint32_t kind, uint64_t value) = 0;
};

// What a module needs the in-kernel interpreter to record (seed 001 §2.4:
// "users may specify what should be captured by the interpreter for each
// instruction opcode"). The requests of all loaded modules are combined
// (value_capture.h) into the run's vcapture= configuration.
struct CaptureRequest {
  std::array<uint8_t, 64> fields{};  // ValueField bits by major opcode (firmware/value_tuples.h)
  bool context = false;              // ra and top of stack per run (§2.3)
  std::optional<uint8_t> named_register;  // for kFieldRegister
  static CaptureRequest everywhere(uint8_t fields) {
    CaptureRequest request;
    request.fields.fill(fields);
    return request;
  }
};

class CustomizationModule {
 public:
  virtual ~CustomizationModule() = default;
  virtual std::string name() const = 0;
  virtual std::vector<ValueKind> kinds() const = 0;
  // Default: PC and instruction word of every instruction. A field a module
  // did not ask for may still be present (another module did) or absent
  // (ValueTuple::fields says which).
  virtual CaptureRequest capture() const { return CaptureRequest::everywhere(kFieldTuple); }
  virtual void transform(TupleSequence sequence, ValueEmitter& emit) = 0;
  // Default: by the kind's ValueFormat.
  virtual std::string format(uint32_t kind, uint64_t value) const;
};

// The built-in module "operands": for every tuple, the instruction's result
// and the operands a and b it reads (kinds result/a/b, or fp_result/fp_a/fp_b
// for FP register images, printed as doubles); it captures "tor" everywhere.
std::shared_ptr<CustomizationModule> make_operand_module();

// dlopen()s a plug-in; throws std::runtime_error naming the path and the
// problem (missing file, missing symbol, ABI mismatch). The handle stays open
// for the life of the process (the module's code must outlive it).
std::shared_ptr<CustomizationModule> load_module(const std::string& path);

}  // namespace dcpi::values
