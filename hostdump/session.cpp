#include "hostdump/session.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "profiledb/profile_db_writer.h"

namespace dcpi {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point then) {
  return std::chrono::duration<double>(Clock::now() - then).count();
}

std::chrono::nanoseconds duration(double seconds) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(seconds));
}

// Records first, then the decoder counts and ring drops they came with.
void absorb(const Collected& collected, ProfileBuilder& builder, SessionStats& stats) {
  for (const TransferRecord& record : collected.records) builder.add_record(record);
  if (collected.stats) builder.add_decode_stats(*collected.stats);
  if (collected.ring_drops) {
    builder.note_ring_drops(collected.ring_drops->first, collected.ring_drops->second);
    stats.ring_records_dropped = collected.ring_drops->first;
    stats.ring_samples_dropped = collected.ring_drops->second;
  }
  if (collected.guest_cycles) stats.guest_cycles = *collected.guest_cycles;
  if (collected.delivered) ++stats.pulls;
}

}  // namespace

TimedWatch::TimedWatch(double duration_seconds, double interval_seconds)
    : end_(Clock::now() + duration(duration_seconds)), interval_(interval_seconds) {}

// Done when another interval would run past the end.
bool TimedWatch::finished() { return Clock::now() + duration(interval_) > end_; }

void TimedWatch::wait(double seconds) { std::this_thread::sleep_for(duration(seconds)); }

// DCPI §4.3: the daemon keeps up with the guest. A ring that fills between
// pulls holds the guest's daemon back, and the per-CPU buffers behind it
// (call chains, overflow buffers) drop: a collection that found the ring over
// an eighth full quarters the next wait (down to 1/32 of the interval), one
// under a sixteenth full doubles it, up to the interval. A C++ program's call
// chains on two CPUs (dcpi run -g) lost 28 % of their samples with a fixed
// 0.5 s, 2.6 % halving at a quarter full (down to 1/16), none this way.
double next_wait_seconds(double last, double interval, std::optional<double> fill) {
  if (!fill) return interval;
  if (*fill > 0.125) return std::max(last / 4, interval / 32);
  if (*fill < 1.0 / 16) return std::min(last * 2, interval);
  return last;
}

void run_session(RecordSource& source, GuestWatch& watch, ProfileBuilder& builder,
                 ProfileDatabaseWriter& writer, const SessionOptions& options,
                 SessionStats& stats) {
  auto last_merge = Clock::now();
  auto last_progress = Clock::now();
  bool last = watch.finished();
  double wait = options.wait_seconds / 32;  // grows while the ring stays nearly empty
  try {
    for (;;) {
      Collected collected = source.collect();
      wait = next_wait_seconds(wait, options.wait_seconds, collected.ring_fill);
      absorb(collected, builder, stats);
      // The GDB transport merges after every pull (the VM is stopped anyway);
      // the serial one about every interval: little waits in memory, few rewrites.
      if (seconds_since(last_merge) >= options.merge_seconds) {
        builder.flush(writer);
        source.acknowledge();
        last_merge = Clock::now();
      }
      stats.totals = builder.totals();
      stats.decode = source.total_stats();
      if (options.progress && (last || seconds_since(last_progress) > options.progress_seconds)) {
        last_progress = Clock::now();
        options.progress(stats);
      }
      if (source.at_end(last)) break;
      source.resume();
      watch.wait(wait);
      source.pause();
      last = last || watch.finished();
    }
    absorb(source.finish(), builder, stats);
    builder.flush(writer);
    source.acknowledge();
    stats.totals = builder.totals();
    stats.decode = source.total_stats();
  } catch (...) {
    try {
      builder.flush(writer);  // keep what was collected
      stats.totals = builder.totals();
      source.acknowledge();  // the guest (if it still answers) may reuse the space
    } catch (...) {          // the first error is the one to report
    }
    throw;
  }
}

}  // namespace dcpi
