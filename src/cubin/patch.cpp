#include "divbench/cubin/patch.hpp"

#include <cstring>

#include "divbench/core/errors.hpp"
#include "divbench/core/hex.hpp"

namespace divbench::cubin {
namespace {

bool parse_uint(const std::string& s, long long& out) {
  if (s.empty() || s.size() > 6) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  out = std::stoll(s);
  return true;
}

std::uint64_t load64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

}  // namespace

BitField parse_bit_field(const std::string& spec) {
  const auto colon = spec.find(':');
  long long first = -1, width = 1;
  const bool ok = colon == std::string::npos
                      ? parse_uint(spec, first)
                      : parse_uint(spec.substr(0, colon), first) && parse_uint(spec.substr(colon + 1), width);
  if (!ok) throw UsageError("--bits '" + spec + "': expected FIRST:WIDTH (e.g. 72:2) or one bit (e.g. 72)");
  if (width < 1 || width > 64) throw UsageError("--bits '" + spec + "': width must be 1..64");
  if (first + width > kInstructionBits)
    throw UsageError("--bits '" + spec + "': bits " + std::to_string(first) + ".." + std::to_string(first + width - 1) +
                     " go beyond the 128-bit instruction (0..127)");
  return BitField{static_cast<int>(first), static_cast<int>(width)};
}

void check_value_fits(const BitField& f, std::uint64_t value) {
  if (f.width < 64 && (value >> f.width) != 0)
    throw UsageError("--value " + std::to_string(value) + " does not fit in a " + std::to_string(f.width) +
                     "-bit field (max " + std::to_string((std::uint64_t(1) << f.width) - 1) + ")");
}

std::uint64_t get_field(const std::uint8_t* word, const BitField& f) {
  std::uint64_t v = 0;
  for (int k = f.width - 1; k >= 0; --k) {
    const int bit = f.first + k;
    v = (v << 1) | ((word[bit / 8] >> (bit % 8)) & 1u);
  }
  return v;
}

void set_field(std::uint8_t* word, const BitField& f, std::uint64_t value) {
  for (int k = 0; k < f.width; ++k) {
    const int bit = f.first + k;
    const std::uint8_t m = static_cast<std::uint8_t>(1u << (bit % 8));
    if ((value >> k) & 1u)
      word[bit / 8] |= m;
    else
      word[bit / 8] &= static_cast<std::uint8_t>(~m);
  }
}

namespace {
std::uint64_t checked_file_offset(const CubinFile& file, const std::string& function, std::uint64_t offset) {
  const Section& s = file.text_section(function);
  if (offset % kInstructionBytes != 0)
    throw UsageError("offset " + hex(offset) + " is not on a 16-byte instruction boundary of " + s.name);
  if (offset >= s.size)
    throw UsageError("offset " + hex(offset) + " is outside " + s.name + " (size " + hex(s.size) + "): only .text is patched");
  const std::uint64_t fo = s.offset + offset;
  const Section* owner = file.section_at(fo);
  if (owner == nullptr || owner->index != s.index)
    throw UsageError("offset " + hex(offset) + " does not map into " + s.name);
  return fo;
}
}  // namespace

void read_word(const CubinFile& file, const std::string& function, std::uint64_t offset, std::uint64_t& lo,
               std::uint64_t& hi) {
  const std::uint64_t fo = checked_file_offset(file, function, offset);
  lo = load64(file.bytes().data() + fo);
  hi = load64(file.bytes().data() + fo + 8);
}

std::vector<PatchApplied> apply_patches(CubinFile& file, const std::vector<PatchRequest>& requests) {
  std::vector<std::uint64_t> fos;
  for (const auto& r : requests) {
    if (r.field.width < 1 || r.field.width > 64 || r.field.first < 0 || r.field.first + r.field.width > kInstructionBits)
      throw UsageError("bit field " + std::to_string(r.field.first) + ":" + std::to_string(r.field.width) +
                       " is outside the 128-bit instruction");
    check_value_fits(r.field, r.value);
    fos.push_back(checked_file_offset(file, r.function, r.offset));
  }
  std::vector<PatchApplied> out;
  auto& b = file.mutable_bytes();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    PatchApplied a;
    a.request = requests[i];
    a.file_offset = fos[i];
    std::uint8_t* w = b.data() + fos[i];
    a.old_lo = load64(w);
    a.old_hi = load64(w + 8);
    a.old_value = get_field(w, requests[i].field);
    set_field(w, requests[i].field, requests[i].value);
    a.new_lo = load64(w);
    a.new_hi = load64(w + 8);
    out.push_back(a);
  }
  return out;
}

}  // namespace divbench::cubin
