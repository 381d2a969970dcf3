// Launch arithmetic shared by the CUDA kernels' host code.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>

#include "cuda/check.cuh"
#include "wagener/config.hpp"

namespace wagener::cuda {

inline index_t ceil_div(index_t a, index_t b) {
  return (a + b - 1) / b;
}

/// Multiprocessors of the current device (read once per process).
inline int multiprocessors() {
  static const int count = [] {
    int device = 0, sms = 0;
    WAGENER_CUDA_CHECK(cudaGetDevice(&device));
    WAGENER_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
  }();
  return count;
}

/// Lets kKernel (a __global__ function) launch with `bytes` of dynamic shared memory (beyond 48 KB
/// it must opt in) on the current device, setting the attribute once a device: it belongs to the
/// kernel in that device's context, so a kernel set up on one device only would fail to launch on
/// another. Every launch asks for the same bytes.
template <auto kKernel>
void allow_dynamic_shared(int bytes) {
  static std::atomic<std::uint64_t> set_on{0};  // a bit a device (devices past 63: every call)
  int device = 0;
  WAGENER_CUDA_CHECK(cudaGetDevice(&device));
  const std::uint64_t bit = device < 64 ? std::uint64_t{1} << device : 0;
  if (bit != 0 && (set_on.load(std::memory_order_acquire) & bit) != 0) return;
  WAGENER_CUDA_CHECK(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  set_on.fetch_or(bit, std::memory_order_acq_rel);
}

}  // namespace wagener::cuda
