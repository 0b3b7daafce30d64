// Shared helpers for the static-study corpus (kernels/corpus/*.cu).
//
// The corpus is compiled to cubins only (never launched); it must build with nvcc 13 and with NVRTC 12.9
// (Pascal/Volta), so it includes no host headers. Every kernel is `extern "C"` so its symbol is the same
// under every compiler, and carries a tag line right above it:
//     // corpus: <category> -- <one-line idea>
// which scripts/study/study.py reads (a kernel without a tag is an error).
#pragma once

// A short data-dependent chain: enough work that the compiler keeps a real branch around it instead of
// predicating both sides (bounded by the argument, so it is not unrolled away).
__device__ __forceinline__ int corpus_work(const int* in, int x, int n) {
  int acc = x;
  for (int i = 0; i < n; ++i) acc = acc * 33 + in[(acc ^ i) & 255];
  return acc;
}
