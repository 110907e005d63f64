// `dcpi ingest`: transfer records -> attribution -> profile database (DCPI
// §4.3), from the live guest (QEMU's GDB stub) or from a recorded file.
#include <cstdio>
#include <iostream>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/reports/json_writer.h"
#include "firmware/crc32c.h"
#include "hostdump/ingest.h"
#include "hostdump/run/live_ingest.h"
#include "profiledb/container.h"
#include "profiledb/profile_db_writer.h"
#include "symbols/elf_symbols.h"
#include "symbols/kernel_symbols.h"

namespace dcpi {

const std::string_view kIngestUsage =
    "usage: dcpi ingest [--db DIR] (--gdb HOST:PORT --kernel KERNEL.elf | --from-file FILE)\n"
    "                   [--flush] [--interval SECONDS --duration SECONDS]\n"
    "                   [--timeout SECONDS] [--no-resume] [--machine qemu|ev5] [--json]\n"
    "\n"
    "Reads transfer records (docs/transfer-format.md), places every sample in its image\n"
    "with the guest's load map, and merges the counts into the profile database DIR\n"
    "(docs/profile-db.md), creating it if needed.\n"
    "  --db         the profile database directory (default ./dcpi.db)\n"
    "  --gdb        QEMU's stub (-gdb tcp:HOST:PORT); the ring is the kernel symbol\n"
    "               dcpi_transfer_ring, its tail is advanced after reading\n"
    "  --kernel     the kernel ELF QEMU runs (for the symbol addresses)\n"
    "  --from-file  a ring image (starts with the ring magic) or a serial-stream capture\n"
    "  --flush      first ask the driver to flush its hash tables (control block\n"
    "               dcpi_control, command flush) and wait for it\n"
    "  --interval   with --duration: pull every SECONDS, letting the VM run in between\n"
    "  --duration   total seconds to keep pulling (default: one pull)\n"
    "  --timeout    seconds to wait for any answer from the stub (default 5)\n"
    "  --no-resume  leave the VM stopped afterwards\n"
    "  --machine    the machine the guest ran on, recorded with each epoch (epoch.meta\n"
    "               machine): qemu (default) or ev5 (the 21164 model's time)\n"
    "  --json       print the summary as JSON\n";

namespace {

constexpr double kDefaultTimeoutSeconds = 5.0;

// Names the file in every error; never blocks on a FIFO (issue 18).
std::vector<uint8_t> read_input(const std::string& path) {
  return profiledb::read_file_bytes(path);
}

std::string recording_identity(const std::vector<uint8_t>& bytes) {
  char crc[9];
  std::snprintf(crc, sizeof crc, "%08x", crc32c_update(0, bytes.data(), bytes.size()));
  return "crc32c:" + std::string(crc) + " size:" + std::to_string(bytes.size());
}

// The live guest through its GDB stub: the run's live ingest
// (hostdump/run/live_ingest.h), paced by --interval for --duration.
DecodeStats ingest_from_stub(const ParsedOptions& options, ProfileBuilder& builder,
                             ProfileDatabaseWriter& writer) {
  const ElfSymbols kernel = ElfSymbols::open(options.required("kernel"));
  LiveIngestRequest request{.kernel = &kernel,
                            .ring_address = kernel_symbol_physical(kernel, "dcpi_transfer_ring"),
                            .stub = options.required("gdb")};
  try {
    check_stub_address(request.stub);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
  request.duration_seconds = options.value("duration") ? options.seconds("duration", 0) : 0;
  request.interval_seconds = options.seconds("interval", 1.0);
  request.timeout_seconds = options.seconds("timeout", kDefaultTimeoutSeconds);
  request.flush = options.flag("flush");
  request.resume = !options.flag("no-resume");
  return ingest_live(request, builder, writer);
}

void print_summary(const std::string& db, const IngestTotals& totals, const DecodeStats& stats,
                   bool json) {
  const double unknown_percent =
      totals.samples ? 100.0 * double(totals.unknown_samples) / double(totals.samples) : 0.0;
  if (json) {
    JsonWriter json(std::cout, JsonWriter::Style::kSpaced);
    json.begin_object().field("records", totals.records).field("entries", totals.entries);
    json.field("samples", totals.samples).field("unknown_samples", totals.unknown_samples);
    json.field("load_map_records", totals.load_map_records);
    json.field("load_map_rejected", totals.load_map_rejected);
    json.field("records_rejected", stats.rejected()).field("bad_magic", stats.bad_magic);
    json.field("bad_checksum", stats.bad_checksum).field("truncated", stats.truncated);
    json.field("oversized", stats.oversized).field("bad_payload_size", stats.bad_payload_size);
    json.field("unknown_type", stats.unknown_type).field("records_lost", stats.lost_records);
    json.field("duplicates", stats.duplicates).field("skipped_bytes", stats.skipped_bytes);
    json.end_object();
    return;
  }
  std::cout << "ingested " << totals.records << " records (" << totals.entries << " entries, "
            << totals.samples << " samples, " << totals.unknown_samples
            << " unknown = " << unknown_percent << "%) into " << db << '\n'
            << "rejected " << stats.rejected() << " records (bad magic " << stats.bad_magic
            << ", bad checksum " << stats.bad_checksum << ", truncated " << stats.truncated
            << ", oversized " << stats.oversized << ", bad size " << stats.bad_payload_size
            << ", unknown type " << stats.unknown_type << "), lost " << stats.lost_records
            << ", duplicates " << stats.duplicates << ", skipped " << stats.skipped_bytes
            << " bytes; load map " << totals.load_map_records << " records ("
            << totals.load_map_rejected << " rejected)\n";
}

}  // namespace

int run_ingest_command(const std::vector<std::string>& arguments) {
  const ParsedOptions options(arguments, {{"db", "gdb", "kernel", "from-file", "interval",
                                           "duration", "timeout", "machine"},
                                          {"flush", "no-resume", "json"}});
  const std::string db = options.database();
  const bool live = options.value("gdb").has_value();
  if (live == options.value("from-file").has_value())
    throw UsageError("give exactly one of --gdb and --from-file");
  if (!live && (options.flag("flush") || options.value("interval") || options.value("duration")))
    throw UsageError("--flush, --interval and --duration need --gdb");
  const std::string machine = options.value("machine").value_or(std::string(kMachineQemu));
  if (!is_machine_name(machine))
    throw UsageError("--machine is qemu or ev5, not '" + machine + "'");
  ProfileBuilder builder;
  builder.set_machine(machine);
  DecodeStats stats;
  if (live) {
    ProfileDatabaseWriter writer(db);
    stats = ingest_from_stub(options, builder, writer);
  } else {
    const std::string file = *options.value("from-file");
    const std::vector<uint8_t> bytes = read_input(file);
    ProfileDatabaseWriter writer(db);
    // A recording is merged once (issue 18): its identity is its content.
    const std::string identity = recording_identity(bytes);
    if (writer.has_recording(identity))
      throw std::runtime_error(file + " (" + identity + ") was already ingested into " + db +
                               "; ingesting it again would count its samples twice");
    stats = ingest_recorded(bytes, builder);
    builder.flush(writer);
    writer.add_recording(identity);
  }
  print_summary(db, builder.totals(), stats, options.flag("json"));
  return 0;
}

}  // namespace dcpi
