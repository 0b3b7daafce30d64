// Disassembly begun before the program loads its code (attribute/early_cubins.hpp).
#include "divbench/attribute/early_cubins.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "divbench/attribute/launch.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"
#include "divbench/cubin/driver_device.hpp"
#include "divbench/sass/nvdisasm.hpp"

namespace divbench::attribute {

namespace {

namespace fs = std::filesystem;

std::vector<char> bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

EarlyCubins::EarlyCubins(const std::string& program, const std::string& cuobjdump, const std::string& dir,
                         std::uintmax_t max_bytes, Disassemble disassemble, int device_sm)
    : disassemble_(std::move(disassemble)) {
  ready_ = std::async(std::launch::async, [this, program, cuobjdump, dir, max_bytes, device_sm] {
             prepare(program, cuobjdump, dir, max_bytes, device_sm);
           }).share();
}

EarlyCubins::~EarlyCubins() {
  if (ready_.valid()) ready_.wait();
  for (auto& e : entries_)
    if (e.cubin.valid()) e.cubin.wait();
}

void EarlyCubins::prepare(const std::string& program, const std::string& cuobjdump, const std::string& dir,
                          std::uintmax_t max_bytes, int device_sm) {
  std::vector<std::string> files;
  try {
    program_ = resolve_program(program);
    if (sass::inspect_file(program_).kind != sass::FileKind::host_elf) {
      why_ = "the program is not an executable ELF file";
      return;
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    files = sass::extract_cubins(program_, cuobjdump, dir);
  } catch (const std::exception& e) {
    why_ = one_line(e.what());
    return;
  }
  extracted_ = static_cast<int>(files.size());
  std::vector<std::pair<std::string, int>> cubins;
  std::set<int> sms;
  for (const auto& f : files) {
    try {
      const sass::FileInfo info = sass::inspect_file(f);
      if (info.kind != sass::FileKind::cubin) continue;
      cubins.emplace_back(f, info.sm);
      sms.insert(info.sm);
    } catch (const std::exception&) {
    }
  }
  // One architecture in the executable: that one (no driver call); else the GPU's.
  device_sm_ = device_sm ? device_sm : sms.size() == 1 ? *sms.begin() : cubin::driver_device_sm();
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [f, sm] : cubins) {
    std::error_code ec;
    if (sm != device_sm_ || fs::file_size(f, ec) > max_bytes || ec) continue;
    Entry e;
    e.file = f;
    e.sm = sm;
    e.bytes = bytes_of(f);
    e.label = "executable:" + fs::path(f).filename().string();
    e.cubin = std::async(std::launch::async, [d = disassemble_, label = e.label, f = f] { return d(label, f); }).share();
    entries_.push_back(std::move(e));
  }
  if (entries_.empty())
    why_ = device_sm_ ? "no cubin of the device's architecture sm_" + std::to_string(device_sm_) + " in the executable"
                      : "the device's architecture is unknown (no driver) and the executable holds several";
}

std::optional<EarlyCubins::Match> EarlyCubins::take(const std::string& saved, double wait_s) {
  if (ready_.wait_for(std::chrono::duration<double>(wait_s)) != std::future_status::ready) return std::nullopt;
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(saved, ec);
  if (ec) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<std::vector<char>> bytes;
  for (auto& e : entries_) {
    if (e.taken || e.bytes.size() != size) continue;
    if (!bytes) bytes = bytes_of(saved);
    if (*bytes != e.bytes) continue;
    e.taken = true;
    return Match{e.cubin, e.label};
  }
  return std::nullopt;
}

json EarlyCubins::summary() {
  if (ready_.valid()) ready_.wait();
  std::lock_guard<std::mutex> lock(mutex_);
  json started = json::array();
  for (const auto& e : entries_)
    started.push_back({{"file", fs::path(e.file).filename().string()}, {"sm", e.sm}, {"bytes", e.bytes.size()},
                       {"matched", e.taken}});
  json j{{"program", program_}, {"cubins", extracted_}, {"device_sm", device_sm_}, {"started", started}};
  if (!why_.empty()) j["why"] = why_;
  return j;
}

}  // namespace divbench::attribute
