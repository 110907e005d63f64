#include "qemu/machine/plugins/ev5/machine_options.h"

#include <bit>
#include <charconv>

namespace dcpi::ev5 {

namespace {

struct NumericOption {
  const char* name;
  uint32_t Machine::*field;
  uint32_t min, max;
  bool power_of_two;
};

constexpr NumericOption kOptions[] = {
    {"scache_latency", &Machine::scache_latency, 3, 1000, false},
    {"bcache_latency", &Machine::bcache_latency, 3, 10000, false},
    {"memory_latency", &Machine::memory_latency, 3, 100000, false},
    {"memory_bus", &Machine::memory_bus_cycles, 0, 10000, false},
    {"fill_chunk", &Machine::fill_chunk_cycles, 0, 1000, false},
    {"intervention", &Machine::intervention, 0, 10000, false},
    {"itb_refill", &Machine::itb_refill, 0, 10000, false},
    {"dtb_refill", &Machine::dtb_refill, 0, 10000, false},
    {"mispredict", &Machine::mispredict_penalty, 0, 1000, false},
    {"pc_mispredict", &Machine::pc_mispredict_penalty, 0, 1000, false},
    {"replay", &Machine::replay_penalty, 0, 1000, false},
    {"wbuf_retire", &Machine::wbuf_retire, 1, 10000, false},
    {"counter_skid", &Machine::counter_skid, 0, 1000, false},
    {"rr_slice", &Machine::rr_slice, 0, 1000000, false},
    {"itb_entries", &Machine::itb_entries, 1, 1024, false},
    {"dtb_entries", &Machine::dtb_entries, 1, 1024, false},
    {"bcache_bytes", &Machine::bcache_bytes, 65536, 1u << 30, true},
};

bool parse(const NumericOption& option, std::string_view value, uint32_t& out, std::string& error) {
  uint64_t number = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (ec != std::errc() || end != value.data() + value.size() || number < option.min ||
      number > option.max || (option.power_of_two && !std::has_single_bit(number))) {
    error = "ev5: " + std::string(option.name) + "=" + std::string(value) + " is not " +
            (option.power_of_two ? "a power of two " : "an integer ") + "in [" +
            std::to_string(option.min) + ", " + std::to_string(option.max) + "]";
    return false;
  }
  out = static_cast<uint32_t>(number);
  return true;
}

}  // namespace

bool apply_option(std::string_view argument, PluginOptions& options, std::string& error) {
  const size_t equals = argument.find('=');
  const std::string_view name = argument.substr(0, equals);
  if (equals == std::string_view::npos) {
    error = "ev5: argument without a value: " + std::string(argument);
    return false;
  }
  const std::string_view value = argument.substr(equals + 1);
  if (name == "out") {
    if (value.empty()) {
      error = "ev5: out= needs a path";
      return false;
    }
    options.out_path = value;
    return true;
  }
  if (name == "contexts" || name == "paths") {
    if (value.empty()) {
      error = "ev5: " + std::string(name) + "= needs a path";
      return false;
    }
    (name == "paths" ? options.paths_path : options.contexts_path) = value;
    return true;
  }
  if (name == "images") {
    options.images_path = value;
    return true;
  }
  if (name == "sampling")
    return parse({"sampling", nullptr, 0, 1, false}, value, options.sampling, error);
  if (name == "period")
    return parse({"period", nullptr, 0, 65536, false}, value, options.period, error);
  if (name == "period_range")
    return parse({"period_range", nullptr, 0, 65536, false}, value, options.period_range, error);
  for (const NumericOption& option : kOptions) {
    if (name != option.name) continue;
    return parse(option, value, options.machine.*option.field, error);
  }
  error = "ev5: unknown argument " + std::string(argument);
  return false;
}

}  // namespace dcpi::ev5
