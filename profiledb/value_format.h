// What a value file says about its values (docs/profile-db.md, "Value
// files"): the kind's name and how its values print when the customization
// module that defined the kind (hostdump/values/customization_module.h,
// seed 001 §2.4) is not loaded. Both are stored in each .vals header, so the
// database can check and print them without the module.
#pragma once
#include <cstdint>
#include <string>

namespace dcpi::values {

enum class ValueFormat : uint8_t { kHex = 0, kDouble = 1, kSigned = 2, kAddress = 3 };
inline constexpr uint8_t kValueFormatCount = 4;

// "0x2a", "1.25", "-3", "0x120001234".
std::string format_value(ValueFormat format, uint64_t value);
const char* value_format_name(ValueFormat format);
// Kind names are [a-z0-9_]{1,32}: they appear in file names.
bool valid_kind_name(const std::string& name);

}  // namespace dcpi::values
