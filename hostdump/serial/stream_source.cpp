#include "hostdump/serial/stream_source.h"

namespace dcpi {

using Clock = std::chrono::steady_clock;

SerialStreamSource::SerialStreamSource(ReadBytes read, double read_seconds, double quiet_seconds)
    : read_(std::move(read)),
      read_seconds_(read_seconds),
      quiet_seconds_(quiet_seconds),
      quiet_since_(Clock::now()) {}

Collected SerialStreamSource::collect() {
  Collected collected;
  if (closed_) return collected;
  const std::vector<uint8_t> bytes = read_(read_seconds_, closed_);
  collected.records = decoder_.feed(bytes);
  if (!bytes.empty()) {
    collected.delivered = true;
    quiet_since_ = Clock::now();
  }
  return collected;
}

Collected SerialStreamSource::finish() {
  Collected collected;
  collected.records = decoder_.finish();
  collected.stats = decoder_.stats();
  return collected;
}

bool SerialStreamSource::at_end(bool guest_done) {
  if (closed_) return true;
  if (!guest_done) return false;
  if (!guest_done_seen_) {
    // The console and COM2 are separate channels and QEMU may still be
    // sending COM2's last bytes: the quiet period starts no earlier than now.
    guest_done_seen_ = true;
    quiet_since_ = Clock::now();
  }
  return std::chrono::duration<double>(Clock::now() - quiet_since_).count() > quiet_seconds_;
}

}  // namespace dcpi
