// The one JSON writer behind every `dcpi ... --json` and the benchmarks' JSON
// files (DCPI §3: the tools' reports, here also for scripts and tests).
// Commas, nesting and string escapes are tracked here so no command builds
// JSON text by hand.
//
// Two spellings, both plain JSON: kCompact ("key":1,"b":2), which the report
// commands have always written, and kSpaced ("key": 1, "b": 2), which calc,
// score, run, ingest, db and the benchmarks write. A container opened with
// Break::kLines puts each element on its own line, indented two spaces per
// level; tests look for some of these exact byte sequences.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace dcpi {

// `text` as a JSON string literal: quotes, backslashes and control
// characters escaped; other bytes (UTF-8) copied as they are.
std::string json_string(std::string_view text);

class JsonWriter {
 public:
  enum class Style { kCompact, kSpaced };
  enum class Break { kInline, kLines };

  explicit JsonWriter(std::ostream& out, Style style = Style::kCompact)
      : out_(out), style_(style) {}

  JsonWriter& begin_object(Break layout = Break::kInline);
  JsonWriter& end_object();
  JsonWriter& begin_array(Break layout = Break::kInline);
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  JsonWriter& value(uint64_t number);
  JsonWriter& value(int64_t number);
  JsonWriter& value(int number) { return value(static_cast<int64_t>(number)); }
  JsonWriter& value(uint32_t number) { return value(static_cast<uint64_t>(number)); }
  JsonWriter& value(unsigned long long number) { return value(static_cast<uint64_t>(number)); }
  JsonWriter& value(bool flag);
  // Fixed decimals ("75.00"); null when not finite.
  JsonWriter& value(double number, int decimals);
  // The shortest of %g-style with `significant` digits ("63487.5", "1e+20");
  // null when absent or not finite.
  JsonWriter& real(std::optional<double> number, int significant = 12);
  // An address as a string, "0x1200001a0" (JSON numbers lose 64-bit precision).
  JsonWriter& address(uint64_t address);
  JsonWriter& null();

  // key + value in one call.
  template <typename T>
  JsonWriter& field(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }
  JsonWriter& field(std::string_view name, double number, int decimals) {
    key(name);
    return value(number, decimals);
  }
  JsonWriter& real_field(std::string_view name, std::optional<double> number) {
    key(name);
    return real(number);
  }
  JsonWriter& address_field(std::string_view name, uint64_t a) {
    key(name);
    return address(a);
  }

 private:
  struct Level {
    bool has_elements = false;
    bool lines = false;
  };
  void before_value();
  void open(char bracket, Break layout);
  void close(char bracket);
  void new_line(size_t depth);

  std::ostream& out_;
  Style style_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace dcpi
