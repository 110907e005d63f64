// The serial transport as a session source (hostdump/session.h): the guest's
// daemon writes every record to its second serial port (COM2) and the host
// reads the byte stream (docs/transfer-format.md, serial framing). Where the
// bytes come from (QEMU's COM2 socket, a pipe) is the caller's business.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "hostdump/session.h"
#include "hostdump/transfer_records.h"

namespace dcpi {

class SerialStreamSource : public RecordSource {
 public:
  // Waits up to `seconds` for bytes; returns them (empty on timeout) and sets
  // `closed` at end of stream.
  using ReadBytes = std::function<std::vector<uint8_t>(double seconds, bool& closed)>;

  // `read_seconds`: how long one collect() waits for bytes. `quiet_seconds`:
  // once the guest has finished, the stream ends after this long without bytes.
  explicit SerialStreamSource(ReadBytes read, double read_seconds = 0.05,
                              double quiet_seconds = 1.0);

  Collected collect() override;
  // Decodes what is still buffered and charges the decoder counts.
  Collected finish() override;
  bool at_end(bool guest_done) override;
  DecodeStats total_stats() const override { return decoder_.stats(); }

 private:
  ReadBytes read_;
  double read_seconds_;
  double quiet_seconds_;
  StreamDecoder decoder_;
  bool closed_ = false;
  bool guest_done_seen_ = false;
  std::chrono::steady_clock::time_point quiet_since_;
};

}  // namespace dcpi
