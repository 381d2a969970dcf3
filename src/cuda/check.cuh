// Every CUDA call goes through check(); a failure becomes a wagener::cuda_error naming the call.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "wagener/error.hpp"

namespace wagener::cuda {

inline void check(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) {
    throw cuda_error(std::string("CUDA error in ") + call + " (" + file + ":" + std::to_string(line) +
                     "): " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
  }
}

}  // namespace wagener::cuda

#define WAGENER_CUDA_CHECK(call) ::wagener::cuda::check((call), #call, __FILE__, __LINE__)
/// After every kernel launch: launch-configuration errors surface here, not at the next call.
#define WAGENER_CUDA_CHECK_LAUNCH() \
  ::wagener::cuda::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
