// The driver-API runner without a GPU: a test double of the driver (DriverApi filled with fake
// functions) "executes" the flip-test kernel with the host model, or misbehaves on demand, chosen by
// the first bytes of the "cubin": ELF (a real cubin) -> correct outputs; "hang" -> never finishes;
// "fault" -> illegal instruction; "crash" -> the trial process aborts; "stall" -> the launch call
// itself never returns (the parent must kill the child); "nostore" -> out[] is never written.
// Everything but the real execution is exercised: process isolation, pipes, both timeouts, the
// comparison and the whole experiment (with nvdisasm) end to end.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include <unistd.h>

#include "cubin_paths.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/cubin/experiment.hpp"
#include "divbench/cubin/runner.hpp"
#include "driver_api.hpp"

using namespace divbench;
using namespace divbench::cubin;

namespace {

std::string g_mode;  // set by cuModuleLoadData from the cubin's first bytes

std::string mode_of(const void* image) {
  const char* p = static_cast<const char*>(image);
  if (std::memcmp(p, "\x7f" "ELF", 4) == 0) return "ok";
  return std::string(p, strnlen(p, 16));
}

CUresult fInit(unsigned) { return CUDA_SUCCESS; }
CUresult fDeviceGetCount(int* n) { *n = 1; return CUDA_SUCCESS; }
CUresult fDeviceGet(CUdevice* d, int i) { *d = i; return CUDA_SUCCESS; }
CUresult fRetain(CUcontext* c, CUdevice) { *c = reinterpret_cast<CUcontext>(0x1); return CUDA_SUCCESS; }
CUresult fRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult fSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult fLoad(CUmodule* m, const void* image) {
  g_mode = mode_of(image);
  if (g_mode == "badimage") return CUDA_ERROR_INVALID_IMAGE;
  *m = reinterpret_cast<CUmodule>(0x2);
  return CUDA_SUCCESS;
}
CUresult fUnload(CUmodule) { return CUDA_SUCCESS; }
CUresult fGetFunction(CUfunction* f, CUmodule, const char* name) {
  if (std::string(name) != "flip_test") return CUDA_ERROR_NOT_FOUND;
  *f = reinterpret_cast<CUfunction>(0x3);
  return CUDA_SUCCESS;
}
CUresult fAlloc(CUdeviceptr* p, size_t n) { *p = reinterpret_cast<CUdeviceptr>(std::malloc(n)); return CUDA_SUCCESS; }
CUresult fFree(CUdeviceptr p) { std::free(reinterpret_cast<void*>(p)); return CUDA_SUCCESS; }
CUresult fHtoD(CUdeviceptr d, const void* s, size_t n) { std::memcpy(reinterpret_cast<void*>(d), s, n); return CUDA_SUCCESS; }
CUresult fDtoH(void* d, CUdeviceptr s, size_t n) { std::memcpy(d, reinterpret_cast<void*>(s), n); return CUDA_SUCCESS; }
CUresult fMemset(CUdeviceptr d, unsigned v, size_t n) {
  auto* p = reinterpret_cast<unsigned*>(d);
  for (size_t i = 0; i < n; ++i) p[i] = v;
  return CUDA_SUCCESS;
}
CUresult fLaunch(CUfunction, unsigned, unsigned, unsigned, unsigned bx, unsigned, unsigned, unsigned, CUstream,
                 void** args, void**) {
  if (g_mode == "crash") std::abort();
  if (g_mode == "stall") std::this_thread::sleep_for(std::chrono::hours(1));
  const int* in = reinterpret_cast<const int*>(*static_cast<CUdeviceptr*>(args[0]));
  int* out = reinterpret_cast<int*>(*static_cast<CUdeviceptr*>(args[1]));
  int* exch = reinterpret_cast<int*>(*static_cast<CUdeviceptr*>(args[2]));
  long long* cyc = reinterpret_cast<long long*>(*static_cast<CUdeviceptr*>(args[3]));
  std::vector<int> input(in, in + bx), o, e;
  flip_test_expected(input, o, e);
  for (unsigned t = 0; t < bx; ++t) {
    if (g_mode != "nostore") out[t] = o[t];
    // The fake reports the per-parity active masks the H200 showed after the branch.
    exch[4 * t + 0] = static_cast<int>((t & 1) ? 0xaaaaaaaau : 0x55555555u);
    for (int k = 0; k < 2; ++k) exch[4 * t + 1 + k] = e[2 * t + k];
    exch[4 * t + 3] = 0;
  }
  for (unsigned w = 0; w < bx / 32; ++w) cyc[w] = 1000;
  return CUDA_SUCCESS;
}
CUresult fQuery(CUstream) {
  if (g_mode == "hang") return CUDA_ERROR_NOT_READY;
  if (g_mode == "fault") return CUDA_ERROR_ILLEGAL_INSTRUCTION;
  return CUDA_SUCCESS;
}
CUresult fSync() { return CUDA_SUCCESS; }
CUresult fErrName(CUresult r, const char** s) {
  *s = r == CUDA_ERROR_ILLEGAL_INSTRUCTION ? "CUDA_ERROR_ILLEGAL_INSTRUCTION" : "CUDA_ERROR_OTHER";
  return CUDA_SUCCESS;
}
CUresult fErrString(CUresult, const char** s) { *s = "fake"; return CUDA_SUCCESS; }

DriverApi fake() {
  DriverApi a;
  a.cuInit = fInit;
  a.cuDeviceGetCount = fDeviceGetCount;
  a.cuDeviceGet = fDeviceGet;
  a.cuDevicePrimaryCtxRetain = fRetain;
  a.cuDevicePrimaryCtxRelease = fRelease;
  a.cuCtxSetCurrent = fSetCurrent;
  a.cuModuleLoadData = fLoad;
  a.cuModuleUnload = fUnload;
  a.cuModuleGetFunction = fGetFunction;
  a.cuMemAlloc = fAlloc;
  a.cuMemFree = fFree;
  a.cuMemcpyHtoD = fHtoD;
  a.cuMemcpyDtoH = fDtoH;
  a.cuMemsetD32 = fMemset;
  a.cuLaunchKernel = fLaunch;
  a.cuStreamQuery = fQuery;
  a.cuCtxSynchronize = fSync;
  a.cuGetErrorName = fErrName;
  a.cuGetErrorString = fErrString;
  return a;
}

std::vector<std::uint8_t> image(const std::string& mode) {
  std::vector<std::uint8_t> b(mode.begin(), mode.end());
  b.push_back(0);
  return b;
}

// The device block comes from RunConfig::device_query in the trial process; the fake's name carries
// that process's id, so tests see which trials shared a process (and context).
DeviceRecord fake_device(int index) {
  DeviceRecord d;
  d.index = index;
  d.name = "Fake GPU pid " + std::to_string(::getpid());
  d.cc = "9.0";
  d.sm_count = 2;
  return d;
}

RunConfig quick() {
  RunConfig c;
  c.reps = 3;
  c.timeout_s = 0.3;
  c.startup_s = 2.0;
  c.device_query = fake_device;
  return c;
}

const std::vector<std::uint8_t> kElf = {0x7f, 'E', 'L', 'F', 0};

}  // namespace

TEST(CubinRunner, ModelOfTheKernelIsThePartnerExchange) {
  const auto in = flip_test_input(64);
  ASSERT_EQ(in.size(), 64u);
  EXPECT_NE(in[0], in[1]);
  std::vector<int> out, ex;
  flip_test_expected(in, out, ex);
  ASSERT_EQ(ex.size(), 2u * 64u);  // the active mask is not modelled
  for (std::size_t t = 0; t < 64; ++t) {
    EXPECT_EQ(ex[2 * t], ex[2 * t + 1]);  // shuffle == shared-memory exchange
    EXPECT_EQ(out[t], out[t ^ 1]);            // v ^ partner is symmetric in the pair
  }
}

TEST(CubinRunner, CompletedTrialInAChildProcess) {
  const DriverApi api = fake();
  const TrialResult t = run_trial_isolated(kElf, quick(), &api);
  ASSERT_EQ(t.status, "completed") << t.error;
  EXPECT_EQ(t.device.name.rfind("Fake GPU pid ", 0), 0u);
  EXPECT_NE(t.device.name, "Fake GPU pid " + std::to_string(::getpid()));  // ran in a child
  EXPECT_EQ(t.cycles_warp0, (std::vector<long long>{1000, 1000, 1000}));
  const Comparison c = compare(t, t, flip_test_input(32));
  EXPECT_TRUE(c.output_equal && c.exchange_equal && c.matches_model);
  EXPECT_DOUBLE_EQ(c.cycles_ratio, 1.0);
}

TEST(CubinRunner, DisabledStoreChangesTheOutput) {
  const DriverApi api = fake();
  const TrialResult base = run_trial_isolated(kElf, quick(), &api);
  const TrialResult t = run_trial_isolated(image("nostore"), quick(), &api);
  ASSERT_TRUE(t.completed());
  const Comparison c = compare(base, t, flip_test_input(32));
  EXPECT_FALSE(c.output_equal);
  EXPECT_TRUE(c.exchange_equal);
  EXPECT_FALSE(c.matches_model);
  EXPECT_EQ(t.out[0], 0x5e5e5e5e);
}

TEST(CubinRunner, FaultsHangsAndCrashesAreReportedAndTheNextTrialIsClean) {
  const DriverApi api = fake();
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(run_trial_isolated(image("fault"), quick(), &api).status, "fault");
  const TrialResult h = run_trial_isolated(image("hang"), quick(), &api);
  EXPECT_EQ(h.status, "timeout");  // the child's own deadline
  EXPECT_NE(h.error.find("still running"), std::string::npos) << h.error;
  const TrialResult s = run_trial_isolated(image("stall"), quick(), &api);
  EXPECT_EQ(s.status, "timeout");  // the parent killed the child
  EXPECT_NE(s.error.find("killed"), std::string::npos) << s.error;
  const TrialResult c = run_trial_isolated(image("crash"), quick(), &api);
  EXPECT_EQ(c.status, "crashed");
  EXPECT_NE(c.error.find("signal"), std::string::npos) << c.error;
  EXPECT_EQ(run_trial_isolated(image("badimage"), quick(), &api).status, "load_error");
  EXPECT_EQ(run_trial_isolated(kElf, quick(), &api).status, "completed");  // fresh process, fresh context
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
}

TEST(CubinRunner, BatchSharesAProcessUntilATrialFails) {
  const DriverApi api = fake();
  const std::vector<std::vector<std::uint8_t>> batch = {kElf,         kElf, image("fault"), kElf,
                                                        image("hang"), kElf, image("crash"), kElf};
  std::vector<std::size_t> order;
  const auto r = run_trials_isolated(batch, quick(), &api, [&](std::size_t i, const TrialResult&) { order.push_back(i); });
  ASSERT_EQ(r.size(), batch.size());
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  const std::vector<std::string> want = {"completed", "completed", "fault",   "completed",
                                         "timeout",   "completed", "crashed", "completed"};
  for (std::size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r[i].status, want[i]) << i << ": " << r[i].error;
  EXPECT_EQ(r[0].device.name, r[1].device.name);  // same child, same context
  EXPECT_EQ(r[0].device.name, r[2].device.name);  // the fault happened there too...
  EXPECT_NE(r[2].device.name, r[3].device.name);  // ...and the next trial got a fresh child
  EXPECT_NE(r[3].device.name, r[5].device.name);
  EXPECT_NE(r[5].device.name, r[7].device.name);
  // A callback that throws stops the batch (and its child) and propagates.
  EXPECT_THROW(run_trials_isolated(batch, quick(), &api,
                                   [](std::size_t i, const TrialResult&) {
                                     if (i == 1) throw std::runtime_error("stop");
                                   }),
               std::runtime_error);
}

TEST(CubinRunner, RefusesBadRunConfigs) {
  const DriverApi api = fake();
  RunConfig c = quick();
  c.threads = 48;
  EXPECT_THROW(run_trial_isolated(kElf, c, &api), UsageError);
  c = quick();
  c.function = "other";
  EXPECT_EQ(run_trial_isolated(kElf, c, &api).status, "load_error");
}

TEST(CubinRunner, ProbesTheDeviceInAChildProcess) {
  const DriverApi api = fake();
  const DeviceRecord d = probe_device_isolated(quick(), &api);
  EXPECT_EQ(d.name.rfind("Fake GPU pid ", 0), 0u);
  EXPECT_NE(d.name, "Fake GPU pid " + std::to_string(::getpid()));  // queried in the child
  RunConfig c = quick();
  c.device = 1;  // the fake has one device
  try {
    probe_device_isolated(c, &api);
    ADD_FAILURE() << "device 1 accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--device 1: only 1 device(s)"), std::string::npos) << e.what();
  }
  DriverApi none = fake();
  none.cuDeviceGetCount = [](int* n) { *n = 0; return CUDA_SUCCESS; };
  EXPECT_THROW(probe_device_isolated(quick(), &none), NoDeviceError);
  c = quick();
  c.threads = 33;
  EXPECT_THROW(probe_device_isolated(c, &api), UsageError);
}

TEST(CubinRunner, WholeExperimentWithTheFakeDriver) {
  const std::string nvd = test::test_nvdisasm();
  if (nvd.empty()) GTEST_SKIP() << "nvdisasm not found";
  const DriverApi api = fake();
  ExperimentConfig cfg;
  cfg.cubin = test::cubin_path("flip_test", 90);
  cfg.match = "BSYNC*";
  cfg.control = "STG.E.64";
  cfg.field = {73, 1};
  cfg.nvdisasm = nvd;
  cfg.run = quick();
  cfg.driver = &api;
  cfg.quiet = true;
  const json doc = run_flip_experiment(cfg, "test");
  if (const char* dump = std::getenv("DIVBENCH_TEST_DUMP")) write_json_atomic(dump, doc);  // for checking scripts
  EXPECT_EQ(doc["schema"], "divbench.bitflip/2");
  EXPECT_EQ(doc["device"]["name"].get<std::string>().rfind("Fake GPU", 0), 0u);
  const json& s = doc["summary"];
  EXPECT_EQ(s["flipped_instructions"], 3);
  EXPECT_EQ(s["control_stores"], 1);
  EXPECT_EQ(s["variants"], 1 + 3 + 2);  // control, 3 flips to value 1, all-at-once 0 and 1
  EXPECT_EQ(s["verified"], 6);
  EXPECT_EQ(s["flips_completed"], 5);
  // The fake ignores the patch, so the "positive control" cannot change anything: the experiment
  // must say so rather than claim success.
  EXPECT_EQ(s["positive_control_ok"], false);
  for (const auto& v : doc["variants"]) {
    EXPECT_TRUE(v["verify"]["ok"].get<bool>());
    EXPECT_EQ(v["run"]["status"], "completed");
  }
}
