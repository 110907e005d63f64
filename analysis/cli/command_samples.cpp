// `dcpi samples`: per-function profile from the walking skeleton's per-CPU
// sample logs, read out of a running QEMU through its GDB stub.
#include <chrono>
#include <iostream>
#include <optional>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/symbols/elf_symbols.h"
#include "analysis/symbols/kernel_symbols.h"
#include "analysis/symbols/pc_symbolizer.h"
#include "analysis/reports/sample_profile.h"
#include "driver/sample_log.h"
#include "hostdump/gdb/gdb_client.h"
#include "hostdump/sample_log_reader.h"

namespace dcpi {

const std::string_view kSamplesUsage =
    "usage: dcpi samples --kernel KERNEL.elf --gdb HOST:PORT [--palcode PAL.elf]\n"
    "                    [--timeout SECONDS] [--json] [--resume | --no-resume]\n"
    "\n"
    "Reads the per-CPU sample logs (kernel symbol dcpi_sample_logs) through QEMU's\n"
    "GDB stub and prints samples per kernel function, most sampled first.\n"
    "  --kernel   the kernel ELF QEMU runs (symbols, and where the logs are)\n"
    "  --gdb      QEMU's stub, as given to -gdb tcp:HOST:PORT\n"
    "  --palcode  PALcode ELF, to name samples outside the kernel\n"
    "  --timeout  seconds to wait for any answer from the stub (default 5)\n"
    "  --json     print JSON instead of a table\n"
    "  --resume   detach so that QEMU runs on (default)\n"
    "  --no-resume  leave the VM stopped (the stub stops it while attached)\n";

namespace {

constexpr const char* kLogSymbol = "dcpi_sample_logs";
constexpr double kDefaultTimeoutSeconds = 5.0;

struct SamplesRequest {
  std::string kernel_path;
  std::optional<std::string> palcode_path;
  StubAddress stub;
  std::chrono::milliseconds timeout{};
  bool json = false;
  bool leave_running = true;
};

SamplesRequest parse_request(const std::vector<std::string>& arguments) {
  const ParsedOptions options(
      arguments, {{"kernel", "gdb", "palcode", "timeout"}, {"json", "resume", "no-resume"}});
  if (options.flag("resume") && options.flag("no-resume"))
    throw UsageError("--resume and --no-resume exclude each other");
  SamplesRequest request;
  request.kernel_path = options.required("kernel");
  request.palcode_path = options.value("palcode");
  try {
    request.stub = parse_stub_address(options.required("gdb"));
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
  request.timeout = std::chrono::milliseconds(
      static_cast<long long>(options.seconds("timeout", kDefaultTimeoutSeconds) * 1000));
  request.json = options.flag("json");
  request.leave_running = !options.flag("no-resume");
  return request;
}

struct LogLocation {
  uint64_t physical_address = 0;
  uint32_t slots = 0;
};

// The symbol is a KSEG address; its size (if recorded) bounds the CPU count.
LogLocation locate_logs(const ElfSymbols& kernel) {
  const ElfSymbol& symbol = kernel.lookup(kLogSymbol);
  const uint64_t physical_address = kernel_symbol_physical(kernel, symbol);
  uint32_t slots = kMaxCpus;
  if (symbol.size != 0) {
    slots = static_cast<uint32_t>(std::min<uint64_t>(kMaxCpus, symbol.size / sizeof(SampleLog)));
    if (slots == 0)
      throw std::runtime_error(std::string(kLogSymbol) + " in " + kernel.path() +
                               " is smaller than one SampleLog: kernel and dcpi disagree");
  }
  return {physical_address, slots};
}

// Restores virtual addressing (what a later debugger expects) and detaches,
// which makes QEMU resume the VM. Best effort on the error path.
void leave_stub(GdbClient& client, bool leave_running) {
  if (!client.healthy()) return;  // it would only time out again
  client.set_physical_memory_mode(false);
  if (leave_running) client.detach();
}

SampleLogSnapshot pull_snapshot(const SamplesRequest& request, const LogLocation& logs) {
  GdbClient client(request.stub, request.timeout);
  try {
    client.set_physical_memory_mode(true);
    SampleLogSnapshot snapshot = read_sample_logs(client, logs.physical_address, logs.slots);
    leave_stub(client, request.leave_running);
    return snapshot;
  } catch (...) {
    try {
      leave_stub(client, request.leave_running);
    } catch (...) {  // the original error is the one worth reporting
    }
    throw;
  }
}

}  // namespace

int run_samples_command(const std::vector<std::string>& arguments) {
  const SamplesRequest request = parse_request(arguments);
  ElfSymbols kernel = ElfSymbols::open(request.kernel_path);
  std::optional<ElfSymbols> palcode;
  if (request.palcode_path) palcode = ElfSymbols::open(*request.palcode_path);
  const LogLocation logs = locate_logs(kernel);
  const SampleLogSnapshot snapshot = pull_snapshot(request, logs);
  const PcSymbolizer symbolizer(std::move(kernel), std::move(palcode));
  const SampleProfile profile = build_sample_profile(snapshot, symbolizer);
  if (request.json)
    print_profile_json(profile, std::cout);
  else
    print_profile_table(profile, std::cout);
  return 0;
}

}  // namespace dcpi
