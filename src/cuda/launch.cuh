// Launch arithmetic shared by the CUDA kernels' host code.
#pragma once

#include <cuda_runtime.h>

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

}  // namespace wagener::cuda
