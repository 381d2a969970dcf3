// Qhull (reentrant C library, libqhull_r) as a 2-D convex hull peer.
#pragma once

#include <array>
#include <span>
#include <vector>

namespace bench {

/// The hull vertices Qhull reports for 2-D points given as x0 y0 x1 y1 ..., counter-clockwise.
/// Qhull runs with its defaults ("qhull": Quickhull with pre-merging of nearly collinear edges), so
/// in floating point it may drop a vertex an exact algorithm keeps. Throws std::invalid_argument
/// for fewer than 3 points and std::runtime_error when qhull fails.
std::vector<std::array<double, 2>> qhull_hull(std::span<const double> xy);

}  // namespace bench
