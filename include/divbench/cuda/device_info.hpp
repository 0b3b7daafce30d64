// The one device-info source: everything a result records about the GPU it ran on.
#pragma once
#include <vector>

#include "divbench/core/result.hpp"

namespace divbench {

// Number of CUDA devices. Throws NoDeviceError (one clear line) when there is none or no driver.
int device_count_or_throw();

// Query one device (makes it current). Includes a measured SM clock (clock64 vs %globaltimer).
DeviceRecord query_device(int index);

// Resolve a --device value ("all" or an index) to indices; throws UsageError for a bad index.
std::vector<int> resolve_devices(const std::string& spec);

}  // namespace divbench
