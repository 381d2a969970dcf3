// The CPU backend's filter pass: one read of the points, keeping those the inner polygon does not
// certify strictly inside. Internal: the switches below exist for tests and benchmarks, not users.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/inner_polygon.hpp"
#include "wagener/point.hpp"

namespace wagener::cpu {

struct PresortedCheck;  // cpu/monotone_chain.hpp

/// Which code tests the points: the widest vector kernel this processor runs, one of them by name,
/// or one point at a time. All give the same survivors (the tests' arithmetic is the same).
enum class FilterKernel { widest, avx512, avx2, scalar };

/// Whether the full hull filters: as the sample says (automatic: not on hull-like inputs), always
/// (whenever a usable polygon exists), or never (every point is sorted).
enum class FilterUse { automatic, always, never };

/// Where one convex_hull_parallel call's time went, in wall-clock seconds (for benchmarks: filled
/// when FilterPolicy::phases points here; not filled on the path without a filter).
struct FilterPhases {
  /// The sample: its gather and part hulls on every thread, then the polygon.
  double sample = 0;
  /// The filter region, wall time: every thread's pass, survivors' hull and merges up the tree.
  double pass = 0;
  double slowest_pass = 0;       ///< the slowest thread's pass alone
  double slowest_survivors = 0;  ///< the slowest thread's hull (or sort) of its survivors
  /// After the region: the merged hull copied out, or the sorted survivors merged and chained.
  double join = 0;
};

struct FilterPolicy {
  FilterUse use = FilterUse::automatic;
  FilterKernel kernel = FilterKernel::widest;
  unsigned threads = 0;  // at most this many threads; 0: one per hardware thread
  /// At most this many survivors in all are hulled by a second filter, each thread its own, and the
  /// hulls merged; more are sorted on every thread and merged. automatic: 2^20 on one or two threads,
  /// 2^17 a thread on more (parallel_hull.cpp says why). Tests set it to reach both paths.
  static constexpr std::size_t automatic = ~std::size_t{0};
  std::size_t serial_survivors = automatic;
  FilterPhases* phases = nullptr;  ///< where set, the call's phases are timed into it
};

/// Whether this processor can run `kernel` (widest and scalar: always).
bool filter_kernel_supported(FilterKernel kernel);

/// The kernel `widest` stands for on this processor.
FilterKernel widest_filter_kernel();

/// Copies to out, in order, the points of [in, in + len) that `poly` does not certify strictly inside
/// (every point with a NaN or infinite coordinate among them); returns how many. out may equal in
/// (the points are then compacted in place) but must not otherwise overlap it. `pass`: how many
/// points the whole pass that this call is a piece of reads (0: len), which tells the vector
/// kernels whether the points come from memory or from the caches; it changes no survivor.
/// Pre: filter_kernel_supported(kernel).
template <class T>
std::size_t keep_uncertified(const core::InnerPolygonView& poly, const Point2<T>* in, std::size_t len,
                             Point2<T>* out, FilterKernel kernel = FilterKernel::widest,
                             std::size_t pass = 0);

/// convex_hull_parallel with the filter's switches; `survivors` as there.
template <class T>
std::vector<Point2<T>> convex_hull_parallel(std::span<const Point2<T>> points, std::int64_t* survivors,
                                            const FilterPolicy& policy);

/// upper_chain_filtered with the filter's switches (serial_survivors and phases unused).
template <class T>
std::vector<Point2<T>> upper_chain_filtered(std::span<const Point2<T>> sorted, std::int64_t* survivors,
                                            const FilterPolicy& policy, PresortedCheck* check = nullptr);

}  // namespace wagener::cpu
