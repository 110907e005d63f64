// Plugin arguments: out=PATH (the truth file; none without it), contexts=PATH and
// paths=PATH (the calling contexts, the path profiles; none without them) and the tunable machine
// parameters (docs/ev5-machine.md), each checked against its range.
#pragma once
#include <string>
#include <string_view>

#include "qemu/machine/plugins/ev5/machine.h"

namespace dcpi::ev5 {

struct PluginOptions {
  Machine machine;
  std::string out_path;  // empty: no truth file (dcpi run without --truth)
  // The images the run booted, for the truth's `image` lines (truth_writer.h).
  std::string images_path;
  // sampling=1: the run samples the cycle counter, so the truth says which
  // cycles a sample can land on (sample_visibility.h); 0: none written.
  uint32_t sampling = 0;
  // period=, period_range=: the driver's sampling periods in cycles (dcpi run
  // --period, --period-range): a masked stretch lands as at most one sample
  // (sample_visibility.h). 0: unknown.
  uint32_t period = 0, period_range = 0;
  // contexts=PATH: the calling context trees with the model's metrics
  // (context_metrics.h, dcpi run --contexts); empty: none.
  std::string contexts_path;
  // paths=PATH: the path profiles (contexts/thread_paths.h, dcpi run --paths).
  std::string paths_path;
};

// Applies one "name=value" argument; false with a one-line `error` for an
// unknown name or a value out of range.
bool apply_option(std::string_view argument, PluginOptions& options, std::string& error);

}  // namespace dcpi::ev5
