// The architecture of a GPU as the driver reports it, without a context (cuInit only).
#pragma once

namespace divbench::cubin {

// The SM number (e.g. 90) of the driver's device `device` (after CUDA_VISIBLE_DEVICES), or 0 when
// there is no driver or no such device. Never throws.
int driver_device_sm(int device = 0);

}  // namespace divbench::cubin
