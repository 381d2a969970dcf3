// Host-side entry point of the CUDA grouped hulls. Only src/grouped.cpp and the two files that
// define it (grouped_hulls.cu, grouped_unavailable.cpp) include this.
#pragma once

#include <cstdint>
#include <span>

#include "wagener/grouped.hpp"
#include "wagener/hull.hpp"

namespace wagener::cuda {

/// Every group's hull in one device pipeline (host points copied in, hulls copied out); checks
/// finiteness (input_error naming a non-finite point). Offsets are validated by the caller.
template <class T>
GroupedHulls<T> grouped_hulls(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets,
                              HullPart part, bool with_indices, HullStats* stats);

/// The grouped entry points (grouped_hulls above, wagener/cuda.hpp's convex_hulls_device) for T:
/// one list for grouped_hulls.cu and for grouped_unavailable.cpp, its stand-in without CUDA.
#define WAGENER_INSTANTIATE_CUDA_GROUPED(T)                                                                 \
  template GroupedHulls<T> grouped_hulls(std::span<const Point2<T>>, std::span<const std::int64_t>,         \
                                         HullPart, bool, HullStats*);                                       \
  template index_t convex_hulls_device(const Point2<T>*, const std::int64_t*, index_t, index_t, Point2<T>*, \
                                       std::int64_t*, std::int64_t*, HullPart, void*);

}  // namespace wagener::cuda
