// The EV5 plugin's ground truth (docs/exec-counts-format.md, versions 2 to
// 5): per instruction its executions, its cycles at the head of the issue
// queue and their split by cause (with the culprit's PC), the control
// transfers between blocks and the run's event counts, summed over vCPUs;
// user-mode PCs per address space (truth_space.h).
#pragma once
#include <string>
#include <vector>

#include "qemu/machine/plugins/ev5/vcpu_model.h"
#include "qemu/machine/truth/truth_space.h"

namespace dcpi::ev5 {

// Writes PATH.tmp and renames it to PATH; false (errno set) on failure.
// `images`: the images= file naming the run's images (may be empty).
// The vCPUs' truths must be settled (VcpuModel::settle_truth).
bool write_truth_file(const std::string& path, const std::vector<const VcpuModel*>& vcpus,
                      const TruthSpaces& spaces, const std::string& images);

}  // namespace dcpi::ev5
