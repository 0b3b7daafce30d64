// A stand-in for libnvidia-ml with fixed readings (tests/nvml): one device at PCI 0000:00:06.0, SM
// 1980 MHz, memory 3201 MHz, 123456 mW, 41 C; the clock-event reasons come from $FAKE_NVML_REASONS
// at every call, so a test sets them per reading. fake_nvml_lookups() counts handle lookups.
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
int dummy_device = 0;
int lookups = 0;
constexpr int kSuccess = 0, kNotFound = 6, kNotSupported = 3;
}  // namespace

struct nvmlDevice_st;

extern "C" {

int fake_nvml_lookups() { return lookups; }

int nvmlInit_v2() { return kSuccess; }

int nvmlSystemGetDriverVersion(char* buf, unsigned n) {
  std::snprintf(buf, n, "580.0-fake");
  return kSuccess;
}

int nvmlDeviceGetHandleByPciBusId_v2(const char* id, nvmlDevice_st** dev) {
  ++lookups;
  if (std::strcmp(id, "0000:00:06.0") != 0) return kNotFound;
  *dev = reinterpret_cast<nvmlDevice_st*>(&dummy_device);
  return kSuccess;
}

int nvmlDeviceGetClockInfo(nvmlDevice_st*, int type, unsigned* v) {
  if (type == 1) *v = 1980;       // NVML_CLOCK_SM
  else if (type == 2) *v = 3201;  // NVML_CLOCK_MEM
  else return kNotSupported;
  return kSuccess;
}

int nvmlDeviceGetMaxClockInfo(nvmlDevice_st*, int, unsigned* v) {
  *v = 1980;
  return kSuccess;
}

static int reasons(unsigned long long* r) {
  const char* s = std::getenv("FAKE_NVML_REASONS");
  *r = s ? std::strtoull(s, nullptr, 0) : 0;
  return kSuccess;
}

#ifdef FAKE_NVML_EVENT_API
int nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_st*, unsigned long long* r) { return reasons(r); }
#else
int nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_st*, unsigned long long* r) { return reasons(r); }
#endif

#ifdef FAKE_NVML_EVENT_API
// The processes on the device: the PIDs in $FAKE_NVML_PIDS ("12,34"); a count above *n asks for more room.
struct FakeProcessInfo {
  unsigned pid;
  unsigned long long mem;
  unsigned gi, ci;
};
int nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_st*, unsigned* n, FakeProcessInfo* out) {
  const char* s = std::getenv("FAKE_NVML_PIDS");
  unsigned count = 0;
  FakeProcessInfo got[16];
  while (s && *s && count < 16) {
    char* end = nullptr;
    got[count++] = FakeProcessInfo{static_cast<unsigned>(std::strtoul(s, &end, 10)), 0, 0, 0};
    s = *end ? end + 1 : end;
  }
  if (count > *n) {
    *n = count;
    return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  }
  for (unsigned i = 0; i < count; ++i) out[i] = got[i];
  *n = count;
  return kSuccess;
}
#endif

#ifdef FAKE_NVML_POWER_TEMPERATURE
int nvmlDeviceGetPowerUsage(nvmlDevice_st*, unsigned* mw) {
  *mw = 123456;
  return kSuccess;
}

int nvmlDeviceGetTemperature(nvmlDevice_st*, int sensor, unsigned* c) {
  if (sensor != 0) return kNotSupported;
  *c = 41;
  return kSuccess;
}
#endif
}
