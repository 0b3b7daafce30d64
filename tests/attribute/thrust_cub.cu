// Kernels no one here wrote, for `divbench attribute`'s validation: Thrust and CUB algorithms as the
// CUDA Toolkit ships them, on random data (fixed seed): sort, select/partition, reduce-by-key.
// Each result is checked on the host (exit 1 on a mismatch); stdout: one JSON line of what ran.
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cub/device/device_select.cuh>

struct IsOdd {
  __host__ __device__ bool operator()(int v) const { return v & 1; }
};

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 20);
  std::mt19937 rng(20261201);
  std::uniform_int_distribution<int> dist(0, 1 << 20);
  std::vector<int> h(n);
  for (auto& v : h) v = dist(rng);

  // Sort.
  thrust::device_vector<int> d(h.begin(), h.end());
  thrust::sort(d.begin(), d.end());
  std::vector<int> sorted = h;
  std::sort(sorted.begin(), sorted.end());
  thrust::host_vector<int> back = d;
  if (!std::equal(sorted.begin(), sorted.end(), back.begin())) return std::fprintf(stderr, "sort: wrong\n"), 1;

  // Partition (Thrust) and select (CUB) by a per-element predicate.
  thrust::device_vector<int> p(h.begin(), h.end());
  const auto mid = thrust::partition(p.begin(), p.end(), IsOdd());
  const long odd = std::count_if(h.begin(), h.end(), [](int v) { return v & 1; });
  if (mid - p.begin() != odd) return std::fprintf(stderr, "partition: wrong\n"), 1;
  thrust::device_vector<int> in(h.begin(), h.end()), out(n), count(1);
  std::size_t temp = 0;
  cub::DeviceSelect::If(nullptr, temp, in.data().get(), out.data().get(), count.data().get(), n, IsOdd());
  thrust::device_vector<char> scratch(temp);
  cub::DeviceSelect::If(scratch.data().get(), temp, in.data().get(), out.data().get(), count.data().get(), n, IsOdd());
  if (count[0] != odd) return std::fprintf(stderr, "select: wrong\n"), 1;

  // Reduce by key: keys are runs of random length.
  std::vector<int> keys(n), vals(n, 1);
  int key = 0;
  for (int i = 0; i < n; ++i) {
    if (dist(rng) % 7 == 0) ++key;
    keys[i] = key;
  }
  thrust::device_vector<int> dk(keys.begin(), keys.end()), dv(vals.begin(), vals.end()), ok(n), ov(n);
  const auto ends = thrust::reduce_by_key(dk.begin(), dk.end(), dv.begin(), ok.begin(), ov.begin());
  const long segments = ends.first - ok.begin();
  if (segments != key + 1) return std::fprintf(stderr, "reduce_by_key: wrong\n"), 1;
  if (thrust::reduce(ov.begin(), ov.begin() + segments) != n) return std::fprintf(stderr, "reduce_by_key: wrong sum\n"), 1;

  std::printf("{\"target\": \"thrust_cub\", \"n\": %d, \"odd\": %ld, \"segments\": %ld}\n", n, odd, segments);
  return 0;
}
