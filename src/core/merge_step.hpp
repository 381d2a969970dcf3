// One match-and-merge step as a flat list of phases over virtual processors: what the CUDA block
// routine and the device-wide rounds both execute (the PRAM emulator calls the same phase functions
// directly, with its exactly-one-writer check).
#pragma once

#include <cstdint>

#include "core/bridge.hpp"

namespace wagener::core {

/// What a merge needs to know before its phases run.
struct MergePlan {
  index_t m;    ///< |P|
  index_t n;    ///< |Q| after the seam duplicate is dropped
  index_t dup;  ///< 1 when Q[0] duplicated P's last vertex (Q starts one later)
  index_t s;    ///< processor-grid side; 0 when one hood is empty and there is nothing to search
};

template <class T>
WAGENER_HD inline MergePlan plan_merge(const Point2<T>* p, index_t m, const Point2<T>* q, index_t n) {
  const index_t dup = seam_duplicates(p, m, q, n);
  const index_t nq = n - dup;
  const index_t s = (m == 0 || nq == 0) ? 0 : ceil_sqrt(m > nq ? m : nq);
  return {m, nq, dup, s};
}

/// Scratch cells per merge when the grid side is at most smax: three arrays of smax, k0, a, b.
WAGENER_HD constexpr index_t cells_per_merge(index_t smax) {
  return 3 * smax + 3;
}

WAGENER_HD inline BridgeCells cells_at(index_t* base, index_t smax) {
  return {base, base + smax, base + 3 * smax, base + 2 * smax, base + 3 * smax + 1};
}

/// The phases after planning, in order; mam 3 runs one processor per P sample, the others s * s.
enum Phase : int { kMam1 = 1, kMam2, kMam3, kMam4, kMam5 };
constexpr int kFirstPhase = kMam1;
constexpr int kLastPhase = kMam5;

WAGENER_HD inline index_t phase_processors(int phase, index_t s) {
  return phase == kMam3 ? s : s * s;
}

/// Runs processor `vp` of `phase` and performs its write, if it is the writer.
template <class T>
WAGENER_HD inline void run_phase(int phase, const MergeView<T>& v, const BridgeCells& c, index_t vp) {
  index_t x = vp, y = 0;
  if (phase != kMam3) {
    // 64-bit division is a long software sequence on GPUs; every grid of a hood below 2^32
    // vertices (s < 2^16) divides in 32 bits.
    if (v.s <= 0xffff) {
      const auto s32 = static_cast<std::uint32_t>(v.s), vp32 = static_cast<std::uint32_t>(vp);
      x = vp32 % s32;
      y = vp32 / s32;
    } else {
      x = vp % v.s;
      y = vp / v.s;
    }
  }
  index_t value = 0, b = 0;
  switch (phase) {
    case kMam1:
      if (mam1_tangent_block(v, x, y, &value)) c.tangent_block[x] = value;
      break;
    case kMam2:
      if (mam2_tangent(v, c, x, y, &value)) c.tangent[x] = value;
      break;
    case kMam3:
      if (mam3_last_sample_left_of_bridge(v, c, x, y, &value)) *c.k0 = value;
      break;
    case kMam4:
      if (mam4_candidate_block(v, c, x, y, &value)) c.candidate_block[y] = value;
      break;
    case kMam5:
      if (mam5_bridge(v, c, x, y, &value, &b)) c.bridge[0] = value, c.bridge[1] = b;
      break;
    default: break;
  }
}

/// The bridge (a, b) after the phases; for a merge with an empty side, everything is kept.
WAGENER_HD inline void bridge_of(const MergePlan& plan, const BridgeCells& c, index_t* a, index_t* b) {
  if (plan.s == 0) {
    *a = plan.m - 1;
    *b = 0;
  } else {
    *a = c.bridge[0];
    *b = c.bridge[1];
  }
}

}  // namespace wagener::core
