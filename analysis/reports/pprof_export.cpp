#include "analysis/reports/pprof_export.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "analysis/reports/proto/profile.pb.h"
#include "analysis/reports/report_output.h"
#include "analysis/samples/profile_table.h"

namespace dcpi {
namespace {

namespace pb = perftools::profiles;

class StringTable {
 public:
  explicit StringTable(pb::Profile& profile) : profile_(profile) { index(""); }
  int64_t index(const std::string& text) {
    const auto [entry, added] = indexes_.emplace(text, profile_.string_table_size());
    if (added) profile_.add_string_table(text);
    return entry->second;
  }

 private:
  pb::Profile& profile_;
  std::unordered_map<std::string, int64_t> indexes_;
};

// Builds mappings, functions and locations on demand, one of each per
// distinct image, procedure and address.
class PprofBuilder {
 public:
  PprofBuilder(pb::Profile& profile, ImageResolver& resolver)
      : profile_(profile), strings_(profile), resolver_(resolver) {}

  StringTable& strings() { return strings_; }

  uint64_t location(const ImageIdentity& image, uint64_t address) {
    ImageEntry& entry = image_entry(image);
    const auto [found, added] = entry.locations.emplace(address, 0);
    if (!added) return found->second;
    pb::Location* location = profile_.add_location();
    location->set_id(static_cast<uint64_t>(profile_.location_size()));
    location->set_mapping_id(entry.mapping->id());
    location->set_address(address);
    entry.mapping->set_memory_start(std::min(entry.mapping->memory_start(), address));
    entry.mapping->set_memory_limit(std::max(entry.mapping->memory_limit(), address + 4));
    pb::Line* line = location->add_line();
    line->set_function_id(function_id(image, entry, address));
    if (entry.elf)
      if (auto source = entry.elf->source_at(address)) line->set_line(source->line);
    found->second = location->id();
    return found->second;
  }

 private:
  struct ImageEntry {
    pb::Mapping* mapping = nullptr;
    const ElfImage* elf = nullptr;
    std::unordered_map<uint64_t, uint64_t> locations;  // address -> location id
    std::map<std::string, uint64_t> functions;         // procedure name -> function id
  };

  ImageEntry& image_entry(const ImageIdentity& image) {
    const auto [found, added] = images_.try_emplace(image);
    ImageEntry& entry = found->second;
    if (!added) return entry;
    const ResolvedImage& resolved = resolver_.resolve(image);
    entry.elf = resolved.elf.get();
    entry.mapping = profile_.add_mapping();
    entry.mapping->set_id(static_cast<uint64_t>(profile_.mapping_size()));
    entry.mapping->set_memory_start(UINT64_MAX);  // widened to the addresses seen
    entry.mapping->set_memory_limit(0);
    entry.mapping->set_filename(strings_.index(image.unknown ? "[unknown]" : image.path));
    entry.mapping->set_build_id(strings_.index(image.build_id));
    entry.mapping->set_has_functions(entry.elf != nullptr);
    entry.mapping->set_has_line_numbers(entry.elf && entry.elf->has_line_info());
    entry.mapping->set_has_filenames(entry.elf && entry.elf->has_line_info());
    return entry;
  }

  uint64_t function_id(const ImageIdentity& image, ImageEntry& entry, uint64_t address) {
    std::string name;
    std::optional<SourceLocation> start_source;
    if (image.unknown) {
      name = kUnknownProcedure;
    } else if (auto procedure = entry.elf ? entry.elf->procedure_at(address) : std::nullopt) {
      name = procedure_display_name(image, *procedure);
      start_source = entry.elf->source_at(procedure->start);
    } else {
      name = address_name(image, address);
    }
    const auto [found, added] = entry.functions.emplace(name, 0);
    if (!added) return found->second;
    pb::Function* function = profile_.add_function();
    function->set_id(static_cast<uint64_t>(profile_.function_size()));
    function->set_name(strings_.index(name));
    function->set_system_name(strings_.index(name));
    if (start_source) {
      function->set_filename(strings_.index(start_source->file));
      function->set_start_line(start_source->line);
    }
    found->second = function->id();
    return found->second;
  }

  pb::Profile& profile_;
  StringTable strings_;
  ImageResolver& resolver_;
  std::map<ImageIdentity, ImageEntry> images_;
};

}  // namespace

// pprof has one period per profile: written only when every exported epoch
// recorded the same unchanged period (its mean, rounded; the interval goes in
// a comment), never guessed.
void set_period(const SampleSet& samples, PprofBuilder& builder, pb::Profile& profile) {
  std::optional<SamplingPeriod> common;
  for (const auto& [epoch, period] : samples.periods) {
    if (!period.known() || period.changed || (common && *common != period)) return;
    common = period;
  }
  if (!common || samples.profiles.empty()) return;
  pb::ValueType* type = profile.mutable_period_type();
  type->set_type(builder.strings().index("cycles"));
  type->set_unit(builder.strings().index("count"));
  profile.set_period(std::llround(common->mean()));
  profile.add_comment(builder.strings().index("sampling period uniform in " +
                                              period_interval_text(*common) + " cycles"));
}

std::string build_pprof(const SampleSet& samples, ImageResolver& resolver,
                        std::vector<std::string>& warnings) {
  pb::Profile profile;
  PprofBuilder builder(profile, resolver);
  std::map<uint16_t, std::string> events;
  for (const Profile& stored : samples.profiles)
    events.emplace(stored.info.event, stored.info.event_name);
  // The values are samples, one per counter overflow, then each event's
  // projected count (issue 26: samples x mean period / share of time
  // counted, profiledb/event_scale.h), as pprof's own CPU profiles
  // pair samples/count with cpu/nanoseconds. An event some epoch of which
  // did not record its period gets no projected column.
  std::map<uint16_t, int> value_index, estimate_index;
  for (const auto& [number, name] : events) {
    value_index[number] = profile.sample_type_size();
    pb::ValueType* type = profile.add_sample_type();
    type->set_type(builder.strings().index(events.size() == 1 ? "samples" : "samples_" + name));
    type->set_unit(builder.strings().index("count"));
  }
  for (const auto& [number, name] : events) {
    bool known = true;
    for (const Profile& stored : samples.profiles)
      if (stored.info.event == number && !scale_of(samples, stored.info).events_per_sample())
        known = false;
    if (!known) continue;
    estimate_index[number] = profile.sample_type_size();
    pb::ValueType* type = profile.add_sample_type();
    type->set_type(builder.strings().index(name));
    type->set_unit(builder.strings().index("count"));
  }
  // The program each pid ran in each epoch (pids are reused by later runs):
  // its user image (samples/profile_table.h's programs_by_pid, per epoch).
  // A shared object (NAME.so*) names the program only when nothing else does.
  auto shared = [](const std::string& path) {
    return std::filesystem::path(path).filename().string().find(".so") != std::string::npos;
  };
  std::map<std::pair<uint64_t, uint32_t>, std::string> programs;
  for (const Profile& stored : samples.profiles)
    if (!stored.info.image.unknown && stored.info.image.path.starts_with('/'))
      for (const ProfileRow& row : stored.rows) {
        if (row.pid == 0) continue;
        auto [entry, added] =
            programs.emplace(std::pair{stored.info.epoch, row.pid}, stored.info.image.path);
        if (!added && shared(entry->second) && !shared(stored.info.image.path))
          entry->second = stored.info.image.path;
      }
  // The epoch's process table names its programs where it has one (issue 29).
  for (const auto& [epoch, table] : samples.processes)
    for (const auto& [pid, process] : table.processes)
      if (!process.program.empty()) programs[{epoch, pid}] = process.program;
  const int64_t pid_key = builder.strings().index("pid");
  const int64_t cpu_key = builder.strings().index("cpu");
  const int64_t tid_key = builder.strings().index("tid");
  const int64_t epoch_key = builder.strings().index("epoch");
  const int64_t image_key = builder.strings().index("image");
  const int64_t program_key = builder.strings().index("program");
  for (const Profile& stored : samples.profiles) {
    const ResolvedImage& resolved = resolver.resolve(stored.info.image);
    if (!resolved.warning.empty() &&
        std::find(warnings.begin(), warnings.end(), resolved.warning) == warnings.end())
      warnings.push_back(resolved.warning);
    const int64_t image =
        builder.strings().index(stored.info.image.unknown ? "[unknown]" : stored.info.image.path);
    const int samples_at = value_index.at(stored.info.event);
    const auto estimate = estimate_index.find(stored.info.event);
    const int estimate_at = estimate == estimate_index.end() ? -1 : estimate->second;
    const double per_sample = scale_of(samples, stored.info).events_per_sample().value_or(0.0);
    for (const ProfileRow& row : stored.rows) {
      pb::Sample* sample = profile.add_sample();
      sample->add_location_id(builder.location(stored.info.image, row.address));
      for (int v = 0; v < profile.sample_type_size(); ++v)
        sample->add_value(v == samples_at    ? static_cast<int64_t>(row.count)
                          : v == estimate_at ? std::llround(double(row.count) * per_sample)
                                             : 0);
      // String labels: pprof drops a numeric label whose value is 0 (pid 0,
      // cpu 0), and -tagfocus pid=3 matches strings as well.
      const auto found = programs.find({stored.info.epoch, row.pid});
      const std::string program = found != programs.end() ? found->second
                                  : row.pid == 0          ? "[kernel]"
                                                          : "[unknown]";
      for (const auto& [key, text] :
           {std::pair{pid_key, std::to_string(row.pid)},
            std::pair{tid_key, std::to_string(row.tid)},
            std::pair{cpu_key, std::to_string(row.cpu)}, std::pair{image_key, std::string()},
            std::pair{program_key, program}}) {
        pb::Label* label = sample->add_label();
        label->set_key(key);
        label->set_str(key == image_key ? image : builder.strings().index(text));
      }
      pb::Label* epoch = sample->add_label();  // epochs start at 1: never dropped
      epoch->set_key(epoch_key);
      epoch->set_num(static_cast<int64_t>(stored.info.epoch));
    }
  }
  for (pb::Mapping& mapping : *profile.mutable_mapping())
    if (mapping.memory_start() > mapping.memory_limit()) mapping.set_memory_start(0);
  set_period(samples, builder, profile);
  profile.add_comment(builder.strings().index(
      "dcpi export: values are samples (one per counter overflow) and each event's projected "
      "count (samples x mean period / share of time counted); on QEMU cycles = instructions"));
  std::string bytes;
  if (!profile.SerializeToString(&bytes)) throw std::runtime_error("cannot serialize the profile");
  return bytes;
}

void write_gzip_file(const std::filesystem::path& file, const std::string& bytes) {
  gzFile out = gzopen(file.c_str(), "wb9");
  if (!out) throw std::runtime_error("cannot create " + file.string());
  size_t done = 0;
  while (done < bytes.size()) {
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(bytes.size() - done, 1u << 30));
    if (gzwrite(out, bytes.data() + done, chunk) != static_cast<int>(chunk)) {
      gzclose(out);
      throw std::runtime_error("cannot write " + file.string());
    }
    done += chunk;
  }
  if (gzclose(out) != Z_OK) throw std::runtime_error("cannot finish writing " + file.string());
}

std::string read_gzip_file(const std::filesystem::path& file) {
  gzFile in = gzopen(file.c_str(), "rb");
  if (!in) throw std::runtime_error("cannot open " + file.string());
  std::string bytes;
  char buffer[1 << 16];
  int got;
  while ((got = gzread(in, buffer, sizeof buffer)) > 0)
    bytes.append(buffer, static_cast<size_t>(got));
  const bool failed = got < 0;
  gzclose(in);
  if (failed) throw std::runtime_error(file.string() + " is not a valid gzip file");
  return bytes;
}

void write_samples_json(const SampleSet& samples, ImageResolver& resolver, std::ostream& out) {
  JsonWriter json(out);
  json.begin_object().key("samples").begin_array();
  for (const Profile& stored : samples.profiles) {
    const ImageIdentity& image = stored.info.image;
    const ResolvedImage& resolved = resolver.resolve(image);
    const std::optional<double> per_sample = scale_of(samples, stored.info).events_per_sample();
    for (const ProfileRow& row : stored.rows) {
      json.begin_object();
      json.field("epoch", stored.info.epoch).field("event", stored.info.event_name);
      json.field("image", image_display_name(image));
      json.field("image_path", image.unknown ? "[unknown]" : image.path);
      json.field("build_id", image.build_id);
      json.field("pid", row.pid).field("tid", row.tid).field("cpu", row.cpu);
      json.field("address", hex_address(row.address)).field("count", row.count);
      json.key("estimated");  // issue 26: count x mean period / share of time counted
      per_sample ? json.value(double(row.count) * *per_sample, 1) : json.null();
      std::optional<Procedure> procedure;
      if (resolved.elf) procedure = resolved.elf->procedure_at(row.address);
      json.field("procedure", image.unknown ? std::string(kUnknownProcedure)
                              : procedure   ? procedure_display_name(image, *procedure)
                                            : address_name(image, row.address));
      if (resolved.elf)
        if (auto source = resolved.elf->source_at(row.address))
          json.field("file", source->file).field("line", source->line);
      json.end_object();
    }
  }
  json.end_array().end_object();
}

}  // namespace dcpi
