// The EV5 plugin's ground truth, version 2 of docs/exec-counts-format.md:
// per instruction its executions, its cycles at the head of the issue queue
// and their split by cause (with the culprit's PC), the control transfers
// between blocks and the run's event counts, summed over vCPUs.
#pragma once
#include <string>
#include <vector>

#include "qemu/machine/plugins/ev5/block_record.h"
#include "qemu/machine/plugins/ev5/vcpu_model.h"

namespace dcpi::ev5 {

// Writes PATH.tmp and renames it to PATH; false (errno set) on failure.
// `images`: the images= file naming the run's images (may be empty).
bool write_truth_file(const std::string& path, const std::vector<const BlockRecord*>& blocks,
                      const std::vector<const VcpuModel*>& vcpus, const std::string& images);

}  // namespace dcpi::ev5
