// Build-wide macros shared by host and device code.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define WAGENER_HD __host__ __device__
#define WAGENER_NOINLINE __noinline__
#else
#define WAGENER_HD
#define WAGENER_NOINLINE __attribute__((noinline))
#endif

namespace wagener {
/// Sizes and indices are 64-bit throughout: inputs may exceed 2^31 points.
using index_t = std::int64_t;
}  // namespace wagener
