// orient2d: the exact orientation predicate, identical on host and device.
//
// A floating-point filter (Shewchuk's stage A bound) answers almost every call; when it cannot
// certify the sign -- near-collinear triples, overflowing or underflowing products -- a short exact
// stage (error-free products and a four-term expansion) decides it when the coordinate differences
// are exact, and otherwise an exact fallback sums the six products of the expanded determinant in a
// fixed-point accumulator wide enough for every pair of finite doubles (exponents 2^-2148 ..
// 2^2048), so the answer is right for every finite input. Float inputs are widened to double, which is exact.
//
// Points of integer coordinates: 32-bit integers widen to double exactly, and take the same path.
// 64-bit integers do not (beyond 2^53), so their orientation is integer arithmetic, exact for the
// whole range: the four differences in 64 bits (65 where one overflows, kept as sign and magnitude)
// and the two products in 128. The caller never converts: orient2d(Point2<T>) picks the arithmetic
// for T.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "wagener/config.hpp"
#include "wagener/point.hpp"

namespace wagener {
namespace detail {

/// Sign of a sum of exact products, kept as a two's-complement integer of kWords 64-bit words
/// whose least significant bit has weight 2^kMinExponent.
class ExactAccumulator {
 public:
  // Product exponents of two finite doubles lie in [-2148, 1942]; mantissa products have 106 bits;
  // six terms add 3 bits of growth and one bit is the sign: 4090 + 106 + 3 + 1 < 68 * 64.
  static constexpr int kWords = 68;
  static constexpr int kMinExponent = -2148;

  WAGENER_HD ExactAccumulator() {
    for (int i = 0; i < kWords; ++i) word_[i] = 0;
  }

  /// Adds (or subtracts, when negative) the exact product a*b.
  WAGENER_HD void add_product(double a, double b, bool negate) {
    std::uint64_t ma, mb;
    int ea, eb;
    bool sa, sb;
    decompose(a, ma, ea, sa);
    decompose(b, mb, eb, sb);
    if (ma == 0 || mb == 0) return;
    std::uint64_t lo, hi;
    mul64(ma, mb, lo, hi);
    const int bit = ea + eb - kMinExponent;
    const int w = bit / 64, s = bit % 64;
    std::uint64_t part[3];
    part[0] = lo << s;
    part[1] = s ? (hi << s) | (lo >> (64 - s)) : hi;
    part[2] = s ? hi >> (64 - s) : 0;
    if ((sa != sb) != negate) {
      subtract_at(w, part);
    } else {
      add_at(w, part);
    }
  }

  WAGENER_HD int sign() const {
    if (static_cast<std::int64_t>(word_[kWords - 1]) < 0) return -1;
    for (int i = 0; i < kWords; ++i) {
      if (word_[i] != 0) return 1;
    }
    return 0;
  }

 private:
  WAGENER_HD static void decompose(double v, std::uint64_t& mantissa, int& exponent, bool& negative) {
    std::uint64_t bits;
#if defined(__CUDA_ARCH__)
    bits = static_cast<std::uint64_t>(__double_as_longlong(v));
#else
    std::memcpy(&bits, &v, sizeof bits);
#endif
    negative = (bits >> 63) != 0;
    const int biased = static_cast<int>((bits >> 52) & 0x7ff);
    mantissa = bits & ((std::uint64_t{1} << 52) - 1);
    if (biased == 0) {
      exponent = -1074;  // subnormal: no hidden bit
    } else {
      mantissa |= std::uint64_t{1} << 52;
      exponent = biased - 1075;
    }
  }

  WAGENER_HD static void mul64(std::uint64_t a, std::uint64_t b, std::uint64_t& lo, std::uint64_t& hi) {
#if defined(__CUDA_ARCH__)
    lo = a * b;
    hi = __umul64hi(a, b);
#else
    __extension__ typedef unsigned __int128 u128;  // GCC/Clang extension; the device uses __umul64hi
    const u128 p = static_cast<u128>(a) * b;
    lo = static_cast<std::uint64_t>(p);
    hi = static_cast<std::uint64_t>(p >> 64);
#endif
  }

  WAGENER_HD void add_at(int w, const std::uint64_t* part) {
    std::uint64_t carry = 0;
    for (int i = w; i < kWords; ++i) {
      const std::uint64_t addend = (i - w < 3) ? part[i - w] : 0;
      if (i - w >= 3 && carry == 0) break;
      const std::uint64_t s1 = word_[i] + addend;
      const std::uint64_t c1 = s1 < addend;
      const std::uint64_t s2 = s1 + carry;
      const std::uint64_t c2 = s2 < carry;
      word_[i] = s2;
      carry = c1 | c2;
    }
  }

  WAGENER_HD void subtract_at(int w, const std::uint64_t* part) {
    std::uint64_t borrow = 0;
    for (int i = w; i < kWords; ++i) {
      const std::uint64_t sub = (i - w < 3) ? part[i - w] : 0;
      if (i - w >= 3 && borrow == 0) break;
      const std::uint64_t d1 = word_[i] - sub;
      const std::uint64_t b1 = word_[i] < sub;
      const std::uint64_t d2 = d1 - borrow;
      const std::uint64_t b2 = d1 < borrow;
      word_[i] = d2;
      borrow = b1 | b2;
    }
  }

  std::uint64_t word_[kWords];
};

// The error-free transformations below need every operation rounded on its own. A compiler that
// fuses a product into a later sum (nvcc does by default, GCC with FMA targets) breaks them: the
// sum of a rounded product l1 and i becomes fma(x, y, i), and two_sum's error term is then wrong.
// These helpers are never fused.
WAGENER_HD inline double mul_rounded(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  volatile double p = a * b;  // a store: the product is rounded here, whatever the flags
  return p;
#endif
}

WAGENER_HD inline double add_rounded(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

WAGENER_HD inline double sub_rounded(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}

// The same in float, for float-only tests that must stay small (core/neighbour_thinning.hpp,
// core/float_orientation.hpp).
WAGENER_HD inline float mul_rounded(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  volatile float p = a * b;
  return p;
#endif
}

WAGENER_HD inline float add_rounded(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

WAGENER_HD inline float sub_rounded(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}

// Shewchuk's error-free transformations: x + y == a + b (a - b) exactly, x the rounded result. They
// hold without overflow; the caller keeps magnitudes far from both ends of the exponent range.
WAGENER_HD inline void two_sum(double a, double b, double& x, double& y) {
  x = add_rounded(a, b);
  const double bv = sub_rounded(x, a), av = sub_rounded(x, bv);
  y = add_rounded(sub_rounded(a, av), sub_rounded(b, bv));
}

WAGENER_HD inline double two_diff_tail(double a, double b, double x) {
  const double bv = sub_rounded(a, x), av = add_rounded(x, bv);
  return add_rounded(sub_rounded(a, av), sub_rounded(bv, b));
}

WAGENER_HD inline void two_diff(double a, double b, double& x, double& y) {
  x = sub_rounded(a, b);
  y = two_diff_tail(a, b, x);
}

/// a * b - p, exactly when product_is_splittable(p, a, b) (one rounding: a fused multiply-add).
WAGENER_HD inline double product_error(double a, double b, double p) {
#if defined(__CUDA_ARCH__)
  return fma(a, b, -p);
#else
  return std::fma(a, b, -p);
#endif
}

WAGENER_HD inline float product_error(float a, float b, float p) {
#if defined(__CUDA_ARCH__)
  return fmaf(a, b, -p);
#else
  return std::fma(a, b, -p);
#endif
}

/// A product whose error term fma(a, b, -p) is exact: a factor is zero, or |p| is far from underflow
/// and overflow.
WAGENER_HD inline bool product_is_splittable(double p, double a, double b) {
  const double m = p < 0 ? -p : p;
  return a == 0 || b == 0 || (m >= 0x1p-900 && m <= 0x1p1000);
}

/// The middle stage: the exact sign of (ax-cx)(by-cy) - (ay-cy)(bx-cx) when the four differences
/// are exact in double (always so for nearby points, and for every float input whose coordinates'
/// exponents differ by at most 29) and the products are in range. Each product is split exactly
/// into p + e by an FMA, and the four terms into a nonoverlapping expansion (Two_Two_Diff), whose
/// largest nonzero component has the sign of the sum. About 30 flops and no memory, where the
/// accumulator below costs thousands of instructions and a 544-byte local array. Returns 2 when it
/// does not apply.
WAGENER_HD inline int orient2d_expansion(double ax, double ay, double bx, double by, double cx, double cy) {
  const double acx = sub_rounded(ax, cx), bcx = sub_rounded(bx, cx), acy = sub_rounded(ay, cy),
               bcy = sub_rounded(by, cy);
  if (two_diff_tail(ax, cx, acx) != 0 || two_diff_tail(bx, cx, bcx) != 0 || two_diff_tail(ay, cy, acy) != 0 ||
      two_diff_tail(by, cy, bcy) != 0) {
    return 2;
  }
  const double l1 = mul_rounded(acx, bcy), r1 = mul_rounded(acy, bcx);
  if (!product_is_splittable(l1, acx, bcy) || !product_is_splittable(r1, acy, bcx)) return 2;
  const double l0 = product_error(acx, bcy, l1), r0 = product_error(acy, bcx, r1);
  // (l1 + l0) - (r1 + r0) = x3 + x2 + x1 + x0, nonoverlapping, increasing magnitude (zeros aside).
  double i, x0, x1, x2, x3, t2, t1;
  two_diff(l0, r0, i, x0);
  two_sum(l1, i, t2, t1);
  two_diff(t1, r1, i, x1);
  two_sum(t2, i, x3, x2);
  const double top = x3 != 0 ? x3 : x2 != 0 ? x2 : x1 != 0 ? x1 : x0;
  return (top > 0) - (top < 0);
}

/// The exact sign of (b - a) x (c - a), for any finite doubles; slow, so only the fallback.
/// Never inlined: inlined at every call site, its 68-word accumulator and long code raise the
/// register pressure of the hot filter path until loop counters spill to local memory (seen in the
/// GPU tile kernel, bench/NOTES.md).
WAGENER_HD WAGENER_NOINLINE inline int orient2d_exact(double ax, double ay, double bx, double by, double cx,
                                                      double cy) {
  // (bx-ax)(cy-ay) - (by-ay)(cx-ax) expanded; the ax*ay terms cancel.
  ExactAccumulator acc;
  acc.add_product(bx, cy, false);
  acc.add_product(bx, ay, true);
  acc.add_product(ax, cy, true);
  acc.add_product(by, cx, true);
  acc.add_product(ax, by, false);
  acc.add_product(ay, cx, false);
  return acc.sign();
}

}  // namespace detail

namespace detail {
// Shewchuk's ccwerrboundA = (3 + 16 eps) eps, eps = 2^-53. The bound assumes no overflow or
// underflow: an overflow makes detsum infinite (never certified); products far above the subnormal
// range (detsum >= 2^-900) keep the absolute error of any underflowed product (at most 2^-1074) well
// inside the bound's 16 eps^2 slack.
inline constexpr double kOrientErrBound = (3.0 + 16.0 * 0x1p-53) * 0x1p-53;
inline constexpr double kOrientMinSafe = 0x1p-900;
}  // namespace detail

/// orient2d_certified from the differences a - c and b - c (rounded as orient2d_certified rounds
/// them): callers that test one point c against several edges compute each corner's difference
/// once. +1 or -1 when the filter certifies the sign, else 0.
WAGENER_HD inline int orient2d_certified_differences(double acx, double acy, double bcx, double bcy) {
  using detail::kOrientErrBound, detail::kOrientMinSafe;
  const double detleft = acx * bcy;
  const double detright = acy * bcx;
  const double det = detleft - detright;
  const double detsum = (detleft < 0 ? -detleft : detleft) + (detright < 0 ? -detright : detright);
  if (detsum >= kOrientMinSafe) {  // NaN-free: a certified sign needs finite, well-scaled products
    const double bound = kOrientErrBound * detsum;
    if (det > bound) return 1;
    if (-det > bound) return -1;
  }
  return 0;
}

/// True when orient2d_certified_differences certifies +1, computed without branches (fabs is an
/// operand modifier on GPUs): for filters that test many points against a few edges in lockstep.
WAGENER_HD inline bool certified_left_differences(double acx, double acy, double bcx, double bcy) {
  using detail::kOrientErrBound, detail::kOrientMinSafe;
  const double detleft = acx * bcy;
  const double detright = acy * bcx;
  const double detsum = std::fabs(detleft) + std::fabs(detright);
  return (detsum >= kOrientMinSafe) & (detleft - detright > kOrientErrBound * detsum);
}

/// The sign of orient2d(a, b, c) when the floating-point filter alone certifies it, else 0 (not
/// known). The first stage of orient2d, for callers to whom "not known" is a safe answer (filters
/// that keep every point they cannot discard); a few flops and no fallback code.
WAGENER_HD inline int orient2d_certified(double ax, double ay, double bx, double by, double cx, double cy) {
  return orient2d_certified_differences(ax - cx, ay - cy, bx - cx, by - cy);
}

/// Orientation of the triple (a, b, c): +1 if c lies strictly left of the directed line a->b
/// (a counter-clockwise turn), -1 if strictly right, 0 if the three points are collinear.
/// Exact for every finite input. Precondition: no NaN or infinity.
WAGENER_HD inline int orient2d(double ax, double ay, double bx, double by, double cx, double cy) {
  const int certified = orient2d_certified(ax, ay, bx, by, cx, cy);
  if (certified != 0) return certified;
  // Equal coordinates make a difference exactly zero: the sign is certainly 0 (duplicates, grids).
  if ((ax == cx || by == cy) && (ay == cy || bx == cx)) return 0;
  // Rare: near-collinear or extreme magnitudes. Exact differences allow the short exact stage.
  const int sign = detail::orient2d_expansion(ax, ay, bx, by, cx, cy);
  if (sign != 2) return sign;
  return detail::orient2d_exact(ax, ay, bx, by, cx, cy);
}

namespace detail {

/// The product a * b of two 64-bit integers, exactly: hi * 2^64 + lo (hi signed, lo unsigned).
struct Wide {
  std::int64_t hi;
  std::uint64_t lo;
};

WAGENER_HD inline Wide multiply_wide(std::int64_t a, std::int64_t b) {
#if defined(__CUDA_ARCH__)
  return {__mul64hi(a, b), static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b)};
#else
  __extension__ typedef __int128 i128;  // GCC/Clang extension; the device uses __mul64hi
  const i128 p = static_cast<i128>(a) * b;
  return {static_cast<std::int64_t>(p >> 64), static_cast<std::uint64_t>(p)};
#endif
}

/// The product of two magnitudes below 2^64, exactly (unsigned, 128 bits).
WAGENER_HD inline void multiply_unsigned(std::uint64_t a, std::uint64_t b, std::uint64_t& hi,
                                         std::uint64_t& lo) {
#if defined(__CUDA_ARCH__)
  hi = __umul64hi(a, b);
  lo = a * b;
#else
  __extension__ typedef unsigned __int128 u128;
  const u128 p = static_cast<u128>(a) * b;
  hi = static_cast<std::uint64_t>(p >> 64);
  lo = static_cast<std::uint64_t>(p);
#endif
}

/// a - b modulo 2^64: the difference where it fits in 64 bits, else off by 2^64 (its sign turned).
WAGENER_HD inline std::int64_t wrapped_difference(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}

/// d = a - b when it fits in 64 bits (returns false, d then wrapped, when it does not).
WAGENER_HD inline bool difference_fits(std::int64_t a, std::int64_t b, std::int64_t& d) {
  d = wrapped_difference(a, b);
  // Overflow only when a and b differ in sign and the wrapped difference's sign is not a's.
  return ((a ^ b) & (a ^ d)) >= 0;
}

/// orient2d's four differences a - c and b - c, when all of them fit in 64 bits (else false).
struct Differences {
  std::int64_t acx, acy, bcx, bcy;
};

WAGENER_HD inline bool differences_fit(std::int64_t ax, std::int64_t ay, std::int64_t bx, std::int64_t by,
                                       std::int64_t cx, std::int64_t cy, Differences& d) {
  // All four are computed (each sets its difference), then one `&` of the results: one branch, not four.
  const bool acx_fits = difference_fits(ax, cx, d.acx), acy_fits = difference_fits(ay, cy, d.acy);
  const bool bcx_fits = difference_fits(bx, cx, d.bcx), bcy_fits = difference_fits(by, cy, d.bcy);
  return acx_fits & acy_fits & bcx_fits & bcy_fits;
}

/// The sign of a - b, and its magnitude, which always fits in 64 unsigned bits (at most 2^64 - 1).
WAGENER_HD inline int signed_magnitude(std::int64_t a, std::int64_t b, std::uint64_t& magnitude) {
  const auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
  magnitude = a >= b ? ua - ub : ub - ua;
  return (a > b) - (a < b);
}

/// The sign of p q - r s for values of up to 65 bits given as sign (-1, 0, 1) and magnitude.
WAGENER_HD inline int compare_wide_products(int p_sign, std::uint64_t p, int q_sign, std::uint64_t q,
                                            int r_sign, std::uint64_t r, int s_sign, std::uint64_t s) {
  const int left_sign = p_sign * q_sign, right_sign = r_sign * s_sign;
  if (left_sign != right_sign) return left_sign > right_sign ? 1 : -1;
  if (left_sign == 0) return 0;
  std::uint64_t left_hi, left_lo, right_hi, right_lo;
  multiply_unsigned(p, q, left_hi, left_lo);
  multiply_unsigned(r, s, right_hi, right_lo);
  const int magnitude = left_hi != right_hi   ? (left_hi > right_hi ? 1 : -1)
                        : left_lo != right_lo ? (left_lo > right_lo ? 1 : -1)
                                              : 0;
  return left_sign * magnitude;
}

/// orient2d for 64-bit integer coordinates, exact for every value. Where the four differences fit
/// in 64 bits (points less than 2^63 apart in each coordinate), two 64 x 64 -> 128-bit products
/// decide (each below 2^126 in magnitude); otherwise each difference is a sign and a 64-bit
/// magnitude, and the products are compared as 128-bit magnitudes.
WAGENER_HD inline int orient2d_int64(std::int64_t ax, std::int64_t ay, std::int64_t bx, std::int64_t by,
                                     std::int64_t cx, std::int64_t cy) {
  Differences d;
  if (differences_fit(ax, ay, bx, by, cx, cy, d)) {
    const Wide left = multiply_wide(d.acx, d.bcy), right = multiply_wide(d.acy, d.bcx);
    if (left.hi != right.hi) return left.hi > right.hi ? 1 : -1;
    return (left.lo > right.lo) - (left.lo < right.lo);
  }
  std::uint64_t macx, macy, mbcx, mbcy;
  const int sacx = signed_magnitude(ax, cx, macx), sacy = signed_magnitude(ay, cy, macy);
  const int sbcx = signed_magnitude(bx, cx, mbcx), sbcy = signed_magnitude(by, cy, mbcy);
  return compare_wide_products(sacx, macx, sbcy, mbcy, sacy, macy, sbcx, mbcx);
}

}  // namespace detail

/// orient2d of points of any coordinate type (is_coordinate_v): float, double and 32-bit integers
/// as doubles (an exact widening), 64-bit integers in integer arithmetic. Exact for every finite input.
template <class T>
WAGENER_HD inline int orient2d(const Point2<T>& a, const Point2<T>& b, const Point2<T>& c) {
  if constexpr (exact_in_double_v<T>) {
    return orient2d(static_cast<double>(a.x), static_cast<double>(a.y), static_cast<double>(b.x),
                    static_cast<double>(b.y), static_cast<double>(c.x), static_cast<double>(c.y));
  } else {
    static_assert(std::is_same_v<T, std::int64_t>, "coordinates are float, double, int32_t or int64_t");
    return detail::orient2d_int64(a.x, a.y, b.x, b.y, c.x, c.y);
  }
}

/// orient2d_certified of points of any coordinate type: the sign when the floating-point filter
/// certifies it, else 0. For 64-bit integers the differences are taken exactly in 64 bits (0 where
/// one does not fit) and each is rounded once to double, as Shewchuk's bound takes a rounded
/// difference of doubles; the bound then holds as it is.
template <class T>
WAGENER_HD inline int orient2d_certified(const Point2<T>& a, const Point2<T>& b, const Point2<T>& c) {
  if constexpr (exact_in_double_v<T>) {
    return orient2d_certified(static_cast<double>(a.x), static_cast<double>(a.y), static_cast<double>(b.x),
                              static_cast<double>(b.y), static_cast<double>(c.x), static_cast<double>(c.y));
  } else {
    detail::Differences d;
    if (!detail::differences_fit(a.x, a.y, b.x, b.y, c.x, c.y, d)) return 0;
    return orient2d_certified_differences(static_cast<double>(d.acx), static_cast<double>(d.acy),
                                          static_cast<double>(d.bcx), static_cast<double>(d.bcy));
  }
}

}  // namespace wagener
