// Host-side entry point of the CUDA grouped hulls. Only src/grouped.cpp includes this.
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

}  // namespace wagener::cuda
