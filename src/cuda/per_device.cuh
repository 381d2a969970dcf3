// State a host thread keeps for the device it works on: streams, events and buffers belong to one
// device, so a thread that moves between devices (cudaSetDevice; several GPUs in one process) must
// find each device's own, never another's.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "cuda/check.cuh"

namespace wagener::cuda {

/// This thread's State for the current device, made on first use there (so on that device) and kept
/// until the thread ends.
template <class State>
State& per_device_thread_local() {
  thread_local std::vector<std::unique_ptr<State>> states;
  int device = 0;
  WAGENER_CUDA_CHECK(cudaGetDevice(&device));
  const auto slot = static_cast<std::size_t>(device);
  if (states.size() <= slot) states.resize(slot + 1);
  if (!states[slot]) states[slot] = std::make_unique<State>();
  return *states[slot];
}

}  // namespace wagener::cuda
