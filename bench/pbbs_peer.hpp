// PBBS's parallel quickhull (cmuparlay/pbbsbench, benchmarks/convexHull/quickHull, on ParlayLib) as
// a 2-D convex hull peer. Built only when CMake is given WAGENER_PBBS_DIR, a pbbsbench tree with
// ParlayLib inside; none of PBBS's code is in this repository. This header names no PBBS type and
// is C++17 (no std::span), so the benchmark stays C++20 with our warnings while PBBS compiles as its
// own C++17 library.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "wagener/point.hpp"

namespace bench {

/// Starts ParlayLib's scheduler and returns its worker count. With `threads` > 0 and
/// PARLAY_NUM_THREADS unset, the scheduler gets `threads` workers (by setting that variable, the
/// one knob ParlayLib reads); otherwise PARLAY_NUM_THREADS, else every hardware thread. The count is
/// fixed at the first call in a process.
unsigned pbbs_start_workers(unsigned threads);

/// The points converted once to PBBS's own sequence of point2d<double>, so that the conversion is
/// outside the timed region, and PBBS's hull() run on them. PBBS's quickhull decides sides with
/// the floating-point sign of a cross product: it is not exact, and its vertices may differ from
/// the exact hull's on near-collinear points.
class PbbsQuickhull {
 public:
  /// Copies points[0, n). Throws std::invalid_argument when n is 2^32 or more (PBBS indexes points
  /// with unsigned int).
  PbbsQuickhull(const wagener::Point2<double>* points, std::size_t n);
  ~PbbsQuickhull();
  PbbsQuickhull(const PbbsQuickhull&) = delete;
  PbbsQuickhull& operator=(const PbbsQuickhull&) = delete;

  /// One call of PBBS's hull(); returns its vertex count and keeps its result for vertices().
  std::size_t run();
  /// The vertices of the last run() in PBBS's order (clockwise from the leftmost point).
  std::vector<wagener::Point2<double>> vertices() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace bench
