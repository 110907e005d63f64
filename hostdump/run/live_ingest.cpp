#include "hostdump/run/live_ingest.h"

#include <chrono>

#include "hostdump/gdb/gdb_client.h"
#include "hostdump/gdb/ring_source.h"
#include "hostdump/session.h"
#include "symbols/kernel_symbols.h"

namespace dcpi {
namespace {

std::chrono::milliseconds milliseconds(double seconds) {
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

// Asks the driver to flush its hash tables (DCPI §4.2.3) and waits for it.
void flush_driver(GdbClient& client, const LiveIngestRequest& request) {
  ControlChannel control(client, kernel_symbol_physical(*request.kernel, "dcpi_control"));
  const int64_t status =
      control.execute(ControlCommand::kFlush, 0, 0, milliseconds(request.timeout_seconds));
  if (status != kControlOk)
    throw GuestStateError("the driver refused to flush: " + control_status_text(status));
}

}  // namespace

void check_stub_address(const std::string& text) { parse_stub_address(text); }

DecodeStats ingest_live(const LiveIngestRequest& request, ProfileBuilder& builder,
                        ProfileDatabaseWriter& writer) {
  GdbClient client(parse_stub_address(request.stub), milliseconds(request.timeout_seconds));
  auto leave = [&] {
    if (!client.healthy()) return;
    client.set_physical_memory_mode(false);
    if (request.resume) client.detach();
  };
  try {
    client.set_physical_memory_mode(true);
    if (request.flush) flush_driver(client, request);
    GdbRingSource source(client, request.ring_address);
    TimedWatch watch(request.duration_seconds, request.interval_seconds);
    SessionOptions loop;
    loop.wait_seconds = request.interval_seconds;
    SessionStats stats;
    run_session(source, watch, builder, writer, loop, stats);
    leave();
    return stats.decode;
  } catch (...) {
    try {
      leave();
    } catch (...) {  // the original error is the one to report
    }
    throw;
  }
}

}  // namespace dcpi
