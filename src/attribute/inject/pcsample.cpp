// libdivbench_pcsample.so: CUPTI PC sampling of a whole CUDA program, the measured time per
// instruction that complements libdivbench_inject.so's exact counts. Loaded by the driver through
// CUDA_INJECTION64_PATH, in a run of its own: the SASS metrics API (cuptiProfilerInitialize) and PC
// sampling exclude each other in one process.
//
// Environment:
//   DIVBENCH_ATTRIBUTE_DIR     the folder the document goes to (must exist); unset: the library does nothing
//   DIVBENCH_PCSAMPLE_PERIOD   k, the sampling period 2^k SM cycles, 5..31 (default 14: 16384 cycles; an
//                              H200 with all 132 SMs busy for 100 ms gives about 1.4e6 samples, so a
//                              program with only a few ms of kernels still gives >= 1e4; smaller k grows
//                              the hardware buffer's traffic, see hardware_buffer_full)
//   DIVBENCH_ATTRIBUTE_DEBUG=1 each step on stderr
//
// What a sample is: every 2^k cycles the sampler of each SM picks ONE of the warps active on it and
// records that warp's pc and its scheduler state (the stall reason, "selected" when it issued). With one
// warp per SM, samples x period at a pc is that warp's cycles at that pc (issue and stalls); with W
// active warps, each is picked with probability 1/W, so samples x period estimates the warp-cycles spent
// at the pc summed over the warps, divided by W (SM-cycles, not warp-cycles).
//
// Collection: continuous mode (kernels are not serialized), all stall reasons, parsed output. Sampling is
// enabled on each context as it is created (resource callback CONTEXT_CREATED) and drained with
// cuptiPCSamplingGetData after a launch returns when CUPTI holds many undelivered pcs (the configuration
// buffer's remainingNumPcs, which CUPTI keeps current) or a second has passed, and until empty when a module
// is loaded or unloaded (a range boundary), when a context is being destroyed and at exit; then
// cuptiPCSamplingDisable flushes the rest into the configuration buffer, which is read last. Samples are
// summed per (cubin CRC, function, pc offset) and per stall reason over every buffer. In a short program
// most pcs come from that final flush (H200: GetData at exit returned none, Disable 7834 pcs of 128
// kernels), so the configuration buffer is large; pcs beyond it are reported in "errors".
//
// Output, at exit: $DIVBENCH_ATTRIBUTE_DIR/pcsamples-<pid>.json (temporary file + rename), document
// "divbench.attribute_pcsamples/1" (read by attribute/pcsamples.hpp):
//   {"schema", "pid", "device": {"name", "cc", "sms", "index"},
//    "period_exponent": k, "period_cycles": 2^k,
//    "total_samples":  the sum of every pc's samples below (exact),
//    "dropped_samples": samples the hardware dropped (buffer backpressure), summed over buffers,
//    "hardware_buffer_full": true when any GetData found the hardware buffer full (samples lost),
//    "cupti_total_samples", "non_user_samples": CUPTI's totals (totalSamples includes non-user kernels
//        and dropped samples; nonUsrKernelsTotalSamples), summed over buffers,
//    "record_samples_all_reasons", "record_samples_without_not_issued": the records' samples summed
//        over every stall reason, and over those whose name does not end in "_not_issued",
//    "sample_rule": "all_reasons" or "without_not_issued": which of the two sums a pc's samples are:
//        the one nearer CUPTI's user total (cupti_total_samples - non_user_samples - dropped_samples).
//        Measured on the H200 (driver 580, CUPTI 13.0 and 13.4): CUPTI lists 40 reasons, 20 names each with
//        a "_not_issued" twin that counts the same sample again when the warp's scheduler issued nothing
//        that cycle (X_not_issued <= X at every pc); the sum without the twins equals CUPTI's user total
//        exactly (19579 = 19607 - 28 non-user), so the rule there is "without_not_issued",
//    "stall_reasons": [CUPTI's names, e.g. "smsp__pcsamp_warps_issue_stalled_long_scoreboard"],
//    "functions": [{"crc": cubin CRC (low 32 bits, as counts-<pid>.json), "name": mangled,
//                   "pcs": [[pc offset, samples, {"<index into stall_reasons>": samples, ...}], ...]}],
//                   the object lists the nonzero reasons only, "_not_issued" ones included,
//    "errors": [one line per CUPTI failure, a repeated one with " (N times)"]}
// and errors-<pid>.txt with the same lines when there were any (as libdivbench_inject.so does).
#include <cuda.h>
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <unistd.h>

#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "injection_base.hpp"

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using divbench::inject::debugf;
constexpr const char* kTag = "pcsample";  // DIVBENCH_ATTRIBUTE_DEBUG=1 lines: "divbench pcsample: ..."

constexpr std::uint32_t kDefaultPeriodExponent = 14;
constexpr std::size_t kDrainPcs = 4096;           // pcs per GetData
constexpr std::size_t kConfigPcs = 65536;         // pcs the final flush (Disable) can deliver (~25 MB)
constexpr std::size_t kScratchBytes = 16u << 20;  // CUPTI's buffer of decoded pcs (default 1 MiB)
// The device buffer of raw samples. CUPTI's default is 512 MiB; with it every launch cost more: on the H200
// the 128-kernel program's sampling run took 912 ms against 686 ms with 32 MiB, the same samples, none
// dropped (results/h200/probes/pcsample-overhead). A long kernel may overflow 32 MiB at 2^12 cycles:
// the document says so (hardware_buffer_full, dropped_samples), attribute warns, and its
// --pc-sampling-buffer (DIVBENCH_PCSAMPLE_HW_MIB) takes a larger one.
constexpr std::size_t kHardwareBytes = 32u << 20;
constexpr int kMaxDrainRounds = 100000;

// One CUpti_PCSamplingData with room for `pcs` records of `reasons` stall reasons each.
struct Buffer {
  CUpti_PCSamplingData data{};
  std::vector<CUpti_PCSamplingPCData> records;
  std::vector<CUpti_PCSamplingStallReason> reasons;
  void init(std::size_t pcs, std::size_t reason_count) {
    records.assign(pcs, CUpti_PCSamplingPCData{});
    reasons.assign(pcs * (reason_count ? reason_count : 1), CUpti_PCSamplingStallReason{});
    for (std::size_t i = 0; i < pcs; ++i) {
      records[i].size = sizeof(CUpti_PCSamplingPCData);
      records[i].stallReason = &reasons[i * (reason_count ? reason_count : 1)];
    }
    data = CUpti_PCSamplingData{};
    data.size = sizeof(CUpti_PCSamplingData);
    data.collectNumPcs = pcs;
    data.pPcData = records.data();
  }
};

struct Context {
  CUcontext ctx = nullptr;
  std::uint32_t device = 0;
  bool enabled = false;
  std::map<std::uint32_t, std::size_t> slot;  // CUPTI's stall reason index -> index in State::reasons
  std::size_t reason_count = 0;
  Buffer config;  // given to CUPTI in the configuration: its status fields, and the final flush
  Buffer drain;   // GetData's
  Clock::time_point last_drain = Clock::now();
};

using Key = std::pair<std::uint32_t, std::string>;

struct State {
  std::recursive_mutex mu;  // recursive: a CUPTI call made under it may call back on the same thread
  divbench::inject::Process proc;  // the loading process and $DIVBENCH_ATTRIBUTE_DIR
  CUpti_SubscriberHandle subscriber = nullptr;
  std::uint32_t period_exponent = kDefaultPeriodExponent;
  // CUPTI's buffers: the defaults above unless DIVBENCH_PCSAMPLE_HW_MIB / DIVBENCH_PCSAMPLE_SCRATCH_MIB
  // (measurements of the overhead, stage 50's probe; not an option of divbench).
  std::size_t hardware_bytes = kHardwareBytes, scratch_bytes = kScratchBytes;
  std::map<CUcontext, std::unique_ptr<Context>> contexts;
  std::set<CUcontext> failed;
  std::vector<std::string> reasons;             // every context's stall reasons, by name
  std::map<std::string, std::size_t> reason_slot;
  std::map<Key, std::map<std::uint64_t, std::map<std::size_t, std::uint64_t>>> samples;  // -> pc -> reason -> n
  std::uint64_t cupti_total = 0, dropped = 0, non_user = 0;
  bool hardware_buffer_full = false;
  bool crc_wider_noted = false;
  std::set<char*> names;  // CUPTI's function-name strings, ours to free once every record is read
  divbench::inject::ErrorLog errors{"divbench attribute (pc sampling)"};
  json device = json::object();
  bool written = false;
};

State& state() {
  static State* s = new State;  // never destroyed: atexit handlers and CUPTI's callbacks may still use it
  return *s;
}

void note_line(State& s, const std::string& line) { s.errors.add(line); }

void note_error(State& s, const std::string& what, CUptiResult r) { s.errors.add_cupti(what, r); }

template <class T>
T params(std::size_t size, CUcontext ctx) {
  T p{};
  p.size = size;
  p.ctx = ctx;
  return p;
}

void describe_device(State& s, std::uint32_t index) {
  if (!s.device.empty()) return;
  CUdevice dev = 0;
  char name[256] = {0};
  int major = 0, minor = 0, sms = 0;
  if (cuDeviceGet(&dev, static_cast<int>(index)) == CUDA_SUCCESS) {
    cuDeviceGetName(name, sizeof name, dev);
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  }
  s.device = json{{"name", name}, {"cc", std::to_string(major) + "." + std::to_string(minor)}, {"sms", sms}, {"index", index}};
}

// Adds one buffer's records and totals into the state.
void absorb(State& s, const Context& c, const CUpti_PCSamplingData& d) {
  s.cupti_total += d.totalSamples;
  s.dropped += d.droppedSamples;
  s.non_user += d.nonUsrKernelsTotalSamples;
  if (d.hardwareBufferFull) s.hardware_buffer_full = true;
  const std::size_t n = d.totalNumPcs < d.collectNumPcs ? d.totalNumPcs : d.collectNumPcs;
  for (std::size_t i = 0; i < n; ++i) {
    const CUpti_PCSamplingPCData& r = d.pPcData[i];
    if (r.functionName) s.names.insert(r.functionName);
    if ((r.cubinCrc >> 32) != 0 && !s.crc_wider_noted) {
      s.crc_wider_noted = true;
      note_line(s, "a cubin CRC wider than 32 bits (" + std::to_string(r.cubinCrc) + "): written as its low 32 bits");
    }
    auto& per = s.samples[{static_cast<std::uint32_t>(r.cubinCrc), r.functionName ? r.functionName : ""}][r.pcOffset];
    const std::size_t m = r.stallReasonCount < c.reason_count ? r.stallReasonCount : c.reason_count;
    for (std::size_t k = 0; k < m; ++k) {
      const auto it = c.slot.find(r.stallReason[k].pcSamplingStallReasonIndex);
      if (it == c.slot.end()) {
        note_line(s, "a record's stall reason index " + std::to_string(r.stallReason[k].pcSamplingStallReasonIndex) +
                         " is not one GetStallReasons listed: its samples are left out");
        continue;
      }
      if (r.stallReason[k].samples) per[it->second] += r.stallReason[k].samples;
    }
  }
}

// GetData into the drain buffer: once, or until CUPTI has nothing left (until_empty).
void drain(State& s, Context& c, bool until_empty, const char* why) {
  if (!c.enabled) return;
  if (c.config.data.totalNumPcs > 0)  // expected only after Disable: the first GPU runs tell
    debugf(kTag, "drain (%s): the configuration buffer holds %zu pcs before Disable", why, c.config.data.totalNumPcs);
  std::size_t pcs = 0;
  for (int round = 0; round < kMaxDrainRounds; ++round) {
    auto gd = params<CUpti_PCSamplingGetDataParams>(CUpti_PCSamplingGetDataParamsSize, c.ctx);
    c.drain.data.totalNumPcs = 0;
    c.drain.data.remainingNumPcs = 0;
    c.drain.data.hardwareBufferFull = 0;
    gd.pcSamplingData = &c.drain.data;
    const CUptiResult r = cuptiPCSamplingGetData(&gd);
    if (r != CUPTI_SUCCESS) {
      // CUPTI_ERROR_OUT_OF_MEMORY: the hardware buffer is full (samples are lost; the data comes back empty).
      if (r == CUPTI_ERROR_OUT_OF_MEMORY || c.drain.data.hardwareBufferFull) s.hardware_buffer_full = true;
      note_error(s, std::string("cuptiPCSamplingGetData (") + why + ")", r);
      break;
    }
    absorb(s, c, c.drain.data);
    pcs += c.drain.data.totalNumPcs;
    if (!until_empty || c.drain.data.totalNumPcs == 0 || c.drain.data.remainingNumPcs == 0) break;
  }
  c.last_drain = Clock::now();
  debugf(kTag, "drain (%s) on context %p: %zu pcs; CUPTI still holds %zu", why, static_cast<void*>(c.ctx), pcs,
        c.drain.data.remainingNumPcs);
}

bool configure(State& s, Context& c) {
  size_t count = 0;
  auto nr = params<CUpti_PCSamplingGetNumStallReasonsParams>(CUpti_PCSamplingGetNumStallReasonsParamsSize, c.ctx);
  nr.numStallReasons = &count;
  DIVBENCH_CUPTI_TRY(s, cuptiPCSamplingGetNumStallReasons(&nr));
  std::vector<std::uint32_t> indices(count ? count : 1);
  std::vector<std::vector<char>> text(count, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE, '\0'));
  std::vector<char*> names(count ? count : 1, nullptr);
  for (std::size_t i = 0; i < count; ++i) names[i] = text[i].data();
  auto gr = params<CUpti_PCSamplingGetStallReasonsParams>(CUpti_PCSamplingGetStallReasonsParamsSize, c.ctx);
  gr.numStallReasons = count;
  gr.stallReasonIndex = indices.data();
  gr.stallReasons = names.data();
  DIVBENCH_CUPTI_TRY(s, cuptiPCSamplingGetStallReasons(&gr));
  c.reason_count = count;
  for (std::size_t i = 0; i < count; ++i) {
    text[i].back() = '\0';
    const std::string name = text[i].data();
    auto [it, fresh] = s.reason_slot.emplace(name, s.reasons.size());
    if (fresh) s.reasons.push_back(name);
    c.slot[indices[i]] = it->second;
  }
  debugf(kTag, "context %p: %zu stall reasons", static_cast<void*>(c.ctx), count);
  c.config.init(kConfigPcs, count);
  c.drain.init(kDrainPcs, count);

  std::vector<CUpti_PCSamplingConfigurationInfo> attrs(7);
  for (auto& a : attrs) a = CUpti_PCSamplingConfigurationInfo{};
  attrs[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
  attrs[0].attributeData.samplingPeriodData.samplingPeriod = s.period_exponent;
  attrs[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
  attrs[1].attributeData.stallReasonData.stallReasonCount = count;
  attrs[1].attributeData.stallReasonData.pStallReasonIndex = indices.data();
  attrs[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE;
  attrs[2].attributeData.scratchBufferSizeData.scratchBufferSize = s.scratch_bytes;
  attrs[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE;
  attrs[3].attributeData.hardwareBufferSizeData.hardwareBufferSize = s.hardware_bytes;
  attrs[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
  attrs[4].attributeData.collectionModeData.collectionMode = CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
  attrs[5].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
  attrs[5].attributeData.outputDataFormatData.outputDataFormat = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
  attrs[6].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
  attrs[6].attributeData.samplingDataBufferData.samplingDataBuffer = &c.config.data;
  auto sc = params<CUpti_PCSamplingConfigurationInfoParams>(CUpti_PCSamplingConfigurationInfoParamsSize, c.ctx);
  sc.numAttributes = attrs.size();
  sc.pPCSamplingConfigurationInfo = attrs.data();
  const CUptiResult r = cuptiPCSamplingSetConfigurationAttribute(&sc);
  if (r != CUPTI_SUCCESS) {
    for (const auto& a : attrs)  // which attribute CUPTI refused
      if (a.attributeStatus != CUPTI_SUCCESS)
        note_error(s, "cuptiPCSamplingSetConfigurationAttribute (attribute " + std::to_string(static_cast<int>(a.attributeType)) + ")",
                   a.attributeStatus);
    note_error(s, "cuptiPCSamplingSetConfigurationAttribute", r);
    return false;
  }
  return true;
}

void enable_context(State& s, CUcontext ctx, const char* where) {
  if (!ctx || s.failed.count(ctx)) return;
  if (auto it = s.contexts.find(ctx); it != s.contexts.end() && it->second->enabled) return;
  auto c = std::make_unique<Context>();
  c->ctx = ctx;
  if (const CUptiResult r = cuptiGetDeviceId(ctx, &c->device); r != CUPTI_SUCCESS) note_error(s, "cuptiGetDeviceId", r);
  debugf(kTag, "enabling on context %p at %s", static_cast<void*>(ctx), where);
  auto en = params<CUpti_PCSamplingEnableParams>(CUpti_PCSamplingEnableParamsSize, ctx);
  if (const CUptiResult r = cuptiPCSamplingEnable(&en); r != CUPTI_SUCCESS) {
    note_error(s, "cuptiPCSamplingEnable", r);
    s.failed.insert(ctx);
    return;
  }
  debugf(kTag, "cuptiPCSamplingEnable returned");
  // Every other PC sampling call needs sampling enabled on the context first.
  if (!configure(s, *c)) {
    auto di = params<CUpti_PCSamplingDisableParams>(CUpti_PCSamplingDisableParamsSize, ctx);
    cuptiPCSamplingDisable(&di);
    s.failed.insert(ctx);
    return;
  }
  c->enabled = true;
  describe_device(s, c->device);
  debugf(kTag, "enabled on context %p (device %u) at %s, period 2^%u cycles", static_cast<void*>(ctx), c->device, where,
        s.period_exponent);
  s.contexts[ctx] = std::move(c);
}

// Collects everything for the context and ends sampling on it: GetData until empty, then Disable,
// which flushes what is left into the configuration buffer.
void finish_context(State& s, Context& c, const char* why) {
  if (!c.enabled) return;
  drain(s, c, true, why);
  c.config.data.totalNumPcs = 0;
  c.config.data.remainingNumPcs = 0;
  auto di = params<CUpti_PCSamplingDisableParams>(CUpti_PCSamplingDisableParamsSize, c.ctx);
  const CUptiResult r = cuptiPCSamplingDisable(&di);
  c.enabled = false;
  if (r != CUPTI_SUCCESS) {
    note_error(s, "cuptiPCSamplingDisable", r);
    return;
  }
  absorb(s, c, c.config.data);
  debugf(kTag, "disabled on context %p (%s): the final flush held %zu pcs, %zu left over", static_cast<void*>(c.ctx), why,
        c.config.data.totalNumPcs, c.config.data.remainingNumPcs);
  if (c.config.data.remainingNumPcs > 0)
    note_line(s, std::to_string(c.config.data.remainingNumPcs) + " pc records discarded by cuptiPCSamplingDisable (the configuration buffer holds " +
                     std::to_string(kConfigPcs) + ")");
  c.config.data.totalNumPcs = 0;
}

void write_document(State& s) {
  if (s.written) return;
  s.written = true;
  // A pc's samples: every reason's, or those of the reasons not named "_not_issued" where those are a
  // second count of the same samples (the sum nearer CUPTI's own total of user samples decides).
  std::vector<bool> not_issued(s.reasons.size(), false);
  bool any_not_issued = false;
  for (std::size_t i = 0; i < s.reasons.size(); ++i) {
    const std::string& n = s.reasons[i];
    const std::string tail = "_not_issued";
    not_issued[i] = n.size() >= tail.size() && n.compare(n.size() - tail.size(), tail.size(), tail) == 0;
    any_not_issued = any_not_issued || not_issued[i];
  }
  std::uint64_t sum_all = 0, sum_issued = 0;
  for (const auto& [key, pcs] : s.samples)
    for (const auto& [pc, per] : pcs)
      for (const auto& [slot, n] : per) {
        sum_all += n;
        if (!not_issued[slot]) sum_issued += n;
      }
  const std::uint64_t taken = s.non_user + s.dropped;
  const std::uint64_t user = s.cupti_total > taken ? s.cupti_total - taken : 0;
  const auto distance = [](std::uint64_t a, std::uint64_t b) { return a > b ? a - b : b - a; };
  const bool without = any_not_issued && distance(sum_issued, user) < distance(sum_all, user);

  json functions = json::array();
  std::uint64_t total = 0;
  for (const auto& [key, pcs] : s.samples) {
    json rows = json::array();
    for (const auto& [pc, per] : pcs) {
      std::uint64_t n = 0;
      json reasons = json::object();
      for (const auto& [slot, v] : per) {
        if (!without || !not_issued[slot]) n += v;
        reasons[std::to_string(slot)] = v;
      }
      if (per.empty()) continue;
      total += n;
      rows.push_back(json::array({pc, n, reasons}));
    }
    if (!rows.empty()) functions.push_back({{"crc", key.first}, {"name", key.second}, {"pcs", rows}});
  }
  json reasons = json::array();
  for (const auto& name : s.reasons) reasons.push_back(name);
  json errors = json::array();
  for (const auto& line : s.errors.lines()) errors.push_back(line);
  const json doc{{"schema", "divbench.attribute_pcsamples/1"},
                 {"pid", ::getpid()},
                 {"hardware_buffer_mib", s.hardware_bytes >> 20},
                 {"device", s.device},
                 {"period_exponent", s.period_exponent},
                 {"period_cycles", std::uint64_t{1} << s.period_exponent},
                 {"total_samples", total},
                 {"dropped_samples", s.dropped},
                 {"hardware_buffer_full", s.hardware_buffer_full},
                 {"cupti_total_samples", s.cupti_total},
                 {"non_user_samples", s.non_user},
                 {"record_samples_all_reasons", sum_all},
                 {"record_samples_without_not_issued", sum_issued},
                 {"sample_rule", without ? "without_not_issued" : "all_reasons"},
                 {"stall_reasons", reasons},
                 {"functions", functions},
                 {"errors", errors}};
  debugf(kTag, "write: %llu samples (CUPTI: %llu total, %llu non-user, %llu dropped; records %llu all reasons, %llu without not_issued)",
        static_cast<unsigned long long>(total), static_cast<unsigned long long>(s.cupti_total),
        static_cast<unsigned long long>(s.non_user), static_cast<unsigned long long>(s.dropped),
        static_cast<unsigned long long>(sum_all), static_cast<unsigned long long>(sum_issued));
  const std::string path = s.proc.dir + "/pcsamples-" + std::to_string(::getpid()) + ".json";
  if (!divbench::inject::write_whole(path, doc.dump(-1, ' ', false, json::error_handler_t::replace)))
    std::fprintf(stderr, "divbench attribute (pc sampling): cannot write %s\n", path.c_str());
  s.errors.write(s.proc.dir);
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  State& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  if (!s.proc.owns()) return;  // a forked child
  if (s.written) return;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    if (!divbench::inject::is_launch(id)) return;
    const auto* info = static_cast<const CUpti_CallbackData*>(data);
    if (!info->context) return;
    if (info->callbackSite == CUPTI_API_ENTER) {
      // A context created before this library subscribed (not expected: the driver loads it in cuInit).
      if (!s.contexts.count(info->context)) enable_context(s, info->context, "a launch");
      return;
    }
    const auto it = s.contexts.find(info->context);
    if (it == s.contexts.end() || !it->second->enabled) return;
    Context& c = *it->second;
    // CUPTI keeps the configuration buffer's remainingNumPcs current: drain when it holds a buffer's
    // worth, and at least once a second while launches come.
    if (c.config.data.remainingNumPcs >= kDrainPcs / 2) {
      for (int i = 0; i < 64 && c.config.data.remainingNumPcs >= kDrainPcs / 2; ++i) {
        const std::size_t before = c.config.data.remainingNumPcs;
        drain(s, c, false, "after a launch");
        if (c.drain.data.totalNumPcs == 0 || c.config.data.remainingNumPcs == before) break;
      }
    } else if (Clock::now() - c.last_drain > std::chrono::seconds(1)) {
      drain(s, c, false, "after a launch, periodic");
    }
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_RESOURCE) return;
  const auto* rd = static_cast<const CUpti_ResourceData*>(data);
  debugf(kTag, "resource callback %u", static_cast<unsigned>(id));
  if (id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
    s.failed.erase(rd->context);  // a handle reused by a new context
    enable_context(s, rd->context, "context creation");
  } else if (id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    if (auto it = s.contexts.find(rd->context); it != s.contexts.end()) finish_context(s, *it->second, "context destroy");
  } else if (id == CUPTI_CBID_RESOURCE_MODULE_LOADED || id == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
    // A range boundary: CUPTI wants its pcs collected before a module's addresses may be reused.
    if (auto it = s.contexts.find(rd->context); it != s.contexts.end())
      drain(s, *it->second, true, id == CUPTI_CBID_RESOURCE_MODULE_LOADED ? "module loaded" : "module unload");
  }
}

void at_exit() {
  State& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  if (!s.proc.owns()) return;  // a forked child's exit
  debugf(kTag, "at exit: %zu context(s)", s.contexts.size());
  for (auto& [ctx, c] : s.contexts) finish_context(s, *c, "exit");
  write_document(s);
  for (char* name : s.names) std::free(name);  // CUPTI's strings: the caller frees them after the last record
  s.names.clear();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  State& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  if (s.subscriber) return 1;
  if (!s.proc.start("PC sampling library")) return 0;
  if (const char* p = std::getenv("DIVBENCH_PCSAMPLE_PERIOD"); p && *p) {
    char* end = nullptr;
    const unsigned long k = std::strtoul(p, &end, 10);
    if (*end == '\0' && k >= 5 && k <= 31) s.period_exponent = static_cast<std::uint32_t>(k);
    else note_line(s, std::string("DIVBENCH_PCSAMPLE_PERIOD=") + p + " is not an exponent in 5..31: using " + std::to_string(kDefaultPeriodExponent));
  }
  for (auto [name, bytes] : {std::pair<const char*, std::size_t*>{"DIVBENCH_PCSAMPLE_HW_MIB", &s.hardware_bytes},
                             std::pair<const char*, std::size_t*>{"DIVBENCH_PCSAMPLE_SCRATCH_MIB", &s.scratch_bytes}})
    if (const char* v = std::getenv(name); v && *v) {
      char* end = nullptr;
      const unsigned long mib = std::strtoul(v, &end, 10);
      if (*end == '\0' && mib >= 1 && mib <= 4096) *bytes = std::size_t{mib} << 20;
      else note_line(s, std::string(name) + "=" + v + " is not a size in MiB (1..4096): ignored");
    }
  debugf(kTag, "loaded; hardware buffer %zu MiB, scratch buffer %zu MiB", s.hardware_bytes >> 20, s.scratch_bytes >> 20);
  CUptiResult r = cuptiSubscribe(&s.subscriber, reinterpret_cast<CUpti_CallbackFunc>(on_callback), nullptr);
  if (r != CUPTI_SUCCESS) {
    note_error(s, "cuptiSubscribe", r);
    s.subscriber = nullptr;
    write_document(s);
    return 0;
  }
  for (CUpti_CallbackId id : {CUPTI_CBID_RESOURCE_CONTEXT_CREATED, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
                              CUPTI_CBID_RESOURCE_MODULE_LOADED, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING})
    if ((r = cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE, id)) != CUPTI_SUCCESS) note_error(s, "cuptiEnableCallback", r);
  divbench::inject::enable_launch_callbacks(s.subscriber, s.errors);
  std::atexit(at_exit);
  debugf(kTag, "subscribed; period 2^%u cycles", s.period_exponent);
  return 1;
}
