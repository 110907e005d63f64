#include "hostdump/values/value_capture.h"

#include <array>
#include <cstdio>
#include <stdexcept>

namespace dcpi::values {
namespace {

std::string letters(uint8_t fields) {
  if (!(fields & kFieldTuple)) return "-";
  std::string out = "t";
  if (fields & kFieldOperands) out += 'o';
  if (fields & kFieldResult) out += 'r';
  if (fields & kFieldAddress) out += 'a';
  if (fields & kFieldLatency) out += 'l';
  if (fields & kFieldRegister) out += 'n';
  return out;
}

}  // namespace

ValueCapture combine_captures(std::span<const CaptureRequest> requests) {
  ValueCapture capture{};
  std::optional<uint8_t> named;
  for (const CaptureRequest& request : requests) {
    for (size_t op = 0; op < 64; ++op) {
      uint8_t asked = request.fields[op];
      if (asked & kFieldOperands) asked |= kFieldOperands;  // configured as one field
      // Any field implies the tuple head it hangs off.
      capture.fields[op] |= static_cast<uint8_t>(asked | (asked != 0 ? kFieldTuple : 0));
    }
    capture.context |= request.context ? 1 : 0;
    if (request.named_register) {
      if (named && *named != *request.named_register)
        throw std::invalid_argument("two value modules name different registers (r" +
                                    std::to_string(*named) + ", r" +
                                    std::to_string(*request.named_register) + ")");
      named = request.named_register;
    }
  }
  capture.named_register = named.value_or(31);
  return capture;
}

CaptureRequest request_from_spec(const std::string& spec) {
  ValueCapture parsed{};
  if (!parse_capture_spec(spec.data(), spec.size(), parsed))
    throw std::invalid_argument("value capture '" + spec +
                                "' is not FIELDS[,XX=FIELDS...][,ctx][,reg=N] with FIELDS "
                                "letters of t o r a l n (or -)");
  CaptureRequest request;
  std::copy(std::begin(parsed.fields), std::end(parsed.fields), request.fields.begin());
  request.context = parsed.context != 0;
  if (parsed.named_register != 31) request.named_register = parsed.named_register;  // r31: none
  return request;
}

std::string format_capture_spec(const ValueCapture& capture) {
  std::array<uint32_t, 256> uses{};
  for (uint8_t f : capture.fields) ++uses[f];
  uint8_t common = 0;
  for (uint32_t f = 0; f < 256; ++f)
    if (uses[f] > uses[common]) common = static_cast<uint8_t>(f);
  std::string spec = letters(common);
  for (size_t op = 0; op < 64; ++op) {
    if (capture.fields[op] == common) continue;
    char prefix[8];
    std::snprintf(prefix, sizeof prefix, ",%02zx=", op);
    spec += prefix + letters(capture.fields[op]);
  }
  if (capture.context) spec += ",ctx";
  if (capture.named_register != 31) spec += ",reg=" + std::to_string(capture.named_register);
  return spec;
}

}  // namespace dcpi::values
