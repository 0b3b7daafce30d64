#include "injection_base.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace divbench::inject {

bool Process::owns() const { return ::getpid() == owner; }

bool Process::start(const char* library) {
  const char* d = std::getenv("DIVBENCH_ATTRIBUTE_DIR");
  if (!d || !*d) {
    std::fprintf(stderr, "divbench attribute: DIVBENCH_ATTRIBUTE_DIR is not set; the %s does nothing\n", library);
    return false;
  }
  dir = d;
  owner = ::getpid();
  return true;
}

bool debug_on() {
  static const bool on = [] {
    const char* e = std::getenv("DIVBENCH_ATTRIBUTE_DEBUG");
    return e && *e == '1';
  }();
  return on;
}

void debugf(const char* tag, const char* fmt, ...) {
  if (!debug_on()) return;
  // Milliseconds since the library was loaded: where a run's time goes.
  static const auto t0 = std::chrono::steady_clock::now();
  va_list ap;
  va_start(ap, fmt);
  std::fprintf(stderr, "divbench %s: %8.1f ms: ", tag,
               std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  std::vfprintf(stderr, fmt, ap);
  std::fprintf(stderr, "\n");
  va_end(ap);
}

std::string cupti_text(CUptiResult r) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  return text ? text : "CUPTI error " + std::to_string(static_cast<int>(r));
}

void ErrorLog::add(const std::string& line, bool print) {
  for (auto& [text, n] : lines_)
    if (text == line) {
      ++n;
      return;
    }
  lines_.emplace_back(line, 1);
  if (print) std::fprintf(stderr, "%s: %s\n", prefix_.c_str(), line.c_str());
}

void ErrorLog::add_first(const std::string& line) { lines_.insert(lines_.begin(), {line, 1}); }

std::vector<std::string> ErrorLog::lines() const {
  std::vector<std::string> out;
  for (const auto& [text, n] : lines_) out.push_back(n > 1 ? text + " (" + std::to_string(n) + " times)" : text);
  return out;
}

void ErrorLog::write(const std::string& dir) const {
  if (lines_.empty()) return;
  if (FILE* f = std::fopen((dir + "/errors-" + std::to_string(::getpid()) + ".txt").c_str(), "w")) {
    for (const auto& line : lines()) std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
  }
}

const std::vector<CUpti_CallbackId>& launch_callbacks() {
  static const std::vector<CUpti_CallbackId> ids{
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice, CUPTI_DRIVER_TRACE_CBID_cuLaunch,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,             CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
      CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,            CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz};
  return ids;
}

bool is_launch(CUpti_CallbackId id) {
  const auto& ids = launch_callbacks();
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

bool is_graph_launch(CUpti_CallbackId id) {
  return id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch || id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

void enable_launch_callbacks(CUpti_SubscriberHandle subscriber, ErrorLog& errors) {
  for (CUpti_CallbackId id : launch_callbacks())
    if (const CUptiResult r = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id); r != CUPTI_SUCCESS)
      errors.add_cupti("cuptiEnableCallback", r);
}

LaunchParams launch_params(CUpti_CallbackId id, const void* p) {
  LaunchParams out;
  if (!p) return out;
  const auto from = [&](const auto* q) {
    out.function = q->f;
    out.stream = q->hStream;
    out.blocks = std::uint64_t(q->gridDimX) * q->gridDimY * q->gridDimZ;
    out.block_threads = q->blockDimX * q->blockDimY * q->blockDimZ;
    out.shared_bytes = q->sharedMemBytes;
    out.ok = true;
  };
  const auto from_config = [&](CUfunction f, const CUlaunchConfig* c) {
    if (!c) return;
    out.function = f;
    out.stream = c->hStream;
    out.blocks = std::uint64_t(c->gridDimX) * c->gridDimY * c->gridDimZ;
    out.block_threads = c->blockDimX * c->blockDimY * c->blockDimZ;
    out.shared_bytes = c->sharedMemBytes;
    out.ok = true;
  };
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: from(static_cast<const cuLaunchKernel_params*>(p)); break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: from(static_cast<const cuLaunchKernel_ptsz_params*>(p)); break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: {
      const auto* q = static_cast<const cuLaunchKernelEx_params*>(p);
      from_config(q->f, q->config);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto* q = static_cast<const cuLaunchKernelEx_ptsz_params*>(p);
      from_config(q->f, q->config);
      break;
    }
    default: break;
  }
  return out;
}

bool write_whole(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) return false;
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) == 0 && ok && std::rename(tmp.c_str(), path.c_str()) == 0) return true;
  std::remove(tmp.c_str());
  return false;
}

}  // namespace divbench::inject
