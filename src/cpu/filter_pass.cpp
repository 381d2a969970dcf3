// The filter pass, with the quick tests (disk and box) on eight points at a time (AVX-512) or four
// (AVX2). The widest kernel this processor runs is chosen at run time, so the library needs no
// -march flag; elsewhere the scalar loop runs. The rare points the quick tests leave go to the fan
// test one by one. (GCC 12 lowers the same tests written with vector extensions lane by lane: the
// comparisons, whose results must become AVX-512 mask registers. Hence intrinsics.)
#include "cpu/filter_pass.hpp"

#include <cmath>
#include <cstdint>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace wagener::cpu {
namespace {

using core::InnerPolygonView;

// The fan test is rare (points near the polygon's boundary) and long: out of line, it keeps the
// loops small, and it runs the same baseline code under every kernel.
[[gnu::noinline]] bool fan_inside(const InnerPolygonView& poly, double px, double py) {
  return poly.fan_inside(px, py);
}

/// One point at a time: each point is written to out[kept] and kept advances past it unless it is
/// certified inside, with no branch on the quick tests' outcome (which is unpredictable on a square).
template <class T>
std::size_t keep_scalar(const InnerPolygonView& poly_in, const Point2<T>* in, std::size_t len,
                        Point2<T>* out) {
  // A local copy, so that the tests' constants stay in registers: read through a reference they
  // might, for all the compiler knows, alias the points stored to out.
  const InnerPolygonView poly = poly_in;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < len; ++i) {
    const Point2<T> p = in[i];
    out[kept] = p;
    const double px = static_cast<double>(p.x), py = static_cast<double>(p.y);
    bool inside = poly.quick_inside(px, py);
    if (!inside) [[unlikely]]
      inside = fan_inside(poly, px, py);
    kept += !inside;
  }
  return kept;
}

/// The points of block p whose bits are set in `doubt` (bit j: point j), in order, that the fan test
/// does not certify either.
template <class T>
std::size_t keep_doubtful(const InnerPolygonView& poly, const Point2<T>* p, std::uint32_t doubt,
                          Point2<T>* out, std::size_t kept) {
  for (; doubt != 0; doubt &= doubt - 1) {
    const Point2<T> q = p[__builtin_ctz(doubt)];
    out[kept] = q;
    kept += !fan_inside(poly, static_cast<double>(q.x), static_cast<double>(q.y));
  }
  return kept;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define WAGENER_X86_FILTER 1

// The target attributes let these functions use AVX-512 and AVX2 in a library built for the
// baseline; they run only where __builtin_cpu_supports says the processor and the OS allow it.
// Each computes InnerPolygonView::quick_inside's operations in its order, lane by lane (no fused
// multiply-add: this file is compiled with -ffp-contract=off), so every kernel keeps the same
// points. NaN fails every ordered comparison: a point with a NaN or infinite coordinate is in doubt.
// A block of sixteen points whose quick tests all pass costs no store and no branch miss; in place
// is safe, since a block is loaded before anything is stored and stores go to out[kept], kept <= i.
constexpr std::size_t kBlock = 16;
#define WAGENER_AVX512 [[gnu::target("avx512f,avx512dq"), gnu::always_inline]] inline

/// Eight consecutive points as doubles, interleaved: x0 y0 x1 y1 x2 y2 x3 y3 and x4 y4 ... y7.
WAGENER_AVX512 void load8(const Point2<double>* p, __m512d& lo, __m512d& hi) {
  lo = _mm512_loadu_pd(&p[0].x);
  hi = _mm512_loadu_pd(&p[4].x);
}
WAGENER_AVX512 void load8(const Point2<float>* p, __m512d& lo, __m512d& hi) {
  // Widening is exact. (The masked form: GCC 12 warns that _mm512_cvtps_pd's undefined source
  // "may be used uninitialized".)
  lo = _mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(&p[0].x));
  hi = _mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(&p[4].x));
}

/// Bit j set where the quick tests leave point j of eight in doubt.
template <class T>
WAGENER_AVX512 std::uint32_t doubt8(const InnerPolygonView& poly, const Point2<T>* p) {
  __m512d lo, hi;
  load8(p, lo, hi);
  const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14),
                odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
  const __m512d x = _mm512_permutex2var_pd(lo, even, hi), y = _mm512_permutex2var_pd(lo, odd, hi);
  const __m512d ex = _mm512_sub_pd(x, _mm512_set1_pd(poly.cx)),
                ey = _mm512_sub_pd(y, _mm512_set1_pd(poly.cy));
  const __m512d s = _mm512_add_pd(_mm512_mul_pd(ex, ex), _mm512_mul_pd(ey, ey));
  const __mmask8 in_disk = _mm512_cmp_pd_mask(s, _mm512_set1_pd(poly.disk), _CMP_LT_OQ);
  const __mmask8 in_box = _mm512_cmp_pd_mask(_mm512_set1_pd(poly.box_x0), x, _CMP_LT_OQ) &
                          _mm512_cmp_pd_mask(x, _mm512_set1_pd(poly.box_x1), _CMP_LT_OQ) &
                          _mm512_cmp_pd_mask(_mm512_set1_pd(poly.box_y0), y, _CMP_LT_OQ) &
                          _mm512_cmp_pd_mask(y, _mm512_set1_pd(poly.box_y1), _CMP_LT_OQ);
  return static_cast<std::uint32_t>(~(in_disk | in_box) & 0xffu);
}

template <class T>
[[gnu::target("avx512f,avx512dq")]] std::size_t keep_avx512(const InnerPolygonView& poly_in,
                                                            const Point2<T>* in, std::size_t len,
                                                            Point2<T>* out) {
  const InnerPolygonView poly = poly_in;
  std::size_t kept = 0, i = 0;
  for (; i + kBlock <= len; i += kBlock) {
    const std::uint32_t doubt = doubt8(poly, in + i) | doubt8(poly, in + i + 8) << 8;
    if (doubt != 0) [[unlikely]]
      kept = keep_doubtful(poly, in + i, doubt, out, kept);
  }
  return kept + keep_scalar(poly, in + i, len - i, out + kept);
}

#define WAGENER_AVX2 [[gnu::target("avx2"), gnu::always_inline]] inline

/// Four consecutive points as doubles, interleaved: x0 y0 x1 y1 and x2 y2 x3 y3.
WAGENER_AVX2 void load4(const Point2<double>* p, __m256d& lo, __m256d& hi) {
  lo = _mm256_loadu_pd(&p[0].x);
  hi = _mm256_loadu_pd(&p[2].x);
}
WAGENER_AVX2 void load4(const Point2<float>* p, __m256d& lo, __m256d& hi) {
  lo = _mm256_cvtps_pd(_mm_loadu_ps(&p[0].x));
  hi = _mm256_cvtps_pd(_mm_loadu_ps(&p[2].x));
}

/// Bit j set where the quick tests leave point j of four in doubt.
template <class T>
WAGENER_AVX2 std::uint32_t doubt4(const InnerPolygonView& poly, const Point2<T>* p) {
  __m256d lo, hi;
  load4(p, lo, hi);
  // Lanes in the order of points 0, 2, 1, 3.
  const __m256d x = _mm256_unpacklo_pd(lo, hi), y = _mm256_unpackhi_pd(lo, hi);
  const __m256d ex = _mm256_sub_pd(x, _mm256_set1_pd(poly.cx)),
                ey = _mm256_sub_pd(y, _mm256_set1_pd(poly.cy));
  const __m256d s = _mm256_add_pd(_mm256_mul_pd(ex, ex), _mm256_mul_pd(ey, ey));
  const __m256d in_disk = _mm256_cmp_pd(s, _mm256_set1_pd(poly.disk), _CMP_LT_OQ);
  const __m256d in_box =
      _mm256_and_pd(_mm256_and_pd(_mm256_cmp_pd(_mm256_set1_pd(poly.box_x0), x, _CMP_LT_OQ),
                                  _mm256_cmp_pd(x, _mm256_set1_pd(poly.box_x1), _CMP_LT_OQ)),
                    _mm256_and_pd(_mm256_cmp_pd(_mm256_set1_pd(poly.box_y0), y, _CMP_LT_OQ),
                                  _mm256_cmp_pd(y, _mm256_set1_pd(poly.box_y1), _CMP_LT_OQ)));
  const auto lanes = static_cast<std::uint32_t>(~_mm256_movemask_pd(_mm256_or_pd(in_disk, in_box)) & 0xf);
  return (lanes & 0x9u) | (lanes & 0x2u) << 1 | (lanes & 0x4u) >> 1;  // lanes 1 and 2 hold points 2 and 1
}

template <class T>
[[gnu::target("avx2")]] std::size_t keep_avx2(const InnerPolygonView& poly_in, const Point2<T>* in,
                                              std::size_t len, Point2<T>* out) {
  const InnerPolygonView poly = poly_in;
  std::size_t kept = 0, i = 0;
  for (; i + kBlock <= len; i += kBlock) {
    const std::uint32_t doubt = doubt4(poly, in + i) | doubt4(poly, in + i + 4) << 4 |
                                doubt4(poly, in + i + 8) << 8 | doubt4(poly, in + i + 12) << 12;
    if (doubt != 0) [[unlikely]]
      kept = keep_doubtful(poly, in + i, doubt, out, kept);
  }
  return kept + keep_scalar(poly, in + i, len - i, out + kept);
}
#endif

}  // namespace

bool filter_kernel_supported(FilterKernel kernel) {
  switch (kernel) {
#if defined(WAGENER_X86_FILTER)
    case FilterKernel::avx512: return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
    case FilterKernel::avx2: return __builtin_cpu_supports("avx2");
#else
    case FilterKernel::avx512:
    case FilterKernel::avx2: return false;
#endif
    default: return true;
  }
}

FilterKernel widest_filter_kernel() {
  static const FilterKernel widest = [] {
    if (filter_kernel_supported(FilterKernel::avx512)) return FilterKernel::avx512;
    if (filter_kernel_supported(FilterKernel::avx2)) return FilterKernel::avx2;
    return FilterKernel::scalar;
  }();
  return widest;
}

template <class T>
std::size_t keep_uncertified(const InnerPolygonView& poly, const Point2<T>* in, std::size_t len,
                             Point2<T>* out, FilterKernel kernel) {
  if (kernel == FilterKernel::widest) kernel = widest_filter_kernel();
  switch (kernel) {
#if defined(WAGENER_X86_FILTER)
    case FilterKernel::avx512: return keep_avx512(poly, in, len, out);
    case FilterKernel::avx2: return keep_avx2(poly, in, len, out);
#endif
    default: return keep_scalar(poly, in, len, out);
  }
}

template std::size_t keep_uncertified(const InnerPolygonView&, const Point2<float>*, std::size_t,
                                      Point2<float>*, FilterKernel);
template std::size_t keep_uncertified(const InnerPolygonView&, const Point2<double>*, std::size_t,
                                      Point2<double>*, FilterKernel);

}  // namespace wagener::cpu
