#include "analysis/reports/profileme_output.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/reports/json_writer.h"
#include "analysis/reports/report_output.h"
#include "firmware/profileme.h"

namespace dcpi {

namespace {

size_t shown(const ProfileMeReport& report, std::optional<uint64_t> limit) {
  return limit ? std::min<size_t>(report.rows.size(), *limit) : report.rows.size();
}

// Per execution: records with the event over retired records ("-" without any).
std::string rate(uint64_t with, uint64_t retired) {
  return retired == 0 ? "-" : fixed_text(static_cast<double>(with) / double(retired), 3);
}

std::string mean(uint64_t sum, uint64_t records) {
  return records == 0 ? "-" : fixed_text(static_cast<double>(sum) / double(records), 1);
}

// A distribution's text: "0:n 1:n 2-3:n ..." (cycles: records), the zero
// bucket being the records with none, empty buckets left out.
std::string distribution(const std::array<uint64_t, PROFILEME_LATENCY_BUCKETS>& buckets,
                         uint64_t zero) {
  std::string text = zero ? fmt::format("0:{}", zero) : "";
  for (uint32_t k = 0; k < buckets.size(); ++k) {
    if (buckets[k] == 0) continue;
    const uint64_t low = uint64_t{1} << k, high = (uint64_t{2} << k) - 1;
    const std::string range = k + 1 == buckets.size() ? fmt::format("{}+", low)
                              : low == high           ? std::to_string(low)
                                                      : fmt::format("{}-{}", low, high);
    text += fmt::format("{}{}:{}", text.empty() ? "" : " ", range, buckets[k]);
  }
  return text.empty() ? "-" : text;
}

uint64_t sum(const std::array<uint64_t, PROFILEME_LATENCY_BUCKETS>& buckets) {
  uint64_t total = 0;
  for (uint64_t n : buckets) total += n;
  return total;
}

// The records of the row with no stall (every record not in a bucket).
uint64_t unstalled(const ProfileMeRow& row) {
  const uint64_t stalled = sum(row.stall_buckets);
  return row.records > stalled ? row.records - stalled : 0;
}

// Issue -> completion per retired record ("?" without the instructions).
std::string completion(const ProfileMeRow& row) {
  return row.complete_known ? mean(row.complete, row.retired) : "?";
}

void write_buckets(JsonWriter& json, const std::array<uint64_t, PROFILEME_LATENCY_BUCKETS>& buckets,
                   uint64_t zero) {
  json.begin_array().value(zero);
  for (uint64_t n : buckets) json.value(n);
  json.end_array();
}

}  // namespace

ProfileMeCell profileme_cell(const ProfileMeRow& row, double interval) {
  ProfileMeCell cell;
  cell.text = interval > 0 ? fmt::format("~{:.0f}", row.executions) : "?";
  const std::pair<char, uint64_t> bits[] = {{'i', row.imiss},      {'I', row.itbmiss},
                                            {'d', row.dmiss},      {'D', row.dtbmiss},
                                            {'p', row.mispredict}, {'w', row.wbuf}};
  for (const auto& [letter, with] : bits)
    if (with > 0 && row.retired > 0)
      cell.text += fmt::format(" {} {}", letter, rate(with, row.retired));
  cell.title = fmt::format(
      "{} records, {} retired; imiss {} itbmiss {} dmiss {} (S-cache miss {}, B-cache miss {}) "
      "dtbmiss {} mispredict {} wbuf {} pal {}; mean cycles per record: issue {}, fetch {}, "
      "stall {}, issue -> completion {}, load -> data {}; traps {}, replay traps {}",
      row.records, row.retired, row.imiss, row.itbmiss, row.dmiss, row.smiss, row.bmiss,
      row.dtbmiss, row.mispredict, row.wbuf, row.pal, mean(row.issue, row.records),
      mean(row.fetch, row.records), mean(row.stall, row.records), completion(row),
      mean(row.load, sum(row.load_buckets)), row.trap, row.replay);
  return cell;
}

void print_profileme_text(const ProfileMeReport& report, std::optional<uint64_t> limit,
                          std::ostream& out) {
  if (report.rows.empty()) {
    out << "No ProfileMe records (dcpi run --machine ev5 --profileme), or none match.\n";
    return;
  }
  out << "ProfileMe records: " << report.records;
  if (report.interval > 0 && report.pair_window == 0)
    out << fmt::format(", one per {:.1f} fetched instructions (S); executions = retired x S",
                       report.interval);
  if (report.interval > 0 && report.pair_window != 0)
    out << fmt::format(
        ", in pairs (W = {}), a pair per {:.1f} fetched instructions (S); executions = retired "
        "x S/2; \"wasted\": the issue slots wasted while the instructions were in progress "
        "(seed 004 5.2.3: C x L x S/2 - U x W x S - executions, C = {})",
        report.pair_window, 2 * report.interval, PROFILEME_ISSUE_WIDTH);
  out << "\nRates per execution (records with the event / retired records); latencies: mean "
         "cycles per record\n(issue, fetch -> slot, slot -> issue; complete: issue -> completion "
         "per retired record;\nload: issue -> data per load record; docs/profileme.md)\n";
  const bool listing = report.rows.front().address.has_value();
  if (listing) out << "stall and load distributions: cycles:records, log2 buckets (0 = none)\n";
  out << "\n";
  std::vector<TextTable::Column> columns;
  if (listing) {
    columns.push_back({"address", true});
    columns.push_back({"instruction", true});
  }
  for (const char* header :
       {"records", "executions", "aborted", "dmiss", "dtbmiss", "imiss", "mispredict", "trap",
        "replay", "issue", "fetch", "stall", "complete", "load"})
    columns.push_back({header});
  if (listing) {
    columns.push_back({"stall distribution", true});
    columns.push_back({"load distribution", true});
  }
  if (report.pair_window != 0) columns.push_back({"wasted"});
  if (!listing) {
    columns.push_back({"procedure", true});
    columns.push_back({"image", true});
  }
  TextTable table(std::move(columns));
  for (size_t i = 0; i < shown(report, limit); ++i) {
    const ProfileMeRow& row = report.rows[i];
    std::vector<std::string> cells;
    if (listing) {
      cells.push_back(hex_digits(*row.address));
      cells.push_back(row.instruction.empty() ? "?" : row.instruction);
    }
    cells.push_back(std::to_string(row.records));
    cells.push_back(report.interval > 0 ? fmt::format("{:.0f}", row.executions) : "?");
    cells.push_back(share_text(double(row.records - row.retired), double(row.records)));
    cells.push_back(rate(row.dmiss, row.retired));
    cells.push_back(rate(row.dtbmiss, row.retired));
    cells.push_back(rate(row.imiss, row.retired));
    cells.push_back(rate(row.mispredict, row.retired));
    cells.push_back(rate(row.trap, row.records));
    cells.push_back(rate(row.replay, row.retired));
    cells.push_back(mean(row.issue, row.records));
    cells.push_back(mean(row.fetch, row.records));
    cells.push_back(mean(row.stall, row.records));
    cells.push_back(completion(row));
    cells.push_back(mean(row.load, sum(row.load_buckets)));
    if (listing) {
      cells.push_back(distribution(row.stall_buckets, unstalled(row)));
      cells.push_back(sum(row.load_buckets) ? distribution(row.load_buckets, 0) : "-");
    }
    if (report.pair_window != 0) cells.push_back(fmt::format("{:.0f}", row.wasted.value_or(0)));
    if (!listing) {
      cells.push_back(row.procedure);
      cells.push_back(row.image);
    }
    table.add_row(std::move(cells));
  }
  table.print(out);
  if (shown(report, limit) < report.rows.size())
    out << "(" << report.rows.size() - shown(report, limit) << " more rows; --limit)\n";
}

void print_profileme_json(const ProfileMeReport& report, std::optional<uint64_t> limit,
                          std::ostream& out) {
  JsonWriter json(out);
  json.begin_object().field("records", report.records);
  json.key("interval");
  report.interval > 0 ? json.value(report.interval, 1) : json.null();
  json.field("pair_window", report.pair_window);
  json.key("rows").begin_array();
  for (size_t i = 0; i < shown(report, limit); ++i) {
    const ProfileMeRow& row = report.rows[i];
    json.begin_object().field("image", row.image).field("procedure", row.procedure);
    if (row.address) json.field("address", hex_address(*row.address));
    if (row.address) json.field("instruction", row.instruction);
    json.field("records", row.records).field("retired", row.retired);
    json.key("executions");
    report.interval > 0 ? json.value(row.executions, 1) : json.null();
    json.key("events").begin_object();
    json.field("imiss", row.imiss).field("itbmiss", row.itbmiss).field("dmiss", row.dmiss);
    json.field("dtbmiss", row.dtbmiss).field("mispredict", row.mispredict).field("pal", row.pal);
    json.field("smiss", row.smiss).field("bmiss", row.bmiss).field("wbuf", row.wbuf);
    json.field("trap", row.trap).field("replay", row.replay);
    json.end_object();
    json.key("latency_cycles").begin_object();
    json.field("issue", row.issue).field("fetch", row.fetch).field("stall", row.stall);
    json.key("complete");
    row.complete_known ? json.value(row.complete) : json.null();
    json.field("load", row.load);
    json.end_object();
    // Records per bucket: [none, [1,2), [2,4), ... , [128, inf)]; a load's
    // records with data (aborted ones before their access have none).
    json.field("load_records", sum(row.load_buckets));
    json.key("stall_distribution");
    write_buckets(json, row.stall_buckets, unstalled(row));
    json.key("load_distribution");
    write_buckets(json, row.load_buckets, 0);
    if (report.pair_window != 0) {
      json.field("window_cycles", row.window).field("overlap", row.overlap);
      json.key("wasted_slots").value(row.wasted.value_or(0), 1);
    }
    json.end_object();
  }
  json.end_array().end_object();
  out << '\n';
}

}  // namespace dcpi
