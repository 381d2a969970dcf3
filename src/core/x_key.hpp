// A 32-bit sort key monotone in x, so that a radix sort of 8-byte coordinates takes four passes
// instead of eight; the runs of equal key are then sorted exactly, each on its own.
//
// The key is x's place in [lo, hi] scaled to 2^32, computed in double and clamped: conversion to
// double, subtraction, multiplication and truncation are each monotone under rounding, so
// x1 <= x2 gives key(x1) <= key(x2). Points of different keys are therefore already in x order after
// the sort, and only a run of equal keys can hold points out of order. A run is short where the
// points' x spread over the range (a circle of 2^28 points has about 2,600 in its longest key, the
// last one before x = 1, where x = cos t changes slowest); where the range is dominated by a few far
// points, nearly all points share one key, and the caller falls back to the sort on the whole of x.
//
// The full hull sorts on split_x_key, which also splits the survivors by the baseline (the line from
// the smallest survivor to the largest): its top bit is the side, so one sort leaves the upper
// chain's points ascending and then the lower chain's descending, as the partition did.
#pragma once

#include <cstdint>
#include <limits>

#include "wagener/config.hpp"
#include "wagener/point.hpp"

namespace wagener::core {

/// The key's affine map: key(x) = (x - lo) * scale, clamped to [0, 2^32 - 1].
struct XKeyScale {
  double lo = 0;
  double scale = 0;
};

/// The map for x in [lo, hi] (finite, lo <= hi). A range too wide for double (hi - lo overflows)
/// or of one value maps every x to key 0.
WAGENER_HD inline XKeyScale x_key_scale(double lo, double hi) {
  const double width = hi - lo;
  return {lo, width > 0 && width <= std::numeric_limits<double>::max() ? 0x1p32 / width : 0.0};
}

/// x's key under the map s: monotone in x, x below the range's low end giving 0 and above its high
/// end 2^32 - 1.
template <class T>
WAGENER_HD inline std::uint32_t x_key(T x, XKeyScale s) {
  const double k = (static_cast<double>(x) - s.lo) * s.scale;
  if (!(k > 0)) return 0;  // also x - lo overflowing to inf with scale 0 (NaN)
  if (k >= 0x1p32 - 1) return 0xffffffffu;
  return static_cast<std::uint32_t>(k);
}

/// The key of a point for the sort that also splits by the baseline: the upper chain's points (on or
/// above the baseline) first, by x ascending (x's key without its last bit); then the lower chain's
/// (below it), by x descending (that key complemented). Each order is monotone, so only a run of equal
/// key can hold points out of order, all of one side.
template <class T>
WAGENER_HD inline std::uint32_t split_x_key(T x, bool below, XKeyScale s) {
  const std::uint32_t k = x_key(x, s) >> 1;
  return below ? 0x80000000u | (0x7fffffffu - k) : k;
}

/// Whether a run of equal split_x_key holds lower-chain points, sorted lexicographically descending.
WAGENER_HD inline bool split_key_descends(std::uint32_t key) {
  return (key >> 31) != 0;
}

/// Runs of equal key up to kThreadKeyRun points are sorted by one thread (insertion_sort_lex), longer
/// ones up to kWarpKeyRun by a warp and up to kBlockKeyRun by a block; a longer run sends the caller
/// back to the sort on all of x.
inline constexpr int kThreadKeyRun = 16;
inline constexpr int kWarpKeyRun = 256;
inline constexpr int kBlockKeyRun = 4096;

/// What index i does after the sort by key (keys[0..m) sorted): head of a run of equal key of
/// `length` points (1: a key of its own; 0: not a run's head), or of a run longer than kThreadKeyRun
/// (is_long, length 0: a warp finds its end). Keys are sorted, so a run is longer exactly where the
/// key kThreadKeyRun places on is its own.
struct KeyRunAt {
  int length = 0;
  bool is_long = false;
};

template <class Keys>  // keys[i] is the i-th key: a pointer to them, or a view (cuda::KeyedPlaces)
WAGENER_HD inline KeyRunAt key_run_at(const Keys& keys, index_t i, index_t m) {
  const std::uint32_t key = keys[i];
  if (i > 0 && keys[i - 1] == key) return {};
  if (i + 1 == m || keys[i + 1] != key) return {1, false};
  if (i + kThreadKeyRun < m && keys[i + kThreadKeyRun] == key) return {0, true};
  int length = 2;
  while (i + length < m && keys[i + length] == key) ++length;
  return {length, false};
}

/// Sorts p[0..len) lexicographically (descending: in reverse) by insertion: a short run of equal
/// keys, by one thread.
template <class T>
WAGENER_HD inline void insertion_sort_lex(Point2<T>* p, int len, bool descending = false) {
  for (int i = 1; i < len; ++i) {
    const Point2<T> v = p[i];
    int j = i;
    for (; j > 0 && (descending ? lex_less(p[j - 1], v) : lex_less(v, p[j - 1])); --j) p[j] = p[j - 1];
    p[j] = v;
  }
}

}  // namespace wagener::core
