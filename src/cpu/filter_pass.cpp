// The filter pass, with the quick tests (disk and cross) on eight points at a time (AVX-512) or four
// (AVX2). The widest kernel this processor runs is chosen at run time, so the library needs no
// -march flag; elsewhere the scalar loop runs. Under AVX-512 the hot loop runs one quick test,
// branch-free, and lists the points it leaves in doubt; after each chunk of the input the other
// quick test and the fan test (with gathers) take them eight at a time. Under AVX2 they go to the
// fan test one by one. For float points the AVX-512 hot loop tests sixteen at a time in float
// (FloatQuickTests), and only the points it leaves in doubt are widened. (GCC 12 lowers the same tests
// written with vector extensions lane by lane: the comparisons, whose results must become AVX-512 mask
// registers. Hence intrinsics.)
#include "cpu/filter_pass.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include "cpu/simd_points.hpp"
#endif

namespace wagener::cpu {
namespace {

using core::FloatQuickTests;
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
// A block of sixteen points costs a store to the list of points in doubt (DoubtList) and no
// branch; in place is safe, since the stores to out go to out[kept], kept <= the point's position.
constexpr std::size_t kBlock = 16;
#define WAGENER_AVX512 [[gnu::target("avx512f,avx512dq,avx512vl"), gnu::always_inline]] inline

/// Asks for the cache lines of the block kPrefetchAhead bytes after the one at p. Whether it pays
/// depends on the processor (bench/NOTES.md): on the AMD EPYC (Zen 4) of the 2-core machines,
/// whose own prefetcher keeps up with the branch-free loop, it cost 10-15 % on one thread (10^7
/// disk points: 9.0-9.2 ms with it, 7.8-8.5 without) and nothing measurable on two; on the 16-core
/// Intel Xeon of a GPU machine it saved up to a third at 10^8 points on 16 threads (square: 18.4 ms
/// without it, 11.6-16.1 with it). Hence only on Intel processors. A prefetch never faults, so the
/// last blocks may ask past the end of the array (the address is computed as an integer).
constexpr std::uintptr_t kPrefetchAhead = 8192;
template <class T>
WAGENER_AVX512 void prefetch_ahead(const Point2<T>* p) {
  const std::uintptr_t ahead = reinterpret_cast<std::uintptr_t>(p) + kPrefetchAhead;
  for (std::uintptr_t line = 0; line < kBlock * sizeof(Point2<T>); line += 64) {
    _mm_prefetch(reinterpret_cast<const char*>(ahead + line), _MM_HINT_T0);
  }
}

/// The lanes the disk test certifies: InnerPolygonView::quick_inside's disk, operation for operation.
WAGENER_AVX512 __mmask8 in_disk8(const InnerPolygonView& poly, __m512d x, __m512d y) {
  const __m512d ex = _mm512_sub_pd(x, _mm512_set1_pd(poly.cx)),
                ey = _mm512_sub_pd(y, _mm512_set1_pd(poly.cy));
  const __m512d s = _mm512_add_pd(_mm512_mul_pd(ex, ex), _mm512_mul_pd(ey, ey));
  return _mm512_cmp_pd_mask(s, _mm512_set1_pd(poly.disk), _CMP_LT_OQ);
}

/// The lanes strictly inside the box (x0, x1) x (y0, y1) (exact comparisons).
WAGENER_AVX512 __mmask8 in_box8(double x0, double x1, double y0, double y1, __m512d x, __m512d y) {
  // Masked compares chain the conjunction without separate mask instructions.
  __mmask8 in = _mm512_cmp_pd_mask(_mm512_set1_pd(x0), x, _CMP_LT_OQ);
  in = _mm512_mask_cmp_pd_mask(in, x, _mm512_set1_pd(x1), _CMP_LT_OQ);
  in = _mm512_mask_cmp_pd_mask(in, _mm512_set1_pd(y0), y, _CMP_LT_OQ);
  return _mm512_mask_cmp_pd_mask(in, y, _mm512_set1_pd(y1), _CMP_LT_OQ);
}

/// The lanes the cross test certifies (the wide box or the tall one).
WAGENER_AVX512 __mmask8 in_cross8(const InnerPolygonView& poly, __m512d x, __m512d y) {
  return in_box8(poly.wide_x0, poly.wide_x1, poly.wide_y0, poly.wide_y1, x, y) |
         in_box8(poly.tall_x0, poly.tall_x1, poly.tall_y0, poly.tall_y1, x, y);
}

/// Lanes where orient2d_certified(a, b, p) > 0, with its operations in its order: the same bits as
/// the scalar predicate, lane by lane (NaN fails every ordered comparison, as there).
WAGENER_AVX512 __mmask8 left_certified8(__m512d ax, __m512d ay, __m512d bx, __m512d by, __m512d px,
                                        __m512d py) {
  constexpr double kErrBound = (3.0 + 16.0 * 0x1p-53) * 0x1p-53;  // as in orient2d_certified
  const __m512d detleft = _mm512_mul_pd(_mm512_sub_pd(ax, px), _mm512_sub_pd(by, py));
  const __m512d detright = _mm512_mul_pd(_mm512_sub_pd(ay, py), _mm512_sub_pd(bx, px));
  const __m512d det = _mm512_sub_pd(detleft, detright);
  const __m512d detsum = _mm512_add_pd(_mm512_abs_pd(detleft), _mm512_abs_pd(detright));
  return _mm512_cmp_pd_mask(detsum, _mm512_set1_pd(0x1p-900), _CMP_GE_OQ) &
         _mm512_cmp_pd_mask(det, _mm512_mul_pd(_mm512_set1_pd(kErrBound), detsum), _CMP_GT_OQ);
}

/// The first steps of InnerPolygonView::fan_inside on eight points (lanes of px, py): the lanes of
/// `lanes` whose pseudo-angle around c is valid, that angle, and its bucket.
struct FanAngle8 {
  __mmask8 valid;
  __m512d angle;
  __m256i bucket;
};
WAGENER_AVX512 FanAngle8 fan_angle8(const InnerPolygonView& poly, __mmask8 lanes, __m512d px, __m512d py) {
  const __m512d zero = _mm512_setzero_pd();
  // pseudo_angle(px - cx, py - cy)
  const __m512d ex = _mm512_sub_pd(px, _mm512_set1_pd(poly.cx)),
                ey = _mm512_sub_pd(py, _mm512_set1_pd(poly.cy));
  const __m512d aex = _mm512_abs_pd(ex), aey = _mm512_abs_pd(ey);
  const __m512d t = _mm512_div_pd(aey, _mm512_add_pd(aex, aey));
  const __mmask8 x_nonneg = _mm512_cmp_pd_mask(ex, zero, _CMP_GE_OQ),
                 y_nonneg = _mm512_cmp_pd_mask(ey, zero, _CMP_GE_OQ);
  const __m512d two = _mm512_set1_pd(2), four = _mm512_set1_pd(4);
  const __m512d right = _mm512_mask_blend_pd(y_nonneg, _mm512_sub_pd(four, t), t);
  const __m512d left = _mm512_mask_blend_pd(y_nonneg, _mm512_add_pd(two, t), _mm512_sub_pd(two, t));
  const __m512d a = _mm512_mask_blend_pd(x_nonneg, left, right);
  const __mmask8 valid =
      lanes & _mm512_cmp_pd_mask(a, zero, _CMP_GE_OQ) & _mm512_cmp_pd_mask(a, four, _CMP_LE_OQ);
  // (The masked conversion: GCC 12 warns that the plain one's undefined source "may be used
  // uninitialized". Lanes outside `valid` are never used.)
  const __m256i b =
      _mm256_min_epi32(_mm256_set1_epi32(poly.buckets - 1),
                       _mm512_maskz_cvttpd_epi32(valid, _mm512_mul_pd(a, _mm512_set1_pd(poly.bucket_scale))));
  return {valid, a, b};
}

/// The lanes of f.valid that the fan's ring certifies. Pre: poly.ring is set.
WAGENER_AVX512 __mmask8 ring_inside8(const InnerPolygonView& poly, const FanAngle8& f, __m512d px,
                                     __m512d py) {
  if (f.valid == 0) return 0;
  const __m512d ex = _mm512_sub_pd(px, _mm512_set1_pd(poly.cx)),
                ey = _mm512_sub_pd(py, _mm512_set1_pd(poly.cy));
  const __m512d s = _mm512_add_pd(_mm512_mul_pd(ex, ex), _mm512_mul_pd(ey, ey));
  const __m512d ring = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), f.valid, f.bucket, poly.ring, 8);
  return _mm512_mask_cmp_pd_mask(f.valid, s, ring, _CMP_LT_OQ);
}

/// The lanes of f.valid that the fan's triangles certify.
WAGENER_AVX512 __mmask8 triangle_inside8(const InnerPolygonView& poly, const FanAngle8& f, __m512d px,
                                         __m512d py) {
  const __mmask8 valid = f.valid;
  if (valid == 0) return 0;
  const __m512d zero = _mm512_setzero_pd(), cx = _mm512_set1_pd(poly.cx), cy = _mm512_set1_pd(poly.cy);
  // The last vertex at or below the angle, from the bucket's (one gather per step of the walk).
  const __m256i one = _mm256_set1_epi32(1), vertices = _mm256_set1_epi32(poly.vertices);
  __m256i j = _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), valid, f.bucket, poly.bucket, 4);
  for (__mmask8 walking = valid;;) {
    const __m256i next = _mm256_add_epi32(j, one);
    walking &= _mm256_cmplt_epi32_mask(next, vertices);
    if (walking == 0) break;
    const __m512d next_angle = _mm512_mask_i32gather_pd(zero, walking, next, poly.angle, 8);
    walking = _mm512_mask_cmp_pd_mask(walking, next_angle, f.angle, _CMP_LE_OQ);
    j = _mm256_mask_add_epi32(j, walking, j, one);
  }
  j = _mm256_mask_mov_epi32(j, _mm256_cmplt_epi32_mask(j, _mm256_setzero_si256()),
                            _mm256_sub_epi32(vertices, one));  // the wrap-around triangle
  __m256i k = _mm256_add_epi32(j, one);
  k = _mm256_maskz_mov_epi32(_mm256_cmpneq_epi32_mask(k, vertices), k);
  const auto* coords = &poly.vertex->x;  // x0 y0 x1 y1 ...
  const __m256i jx = _mm256_add_epi32(j, j), kx = _mm256_add_epi32(k, k);
  const __m512d vx = _mm512_mask_i32gather_pd(zero, valid, jx, coords, 8),
                vy = _mm512_mask_i32gather_pd(zero, valid, jx, coords + 1, 8),
                wx = _mm512_mask_i32gather_pd(zero, valid, kx, coords, 8),
                wy = _mm512_mask_i32gather_pd(zero, valid, kx, coords + 1, 8);
  return valid & left_certified8(cx, cy, vx, vy, px, py) & left_certified8(vx, vy, wx, wy, px, py) &
         left_certified8(wx, wy, cx, cy, px, py);
}

/// The hot loop runs over a chunk of kChunk points, and only after the chunk are the points it left
/// in doubt read again, from the L1 cache, and tested by the other quick test and the fan. Where the
/// pass reads memory without a software prefetch (AMD; see prefetch_ahead), the loop is branch-free:
/// a branch on "is any point of this block in doubt" (true for 11-17 % of a disk's blocks, at
/// random) mispredicted in the middle of a memory-bound loop and threw away the loads issued after
/// it (bench/NOTES.md). Elsewhere it branches: over points from the caches (a pass of at most
/// kMaxBranchingPass of them, which keep_uncertified may read in pieces: 10^6 on two threads) the
/// compress and the store in every block cost more than the mispredictions (5 * 10^5 cached points,
/// one thread: gaussian 0.14 ms a pass with the branch, 0.20 without, the disk 0.19 and 0.24), and
/// with the prefetch on the 16-core Intel Xeon the branch-free loop was no faster at 10^8 points.
constexpr std::size_t kChunk = 1024;  // 16 KiB of f64 points: the whole chunk stays in L1
constexpr std::size_t kMaxBranchingPass = std::size_t{1} << 19;
struct DoubtList {
  alignas(64) std::uint32_t position[kChunk + kBlock];  // within the chunk; the last store is whole
};

/// Appends the lanes of `doubt` (block points first + lane) to the list's first `size`, in lane
/// order; returns the new size. (The size lives in a register: a member, it went to memory and back
/// every block, the stores to the list being able to alias it.)
WAGENER_AVX512 std::size_t push_doubtful(DoubtList& list, std::size_t size, __mmask16 doubt,
                                         std::uint32_t first) {
  const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  // Compressed in registers, then stored whole: a compressing store to memory is slow on some cores.
  _mm512_storeu_si512(list.position + size,
                      _mm512_maskz_compress_epi32(
                          doubt, _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(first)), lanes)));
  return size + static_cast<std::size_t>(__builtin_popcount(doubt));
}

/// Lanes x, y of the listed points chunk[position[0, 8)] (lanes outside `listed` zero).
WAGENER_AVX512 void gather_listed(const Point2<double>* chunk, __mmask8 listed, __m256i position, __m512d& x,
                                  __m512d& y) {
  const __m256i coordinate = _mm256_add_epi32(position, position);  // x0 y0 x1 y1 ...
  x = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), listed, coordinate, &chunk->x, 8);
  y = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), listed, coordinate, &chunk->y, 8);
}
WAGENER_AVX512 void gather_listed(const Point2<float>* chunk, __mmask8 listed, __m256i position, __m512d& x,
                                  __m512d& y) {
  const __m256i coordinate = _mm256_add_epi32(position, position);
  x = _mm512_maskz_cvtps_pd(0xff,
                            _mm256_mmask_i32gather_ps(_mm256_setzero_ps(), listed, coordinate, &chunk->x, 4));
  y = _mm512_maskz_cvtps_pd(0xff,
                            _mm256_mmask_i32gather_ps(_mm256_setzero_ps(), listed, coordinate, &chunk->y, 4));
}
WAGENER_AVX512 void gather_listed(const Point2<std::int32_t>* chunk, __mmask8 listed, __m256i position,
                                  __m512d& x, __m512d& y) {
  const __m256i coordinate = _mm256_add_epi32(position, position);
  x = _mm512_maskz_cvtepi32_pd(
      0xff, _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), listed, coordinate, &chunk->x, 4));
  y = _mm512_maskz_cvtepi32_pd(
      0xff, _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), listed, coordinate, &chunk->y, 4));
}
WAGENER_AVX512 void gather_listed(const Point2<std::int64_t>* chunk, __mmask8 listed, __m256i position,
                                  __m512d& x, __m512d& y) {
  const __m256i coordinate = _mm256_add_epi32(position, position);
  x = _mm512_cvtepi64_pd(
      _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), listed, coordinate, &chunk->x, 8));
  y = _mm512_cvtepi64_pd(
      _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), listed, coordinate, &chunk->y, 8));
}

/// Both quick tests (in double) and the fan test on the first `size` listed points of the chunk,
/// eight at a time; those none of them certifies are copied to out[kept...] in order. Returns the
/// new kept. The fan's ring runs with the quick tests, and the points it leaves in doubt (a third on
/// a uniform disk) are listed again, in place, for its triangles: in groups of eight as they come,
/// nearly every group held one, so the triangles cost as much as with no ring. In place (out == the
/// input) is safe: every store goes to a position at or before that of the point stored, and the
/// points of later lanes were read before it.
template <class T>
WAGENER_AVX512 std::size_t keep_listed(const InnerPolygonView& poly, DoubtList& list, std::size_t size,
                                       const Point2<T>* chunk, Point2<T>* out, std::size_t kept) {
  // The quick tests and the ring; the rest listed again at the front (a store of eight at or before
  // the group just read, so no position not yet read is overwritten).
  std::size_t left = 0;
  for (std::size_t g = 0; g < size; g += 8) {
    const auto listed = static_cast<__mmask8>((1u << std::min<std::size_t>(8, size - g)) - 1);
    const __m256i position = _mm256_maskz_loadu_epi32(listed, list.position + g);
    __m512d x, y;
    gather_listed(chunk, listed, position, x, y);
    __mmask8 inside = listed & (in_disk8(poly, x, y) | in_cross8(poly, x, y));
    if (poly.ring != nullptr) inside |= ring_inside8(poly, fan_angle8(poly, listed & ~inside, x, y), x, y);
    const auto doubt = static_cast<__mmask8>(listed & ~inside);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(list.position + left),
                        _mm256_maskz_compress_epi32(doubt, position));
    left += static_cast<std::size_t>(__builtin_popcount(doubt));
  }
  // The triangles (none without a fan: then what the quick tests leave is kept).
  for (std::size_t g = 0; g < left; g += 8) {
    const auto listed = static_cast<__mmask8>((1u << std::min<std::size_t>(8, left - g)) - 1);
    __m512d x, y;
    gather_listed(chunk, listed, _mm256_maskz_loadu_epi32(listed, list.position + g), x, y);
    const __mmask8 inside =
        poly.vertices == 0 ? __mmask8{0} : triangle_inside8(poly, fan_angle8(poly, listed, x, y), x, y);
    for (std::uint32_t keep = listed & ~inside; keep != 0; keep &= keep - 1) {
      out[kept++] = chunk[list.position[g + static_cast<std::size_t>(__builtin_ctz(keep))]];
    }
  }
  return kept;
}

/// The lanes the float disk test certifies.
WAGENER_AVX512 __mmask16 in_disk16(const FloatQuickTests& t, __m512 x, __m512 y) {
  const __m512 ex = _mm512_sub_ps(x, _mm512_set1_ps(t.cx)), ey = _mm512_sub_ps(y, _mm512_set1_ps(t.cy));
  const __m512 s = _mm512_add_ps(_mm512_mul_ps(ex, ex), _mm512_mul_ps(ey, ey));
  return _mm512_cmp_ps_mask(s, _mm512_set1_ps(t.disk), _CMP_LT_OQ);
}

/// The lanes strictly inside the float box (x0, x1) x (y0, y1).
WAGENER_AVX512 __mmask16 in_box16(float x0, float x1, float y0, float y1, __m512 x, __m512 y) {
  __mmask16 in = _mm512_cmp_ps_mask(_mm512_set1_ps(x0), x, _CMP_LT_OQ);
  in = _mm512_mask_cmp_ps_mask(in, x, _mm512_set1_ps(x1), _CMP_LT_OQ);
  in = _mm512_mask_cmp_ps_mask(in, _mm512_set1_ps(y0), y, _CMP_LT_OQ);
  return _mm512_mask_cmp_ps_mask(in, y, _mm512_set1_ps(y1), _CMP_LT_OQ);
}

/// The points of the block of kBlock at p that the hot loop's quick test leaves in doubt (bit j:
/// point j), eight points a vector in double.
template <bool kDiskFirst, class T>
WAGENER_AVX512 __mmask16 doubt_in_block(const InnerPolygonView& poly, const Point2<T>* p) {
  __m512d x0, y0, x1, y1;
  simd::load_xy8(p, x0, y0);
  simd::load_xy8(p + 8, x1, y1);
  const __mmask8 in0 = kDiskFirst ? in_disk8(poly, x0, y0) : in_cross8(poly, x0, y0),
                 in1 = kDiskFirst ? in_disk8(poly, x1, y1) : in_cross8(poly, x1, y1);
  return static_cast<__mmask16>(~_mm512_kunpackb(in1, in0));
}

/// The same for float points, sixteen a vector in float (FloatQuickTests).
template <bool kDiskFirst>
WAGENER_AVX512 __mmask16 doubt_in_block(const FloatQuickTests& tests, const Point2<float>* p) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30),
                odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  const __m512 lo = _mm512_loadu_ps(&p[0].x), hi = _mm512_loadu_ps(&p[8].x);
  const __m512 x = _mm512_permutex2var_ps(lo, even, hi), y = _mm512_permutex2var_ps(lo, odd, hi);
  const __mmask16 inside =
      kDiskFirst ? in_disk16(tests, x, y)
                 : in_box16(tests.wide_x0, tests.wide_x1, tests.wide_y0, tests.wide_y1, x, y) |
                       in_box16(tests.tall_x0, tests.tall_x1, tests.tall_y0, tests.tall_y1, x, y);
  return static_cast<__mmask16>(~inside);
}

/// The pass with one quick test in the hot loop (the disk if kDiskFirst, else the cross), in float
/// for float points: the other quick test runs only on the points the first leaves in doubt, in
/// double, after their chunk (DoubtList). A point is kept iff none of the three tests certifies it,
/// whatever their order (the float test certifies only what the double one does), so the survivors
/// are the scalar kernel's; one test instead of two per point is a third of the loop's arithmetic.
template <bool kDiskFirst, bool kPrefetch, bool kBranchFree, class T>
[[gnu::target("avx512f,avx512dq,avx512vl")]] std::size_t keep_avx512(const InnerPolygonView& poly_in,
                                                                     const Point2<T>* in, std::size_t len,
                                                                     Point2<T>* out) {
  const InnerPolygonView poly = poly_in;
  const FloatQuickTests tests = std::is_same_v<T, float> ? FloatQuickTests(poly) : FloatQuickTests();
  DoubtList list;
  std::size_t kept = 0, i = 0;
  while (len - i >= kBlock) {
    const std::size_t blocks = std::min(kChunk, len - i) / kBlock;
    std::size_t listed = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
      if constexpr (kPrefetch) prefetch_ahead(in + i + b * kBlock);
      __mmask16 doubt;
      if constexpr (std::is_same_v<T, float>) {
        doubt = doubt_in_block<kDiskFirst>(tests, in + i + b * kBlock);
      } else {
        doubt = doubt_in_block<kDiskFirst>(poly, in + i + b * kBlock);
      }
      if (kBranchFree || doubt != 0)
        listed = push_doubtful(list, listed, doubt, static_cast<std::uint32_t>(b * kBlock));
    }
    kept = keep_listed(poly, list, listed, in + i, out, kept);
    i += blocks * kBlock;
  }
  return kept + keep_scalar(poly, in + i, len - i, out + kept);
}

/// Whether the hot loop asks for its blocks ahead (prefetch_ahead says why only on Intel).
bool prefetch_helps() {
  static const bool intel = __builtin_cpu_is("intel");
  return intel;
}

bool disk_first(const InnerPolygonView& poly);

/// keep_avx512 with its switches chosen for this input and processor.
template <class T>
std::size_t keep_avx512_dispatch(const InnerPolygonView& poly, const Point2<T>* in, std::size_t len,
                                 Point2<T>* out, std::size_t pass) {
  // Intel: the prefetch, and the branch (no faster without it there: bench/NOTES.md). Elsewhere no
  // prefetch, and no branch where the pass reads memory.
  const bool disk = disk_first(poly);
  if (prefetch_helps()) {
    return disk ? keep_avx512<true, true, false>(poly, in, len, out)
                : keep_avx512<false, true, false>(poly, in, len, out);
  }
  if (pass > kMaxBranchingPass) {
    return disk ? keep_avx512<true, false, true>(poly, in, len, out)
                : keep_avx512<false, false, true>(poly, in, len, out);
  }
  return disk ? keep_avx512<true, false, false>(poly, in, len, out)
              : keep_avx512<false, false, false>(poly, in, len, out);
}

/// Whether the disk test goes first: where its area is at least the cross's (exact comparisons are
/// not needed here; either order keeps the same points, this only picks the faster one).
bool disk_first(const InnerPolygonView& poly) {
  if (!(poly.disk > 0)) return false;
  const auto area = [](double x0, double x1, double y0, double y1) {
    return x1 > x0 && y1 > y0 ? (x1 - x0) * (y1 - y0) : 0.0;
  };
  const double common = area(std::max(poly.wide_x0, poly.tall_x0), std::min(poly.wide_x1, poly.tall_x1),
                             std::max(poly.wide_y0, poly.tall_y0), std::min(poly.wide_y1, poly.tall_y1));
  const double cross = area(poly.wide_x0, poly.wide_x1, poly.wide_y0, poly.wide_y1) +
                       area(poly.tall_x0, poly.tall_x1, poly.tall_y0, poly.tall_y1) - common;
  return 3.14159 * poly.disk >= cross;
}

#define WAGENER_AVX2 [[gnu::target("avx2"), gnu::always_inline]] inline

/// All-ones lanes strictly inside the box (x0, x1) x (y0, y1) (exact comparisons).
WAGENER_AVX2 __m256d in_box4(double x0, double x1, double y0, double y1, __m256d x, __m256d y) {
  return _mm256_and_pd(_mm256_and_pd(_mm256_cmp_pd(_mm256_set1_pd(x0), x, _CMP_LT_OQ),
                                     _mm256_cmp_pd(x, _mm256_set1_pd(x1), _CMP_LT_OQ)),
                       _mm256_and_pd(_mm256_cmp_pd(_mm256_set1_pd(y0), y, _CMP_LT_OQ),
                                     _mm256_cmp_pd(y, _mm256_set1_pd(y1), _CMP_LT_OQ)));
}

/// Bit j set where the quick tests leave point j of four in doubt.
template <class T>
WAGENER_AVX2 std::uint32_t doubt4(const InnerPolygonView& poly, const Point2<T>* p) {
  __m256d x, y;
  simd::load_xy4(p, x, y);  // lanes in the order of points 0, 2, 1, 3
  const __m256d ex = _mm256_sub_pd(x, _mm256_set1_pd(poly.cx)),
                ey = _mm256_sub_pd(y, _mm256_set1_pd(poly.cy));
  const __m256d s = _mm256_add_pd(_mm256_mul_pd(ex, ex), _mm256_mul_pd(ey, ey));
  const __m256d in_disk = _mm256_cmp_pd(s, _mm256_set1_pd(poly.disk), _CMP_LT_OQ);
  const __m256d in_box = _mm256_or_pd(in_box4(poly.wide_x0, poly.wide_x1, poly.wide_y0, poly.wide_y1, x, y),
                                      in_box4(poly.tall_x0, poly.tall_x1, poly.tall_y0, poly.tall_y1, x, y));
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
    case FilterKernel::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl");
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
                             Point2<T>* out, FilterKernel kernel, [[maybe_unused]] std::size_t pass) {
  if (kernel == FilterKernel::widest) kernel = widest_filter_kernel();
  switch (kernel) {
#if defined(WAGENER_X86_FILTER)
    case FilterKernel::avx512: return keep_avx512_dispatch(poly, in, len, out, pass == 0 ? len : pass);
    case FilterKernel::avx2: return keep_avx2(poly, in, len, out);
#endif
    default: return keep_scalar(poly, in, len, out);
  }
}

template std::size_t keep_uncertified(const InnerPolygonView&, const Point2<float>*, std::size_t,
                                      Point2<float>*, FilterKernel, std::size_t);
template std::size_t keep_uncertified(const InnerPolygonView&, const Point2<double>*, std::size_t,
                                      Point2<double>*, FilterKernel, std::size_t);
template std::size_t keep_uncertified(const InnerPolygonView&, const Point2<std::int32_t>*, std::size_t,
                                      Point2<std::int32_t>*, FilterKernel, std::size_t);
template std::size_t keep_uncertified(const InnerPolygonView&, const Point2<std::int64_t>*, std::size_t,
                                      Point2<std::int64_t>*, FilterKernel, std::size_t);

}  // namespace wagener::cpu
