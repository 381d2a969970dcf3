// The grouped path's octagon filter over one group: four points at a time (AVX2) or eight (AVX-512)
// where the processor runs them (chosen at run time, as in filter_pass.cpp, so the library needs no
// -march flag), one at a time elsewhere. This file is compiled with -ffp-contract=off: each kernel
// computes OctagonFilter::inside()'s operations in its order, lane by lane, so all keep the same
// points.
#include "cpu/octagon_filter.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include "cpu/simd_points.hpp"
#define WAGENER_X86_OCTAGON 1
#endif

namespace wagener::cpu {
namespace {

template <class T>
std::uint32_t survivors_scalar(const OctagonFilter& filter_in, const Point2<T>* group, std::uint32_t first,
                               std::uint32_t n, std::uint32_t* survivors, std::uint32_t kept) {
  // A local copy keeps the edges in registers: through a reference they might alias the stores.
  const OctagonFilter filter = filter_in;
  for (std::uint32_t i = first; i < n; ++i) {
    // Branch-free: whether a point survives is unpredictable.
    survivors[kept] = i;
    kept += !filter.inside(group[i]);
  }
  return kept;
}

/// The running extremes of the keys x, x + y, y and y - x, and where each first occurs.
struct RunningExtremes {
  double lo[4] = {}, hi[4] = {};
  std::uint32_t lo_at[4] = {}, hi_at[4] = {};
  bool finite = true;
};

template <class T>
RunningExtremes first_point_extremes(const Point2<T>& p) {
  const auto x = static_cast<double>(p.x), y = static_cast<double>(p.y);
  const double keys[4] = {x, x + y, y, y - x};
  RunningExtremes r;
  for (int k = 0; k < 4; ++k) r.lo[k] = r.hi[k] = keys[k];
  r.finite = std::isfinite(x) && std::isfinite(y);
  return r;
}

/// Extends r over group[first, n).
template <class T>
void extend_extremes(RunningExtremes& r, const Point2<T>* group, std::uint32_t first, std::uint32_t n) {
  RunningExtremes e = r;  // local: in registers
  for (std::uint32_t i = first; i < n; ++i) {
    const auto x = static_cast<double>(group[i].x), y = static_cast<double>(group[i].y);
    e.finite &= (int{std::isfinite(x)} & int{std::isfinite(y)}) != 0;  // no branch
    const double keys[4] = {x, x + y, y, y - x};
    // Selects, not branches: a new extreme is rare after the first points, but unpredictable.
    for (int k = 0; k < 4; ++k) {
      const bool lower = keys[k]<e.lo[k], higher = keys[k]> e.hi[k];
      e.lo[k] = lower ? keys[k] : e.lo[k];
      e.lo_at[k] = lower ? i : e.lo_at[k];
      e.hi[k] = higher ? keys[k] : e.hi[k];
      e.hi_at[k] = higher ? i : e.hi_at[k];
    }
  }
  r = e;
}

GroupExtremes finish_extremes(const RunningExtremes& r) {
  GroupExtremes e;
  for (int k = 0; k < 4; ++k) e.corner[k] = r.lo_at[k], e.corner[k + 4] = r.hi_at[k];
  e.x_min = r.lo[0], e.x_max = r.hi[0], e.y_min = r.lo[2], e.y_max = r.hi[2];
  e.finite = r.finite;
  return e;
}

#if defined(WAGENER_X86_OCTAGON)
#define WAGENER_AVX2 [[gnu::target("avx2"), gnu::always_inline]] inline

// The vector kernels' lanes each hold the extremes of their own points (with the lane's point
// indices as doubles, exact below 2^53): the best value of all lanes, and among equal values the
// smallest index, is the first occurrence the scalar loop finds. Reduced by shuffles, with no branch:
// a scalar loop over the lanes compiled to branches on which lane wins, about ten mispredictions a
// group (valgrind's branch simulation).

/// A lane's point index as an index; 0 for what no lane holds (no tie when a NaN won: the group is
/// then rejected as not finite), rather than a conversion out of range.
inline std::uint32_t lane_index(double at) {
  return at < 4294967296.0 ? static_cast<std::uint32_t>(at) : 0u;
}

/// The least (or greatest) of v's four lanes.
WAGENER_AVX2 double reduce4(__m256d v, bool lower) {
  __m256d swapped = _mm256_permute2f128_pd(v, v, 1);
  v = lower ? _mm256_min_pd(v, swapped) : _mm256_max_pd(v, swapped);
  swapped = _mm256_permute_pd(v, 0b0101);
  v = lower ? _mm256_min_pd(v, swapped) : _mm256_max_pd(v, swapped);
  return _mm256_cvtsd_f64(v);
}

WAGENER_AVX2 void reduce_lanes4(__m256d value, __m256d at, bool lower, double& best, std::uint32_t& best_at) {
  best = reduce4(value, lower);
  const __m256d ties = _mm256_cmp_pd(value, _mm256_set1_pd(best), _CMP_EQ_OQ);
  const __m256d tied_at = _mm256_blendv_pd(_mm256_set1_pd(std::numeric_limits<double>::infinity()), at, ties);
  best_at = lane_index(reduce4(tied_at, true));
}

/// Bit j set when point j of p[0, 4) is not certified inside.
template <class T>
WAGENER_AVX2 std::uint32_t outside4(const OctagonFilter& f, const Point2<T>* p) {
  __m256d x, y;
  if constexpr (std::is_same_v<T, std::int64_t>)
    simd::load_xy4_from(p, f.origin_x64(), f.origin_y64(), x, y);
  else
    simd::load_xy4(p, x, y);
  const __m256d u = _mm256_sub_pd(x, _mm256_set1_pd(f.origin_x())),
                v = _mm256_sub_pd(y, _mm256_set1_pd(f.origin_y()));
  __m256d in = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
  for (int e = 0; e < OctagonFilter::kEdges; ++e) {
    const __m256d side = _mm256_sub_pd(_mm256_mul_pd(_mm256_set1_pd(f.edge_x(e)), v),
                                       _mm256_mul_pd(_mm256_set1_pd(f.edge_y(e)), u));
    in = _mm256_and_pd(in, _mm256_cmp_pd(side, _mm256_set1_pd(f.threshold(e)), _CMP_GT_OQ));
  }
  // Lanes hold points 0, 2, 1, 3: swap bits 1 and 2.
  const auto m = static_cast<std::uint32_t>(~_mm256_movemask_pd(in) & 0xf);
  return (m & 9u) | (m & 2u) << 1 | (m & 4u) >> 1;
}

/// find_extremes over four lanes (points i, i + 2, i + 1, i + 3 of each block of four: see simd::load_xy4).
template <class T>
[[gnu::target("avx2")]] GroupExtremes extremes_avx2(const Point2<T>* group, std::uint32_t n) {
  RunningExtremes r = first_point_extremes(group[0]);
  std::uint32_t i = 0;
  if (n >= 8) {
    __m256d x, y;
    simd::load_xy4(group, x, y);
    __m256d at = _mm256_setr_pd(0, 2, 1, 3);
    const __m256d largest = _mm256_set1_pd(std::numeric_limits<double>::max()),
                  magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffff));
    __m256d lo[4] = {x, _mm256_add_pd(x, y), y, _mm256_sub_pd(y, x)};
    __m256d hi[4] = {lo[0], lo[1], lo[2], lo[3]}, lo_at[4] = {at, at, at, at}, hi_at[4] = {at, at, at, at};
    // NaN and infinity fail the ordered comparison |c| <= max.
    __m256d finite = _mm256_and_pd(_mm256_cmp_pd(_mm256_and_pd(x, magnitude), largest, _CMP_LE_OQ),
                                   _mm256_cmp_pd(_mm256_and_pd(y, magnitude), largest, _CMP_LE_OQ));
    const __m256d first_at = at;
    // The last block ends at n, overlapping the one before: a point seen twice changes no lane's first
    // extreme (a lane keeps its first of equal keys, and it is the same point and index).
    for (i = 4; i < n; i += 4) {
      const std::uint32_t start = std::min(i, n - 4);
      simd::load_xy4(group + start, x, y);
      at = _mm256_add_pd(first_at, _mm256_set1_pd(start));
      finite = _mm256_and_pd(finite, _mm256_cmp_pd(_mm256_and_pd(x, magnitude), largest, _CMP_LE_OQ));
      finite = _mm256_and_pd(finite, _mm256_cmp_pd(_mm256_and_pd(y, magnitude), largest, _CMP_LE_OQ));
      const __m256d keys[4] = {x, _mm256_add_pd(x, y), y, _mm256_sub_pd(y, x)};
      for (int k = 0; k < 4; ++k) {
        const __m256d lower = _mm256_cmp_pd(keys[k], lo[k], _CMP_LT_OQ),
                      higher = _mm256_cmp_pd(keys[k], hi[k], _CMP_GT_OQ);
        lo[k] = _mm256_blendv_pd(lo[k], keys[k], lower);
        lo_at[k] = _mm256_blendv_pd(lo_at[k], at, lower);
        hi[k] = _mm256_blendv_pd(hi[k], keys[k], higher);
        hi_at[k] = _mm256_blendv_pd(hi_at[k], at, higher);
      }
    }
    for (int k = 0; k < 4; ++k) {
      reduce_lanes4(lo[k], lo_at[k], true, r.lo[k], r.lo_at[k]);
      reduce_lanes4(hi[k], hi_at[k], false, r.hi[k], r.hi_at[k]);
    }
    r.finite = _mm256_movemask_pd(finite) == 0xf;
  }
  extend_extremes(r, group, i, n);
  return finish_extremes(r);
}

/// kSetLanes[mask]: the positions of mask's set bits, ascending, one a byte from the lowest (the
/// bytes past popcount(mask) are 0).
constexpr std::array<std::uint64_t, 256> kSetLanes = [] {
  std::array<std::uint64_t, 256> table{};
  for (unsigned mask = 0; mask < 256; ++mask) {
    unsigned k = 0;
    for (unsigned j = 0; j < 8; ++j) {
      if (mask >> j & 1u) table[mask] |= std::uint64_t{j} << (8 * k++);
    }
  }
  return table;
}();

template <class T>
[[gnu::target("avx2")]] std::uint32_t survivors_avx2(const OctagonFilter& filter_in, const Point2<T>* group,
                                                     std::uint32_t n, std::uint32_t* survivors) {
  const OctagonFilter filter = filter_in;
  std::uint32_t kept = 0, i = 0;
  for (; i + 8 <= n; i += 8) {
    const unsigned outside = outside4(filter, group + i) | outside4(filter, group + i + 4) << 4;
    // The survivors' indices, i plus their lanes from a table, left-packed and stored whole (kept <= i,
    // so the 8 lanes fit below n), as the AVX-512 kernel's compress does: a store a point before,
    // 2.0-2.2 -> 1.7-2.1 ns a point over 10^5 groups of 100 disk points (a fifth survive).
    const __m256i lanes = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(kSetLanes[outside])));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(survivors + kept),
                        _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(i)), lanes));
    kept += static_cast<std::uint32_t>(std::popcount(outside));
  }
  return survivors_scalar(filter, group, i, n, survivors, kept);
}

#define WAGENER_AVX512 [[gnu::target("avx512f,avx512dq"), gnu::always_inline]] inline

/// The lane-wise least (or greatest) of a and b. The zero-masked forms with a full mask: GCC 12's
/// unmasked ones (and _mm512_reduce_min_pd) trip -Wmaybe-uninitialized on their undefined source.
WAGENER_AVX512 __m512d best_of8(__m512d a, __m512d b, bool lower) {
  return lower ? _mm512_maskz_min_pd(0xff, a, b) : _mm512_maskz_max_pd(0xff, a, b);
}

/// The least (or greatest) of v's eight lanes.
WAGENER_AVX512 double reduce8(__m512d v, bool lower) {
  v = best_of8(v, _mm512_maskz_shuffle_f64x2(0xff, v, v, 0b01001110), lower);  // the 256-bit halves
  v = best_of8(v, _mm512_maskz_shuffle_f64x2(0xff, v, v, 0b10110001), lower);  // 128-bit quarters
  v = best_of8(v, _mm512_maskz_permute_pd(0xff, v, 0x55), lower);              // lanes of a quarter
  return _mm512_cvtsd_f64(v);
}

WAGENER_AVX512 void reduce_lanes8(__m512d value, __m512d at, bool lower, double& best,
                                  std::uint32_t& best_at) {
  best = reduce8(value, lower);
  const __mmask8 ties = _mm512_cmp_pd_mask(value, _mm512_set1_pd(best), _CMP_EQ_OQ);
  best_at = lane_index(
      reduce8(_mm512_mask_blend_pd(ties, _mm512_set1_pd(std::numeric_limits<double>::infinity()), at), true));
}

template <class T>
WAGENER_AVX512 std::uint32_t outside8(const OctagonFilter& f, const Point2<T>* p) {
  __m512d x, y;
  if constexpr (std::is_same_v<T, std::int64_t>)
    simd::load_xy8_from(p, f.origin_x64(), f.origin_y64(), x, y);
  else
    simd::load_xy8(p, x, y);
  const __m512d u = _mm512_sub_pd(x, _mm512_set1_pd(f.origin_x())),
                v = _mm512_sub_pd(y, _mm512_set1_pd(f.origin_y()));
  __mmask8 in = 0xff;
  for (int e = 0; e < OctagonFilter::kEdges; ++e) {
    const __m512d side = _mm512_sub_pd(_mm512_mul_pd(_mm512_set1_pd(f.edge_x(e)), v),
                                       _mm512_mul_pd(_mm512_set1_pd(f.edge_y(e)), u));
    in &= _mm512_cmp_pd_mask(side, _mm512_set1_pd(f.threshold(e)), _CMP_GT_OQ);
  }
  return static_cast<std::uint32_t>(static_cast<std::uint8_t>(~in));
}

/// find_extremes over eight lanes.
template <class T>
[[gnu::target("avx512f,avx512dq")]] GroupExtremes extremes_avx512(const Point2<T>* group, std::uint32_t n) {
  RunningExtremes r = first_point_extremes(group[0]);
  std::uint32_t i = 0;
  if (n >= 16) {
    __m512d x, y;
    simd::load_xy8(group, x, y);
    __m512d at = _mm512_setr_pd(0, 1, 2, 3, 4, 5, 6, 7);
    const __m512d largest = _mm512_set1_pd(std::numeric_limits<double>::max());
    __m512d lo[4] = {x, _mm512_add_pd(x, y), y, _mm512_sub_pd(y, x)};
    __m512d hi[4] = {lo[0], lo[1], lo[2], lo[3]}, lo_at[4] = {at, at, at, at}, hi_at[4] = {at, at, at, at};
    // NaN and infinity fail the ordered comparison |c| <= max.
    __mmask8 finite = _mm512_cmp_pd_mask(_mm512_abs_pd(x), largest, _CMP_LE_OQ) &
                      _mm512_cmp_pd_mask(_mm512_abs_pd(y), largest, _CMP_LE_OQ);
    const __m512d first_at = at;
    // The last block ends at n, overlapping the one before, as in extremes_avx2.
    for (i = 8; i < n; i += 8) {
      const std::uint32_t start = std::min(i, n - 8);
      simd::load_xy8(group + start, x, y);
      at = _mm512_add_pd(first_at, _mm512_set1_pd(start));
      finite = static_cast<__mmask8>(finite & _mm512_cmp_pd_mask(_mm512_abs_pd(x), largest, _CMP_LE_OQ) &
                                     _mm512_cmp_pd_mask(_mm512_abs_pd(y), largest, _CMP_LE_OQ));
      const __m512d keys[4] = {x, _mm512_add_pd(x, y), y, _mm512_sub_pd(y, x)};
      for (int k = 0; k < 4; ++k) {
        const __mmask8 lower = _mm512_cmp_pd_mask(keys[k], lo[k], _CMP_LT_OQ),
                       higher = _mm512_cmp_pd_mask(keys[k], hi[k], _CMP_GT_OQ);
        lo[k] = _mm512_mask_mov_pd(lo[k], lower, keys[k]);
        lo_at[k] = _mm512_mask_mov_pd(lo_at[k], lower, at);
        hi[k] = _mm512_mask_mov_pd(hi[k], higher, keys[k]);
        hi_at[k] = _mm512_mask_mov_pd(hi_at[k], higher, at);
      }
    }
    for (int k = 0; k < 4; ++k) {
      reduce_lanes8(lo[k], lo_at[k], true, r.lo[k], r.lo_at[k]);
      reduce_lanes8(hi[k], hi_at[k], false, r.hi[k], r.hi_at[k]);
    }
    r.finite = finite == 0xff;
  }
  extend_extremes(r, group, i, n);
  return finish_extremes(r);
}

template <class T>
[[gnu::target("avx512f,avx512dq")]] std::uint32_t survivors_avx512(const OctagonFilter& filter_in,
                                                                   const Point2<T>* group, std::uint32_t n,
                                                                   std::uint32_t* survivors) {
  const OctagonFilter filter = filter_in;
  const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  std::uint32_t kept = 0, i = 0;
  for (; i + 16 <= n; i += 16) {
    const auto outside =
        static_cast<__mmask16>(outside8(filter, group + i) | outside8(filter, group + i + 8) << 8);
    // Compressed in a register and stored whole (kept <= i, so the 16 lanes fit below n): one store
    // where a store a point was taken before.
    _mm512_storeu_si512(survivors + kept,
                        _mm512_maskz_compress_epi32(
                            outside, _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(i)), lanes)));
    kept += static_cast<std::uint32_t>(__builtin_popcount(outside));
  }
  return survivors_scalar(filter, group, i, n, survivors, kept);
}
#endif

}  // namespace

template <class T>
GroupExtremes find_extremes(const Point2<T>* group, std::uint32_t n, FilterKernel kernel) {
  if (kernel == FilterKernel::widest) kernel = widest_filter_kernel();
  switch (kernel) {
#if defined(WAGENER_X86_OCTAGON)
    case FilterKernel::avx512: return extremes_avx512(group, n);
    case FilterKernel::avx2: return extremes_avx2(group, n);
#endif
    default: {
      RunningExtremes r = first_point_extremes(group[0]);
      extend_extremes(r, group, 1, n);
      return finish_extremes(r);
    }
  }
}

template <class T>
std::uint32_t octagon_survivors(const OctagonFilter& filter, const Point2<T>* group, std::uint32_t n,
                                std::uint32_t* survivors, FilterKernel kernel) {
  if (kernel == FilterKernel::widest) kernel = widest_filter_kernel();
  if (filter.wide()) kernel = FilterKernel::scalar;  // differences in 128 bits: no vector kernel's
  switch (kernel) {
#if defined(WAGENER_X86_OCTAGON)
    case FilterKernel::avx512: return survivors_avx512(filter, group, n, survivors);
    case FilterKernel::avx2: return survivors_avx2(filter, group, n, survivors);
#endif
    default: return survivors_scalar(filter, group, 0, n, survivors, 0);
  }
}

template GroupExtremes find_extremes(const Point2<float>*, std::uint32_t, FilterKernel);
template GroupExtremes find_extremes(const Point2<double>*, std::uint32_t, FilterKernel);
template std::uint32_t octagon_survivors(const OctagonFilter&, const Point2<float>*, std::uint32_t,
                                         std::uint32_t*, FilterKernel);
template std::uint32_t octagon_survivors(const OctagonFilter&, const Point2<double>*, std::uint32_t,
                                         std::uint32_t*, FilterKernel);
template GroupExtremes find_extremes(const Point2<std::int32_t>*, std::uint32_t, FilterKernel);
template GroupExtremes find_extremes(const Point2<std::int64_t>*, std::uint32_t, FilterKernel);
template std::uint32_t octagon_survivors(const OctagonFilter&, const Point2<std::int32_t>*, std::uint32_t,
                                         std::uint32_t*, FilterKernel);
template std::uint32_t octagon_survivors(const OctagonFilter&, const Point2<std::int64_t>*, std::uint32_t,
                                         std::uint32_t*, FilterKernel);

}  // namespace wagener::cpu
