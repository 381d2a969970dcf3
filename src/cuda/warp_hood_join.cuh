// Warp level of the join of tile hoods (core/hood_join.hpp): one pair's bridge and one hood's span
// of the joined hull, each by the 32 lanes of a warp. Device functions only, so that a test runs
// them on the CPU under an emulation of the warp intrinsics (tests/test_join_emulated.cpp), as
// test_block_emulated runs block_upper_hull.cuh; upper_hull.cu's join kernels call them.
#pragma once

#include <cstdint>

#include "core/bridge.hpp"
#include "core/hood_join.hpp"
#include "wagener/point.hpp"

namespace wagener::cuda {

/// The bridge of p[0..m) and q[0..n) (m, n >= 1, p at or below q) by the 32 lanes of a warp, all of
/// which call it with the same arguments: core::pair_bridge's k-ary search with a lane a probe, as
/// BlockUpperHull's merges search. The tangent on q of the probe just before the first past the
/// bridge is the bridge's end there; it is searched again only where no probe rose past 0.
template <class T>
__device__ core::PairBridge warp_pair_bridge(const Point2<T>* p, index_t m, const Point2<T>* q, index_t n) {
  constexpr int kLanes = 32;
  const int lane = static_cast<int>(threadIdx.x) % kLanes;
  const index_t dup = core::seam_duplicates(p, m, q, n);
  if (n == dup) return {static_cast<std::int32_t>(m - 1), static_cast<std::int32_t>(n)};
  q += dup;
  n -= dup;
  index_t lo = 1, hi = m, tangent = 0, bridge_tangent = -1;
  while (lo < hi) {
    const bool past = core::past_bridge(p, core::kary_probe(lo, hi, kLanes, lane), q, n, &tangent);
    const unsigned ballot = __ballot_sync(0xffffffffu, past);
    const int first_past = ballot != 0 ? __ffs(static_cast<int>(ballot)) - 1 : kLanes;
    const index_t before = __shfl_sync(0xffffffffu, tangent, first_past > 0 ? first_past - 1 : 0);
    if (first_past > 0) bridge_tangent = before;
    core::kary_narrow(&lo, &hi, kLanes, first_past);
  }
  const index_t a = lo - 1;
  const index_t b = bridge_tangent >= 0 ? bridge_tangent : core::tangent_index(p[a], q, n);
  return {static_cast<std::int32_t>(a), static_cast<std::int32_t>(b + dup)};
}

/// A lane's SpanBounds merged with the one `delta` lanes up (core::merge_bounds), by shuffles.
template <class T>
__device__ void merge_bounds_down(core::SpanBounds<T>& s, const Point2<T>* hood, int delta) {
  constexpr unsigned kAll = 0xffffffffu;
  core::SpanBounds<T> other(s.size);
  other.u = __shfl_down_sync(kAll, s.u, delta);
  other.v = __shfl_down_sync(kAll, s.v, delta);
  other.has_a = __shfl_down_sync(kAll, static_cast<int>(s.has_a), delta) != 0;
  other.has_b = __shfl_down_sync(kAll, static_cast<int>(s.has_b), delta) != 0;
  other.a = {__shfl_down_sync(kAll, s.a.x, delta), __shfl_down_sync(kAll, s.a.y, delta)};
  other.b = {__shfl_down_sync(kAll, s.b.x, delta), __shfl_down_sync(kAll, s.b.y, delta)};
  core::merge_bounds(s, hood, other);
}

/// Hood i's span of the row's hull (core::joined_span; hood i nonempty), by every lane of the warp:
/// lane l gathers the bridges of hoods l, l + 32, ..., then the lanes' bounds merge down to lane 0,
/// whose return value is the span (the other lanes' are partial).
template <class T>
__device__ core::HoodSpan warp_hood_span(const core::HoodRow<T>& row, const core::PairBridge* bridges,
                                         index_t i) {
  constexpr int kLanes = 32;
  const int lane = static_cast<int>(threadIdx.x) % kLanes;
  core::SpanBounds<T> s(row.size[i]);
  for (index_t j = lane; j < row.count; j += kLanes) {
    if (j != i && row.size[j] > 0) core::gather_bridge(s, row, bridges, i, j);
  }
  const Point2<T>* hood = row.hood(i);
  for (int delta = kLanes / 2; delta > 0; delta /= 2) merge_bounds_down(s, hood, delta);
  return core::span_of(s, hood);
}

}  // namespace wagener::cuda
