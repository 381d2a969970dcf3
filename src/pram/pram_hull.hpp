// Wagener's algorithm on a CPU emulation of a CREW PRAM: the seed's rounds, instrumented.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "wagener/point.hpp"
#include "wagener/trace.hpp"

namespace wagener::pram {

struct Counters {
  std::int64_t rounds = 0;          ///< match-and-merge rounds
  std::int64_t parallel_steps = 0;  ///< synchronous steps (one per phase per round)
  std::int64_t work = 0;            ///< processor activations over all steps
  std::int64_t max_processors = 0;  ///< most processors active in one step
};

/// Upper hull of lexicographically sorted points: hoods of blocks of 1, 2, 4, ... points merged
/// pairwise per round by the sampling phases (mam 1-6) on s x s virtual processors per merge.
/// Every phase is checked to have exactly one writer per cell (std::logic_error otherwise).
/// `observer`, when set, sees the single-point hoods first and then the hoods after every round with
/// the bridges of its merges (upper-chain rounds; the caller relabels them for a lower chain).
template <class T>
std::vector<Point2<T>> upper_hull(std::span<const Point2<T>> sorted, Counters* counters = nullptr,
                                  const std::function<void(TraceRound<T>&&)>& observer = {});

/// The optimal-work variant (the seed's conclusion): strips of `strip_width` points (0: ceil(log2 n))
/// chained serially, one processor each; then rounds that merge neighbouring hoods kept in place as
/// strip ranges, each bridge found by nested sampling of `depth` levels (core/nested_bridge.hpp:
/// depth * (depth + 1) steps on at most k^(2 / depth) processors for hoods of k points); then one
/// compaction. O(log n) steps and O(n) work for a fixed depth. Every step is checked to have exactly
/// one writer per cell (std::logic_error otherwise). Same result as upper_hull().
template <class T>
std::vector<Point2<T>> upper_hull_optimal(std::span<const Point2<T>> sorted, Counters* counters = nullptr,
                                          index_t strip_width = 0, int depth = 4);

}  // namespace wagener::pram
