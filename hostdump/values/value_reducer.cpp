#include "hostdump/values/value_reducer.h"

#include <cstring>
#include <stdexcept>

#include "hostdump/values/value_payload.h"

namespace dcpi::values {

ValueReducer::ValueReducer() { add_module(make_operand_module()); }

void ValueReducer::add_module(std::shared_ptr<CustomizationModule> module) {
  const uint32_t first = static_cast<uint32_t>(kinds_.size());
  std::vector<KindInfo> added;
  for (const ValueKind& kind : module->kinds()) {
    if (!valid_kind_name(kind.name))
      throw std::invalid_argument("value kind '" + kind.name + "' is not [a-z0-9_]{1,32}");
    for (const KindInfo& known : kinds_)
      if (known.name == kind.name)
        throw std::invalid_argument("value kind '" + kind.name + "' of module " + module->name() +
                                    " is already defined by module " + known.module);
    added.push_back({kind.name, kind.format, module->name()});
  }
  kinds_.insert(kinds_.end(), added.begin(), added.end());
  modules_.push_back({std::move(module), first});
}

bool ValueReducer::add_payload(uint64_t epoch, std::span<const uint8_t> payload,
                               const Placer& place) {
  DecodedValues decoded;
  if (!decode_values_payload(payload, decoded)) return false;
  totals_.dropped_guest += decoded.dropped;
  add_tuples(epoch, decoded.tuples, place);
  return true;
}

namespace {

class Collector final : public ValueEmitter {
 public:
  Collector(ValueReducer& reducer, std::map<ValueReducer::Key, ValueReducer::Hotlists>& pending,
            ValueTotals& totals, const ValueReducer::Placer& place, uint64_t epoch)
      : reducer_(reducer), pending_(pending), totals_(totals), place_(place), epoch_(epoch) {}
  void start(uint32_t pid, uint32_t first_kind, uint32_t kind_count) {
    pid_ = pid;
    first_kind_ = first_kind;
    kind_count_ = kind_count;
  }
  void emit(uint64_t pc, uint32_t kind, uint64_t value) override {
    ++totals_.pairs;
    if (kind >= kind_count_) return;  // a module bug: ignore what it did not declare
    const auto placed = place_(pid_, pc);
    if (!placed) {
      ++totals_.unplaced;
      return;
    }
    const uint32_t global = first_kind_ + kind;
    ValueReducer::Hotlists& lists = pending_[{epoch_, placed->first, global}];
    auto it = lists.find(placed->second);
    if (it == lists.end())
      it = lists
               .emplace(placed->second, ConciseSample(hotlist_seed(
                                            placed->second, reducer_.kinds()[global].name, epoch_)))
               .first;
    it->second.add(value);
  }

 private:
  ValueReducer& reducer_;
  std::map<ValueReducer::Key, ValueReducer::Hotlists>& pending_;
  ValueTotals& totals_;
  const ValueReducer::Placer& place_;
  uint64_t epoch_;
  uint32_t pid_ = 0, first_kind_ = 0, kind_count_ = 0;
};

}  // namespace

void ValueReducer::add_tuples(uint64_t epoch, std::span<const ValueTuple> tuples,
                              const Placer& place) {
  totals_.tuples += tuples.size();
  Collector collector(*this, pending_, totals_, place, epoch);
  // A sequence (one interpretation run) starts at a kTupleFirst tuple.
  for (size_t begin = 0; begin < tuples.size();) {
    size_t end = begin + 1;
    while (end < tuples.size() && !(tuples[end].flags & kTupleFirst) &&
           tuples[end].pid == tuples[begin].pid)
      ++end;
    ++totals_.sequences;
    const TupleSequence sequence = tuples.subspan(begin, end - begin);
    for (size_t m = 0; m < modules_.size(); ++m) {
      const uint32_t count = static_cast<uint32_t>(
          (m + 1 < modules_.size() ? modules_[m + 1].first_kind : kinds_.size()) -
          modules_[m].first_kind);
      collector.start(tuples[begin].pid, modules_[m].first_kind, count);
      modules_[m].module->transform(sequence, collector);
    }
    begin = end;
  }
}

}  // namespace dcpi::values
