// The one owner of device memory: a typed, move-only cudaMalloc'd array, freed on scope exit.
// Every allocation, copy and fill is checked; experiments never call cudaMalloc/cudaFree themselves.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

#include "divbench/cuda/check.hpp"

namespace divbench {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // n elements, uninitialised.
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    if (n_ > 0) DIVBENCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), bytes()));
  }
  // n elements, every byte set to `byte` (0: zeroed; 0xff: poisoned, so an unwritten element shows).
  DeviceBuffer(std::size_t n, int byte) : DeviceBuffer(n) { fill_bytes(byte); }
  // A copy of a host vector.
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);  // never throws; a failed free at teardown has nothing left to protect
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      if (p_) cudaFree(p_);
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

  void fill_bytes(int byte) {
    if (n_ > 0) DIVBENCH_CUDA_CHECK(cudaMemset(p_, byte, bytes()));
  }
  // Host -> device; host.size() must equal size().
  void upload(const std::vector<T>& host) {
    if (host.size() != n_) throw std::invalid_argument("DeviceBuffer::upload: size mismatch");
    if (n_ > 0) DIVBENCH_CUDA_CHECK(cudaMemcpy(p_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  // Device -> host (synchronizes with the default stream, as cudaMemcpy does).
  std::vector<T> download() const {
    std::vector<T> host(n_);
    if (n_ > 0) DIVBENCH_CUDA_CHECK(cudaMemcpy(host.data(), p_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace divbench
