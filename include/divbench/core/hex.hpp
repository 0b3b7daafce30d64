// Hexadecimal text of offsets and instruction words, the one formatter every report uses.
#pragma once
#include <cstdint>
#include <string>

namespace divbench {

// "0x1d0" (lower case, no padding).
std::string hex(std::uint64_t v);
// A 128-bit instruction word as nvdisasm -hex shows it: "0x<hi 16 digits><lo 16 digits>".
std::string hex128(std::uint64_t lo, std::uint64_t hi);

}  // namespace divbench
