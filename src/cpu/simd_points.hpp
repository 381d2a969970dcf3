// Consecutive points loaded into vector lanes as doubles (floats and 32-bit integers widened, which is
// exact; 64-bit integers rounded, whose consequences converts_exactly() in wagener/point.hpp states):
// the loads that the vector kernels of filter_pass.cpp and octagon_filter.cpp share. The target attributes
// let a library built for the baseline hold them; they are inlined into kernels that run only where
// __builtin_cpu_supports allows.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include <cstdint>

#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

namespace wagener::cpu::simd {

#define WAGENER_SIMD_AVX2 [[gnu::target("avx2"), gnu::always_inline]] inline
#define WAGENER_SIMD_AVX512 [[gnu::target("avx512f,avx512dq"), gnu::always_inline]] inline

/// p[0, 4) interleaved: lo = x0 y0 x1 y1, hi = x2 y2 x3 y3.
WAGENER_SIMD_AVX2 void load4(const Point2<double>* p, __m256d& lo, __m256d& hi) {
  lo = _mm256_loadu_pd(&p[0].x);
  hi = _mm256_loadu_pd(&p[2].x);
}
WAGENER_SIMD_AVX2 void load4(const Point2<float>* p, __m256d& lo, __m256d& hi) {
  lo = _mm256_cvtps_pd(_mm_loadu_ps(&p[0].x));
  hi = _mm256_cvtps_pd(_mm_loadu_ps(&p[2].x));
}
WAGENER_SIMD_AVX2 void load4(const Point2<std::int32_t>* p, __m256d& lo, __m256d& hi) {
  lo = _mm256_cvtepi32_pd(_mm_loadu_si128(reinterpret_cast<const __m128i*>(&p[0].x)));
  hi = _mm256_cvtepi32_pd(_mm_loadu_si128(reinterpret_cast<const __m128i*>(&p[2].x)));
}
WAGENER_SIMD_AVX2 void load4(const Point2<std::int64_t>* p, __m256d& lo, __m256d& hi) {
  // AVX2 converts no 64-bit integers: one scalar conversion a coordinate, rounded as static_cast.
  lo = _mm256_setr_pd(static_cast<double>(p[0].x), static_cast<double>(p[0].y), static_cast<double>(p[1].x),
                      static_cast<double>(p[1].y));
  hi = _mm256_setr_pd(static_cast<double>(p[2].x), static_cast<double>(p[2].y), static_cast<double>(p[3].x),
                      static_cast<double>(p[3].y));
}

/// p[0, 4) as x = (x0, x2, x1, x3) and y alike: unpack works within 128-bit halves, so the lanes
/// hold the points in the order 0, 2, 1, 3.
template <class T>
WAGENER_SIMD_AVX2 void load_xy4(const Point2<T>* p, __m256d& x, __m256d& y) {
  __m256d lo, hi;
  load4(p, lo, hi);
  x = _mm256_unpacklo_pd(lo, hi), y = _mm256_unpackhi_pd(lo, hi);
}

/// p[0, 4) as load_xy4 places them, each coordinate as its difference to (ox, oy): exact in 64 bits
/// (wrapping where it does not fit), rounded once (the octagon filter's 64-bit integers).
WAGENER_SIMD_AVX2 void load_xy4_from(const Point2<std::int64_t>* p, std::int64_t ox, std::int64_t oy,
                                     __m256d& x, __m256d& y) {
  const auto d = [](std::int64_t v, std::int64_t o) {
    return static_cast<double>(detail::wrapped_difference(v, o));
  };
  x = _mm256_setr_pd(d(p[0].x, ox), d(p[2].x, ox), d(p[1].x, ox), d(p[3].x, ox));
  y = _mm256_setr_pd(d(p[0].y, oy), d(p[2].y, oy), d(p[1].y, oy), d(p[3].y, oy));
}

/// p[0, 8) interleaved: lo = x0 y0 ... x3 y3, hi = x4 y4 ... x7 y7.
WAGENER_SIMD_AVX512 void load8(const Point2<double>* p, __m512d& lo, __m512d& hi) {
  lo = _mm512_loadu_pd(&p[0].x);
  hi = _mm512_loadu_pd(&p[4].x);
}
WAGENER_SIMD_AVX512 void load8(const Point2<float>* p, __m512d& lo, __m512d& hi) {
  // The masked form: GCC 12 warns that _mm512_cvtps_pd's undefined source may be used uninitialised.
  lo = _mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(&p[0].x));
  hi = _mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(&p[4].x));
}
WAGENER_SIMD_AVX512 void load8(const Point2<std::int32_t>* p, __m512d& lo, __m512d& hi) {
  // Masked, as for floats: GCC 12 warns of the plain form's undefined source.
  lo = _mm512_maskz_cvtepi32_pd(0xff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&p[0].x)));
  hi = _mm512_maskz_cvtepi32_pd(0xff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&p[4].x)));
}
WAGENER_SIMD_AVX512 void load8(const Point2<std::int64_t>* p, __m512d& lo, __m512d& hi) {
  // Rounded to nearest (the default mode), as static_cast<double> rounds.
  lo = _mm512_cvtepi64_pd(_mm512_loadu_si512(&p[0].x));
  hi = _mm512_cvtepi64_pd(_mm512_loadu_si512(&p[4].x));
}

/// Interleaved lo = x0 y0 ... x3 y3, hi = x4 y4 ... x7 y7 as x = (x0, ..., x7) and y alike.
WAGENER_SIMD_AVX512 void split_xy8(__m512d lo, __m512d hi, __m512d& x, __m512d& y) {
  const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14),
                odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
  x = _mm512_permutex2var_pd(lo, even, hi), y = _mm512_permutex2var_pd(lo, odd, hi);
}

/// p[0, 8), one point per lane: x = (x0, ..., x7) and y alike.
template <class T>
WAGENER_SIMD_AVX512 void load_xy8(const Point2<T>* p, __m512d& x, __m512d& y) {
  __m512d lo, hi;
  load8(p, lo, hi);
  split_xy8(lo, hi, x, y);
}

/// p[0, 8) as load_xy8 places them, each coordinate as its difference to (ox, oy), as load_xy4_from.
WAGENER_SIMD_AVX512 void load_xy8_from(const Point2<std::int64_t>* p, std::int64_t ox, std::int64_t oy,
                                       __m512d& x, __m512d& y) {
  const __m512i origin = _mm512_setr_epi64(ox, oy, ox, oy, ox, oy, ox, oy);
  const __m512d lo = _mm512_cvtepi64_pd(_mm512_sub_epi64(_mm512_loadu_si512(&p[0].x), origin));
  const __m512d hi = _mm512_cvtepi64_pd(_mm512_sub_epi64(_mm512_loadu_si512(&p[4].x), origin));
  split_xy8(lo, hi, x, y);
}

#undef WAGENER_SIMD_AVX2
#undef WAGENER_SIMD_AVX512

}  // namespace wagener::cpu::simd
#endif
