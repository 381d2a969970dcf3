// lex_ranks(): for sixteen points i at a time (two vectors of eight lanes with AVX-512, four of four
// with AVX2, one point in the scalar loop), every point j is broadcast and compared with all lanes; a
// lane's count grows where j comes first. The vector kernels are chosen at run time, as in
// filter_pass.cpp, so the library needs no -march flag.
#include "cpu/lex_ranks.hpp"

#include <algorithm>
#include <cstdint>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define WAGENER_X86_LEX_RANKS 1
#endif

namespace wagener::cpu {
namespace {

void ranks_scalar(const double* x, const double* y, std::uint32_t n, std::uint32_t* rank) {
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint32_t r = 0;
    for (std::uint32_t j = 0; j < n; ++j) {
      // j comes first: smaller x, or equal x and (smaller y, or equal y and j < i).
      r += (x[j] < x[i]) | ((x[j] == x[i]) & ((y[j] < y[i]) | ((y[j] == y[i]) & (j < i))));
    }
    rank[i] = r;
  }
}

#if defined(WAGENER_X86_LEX_RANKS)
/// Lanes [first, first + 8) of the 32-bit lane mask `valid`, as a mask of eight.
inline __mmask8 lanes_from(std::uint32_t valid, std::uint32_t first) {
  return static_cast<__mmask8>(valid >> first);
}

[[gnu::target("avx512f,avx512dq")]] void ranks_avx512(const double* x, const double* y, std::uint32_t n,
                                                      std::uint32_t* rank) {
  const __m512i one = _mm512_set1_epi64(1);
  // Bit i: point i exists (n <= 32).
  const auto valid = static_cast<std::uint32_t>((std::uint64_t{1} << n) - 1);
  // Sixteen points i per pass over the points j: a typical half (9-16 points) takes one pass, so the
  // broadcasts and the loop's one mispredicted exit are shared by both vectors of lanes.
  for (std::uint32_t first = 0; first < n; first += 16) {
    // Lanes past n load zeros (masked loads do not touch memory there) and are not stored.
    const __mmask8 lanes0 = lanes_from(valid, first), lanes1 = lanes_from(valid, first + 8);
    const __m512d xi0 = _mm512_maskz_loadu_pd(lanes0, x + first),
                  yi0 = _mm512_maskz_loadu_pd(lanes0, y + first);
    // The second vector's address stays within the arrays (one past the end) when it has no lanes.
    const std::uint32_t second = std::min(first + 8, n);
    const __m512d xi1 = _mm512_maskz_loadu_pd(lanes1, x + second),
                  yi1 = _mm512_maskz_loadu_pd(lanes1, y + second);
    __m512i r0 = _mm512_setzero_si512(), r1 = _mm512_setzero_si512();
    // First by x alone, noting whether another point has a lane's x: survivors of a group rarely
    // share an x, and then the x order is the whole order, for half the comparisons.
    __mmask8 tie0 = 0, tie1 = 0;
    for (std::uint32_t j = 0; j < n; ++j) {
      const __m512d xj = _mm512_set1_pd(x[j]);
      const std::uint64_t self = (std::uint64_t{1} << j) >> first;  // the lane of point j, if any
      tie0 |= _mm512_mask_cmp_pd_mask(static_cast<__mmask8>(~self), xj, xi0, _CMP_EQ_OQ);
      tie1 |= _mm512_mask_cmp_pd_mask(static_cast<__mmask8>(~(self >> 8)), xj, xi1, _CMP_EQ_OQ);
      r0 = _mm512_mask_add_epi64(r0, _mm512_cmp_pd_mask(xj, xi0, _CMP_LT_OQ), r0, one);
      r1 = _mm512_mask_add_epi64(r1, _mm512_cmp_pd_mask(xj, xi1, _CMP_LT_OQ), r1, one);
    }
    if (((tie0 & lanes0) | (tie1 & lanes1)) == 0) {
      _mm512_mask_cvtepi64_storeu_epi32(rank + first, lanes0, r0);
      _mm512_mask_cvtepi64_storeu_epi32(rank + second, lanes1, r1);
      continue;
    }
    r0 = _mm512_setzero_si512(), r1 = _mm512_setzero_si512();
    for (std::uint32_t j = 0; j < n; ++j) {
      const __m512d xj = _mm512_set1_pd(x[j]), yj = _mm512_set1_pd(y[j]);
      // Bit l of `later` says point first + l comes after j (j + 1 <= 32).
      const std::uint64_t later = (~std::uint64_t{0} << (j + 1)) >> first;
      // j comes first: smaller x, or equal x and (smaller y, or equal y and j earlier).
      __mmask8 before0 = _mm512_mask_cmp_pd_mask(static_cast<__mmask8>(later), yj, yi0, _CMP_EQ_OQ) |
                         _mm512_cmp_pd_mask(yj, yi0, _CMP_LT_OQ);
      before0 =
          _mm512_mask_cmp_pd_mask(before0, xj, xi0, _CMP_EQ_OQ) | _mm512_cmp_pd_mask(xj, xi0, _CMP_LT_OQ);
      __mmask8 before1 = _mm512_mask_cmp_pd_mask(static_cast<__mmask8>(later >> 8), yj, yi1, _CMP_EQ_OQ) |
                         _mm512_cmp_pd_mask(yj, yi1, _CMP_LT_OQ);
      before1 =
          _mm512_mask_cmp_pd_mask(before1, xj, xi1, _CMP_EQ_OQ) | _mm512_cmp_pd_mask(xj, xi1, _CMP_LT_OQ);
      r0 = _mm512_mask_add_epi64(r0, before0, r0, one);
      r1 = _mm512_mask_add_epi64(r1, before1, r1, one);
    }
    _mm512_mask_cvtepi64_storeu_epi32(rank + first, lanes0, r0);
    _mm512_mask_cvtepi64_storeu_epi32(rank + second, lanes1, r1);
  }
}

/// One vector of four points i against point j (broadcast in xj, yj): the counts r grow where j comes
/// first; `index` holds the lanes' i.
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i count4(__m256d xj, __m256d yj, __m256i j,
                                                                  __m256d xi, __m256d yi, __m256i index,
                                                                  __m256i r) {
  const __m256d later = _mm256_castsi256_pd(_mm256_cmpgt_epi64(index, j));
  __m256d before = _mm256_or_pd(_mm256_and_pd(later, _mm256_cmp_pd(yj, yi, _CMP_EQ_OQ)),
                                _mm256_cmp_pd(yj, yi, _CMP_LT_OQ));
  before = _mm256_or_pd(_mm256_and_pd(before, _mm256_cmp_pd(xj, xi, _CMP_EQ_OQ)),
                        _mm256_cmp_pd(xj, xi, _CMP_LT_OQ));
  return _mm256_sub_epi64(r, _mm256_castpd_si256(before));  // a true lane is -1
}

/// Stores the lanes of r (64-bit counts) whose `lanes` are set, as 32-bit ranks.
[[gnu::target("avx2"), gnu::always_inline]] inline void store4(std::uint32_t* rank, __m256i lanes,
                                                               __m256i r) {
  const __m256i low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  _mm_maskstore_epi32(reinterpret_cast<int*>(rank),
                      _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(lanes, low_halves)),
                      _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(r, low_halves)));
}

[[gnu::target("avx2")]] void ranks_avx2(const double* x, const double* y, std::uint32_t n,
                                        std::uint32_t* rank) {
  const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
  // Sixteen points i (four vectors) per pass over the points j, as in ranks_avx512.
  for (std::uint32_t first = 0; first < n; first += 16) {
    __m256i index[4], lanes[4], r[4];
    __m256d xi[4], yi[4];
    std::uint32_t at[4];
    for (int v = 0; v < 4; ++v) {
      // A vector with no point keeps its address within the arrays (one past the end).
      at[v] = std::min(first + 4 * static_cast<std::uint32_t>(v), n);
      index[v] = _mm256_add_epi64(lane, _mm256_set1_epi64x(first + 4 * v));
      lanes[v] = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), index[v]);
      xi[v] = _mm256_maskload_pd(x + at[v], lanes[v]);
      yi[v] = _mm256_maskload_pd(y + at[v], lanes[v]);
      r[v] = _mm256_setzero_si256();
    }
    for (std::uint32_t j = 0; j < n; ++j) {
      const __m256d xj = _mm256_set1_pd(x[j]), yj = _mm256_set1_pd(y[j]);
      const __m256i jj = _mm256_set1_epi64x(j);
      for (int v = 0; v < 4; ++v) r[v] = count4(xj, yj, jj, xi[v], yi[v], index[v], r[v]);
    }
    for (int v = 0; v < 4; ++v) store4(rank + at[v], lanes[v], r[v]);
  }
}
#endif

}  // namespace

void lex_ranks(const double* x, const double* y, std::uint32_t n, std::uint32_t* rank, FilterKernel kernel) {
  if (kernel == FilterKernel::widest) kernel = widest_filter_kernel();
  switch (kernel) {
#if defined(WAGENER_X86_LEX_RANKS)
    case FilterKernel::avx512: return ranks_avx512(x, y, n, rank);
    case FilterKernel::avx2: return ranks_avx2(x, y, n, rank);
#endif
    default: return ranks_scalar(x, y, n, rank);
  }
}

}  // namespace wagener::cpu
