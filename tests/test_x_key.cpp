// The 32-bit x key (core/x_key.hpp): monotone in x for every range, and a sort by the key that also
// splits by the baseline, with its runs of equal key sorted on their own (as the GPU's full hull does
// for 8-byte coordinates), gives the partition's layout of the sorted points, or reports a run too
// long for a block.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/x_key.hpp"
#include "generators.hpp"
#include "integer_reference.hpp"
#include "wagener/predicates.hpp"

namespace wagener {
namespace {

using testing::Points;

template <class T>
void expect_monotone(std::vector<T> xs, const std::string& what) {
  std::sort(xs.begin(), xs.end());
  const double lo = static_cast<double>(xs.front()), hi = static_cast<double>(xs.back());
  // The range of the points, and ranges that leave points outside on either side (clamped).
  const core::XKeyScale scales[] = {core::x_key_scale(lo, hi), core::x_key_scale(lo / 2, hi / 2),
                                    core::x_key_scale(lo, lo), core::x_key_scale(0, 1)};
  for (const auto& s : scales) {
    for (std::size_t i = 1; i < xs.size(); ++i) {
      ASSERT_LE(core::x_key(xs[i - 1], s), core::x_key(xs[i], s))
          << what << ": x " << xs[i - 1] << " <= " << xs[i] << " (lo " << s.lo << ", scale " << s.scale
          << ")";
    }
  }
}

TEST(XKey, MonotoneInXOverEveryRange) {
  std::mt19937_64 rng(testing::fresh_seed());
  constexpr double kMax = std::numeric_limits<double>::max();
  std::vector<double> wide = {-kMax, -1e300, -1, -0.0, 0.0, 1e-300, 1, 1e300, kMax};
  std::uniform_real_distribution<double> u(-1, 1);
  for (int i = 0; i < 2000; ++i) wide.push_back(u(rng));
  for (int i = 0; i < 200; ++i) wide.push_back(std::nextafter(1.0, 2.0 + i));
  expect_monotone(wide, "doubles up to the largest");
  std::vector<double> narrow;
  for (int i = 0; i < 2000; ++i) narrow.push_back(1 + i * 0x1p-52);
  expect_monotone(narrow, "doubles a unit in the last place apart");
  std::vector<std::int64_t> ints = {std::numeric_limits<std::int64_t>::min(), -1, 0, 1,
                                    std::numeric_limits<std::int64_t>::max()};
  std::uniform_int_distribution<std::int64_t> any;
  for (int i = 0; i < 2000; ++i) ints.push_back(any(rng));
  for (std::int64_t i = 0; i < 200; ++i) ints.push_back((std::int64_t{1} << 62) + i);
  expect_monotone(ints, "int64");
}

/// The survivors as the partition by the baseline leaves them (finish()): those on or above the line
/// from the smallest point to the largest ascending, then those below it descending.
template <class T>
Points<T> split_layout(const Points<T>& pts) {
  const Points<T> sorted = testing::sorted_copy(pts);
  Points<T> upper, lower;
  for (const auto& p : sorted) (orient2d(sorted.front(), sorted.back(), p) >= 0 ? upper : lower).push_back(p);
  upper.insert(upper.end(), lower.rbegin(), lower.rend());
  return upper;
}

/// The GPU's order on the host: the smallest and largest points (the baseline, and x's range), each
/// point's core::split_x_key; the points' places stably sorted by key after a shuffle (a radix sort
/// leaves equal keys in no order the caller may rely on), then each point gathered to its place as
/// the device's threads take them (core::key_run_at: a point of a key of its own, a short run by the
/// thread at its head, a long one by a warp or a block, which first finds its end), each run sorted
/// on its own, descending below the baseline. Every place must be written exactly once. Returns
/// false where a run is longer than a block sorts.
template <class T>
bool split_by_key_then_runs(Points<T>& pts, std::mt19937_64& rng) {
  if (pts.empty()) return true;
  const Point2<T> lo = *std::min_element(pts.begin(), pts.end(), lex_less<T>);
  const Point2<T> hi = *std::max_element(pts.begin(), pts.end(), lex_less<T>);
  const core::XKeyScale s = core::x_key_scale(static_cast<double>(lo.x), static_cast<double>(hi.x));
  const auto key = [&](const Point2<T>& p) { return core::split_x_key(p.x, orient2d(lo, hi, p) < 0, s); };
  std::shuffle(pts.begin(), pts.end(), rng);
  std::vector<std::uint32_t> order(pts.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return key(pts[a]) < key(pts[b]); });
  std::vector<std::uint32_t> keys(pts.size());
  for (std::size_t i = 0; i < pts.size(); ++i) keys[i] = key(pts[order[i]]);
  const auto m = static_cast<index_t>(pts.size());
  Points<T> to(pts.size());
  std::vector<int> writes(pts.size(), 0);
  const auto gather = [&](index_t head, index_t len) {
    for (index_t k = head; k < head + len; ++k) {
      to[static_cast<std::size_t>(k)] = pts[order[static_cast<std::size_t>(k)]];
      ++writes[static_cast<std::size_t>(k)];
    }
  };
  for (index_t i = 0; i < m; ++i) {
    const core::KeyRunAt run = core::key_run_at(keys.data(), i, m);
    const bool descending = core::split_key_descends(keys[static_cast<std::size_t>(i)]);
    if (run.is_long) {
      const auto end = std::upper_bound(keys.begin() + i, keys.end(), keys[static_cast<std::size_t>(i)]);
      const index_t len = end - (keys.begin() + i);
      EXPECT_GT(len, core::kThreadKeyRun) << "a long run at " << i;
      if (len > core::kBlockKeyRun) return false;
      gather(i, len);
      std::sort(to.begin() + i, to.begin() + i + len,
                [&](const auto& a, const auto& b) { return descending ? lex_less(b, a) : lex_less(a, b); });
    } else if (run.length > 0) {
      gather(i, run.length);
      core::insertion_sort_lex(&to[static_cast<std::size_t>(i)], run.length, descending);
    }
  }
  for (std::size_t i = 0; i < writes.size(); ++i)
    if (writes[i] != 1) ADD_FAILURE() << "place " << i << " written " << writes[i] << " times";
  pts = std::move(to);
  return true;
}

template <class T>
void every_family(std::mt19937_64& rng) {
  for (const auto& family : testing::families_of<T>()) {
    for (const std::size_t n : {1u, 2u, 3u, 100u, 10000u, 200000u}) {
      Points<T> pts = family.make(n, rng);
      const Points<T> expected = split_layout(pts);
      if (split_by_key_then_runs(pts, rng)) {
        ASSERT_EQ(pts, expected) << family.name << " n=" << n;
      } else {
        // A run of one key past a block's size sends the GPU back to the sort on all of x: fine for
        // the families built on a few values or on the type's extremes, never for spread ones.
        const bool spread = family.name == "uniform_square" || family.name == "uniform_disk" ||
                            family.name == "gaussian" || family.name == "circle" ||
                            family.name == "disk_2^20";
        EXPECT_FALSE(spread) << family.name << " n=" << n << " has a run of one key too long for a block";
      }
    }
  }
}

TEST(XKey, SplitByKeyThenRunsIsThePartitionsLayoutOnEveryFamily) {
  std::mt19937_64 rng(testing::fresh_seed());
  every_family<double>(rng);
  every_family<std::int64_t>(rng);
}

TEST(XKey, DenseCircleRunsFitABlock) {
  // The bench's double circle at the density of 2^28 points, where x = +-1 gathers the longest runs.
  std::mt19937_64 rng(testing::fresh_seed());
  for (const double from : {-0.002, 0.5, 3.1394}) {
    Points<double> pts = testing::dense_arc<double>(200000, from, rng);
    pts.push_back({-1, 0});  // the whole circle's range, so that the key's scale is the bench's
    pts.push_back({1, 0});
    const Points<double> expected = split_layout(pts);
    ASSERT_TRUE(split_by_key_then_runs(pts, rng)) << "arc from " << from;
    ASSERT_EQ(pts, expected) << "arc from " << from;
  }
}

TEST(XKey, AFarPointMakesOneLongRun) {
  std::mt19937_64 rng(testing::fresh_seed());
  // The disk's points share one key on each side of the baseline, some 10,000 a side.
  Points<double> pts = testing::uniform_disk<double>(20000, rng);
  pts.push_back({1e300, 0});
  EXPECT_FALSE(split_by_key_then_runs(pts, rng)) << "20000 points in one key a side";
}

}  // namespace
}  // namespace wagener
