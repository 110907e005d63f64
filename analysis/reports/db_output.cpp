#include "analysis/reports/db_output.h"

#include "analysis/reports/json_writer.h"
#include "analysis/reports/report_output.h"
#include "profiledb/own_cycles.h"

namespace dcpi {

void print_check_report(const profiledb::CheckReport& report,
                        const std::filesystem::path& directory, std::ostream& out) {
  for (const std::string& note : report.notes) out << "note: " << note << '\n';
  for (const std::string& problem : report.problems) out << "problem: " << problem << '\n';
  if (!report.ok()) {
    out << directory.string() << ": " << report.problems.size() << " problem(s)\n";
    return;
  }
  out << directory.string() << ": OK (" << report.epochs << " epochs, " << report.profiles
      << " profiles, " << report.rows << " rows, " << report.samples << " samples, "
      << report.value_files << " value files)\n";
}

void print_database(const ProfileDatabase& db, std::ostream& out) {
  for (uint64_t epoch : db.epochs()) {
    const EpochMetadata meta = db.epoch_metadata(epoch);
    out << "epoch " << epoch << ": " << meta.samples << " samples (" << meta.unknown_samples
        << " unknown), " << meta.entries << " entries, " << meta.records << " records, "
        << meta.records_rejected << " rejected, " << meta.records_lost << " lost, " << meta.updates
        << " updates, period " << to_string(meta.period) << ", machine " << meta.machine << '\n';
    // Several CPUs under -icount's one clock (profiledb/own_cycles.h).
    if (const auto own = own_cycle_share(meta); own && meta.cpu_stats.size() > 1)
      out << "  threads ran on " << fixed_text(own->running_cpus(), 2)
          << " CPUs on average: a thread's sample is " << fixed_text(own->share, 3)
          << " of a period of its own cycles\n";
    for (const ProfileInfo& info : db.profiles(epoch))
      out << "  " << info.event_name << ' ' << info.image.path
          << (info.image.build_id.empty() ? "" : " [" + info.image.build_id + "]") << ": "
          << info.total_count << " samples in " << info.row_count << " rows\n";
  }
}

void print_database_json(const ProfileDatabase& db, const std::filesystem::path& directory,
                         std::ostream& out) {
  JsonWriter json(out, JsonWriter::Style::kSpaced);
  json.begin_object().field("database", directory.string());
  json.key("epochs").begin_array(JsonWriter::Break::kLines);
  for (uint64_t epoch : db.epochs()) {
    const EpochMetadata meta = db.epoch_metadata(epoch);
    json.begin_object().field("epoch", epoch).field("samples", meta.samples);
    json.field("unknown_samples", meta.unknown_samples).field("entries", meta.entries);
    json.field("records", meta.records).field("records_rejected", meta.records_rejected);
    json.field("records_lost", meta.records_lost).field("updates", meta.updates);
    json.key("period").begin_object().field("base", meta.period.base);
    json.field("range", meta.period.range).field("changed", meta.period.changed).end_object();
    json.field("machine", meta.machine);
    if (const auto own = own_cycle_share(meta)) json.real_field("own_share", own->share);
    json.key("profiles").begin_array();
    for (const ProfileInfo& info : db.profiles(epoch)) {
      json.begin_object().field("event", info.event_name).field("image", info.image.path);
      json.field("build_id", info.image.build_id).field("samples", info.total_count);
      json.field("rows", info.row_count).end_object();
    }
    json.end_array().end_object();
  }
  json.end_array().end_object();
}

void print_merged_epoch(const MergedEpoch& epoch, std::ostream& out) {
  out << epoch.input.string() << " epoch " << epoch.input_epoch << " -> epoch "
      << epoch.output_epoch << " (" << epoch.samples << " samples)\n";
}

void print_merge_summary(const std::string& output, size_t epochs, uint64_t samples, size_t inputs,
                         std::ostream& out) {
  out << output << ": " << epochs << " epochs, " << samples << " samples from " << inputs
      << " databases\n";
}

}  // namespace dcpi
