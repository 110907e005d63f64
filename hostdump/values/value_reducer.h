// Data reduction of value tuples (seed 001 §2.2, §2.4): kValues record
// payloads are split into tuple sequences (one per interpretation run), the
// customization modules turn each into (PC, kind, value) pairs, PCs are
// attributed to images through the caller's placement (the same load map
// model as samples, hostdump/load_map_model.h), and every value goes into the
// concise sample of its (epoch, image, kind, address): N = 16, f = 16/15.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "firmware/value_tuples.h"
#include "hostdump/values/customization_module.h"
#include "profiledb/concise_sample.h"

namespace dcpi::values {

struct ValueTotals {
  uint64_t tuples = 0;         // tuples decoded
  uint64_t sequences = 0;      // interpretation runs
  uint64_t pairs = 0;          // (PC, kind, value) pairs emitted by the modules
  uint64_t unplaced = 0;       // pairs whose PC no image claimed (dropped)
  uint64_t dropped_guest = 0;  // tuples the guest dropped (buffer full), from the payloads
};

class ValueReducer {
 public:
  // (image id, ELF address) of a runtime PC of `pid`, or nullopt.
  using Placer = std::function<std::optional<std::pair<uint32_t, uint64_t>>(uint32_t, uint64_t)>;

  // Registers the built-in operand module.
  ValueReducer();
  // Adds a module's kinds; throws std::invalid_argument if a name is taken.
  void add_module(std::shared_ptr<CustomizationModule> module);

  // One kValues payload (ValuesPayload + tuples); false if malformed (the
  // record is then ignored).
  bool add_payload(uint64_t epoch, std::span<const uint8_t> payload, const Placer& place);
  void add_tuples(uint64_t epoch, std::span<const ValueTuple> tuples, const Placer& place);

  struct KindInfo {
    std::string name;
    ValueFormat format;
    std::string module;
  };
  struct Key {
    uint64_t epoch;
    uint32_t image_id;
    uint32_t kind;  // index into kinds()
    auto operator<=>(const Key&) const = default;
  };
  using Hotlists = std::map<uint64_t, ConciseSample>;  // by ELF address

  const std::vector<KindInfo>& kinds() const { return kinds_; }
  std::map<Key, Hotlists>& pending() { return pending_; }
  const std::map<Key, Hotlists>& pending() const { return pending_; }
  const ValueTotals& totals() const { return totals_; }

 private:
  struct Slot {
    std::shared_ptr<CustomizationModule> module;
    uint32_t first_kind;
  };
  std::vector<Slot> modules_;
  std::vector<KindInfo> kinds_;
  std::map<Key, Hotlists> pending_;
  ValueTotals totals_;
};

}  // namespace dcpi::values
