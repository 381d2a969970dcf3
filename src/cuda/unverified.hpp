// A switch for device code that compiles and passes every CPU-side check but has not yet run on a
// GPU: the hoods kept in place for the device-wide rounds (in_place_rounds in upper_hull.cu) and the
// grouped pipeline (grouped_hulls.cu). Until the GPU tests have passed on a device (tests/cuda, with
// the switch set), the default paths stay the ones verified there: the copying device-wide rounds,
// and for grouped hulls an unsupported_error naming the switch. Read at every call, so that a test
// can run both paths in one process.
#pragma once

#include <cstdlib>
#include <cstring>

namespace wagener::cuda {

inline constexpr const char* kUnverifiedSwitch = "WAGENER_CUDA_UNVERIFIED";

/// True when the environment sets WAGENER_CUDA_UNVERIFIED=1.
inline bool unverified_paths_enabled() {
  const char* value = std::getenv(kUnverifiedSwitch);
  return value != nullptr && std::strcmp(value, "1") == 0;
}

}  // namespace wagener::cuda
