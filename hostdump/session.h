// DCPI's daemon loop (DCPI §4.3; DESIGN §6), once for every way records leave
// the guest: collect what the guest produced, attribute it (ProfileBuilder),
// merge it into the profile database, let the guest run, repeat until the
// guest has finished and its last records are in. `dcpi run` drives it with
// either transport (gdb/ring_source.h, serial/stream_source.h) and a QEMU it
// started; `dcpi ingest --gdb` with the ring source and a timer.
//
// Whatever ends the loop, what was collected is merged before it returns or
// throws, so the database holds everything pulled so far; the guest learns
// that records are taken (RecordSource::acknowledge) only after they are
// stored and fsync'd, so a failed write loses nothing the guest still has.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "hostdump/profile_builder.h"
#include "hostdump/transfer_records.h"

namespace dcpi {

class ProfileDatabaseWriter;

// What one collection brought in.
struct Collected {
  std::vector<TransferRecord> records;
  // Decoder counts to charge to the current epoch now (this collection only);
  // the serial stream charges its counts once, at the end.
  std::optional<DecodeStats> stats;
  bool delivered = false;  // counts as a pull (ring read, or serial bytes arrived)
  // The guest ring's drop counters (cumulative since boot), if the ring was readable.
  std::optional<std::pair<uint64_t, uint64_t>> ring_drops;  // records, samples
  std::optional<uint64_t> guest_cycles;  // all CPUs' instructions so far, if known
  // How full the guest's ring was when read (used / capacity), if known.
  std::optional<double> ring_fill;
};

// A transport's view of the guest: where records come from.
class RecordSource {
 public:
  virtual ~RecordSource() = default;
  // Whatever the guest has produced since the last call.
  virtual Collected collect() = 0;
  // After the last collect(): what the transport still buffers.
  virtual Collected finish() { return {}; }
  // Everything collected so far is durably in the database: the guest may
  // reuse its space (the ring's tail). Never called before that (issue 18).
  virtual void acknowledge() {}
  // The guest is stopped between resume() and pause() only for the GDB stub.
  virtual void resume() {}
  virtual void pause() {}
  // True when nothing more will come: the stream ended, or `guest_done` (the
  // guest has finished) and its final records have been collected.
  virtual bool at_end(bool guest_done) = 0;
  virtual DecodeStats total_stats() const = 0;
};

// What the guest is doing while the source waits, and when it is done.
class GuestWatch {
 public:
  virtual ~GuestWatch() = default;
  // True once the guest has finished: its last records are on their way.
  virtual bool finished() = 0;
  // Lets the guest run for up to `seconds` (it may return early once
  // finished). Throws std::runtime_error to abandon the session (the guest
  // died, the run took too long).
  virtual void wait(double seconds) = 0;
};

// Lets the guest run for a fixed wall-clock `duration` (dcpi ingest
// --duration), collecting every `interval`; duration 0 collects once.
class TimedWatch : public GuestWatch {
 public:
  TimedWatch(double duration_seconds, double interval_seconds);
  bool finished() override;
  void wait(double seconds) override;

 private:
  std::chrono::steady_clock::time_point end_;
  double interval_;
};

struct SessionStats {
  uint64_t pulls = 0;         // collections that delivered (GDB pulls, serial reads)
  uint64_t guest_cycles = 0;  // at the last collection that knew it
  IngestTotals totals;
  DecodeStats decode;
  uint64_t ring_records_dropped = 0;
  uint64_t ring_samples_dropped = 0;
};

struct SessionOptions {
  // The guest runs this long between collections; shorter while collections
  // find the ring filling (next_wait_seconds).
  double wait_seconds = 0.5;
  double merge_seconds = 0;     // 0: merge into the database after every collection
  double progress_seconds = 2;  // at most one progress call per this, and one at the end
  std::function<void(const SessionStats&)> progress;  // may be empty
};

// The wait before the next collection, after one that found the guest's
// ring `fill` full and followed a wait of `last` (at most `interval`).
double next_wait_seconds(double last, double interval, std::optional<double> fill);

// Runs the loop; `stats` is kept current, so a caller catching an exception
// still sees what was stored.
void run_session(RecordSource& source, GuestWatch& watch, ProfileBuilder& builder,
                 ProfileDatabaseWriter& writer, const SessionOptions& options, SessionStats& stats);

}  // namespace dcpi
