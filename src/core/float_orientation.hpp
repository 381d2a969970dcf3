// The float guide filter's test of a point against a guide edge (src/cuda/upper_hull.cu), here so
// that the host model of that filter (bench/parabola_survivors.cpp) decides with the same operations.
#pragma once

#include <cmath>

#include "wagener/config.hpp"
#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

namespace wagener::core {

/// Is p certainly strictly right of the directed line a->b (orient2d < 0)? false when not certain.
/// The first stage of orient2d in single precision: four times the throughput of double on the GPU,
/// which is what the float pass would otherwise be bound by. Shewchuk's bound with eps = 2^-24 is
/// (3 + 16 eps) eps; 4 eps covers it and the rounding of the bound itself. Each operation is rounded
/// on its own (no fused multiply-add: the bound assumes it). Products far above the subnormal range
/// (detsum >= 2^-90) keep the error of an underflowed product (at most 2^-149, with IEEE
/// subnormals: the build never sets -ftz) inside the slack; an overflow makes detsum infinite or
/// NaN, never certified.
WAGENER_HD inline bool certainly_right_in_float(const Point2<float>& a, const Point2<float>& b,
                                                const Point2<float>& p) {
  using detail::add_rounded, detail::mul_rounded, detail::sub_rounded;
  constexpr float kErrBound = 4.0f * 0x1p-24f;
  constexpr float kMinSafe = 0x1p-90f;
  const float detleft = mul_rounded(sub_rounded(a.x, p.x), sub_rounded(b.y, p.y));
  const float detright = mul_rounded(sub_rounded(a.y, p.y), sub_rounded(b.x, p.x));
  const float det = sub_rounded(detleft, detright);
  const float detsum = add_rounded(std::fabs(detleft), std::fabs(detright));
  return detsum >= kMinSafe && -det > mul_rounded(kErrBound, detsum);
}

}  // namespace wagener::core
