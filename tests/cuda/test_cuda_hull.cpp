// The CUDA backend against the serial reference. Skipped (and reported as skipped) without a device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/nested_bridge.hpp"
#include "core/strided_sample.hpp"
#include "core/x_key.hpp"
#include "cpu/monotone_chain.hpp"
#include "cuda/convex_hull.cuh"
#include "cuda/policy.cuh"
#include "cuda/upper_hull.cuh"
#include "cuda_fixture.hpp"
#include "generators.hpp"
#include "integer_reference.hpp"
#include "wagener/cuda.hpp"
#include "wagener/error.hpp"
#include "wagener/hull.hpp"

namespace wagener {
namespace {

class CudaTest : public testing::CudaFixture {};

/// `hull()`, a call on points with a non-finite one, throws input_error naming point `first` (the
/// first non-finite one); `what` says which call.
template <class Hull>
void expect_names_non_finite(Hull&& hull, std::size_t first, const std::string& what) {
  try {
    hull();
    ADD_FAILURE() << "no error for point " << first << " (" << what << ")";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("point " + std::to_string(first) + " "), std::string::npos)
        << e.what() << " (" << what << ")";
  }
}

template <class T>
void expect_upper_equal(const testing::Points<T>& sorted, const std::string& what) {
  const auto got = upper_hull<T>(sorted, {Backend::cuda, nullptr});
  ASSERT_EQ(got, cpu::upper_chain<T>(sorted)) << what;
}

TEST_F(CudaTest, UpperHullEveryNFrom1To4096) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (std::size_t n = 1; n <= 4096; ++n) {
    expect_upper_equal(testing::sorted_copy(testing::uniform_disk<double>(n, rng_)),
                       "disk double n=" + std::to_string(n));
    expect_upper_equal(testing::sorted_copy(testing::parabola<float>(n, rng_)),
                       "parabola float n=" + std::to_string(n));
    if (HasFatalFailure()) return;
  }
}

template <class T>
void every_family(std::mt19937_64& rng, std::initializer_list<std::size_t> sizes) {
  for (const auto& family : testing::all_families<T>()) {
    for (std::size_t n : sizes) {
      expect_upper_equal(testing::sorted_copy(family.make(n, rng)), family.name + " n=" + std::to_string(n));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST_F(CudaTest, UpperHullEveryFamilyDouble) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  every_family<double>(rng_, {1, 2, 3, 1000, 1024, 1025, 4096, 65535, 65536, 100003, 1 << 20, (1 << 20) + 7});
}

TEST_F(CudaTest, UpperHullEveryFamilyFloat) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  every_family<float>(rng_, {1, 2, 3, 1000, 1024, 1025, 4096, 65535, 65536, 100003, 1 << 20, (1 << 20) + 7});
}

/// The upper hull of sorted points from device memory, through a workspace that `configure` sets
/// (one workspace for each call site, kept between its calls as a caller's would be).
template <class T, class Configure>
void expect_upper_equal_through(const testing::Points<T>& sorted, Configure configure,
                                const std::string& what) {
  static cuda::UpperHullWorkspace<T> ws;
  configure(ws);
  const auto n = static_cast<index_t>(sorted.size());
  Point2<T>* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, sorted.size() * sizeof(Point2<T>)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d, sorted.data(), sorted.size() * sizeof(Point2<T>), cudaMemcpyHostToDevice),
            cudaSuccess);
  const auto got = cuda::copy_to_host(cuda::upper_hull_on_device<T>(d, n, ws, nullptr, true), nullptr);
  cudaFree(d);
  ASSERT_EQ(got, cpu::upper_chain<T>(sorted)) << what;
}

// The first level's peel (core/peel.hpp; UpperHullPolicy, so every level on that policy here, and
// on the small levels' policy, which does not peel, beside it): tiles that end as their own hoods
// after a few rounds (dense rounded arcs), and dents that take one round fewer, as many and more
// than the peel's rounds before the strips' chains and the merges take over, in whole tiles and
// across their ends.
template <class T>
void peel_or_merges(std::mt19937_64& rng) {
  constexpr int kRounds = cuda::UpperHullPolicy<T>::kPeelRounds;
  constexpr std::size_t kTile = cuda::UpperHullPolicy<T>::kTile;
  const auto both_policies = [](const testing::Points<T>& sorted, const std::string& what) {
    for (const int tiles_per_sm : {0, 1000}) {
      expect_upper_equal_through<T>(
          sorted, [&](cuda::UpperHullWorkspace<T>& ws) { ws.small_level_tiles_per_sm = tiles_per_sm; },
          what + (tiles_per_sm == 0 ? " (peeled)" : " (small levels)"));
    }
  };
  if constexpr (std::is_floating_point_v<T>) {
    for (const double from : {0.05, 1.5, 1.5707963, 3.1}) {
      both_policies(testing::dense_arc<T>(3 * kTile + 5, from, rng),
                    "dense arc from " + std::to_string(from));
    }
  }
  for (const int depth : {1, 2, kRounds - 2, kRounds - 1, kRounds, kRounds + 1, 3 * kRounds, 1000}) {
    for (const std::size_t n : {kTile, 2 * kTile + 77}) {
      both_policies(testing::v_dents<T>(n, depth),
                    "dents of depth " + std::to_string(depth) + " n=" + std::to_string(n));
    }
  }
}

TEST_F(CudaTest, UpperHullTilesPeeledOrMerged) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  peel_or_merges<double>(rng_);
  peel_or_merges<float>(rng_);
  peel_or_merges<std::int32_t>(rng_);
  peel_or_merges<std::int64_t>(rng_);
}

TEST_F(CudaTest, UpperHullLargePowersAndNonPowersOfTwo) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (std::size_t n : {std::size_t{1} << 24, (std::size_t{1} << 24) + 12345, std::size_t{1} << 26}) {
    expect_upper_equal(testing::sorted_copy(testing::uniform_disk<float>(n, rng_)),
                       "disk float n=" + std::to_string(n));
    expect_upper_equal(testing::sorted_copy(testing::parabola<double>(n, rng_)),
                       "parabola double n=" + std::to_string(n));
    if (HasFatalFailure()) return;
  }
}

// ---- full hoods: the device-wide rounds with hoods kept in place ------------------------------------

/// Points in convex position along a concave chain of straight runs of `run` points: only the runs'
/// ends are strict vertices, every other point lies exactly on a hood edge (integer slopes, exact).
template <class T>
testing::Points<T> convex_runs(std::size_t n, std::size_t run) {
  testing::Points<T> pts(n);
  double y = 0;
  for (std::size_t i = 0; i < n; ++i) {
    pts[i] = {static_cast<T>(i), static_cast<T>(y)};
    y -= static_cast<double>(i / run);
  }
  return pts;
}

/// Points in convex position where most points are strict vertices (so that the tile hoods keep more
/// than half the points and go through the device-wide rounds) but points 1..run of every `period`
/// continue the edge before them: collinear runs at every tile and merge seam.
template <class T>
testing::Points<T> mostly_strict_with_collinear_runs(std::size_t n, std::size_t period, std::size_t run) {
  testing::Points<T> pts(n);
  double y = 0, slope = 0;
  for (std::size_t i = 0; i < n; ++i) {
    pts[i] = {static_cast<T>(i), static_cast<T>(y)};
    const std::size_t phase = i % period;
    if (phase == 0 || phase > run) slope -= 1;  // a corner at the next point
    y += slope;
  }
  return pts;
}

/// A parabola whose first points of each tile dip below the chain, 1 to `deepest` of them (the count
/// cycles from tile to tile): every tile seam fails, and the bridge lies that many vertices past it,
/// so the in-place merges walk to it (core::walk_bridge) or, past core::kWalkSteps, search for it.
template <class T>
testing::Points<T> dented_at_tile_seams(std::size_t n, std::size_t deepest) {
  constexpr auto kTile = static_cast<std::size_t>(cuda::UpperHullPolicy<T>::kTile);
  testing::Points<T> pts(n);
  const auto half = static_cast<double>(n / 2);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(i) - half;
    const std::size_t tile = i / kTile, dents = 1 + tile % deepest;
    const bool dented = tile > 0 && i % kTile < dents;
    // Each dent's points lie on the parabola less a line falling to 0 at its end: they are vertices of
    // their tile's hood, all below the chord over the dent (which the parabola clears by (k + 1)^2 / 4
    // at most), so a merge's bridge passes every one.
    const double k = static_cast<double>(dents), j = static_cast<double>(i % kTile);
    const double dip = dented ? 2 * k * (k - j) : 0.0;
    pts[i] = {static_cast<T>(x), static_cast<T>(-x * x - dip)};
  }
  return pts;
}

/// A parabola whose points repeat: each point `copies` times, and one point `long_run` times, so that
/// whole tiles hold a single repeated point (dead tiles from the start).
template <class T>
testing::Points<T> repeated_parabola(std::size_t n, std::size_t copies, std::size_t long_run) {
  testing::Points<T> pts;
  for (std::size_t i = 0; pts.size() < n; ++i) {
    const auto x = static_cast<double>(i) - static_cast<double>(n / (2 * copies));
    const Point2<T> p{static_cast<T>(x), static_cast<T>(-x * x)};
    const std::size_t times = i == n / (4 * copies) ? long_run : copies;
    for (std::size_t k = 0; k < times && pts.size() < n; ++k) pts.push_back(p);
  }
  return pts;
}

/// Arcs of `width` points, each a strictly convex parabola arc (integer coordinates, exact), meeting
/// in reflex seams: with width a multiple of the tile, every tile turns strictly right and is copied
/// whole, but the merges find bridges far from the seams and kill tiles.
template <class T>
testing::Points<T> scallops(std::size_t n, std::size_t width) {
  testing::Points<T> pts(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(i % width) - static_cast<double>(width / 2);
    pts[i] = {static_cast<T>(i), static_cast<T>(-u * u)};
  }
  return pts;
}

/// A parabola (integer coordinates) with the last point of every tile repeated as the next tile's
/// first: each tile turns strictly right, and a tile's first vertex is the tile before's last.
template <class T>
testing::Points<T> parabola_repeated_across_tiles(std::size_t n) {
  constexpr auto kTile = static_cast<std::size_t>(cuda::UpperHullPolicy<T>::kTile);
  testing::Points<T> pts;
  pts.reserve(n);
  const auto half = static_cast<double>(n / 2);
  for (std::size_t i = 0; pts.size() < n; ++i) {
    const double x = static_cast<double>(i) - half;
    pts.push_back({static_cast<T>(x), static_cast<T>(-x * x)});
    if (pts.size() % kTile == kTile - 1 && pts.size() < n) pts.push_back(pts.back());
  }
  return pts;
}

/// How the device-wide rounds run: copying the hoods, or with the hoods kept in place, a warp a merge
/// or a block a merge (UpperHullWorkspace::in_place_from, block_merges_below).
enum class Rounds { copying, in_place_warps, in_place_blocks };
constexpr Rounds kEveryRounds[] = {Rounds::copying, Rounds::in_place_warps, Rounds::in_place_blocks};

const char* rounds_name(Rounds rounds) {
  switch (rounds) {
    case Rounds::copying: return "copying rounds";
    case Rounds::in_place_warps: return "hoods kept in place, a warp a merge";
    case Rounds::in_place_blocks: return "hoods kept in place, a block a merge";
  }
  return "?";
}

/// The upper hull of sorted points through a workspace that takes the given device-wide rounds at
/// every size.
template <class T>
void expect_upper_equal_with_rounds(const testing::Points<T>& sorted, Rounds rounds,
                                    const std::string& what) {
  expect_upper_equal_through<T>(
      sorted,
      [&](cuda::UpperHullWorkspace<T>& ws) {
        constexpr index_t kNever = std::numeric_limits<index_t>::max();
        ws.in_place_from = rounds == Rounds::copying ? kNever : 0;
        ws.block_merges_below = rounds == Rounds::in_place_blocks ? kNever : 0;
        ws.join_convex_seams = false;  // the rounds, even where the tile hoods meet convexly
      },
      what);
}

// Sizes around one tile (2048 points), a few tiles, a power of two of tiles and one more, and enough
// tiles for many in-place rounds; every input keeps most points in its tile hoods (the scallops
// only there: their merges kill most tiles).
TEST_F(CudaTest, FullHoodsAcrossTileAndRoundBoundaries) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  // Every kind of device-wide rounds at every size (by default the size chooses).
  for (const Rounds rounds : kEveryRounds) {
    SCOPED_TRACE(rounds_name(rounds));
    for (std::size_t n : {2047u, 2048u, 2049u, 4097u, 6000u, 65536u, 65537u, 300001u, (1u << 20) + 3}) {
      const std::string at = " n=" + std::to_string(n);
      expect_upper_equal_with_rounds(testing::sorted_copy(testing::parabola<double>(n, rng_)), rounds,
                                     "parabola double" + at);
      expect_upper_equal_with_rounds(testing::sorted_copy(testing::parabola<float>(n, rng_)), rounds,
                                     "parabola float" + at);
      expect_upper_equal_with_rounds(testing::sorted_copy(testing::circle<double>(n, rng_)), rounds,
                                     "circle double" + at);
      expect_upper_equal_with_rounds(testing::sorted_copy(testing::circle<float>(n, rng_)), rounds,
                                     "circle float" + at);
      for (std::size_t run : {2u, 3u, 17u, 2048u}) {
        expect_upper_equal_with_rounds(convex_runs<double>(n, run), rounds,
                                       "convex runs double run=" + std::to_string(run) + at);
      }
      expect_upper_equal_with_rounds(mostly_strict_with_collinear_runs<double>(n, 8, 2), rounds,
                                     "collinear runs of 3 double" + at);
      expect_upper_equal_with_rounds(mostly_strict_with_collinear_runs<double>(n, 5, 1), rounds,
                                     "collinear pairs double" + at);
      expect_upper_equal_with_rounds(repeated_parabola<double>(n, 2, 5000), rounds,
                                     "repeated parabola double" + at);
      expect_upper_equal_with_rounds(repeated_parabola<float>(n, 3, 9000), rounds,
                                     "repeated parabola float" + at);
      for (std::size_t width : {2048u, 4096u, 3000u}) {
        expect_upper_equal_with_rounds(scallops<double>(n, width), rounds,
                                       "scallops double width=" + std::to_string(width) + at);
        expect_upper_equal_with_rounds(scallops<float>(n, width), rounds,
                                       "scallops float width=" + std::to_string(width) + at);
      }
      expect_upper_equal_with_rounds(parabola_repeated_across_tiles<double>(n), rounds,
                                     "parabola repeated across tiles double" + at);
      expect_upper_equal_with_rounds(dented_at_tile_seams<double>(n, 2 * core::kWalkSteps), rounds,
                                     "dented at tile seams double" + at);
      expect_upper_equal_with_rounds(dented_at_tile_seams<float>(n, 2 * core::kWalkSteps), rounds,
                                     "dented at tile seams float" + at);
      expect_upper_equal_with_rounds(parabola_repeated_across_tiles<float>(n), rounds,
                                     "parabola repeated across tiles float" + at);
      if (HasFatalFailure()) return;
    }
  }
}

/// What hull_levels decides, level by level, on the host: a level's tile hoods (cpu::upper_chain of
/// each run of kTile points) end the levels where they are the hood side by side (the join), or take
/// the rounds where they keep more than half the points, or are the next level's points.
struct LevelsModel {
  int levels = 0;
  bool joined = false;
};

template <class T>
LevelsModel model_levels(testing::Points<T> pts) {
  using Policy = cuda::UpperHullPolicy<T>;
  constexpr auto kTile = static_cast<std::size_t>(Policy::kTile);
  for (LevelsModel model;;) {
    ++model.levels;
    if (pts.size() <= kTile) return model;
    testing::Points<T> hoods;
    for (std::size_t i = 0; i < pts.size(); i += kTile) {
      const auto hood = cpu::upper_chain<T>(std::span(pts).subspan(i, std::min(kTile, pts.size() - i)));
      hoods.insert(hoods.end(), hood.begin(), hood.end());
    }
    model.joined = hoods == cpu::upper_chain<T>(pts);
    if (model.joined ||
        static_cast<double>(hoods.size()) > Policy::kCompactionGain * static_cast<double>(pts.size())) {
      return model;
    }
    pts = std::move(hoods);
  }
}

// A level whose tile hoods turn strictly right at every seam ends there (UpperHullWorkspace::
// join_convex_seams): the levels run and the join are as the host's model of them says, on every
// family and on the full hoods' inputs (joined at the first level, at a later one after the copies
// of a repeated parabola are compacted, or not at all where a point repeats across a seam or the
// tiles meet in reflex seams), at sizes either side of the tile and of the copying rounds.
template <class T>
void join_where_the_model_joins(std::mt19937_64& rng, int* joined_first, int* joined_later) {
  cuda::UpperHullWorkspace<T> ws;
  const auto check = [&](const testing::Points<T>& sorted, const std::string& what) {
    const auto n = static_cast<index_t>(sorted.size());
    Point2<T>* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, sorted.size() * sizeof(Point2<T>)), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d, sorted.data(), sorted.size() * sizeof(Point2<T>), cudaMemcpyHostToDevice),
              cudaSuccess);
    cuda::UpperHullProfile profile;
    const auto hull = cuda::copy_to_host(
        cuda::upper_hull_on_device<T>(d, n, ws, nullptr, true, &profile, /*guide=*/false), nullptr);
    cudaFree(d);
    ASSERT_EQ(hull, cpu::upper_chain<T>(sorted)) << what;
    const LevelsModel model = model_levels<T>(sorted);
    EXPECT_EQ(profile.joined, model.joined) << what;
    EXPECT_EQ(profile.levels, model.levels) << what;
    if (model.joined) ++(model.levels == 1 ? *joined_first : *joined_later);
  };
  for (std::size_t n : {2049u, 20000u, 100003u, (1u << 20) + 3}) {
    const std::string at = " n=" + std::to_string(n);
    for (const auto& family : testing::families_of<T>())
      check(testing::sorted_copy(family.make(n, rng)), family.name + at);
    check(repeated_parabola<T>(n, 2, 5000), "repeated parabola, 2 copies" + at);
    check(repeated_parabola<T>(n, 3, 9000), "repeated parabola, 3 copies" + at);
    check(parabola_repeated_across_tiles<T>(n), "parabola repeated across tiles" + at);
    check(scallops<T>(n, 3000), "scallops" + at);
    check(convex_runs<T>(n, 17), "convex runs" + at);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST_F(CudaTest, LevelsWhoseTileHoodsMeetConvexlyEndThere) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  int joined_first = 0, joined_later = 0;
  join_where_the_model_joins<double>(rng_, &joined_first, &joined_later);
  join_where_the_model_joins<float>(rng_, &joined_first, &joined_later);
  join_where_the_model_joins<std::int64_t>(rng_, &joined_first, &joined_later);
  EXPECT_GT(joined_first, 0);  // both joins are exercised
  EXPECT_GT(joined_later, 0);
}

TEST_F(CudaTest, FullConvexHullsOfCircles) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (std::size_t n : {5000u, 70001u, (1u << 20) + 5}) {
    const auto d = testing::circle<double>(n, rng_);
    EXPECT_EQ(convex_hull<double>(d, {Backend::cuda}), cpu::convex_hull_serial<double>(d)) << n;
    const auto f = testing::circle<float>(n, rng_);
    EXPECT_EQ(convex_hull<float>(f, {Backend::cuda}), cpu::convex_hull_serial<float>(f)) << n;
  }
}

/// Every family through upper_hull_on_device with a workspace set up by `configure(ws, variant)`
/// for each variant; `check(family, n, ws, hull size)` adds expectations after each run.
template <class T, class Configure, class Check>
void every_family_on_device(std::mt19937_64& rng, std::initializer_list<std::size_t> sizes,
                            std::initializer_list<int> variants, Configure&& configure, Check&& check) {
  cuda::UpperHullWorkspace<T> ws;
  cudaStream_t stream = nullptr;
  for (const auto& family : testing::all_families<T>()) {
    for (std::size_t n : sizes) {
      const auto pts = testing::sorted_copy(family.make(n, rng));
      const auto expected = cpu::upper_chain<T>(pts);
      Point2<T>* d = nullptr;
      ASSERT_EQ(cudaMalloc(&d, n * sizeof(Point2<T>)), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(d, pts.data(), n * sizeof(Point2<T>), cudaMemcpyHostToDevice), cudaSuccess);
      for (int variant : variants) {
        configure(ws, variant);
        const auto hull = cuda::upper_hull_on_device<T>(d, static_cast<index_t>(n), ws, stream, true);
        EXPECT_EQ(cuda::copy_to_host(hull, stream), expected)
            << family.name << " n=" << n << " variant " << variant << " survivors=" << ws.survivors;
        check(family.name, n, ws, expected.size(), variant);
      }
      cudaFree(d);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// The guide filter (a sample's hull drops the points strictly below it) normally runs from 2^20
// points; forced on small inputs here, with dense and sparse samples (n/2, n/16, n/256), for every
// family. Variant shift + 100: the dense guide decided only from the small sample's whole hull, never
// from its first level (dense_first_level 1). The small sample's hoods are joined in one step
// (UpperHullWorkspace::join_hoods) but in variant shift + 200, which runs the levels instead. The
// direction guide is tried first but in variant shift + 300, which builds the sample's hull at once.
template <class T>
void guide_filter_every_family(std::mt19937_64& rng, std::initializer_list<std::size_t> sizes) {
  every_family_on_device<T>(
      rng, sizes, {1, 4, 8, 104, 204, 301, 304},
      [](cuda::UpperHullWorkspace<T>& ws, int variant) {
        ws.direction_guide = variant / 100 == 3 ? 0 : 1;
        ws.filter_from = 0;
        ws.min_sample = 2;
        ws.sample_shift = variant % 100;
        ws.dense_sample_shift = 2;  // a dense guide (parabola, circle) is taken again from n/4 points
        ws.dense_first_level = variant / 100 == 1 ? 1.0 : cuda::UpperHullPolicy<T>::kDenseFirstLevel;
        ws.join_hoods = variant < 200;
      },
      [](const std::string& family, std::size_t n, const cuda::UpperHullWorkspace<T>& ws, std::size_t hull,
         int variant) {
        const int shift = variant % 100;
        // Random inputs leave most points under the hull of a sample of n/16 or more: the filter
        // must have run.
        if ((family == "uniform_disk" || family == "gaussian") && shift <= 4) {
          EXPECT_GE(ws.survivors, static_cast<index_t>(hull)) << family << " n=" << n;
          EXPECT_LT(ws.survivors, static_cast<index_t>(n)) << family << " n=" << n;
        }
      });
}

/// Both tile policies (SmallLevelPolicy for no level and for every level) on inputs small enough for
/// compute-sanitizer.
template <class T>
void both_tile_policies(std::mt19937_64& rng, std::initializer_list<std::size_t> sizes) {
  every_family_on_device<T>(
      rng, sizes, {0, 1000},
      [](cuda::UpperHullWorkspace<T>& ws, int tiles_per_sm) { ws.small_level_tiles_per_sm = tiles_per_sm; },
      [](const std::string&, std::size_t, const cuda::UpperHullWorkspace<T>&, std::size_t, int) {});
}

TEST_F(CudaTest, GuideFilterEveryFamilyFloat) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  guide_filter_every_family<float>(rng_, {4097, 20000, 100003});
}

TEST_F(CudaTest, GuideFilterEveryFamilyDouble) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  guide_filter_every_family<double>(rng_, {2049, 20000, 100003});
}

// The guide filter's thinning (FilterThinning: none, repeats, in line; float only) behind the bigger
// sample's guide, which a first level keeping anything of the small sample decides here
// (dense_first_level 0), on every family, with whole and partial last warps; the hull is the
// CPU's every time, validated or not.
TEST_F(CudaTest, GuideFilterThinsEveryFamily) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  every_family_on_device<float>(
      rng_, {4097, 8191, 20000, 100003}, {0, 1, 2},
      [](cuda::UpperHullWorkspace<float>& ws, int thinning) {
        ws.direction_guide = 0;
        ws.filter_from = 0;
        ws.min_sample = 2;
        ws.sample_shift = 4;
        ws.dense_sample_shift = 2;
        ws.dense_first_level = 0;
        ws.filter_thinning = thinning;
      },
      [](const std::string&, std::size_t, const cuda::UpperHullWorkspace<float>&, std::size_t, int) {});
}

// The thinning at work, at the filter's default threshold: every point of repeated straight runs
// lies on or above the sample's hull, so the filter alone keeps them all; repeats leave a point in
// `copies` (and a warp's first point, whose predecessor is not read), in line leaves the runs' ends
// and a few points a warp (its first, and its last distinct one). The hull is the CPU's each way.
TEST_F(CudaTest, GuideFilterThinsWhatItKeeps) {
  const std::size_t n = (std::size_t{1} << 20) + 7, copies = 4,
                    warp_points = 32 * cuda::UpperHullPolicy<float>::kFilterItems;
  const auto pts = testing::repeated_straight_runs<float>(n, 4096, [&](std::size_t) { return copies; });
  const auto expected = cpu::upper_chain<float>(pts);
  cuda::DeviceBuffer<Point2<float>> d(n);
  ASSERT_EQ(cudaMemcpy(d.data(), pts.data(), n * sizeof(Point2<float>), cudaMemcpyHostToDevice), cudaSuccess);
  for (const bool validate : {false, true}) {
    index_t survivors[3] = {};
    for (int thinning = 0; thinning < 3; ++thinning) {
      cuda::UpperHullWorkspace<float> ws;
      ws.direction_guide = 0;
      ws.dense_first_level = 0;  // the bigger sample's guide, behind which the thinning runs
      ws.filter_thinning = thinning;
      const auto hull =
          cuda::upper_hull_on_device<float>(d.data(), static_cast<index_t>(n), ws, nullptr, validate);
      EXPECT_EQ(cuda::copy_to_host(hull, nullptr), expected)
          << "thinning " << thinning << " validate " << validate;
      survivors[thinning] = ws.survivors;
    }
    const auto points = static_cast<index_t>(n), warps = static_cast<index_t>(n / warp_points + 1);
    EXPECT_EQ(survivors[0], points) << "the guide certifies no point of the chain below it";
    EXPECT_LE(survivors[1], survivors[0] / static_cast<index_t>(copies) + warps) << "validate " << validate;
    EXPECT_LE(survivors[2], 3 * warps) << "validate " << validate;
    EXPECT_GE(survivors[2], static_cast<index_t>(expected.size())) << "validate " << validate;
  }
}

// The direction guide (direction_guide.cuh) at the filter's own threshold, 2^20 + 3 points and the
// default settings: taken on a disk, and on the same disk stretched to a box 2^30 times wider than
// high (the directions see the sample's box as a square; unscaled, nearly all of them would pick the
// input's ends, and the guide would be declined); declined on a parabola (every point a vertex) and
// on a dense arc whose normals span a tenth of a degree (its few directions' bests leave every sample
// above the guide). The hull is the CPU's every time, and where the guide is taken it leaves about as
// many points as the sample's hull does.
template <class T>
void direction_guide_taken_or_declined(std::mt19937_64& rng) {
  const std::size_t n = (std::size_t{1} << 20) + 3;
  const auto disk = testing::sorted_copy(testing::uniform_disk<T>(n, rng));
  testing::Points<T> stretched(disk.size());
  for (std::size_t i = 0; i < disk.size(); ++i)
    stretched[i] = {static_cast<T>(disk[i].x * 0x1p20), static_cast<T>(disk[i].y * 0x1p-10)};
  testing::Points<T> shallow_arc(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(i) / static_cast<double>(n);
    shallow_arc[i] = {static_cast<T>(x), static_cast<T>(x - 1e-3 * x * x)};
  }
  const auto parabola = testing::sorted_copy(testing::parabola<T>(n, rng));
  const struct {
    const char* name;
    const testing::Points<T>& points;
    bool taken;
  } cases[] = {{"disk", disk, true},
               {"stretched disk", stretched, true},
               {"parabola", parabola, false},
               {"shallow arc", shallow_arc, false}};
  for (const auto& c : cases) {
    cuda::DeviceBuffer<Point2<T>> d(n);
    ASSERT_EQ(cudaMemcpy(d.data(), c.points.data(), n * sizeof(Point2<T>), cudaMemcpyHostToDevice),
              cudaSuccess);
    const auto expected = cpu::upper_chain<T>(c.points);
    index_t survivors[2] = {0, 0};  // the sample's hull as the guide, then the direction guide tried
    for (const int tried : {0, 1}) {
      cuda::UpperHullWorkspace<T> ws;
      ws.direction_guide = tried;
      cuda::UpperHullProfile profile;
      const auto hull = cuda::copy_to_host(
          cuda::upper_hull_on_device<T>(d.data(), static_cast<index_t>(n), ws, nullptr, true, &profile),
          nullptr);
      EXPECT_EQ(hull, expected) << c.name << ", tried " << tried;
      EXPECT_EQ(profile.direction_guide, tried == 1 && c.taken) << c.name << ", survivors " << ws.survivors;
      survivors[tried] = ws.survivors;
    }
    // Taken, it leaves about what the sample's hull leaves (which varies by the seed: 1-2 % of a disk
    // at this size, in a host model of 1,024 samples): at most a quarter more.
    if (c.taken) {
      EXPECT_LE(survivors[1], survivors[0] + survivors[0] / 4 + 64) << c.name << " against the sample's hull";
    }
  }
}

TEST_F(CudaTest, DirectionGuideTakenWhereItLeavesFewAndDeclinedOnDenseArcs) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  direction_guide_taken_or_declined<float>(rng_);
  direction_guide_taken_or_declined<double>(rng_);
}

/// n sorted points on the line y = -2^depth_log2 but for `arc` (even) consecutive ones on a concave
/// parabola from y = 0 up, in integers (exact in float for the default depth and arcs up to 2^13): a
/// sparse sample's hull, so the small sample's guide, whose survivors are nearly the arc's points. The
/// line must lie deep enough that the hull's edges from its ends rise more steeply than the arc's feet
/// (2^depth_log2 over (n - arc) / 2, against arc; 2^30 over at most 2^17 for the default), so that every
/// point of the arc is a vertex.
template <class T>
testing::Points<T> line_under_arc(std::size_t n, std::size_t arc, int depth_log2 = 30) {
  testing::Points<T> pts(n);
  const std::size_t from = (n - arc) / 2;
  const auto half = static_cast<std::int64_t>(arc / 2);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t y = -(std::int64_t{1} << depth_log2);
    if (i >= from && i < from + arc) {
      const std::int64_t d = static_cast<std::int64_t>(i - from) - half;
      y = half * half - d * d;
    }
    pts[i] = {static_cast<T>(i), static_cast<T>(y)};
  }
  return pts;
}

/// upper_hull_on_device (validated) over a device copy of `sorted`, with the bound of the
/// survivors' enqueued levels set to `bound` and the steps' profile.
template <class T>
std::vector<Point2<T>> upper_hull_enqueued_up_to(const testing::Points<T>& sorted,
                                                 cuda::UpperHullWorkspace<T>& ws, index_t bound,
                                                 cuda::UpperHullProfile& profile) {
  ws.enqueued_levels_bound = bound;
  cuda::DeviceBuffer<Point2<T>> d(std::max<std::size_t>(sorted.size(), 1));
  EXPECT_EQ(cudaMemcpy(d.data(), sorted.data(), sorted.size() * sizeof(Point2<T>), cudaMemcpyHostToDevice),
            cudaSuccess);
  return cuda::copy_to_host(cuda::upper_hull_on_device<T>(d.data(), static_cast<index_t>(sorted.size()), ws,
                                                          nullptr, true, &profile),
                            nullptr);
}

// The guide filter's survivors through the enqueued levels (UpperHullWorkspace::enqueued_levels_bound),
// the filter forced on small inputs: every family with the bound at the survivors' count (enqueued)
// and one below it (the host's levels over the survivors instead).
template <class T>
void enqueued_levels_either_side_of_their_bound(std::mt19937_64& rng,
                                                std::initializer_list<std::size_t> sizes) {
  cuda::UpperHullWorkspace<T> ws;
  ws.filter_from = 0;
  ws.min_sample = 2;
  ws.sample_shift = 4;
  ws.dense_sample_shift = 2;
  int enqueued = 0;
  for (const auto& family : testing::all_families<T>()) {
    for (const std::size_t n : sizes) {
      const auto pts = testing::sorted_copy(family.make(n, rng));
      const auto expected = cpu::upper_chain<T>(pts);
      const std::string what = family.name + " n=" + std::to_string(n);
      cuda::UpperHullProfile profile;
      ASSERT_EQ(upper_hull_enqueued_up_to<T>(pts, ws, -1, profile), expected) << what;
      if (!profile.enqueued) continue;  // a dense guide, or too many survivors: the host's levels
      ++enqueued;
      const index_t survivors = ws.survivors;
      for (const index_t bound : {survivors - 1, survivors}) {
        ASSERT_EQ(upper_hull_enqueued_up_to<T>(pts, ws, bound, profile), expected)
            << what << " bound " << bound;
        EXPECT_EQ(profile.enqueued, bound >= survivors) << what << " bound " << bound;
        EXPECT_EQ(ws.survivors, survivors) << what << " bound " << bound;
      }
    }
  }
  EXPECT_GT(enqueued, 0) << "no family's survivors took the enqueued levels";
}

// A line with an arc above it, the arc a little longer than a tile and two tiles long (its heights
// at most 2^24, exact in float): the
// survivors are nearly all vertices, so the enqueued first level's hoods hold more than a tile and
// more than half the survivors (no second level), and the host's levels go on from those hoods.
template <class T>
void enqueued_levels_finished_on_the_host() {
  constexpr std::size_t kTile = cuda::UpperHullPolicy<T>::kTile;
  cuda::UpperHullWorkspace<T> ws;
  ws.filter_from = 0;
  for (const std::size_t arc : {kTile + 2, 2 * kTile}) {
    const auto pts = line_under_arc<T>(std::size_t{1} << 17, arc);
    const auto expected = cpu::upper_chain<T>(pts);
    const std::string what = "arc of " + std::to_string(arc);
    cuda::UpperHullProfile profile;
    ASSERT_EQ(upper_hull_enqueued_up_to<T>(pts, ws, -1, profile), expected) << what;
    EXPECT_TRUE(profile.enqueued) << what;
    EXPECT_GT(expected.size(), kTile) << what;
    EXPECT_LT(ws.survivors, static_cast<index_t>(2 * expected.size())) << what;
  }
}

TEST_F(CudaTest, GuideFilterSurvivorsEnqueuedEitherSideOfTheirBound) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  enqueued_levels_either_side_of_their_bound<float>(rng_, {4097, 20000, 100003});
  enqueued_levels_either_side_of_their_bound<double>(rng_, {2049, 20000, 100003});
}

// The survivors' gather (GatherPolicy) takes a grid of at most kBlocksPerSm blocks a multiprocessor,
// each block going on a grid further where more places remain: a line under an arc twice as long as
// one grid's places (2^50 deep: steeper than the arc's feet, 1.5 arc^2 < 2^50 up to arcs of 2^24), every
// arc point a vertex and a survivor (the guide's chords lie under the arc), so each block packs at
// least two turns; the hull against the serial chain's.
template <class T>
void survivors_gathered_over_grid_turns() {
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  const auto one_grid = static_cast<std::size_t>(sms) * cuda::GatherPolicy::kBlocksPerSm *
                        static_cast<std::size_t>(cuda::GatherPolicy::kPlaces);
  const std::size_t arc = 2 * one_grid, n = 4 * arc;
  const auto pts = line_under_arc<T>(n, arc, 50);
  cuda::UpperHullWorkspace<T> ws;
  cuda::UpperHullProfile profile;
  ASSERT_EQ(upper_hull_enqueued_up_to<T>(pts, ws, -1, profile), cpu::upper_chain<T>(pts)) << "n=" << n;
  EXPECT_GT(ws.survivors, static_cast<index_t>(one_grid)) << "n=" << n;
}

TEST_F(CudaTest, GuideFilterSurvivorsGatheredOverGridTurns) {
  survivors_gathered_over_grid_turns<double>();
  survivors_gathered_over_grid_turns<std::int64_t>();
}

TEST_F(CudaTest, GuideFilterSurvivorsEnqueuedThenFinishedOnTheHost) {
  enqueued_levels_finished_on_the_host<float>();
  enqueued_levels_finished_on_the_host<double>();
  enqueued_levels_finished_on_the_host<std::int32_t>();
  enqueued_levels_finished_on_the_host<std::int64_t>();
}

/// cuda::upper_hull_enqueued over a device copy of `sorted` (its count on the device), the grid
/// sized for n_bound >= its size, then finish_enqueued: the hull on the host, and the words.
template <class T>
std::vector<Point2<T>> enqueued_upper_hull(const testing::Points<T>& sorted, index_t n_bound,
                                           cuda::UpperHullWorkspace<T>& ws, cuda::EnqueuedHullWords& words) {
  const auto n = static_cast<index_t>(sorted.size());
  cuda::DeviceBuffer<Point2<T>> d(static_cast<std::size_t>(std::max<index_t>(n_bound, 1)));
  cuda::DeviceBuffer<index_t> d_n(1);
  cuda::DeviceBuffer<cuda::EnqueuedHullWords> d_words(1);
  EXPECT_EQ(cudaMemcpy(d.data(), sorted.data(), sorted.size() * sizeof(Point2<T>), cudaMemcpyHostToDevice),
            cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d_n.data(), &n, sizeof(index_t), cudaMemcpyHostToDevice), cudaSuccess);
  cuda::upper_hull_enqueued<T>(d.data(), d_n.data(), n_bound, ws, d_words.data(), nullptr);
  EXPECT_EQ(cudaMemcpy(&words, d_words.data(), sizeof(words), cudaMemcpyDeviceToHost), cudaSuccess);
  return cuda::copy_to_host(cuda::finish_enqueued<T>(d.data(), words, ws, nullptr), nullptr);
}

// The first level's tile hoods joined in one step (core/hood_join.hpp, UpperHullWorkspace::join_hoods)
// against the levels they replace, on every family, at sizes either side of a tile's, of two, and of
// UpperHullPolicy::kJoinMostHoods tiles (past which the levels run), with the count on the device at
// the bound and below it (tiles past the count are empty hoods). Where the join's hull fits a tile
// it finishes the hull (finished == 2); the others go on to the host's levels.
template <class T>
void joined_hoods_either_side_of_their_bounds(std::mt19937_64& rng) {
  constexpr auto kTile = static_cast<std::size_t>(cuda::UpperHullPolicy<T>::kTile);
  constexpr auto kMost = static_cast<std::size_t>(cuda::UpperHullPolicy<T>::kJoinMostHoods);
  cuda::UpperHullWorkspace<T> joined, levels;
  joined.join_hoods = true;
  levels.join_hoods = false;
  int finished_by_join = 0;
  for (const auto& family : testing::families_of<T>()) {
    for (const std::size_t n :
         {kTile + 1, 2 * kTile, 2 * kTile + 1, 37 * kTile + 5, kMost * kTile, kMost * kTile + 1}) {
      if (n > 8 * kTile && family.name != "uniform_disk" && family.name != "circle" &&
          family.name != "duplicates" && family.name != "disk_2^20")
        continue;  // the largest sizes: a few families, for the run's time
      const auto pts = testing::sorted_copy(family.make(n, rng));
      const auto expected = cpu::upper_chain<T>(pts);
      for (const index_t bound : {static_cast<index_t>(n), static_cast<index_t>(n + kTile / 2 + 3 * kTile)}) {
        const std::string what = family.name + " n=" + std::to_string(n) + " bound=" + std::to_string(bound);
        cuda::EnqueuedHullWords words;
        ASSERT_EQ(enqueued_upper_hull<T>(pts, bound, joined, words), expected) << what;
        const auto tiles = (static_cast<std::size_t>(bound) + kTile - 1) / kTile;
        if (tiles <= kMost && expected.size() <= kTile) {
          EXPECT_EQ(words.finished, 2) << what;
          ++finished_by_join;
        }
        ASSERT_EQ(enqueued_upper_hull<T>(pts, bound, levels, words), expected) << what << " (levels)";
      }
    }
  }
  EXPECT_GT(finished_by_join, 0);
}

TEST_F(CudaTest, TileHoodsJoinedEitherSideOfTheirBounds) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  joined_hoods_either_side_of_their_bounds<float>(rng_);
  joined_hoods_either_side_of_their_bounds<double>(rng_);
  joined_hoods_either_side_of_their_bounds<std::int32_t>(rng_);
  joined_hoods_either_side_of_their_bounds<std::int64_t>(rng_);
}

// Inputs large enough for the guide filter are validated by its pass: the message names the point.
TEST_F(CudaTest, FilteredUpperHullValidatesItsInput) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  const std::size_t n = (std::size_t{1} << 21) + 5;
  auto pts = testing::sorted_copy(testing::gaussian<double>(n, rng_));
  Point2<double>*d_in = nullptr, *d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_in, n * sizeof(pts[0])), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_out, n * sizeof(pts[0])), cudaSuccess);
  auto upload = [&](const std::vector<Point2<double>>& v) {
    ASSERT_EQ(cudaMemcpy(d_in, v.data(), n * sizeof(v[0]), cudaMemcpyHostToDevice), cudaSuccess);
  };
  upload(pts);
  const index_t h = cuda::upper_hull_device<double>(d_in, static_cast<index_t>(n), d_out);
  std::vector<Point2<double>> got(static_cast<std::size_t>(h));
  ASSERT_EQ(cudaMemcpy(got.data(), d_out, got.size() * sizeof(got[0]), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(got, cpu::upper_chain<double>(pts));
  for (std::size_t bad : {std::size_t{0}, std::size_t{777777}, n - 1}) {
    auto broken = pts;
    broken[bad].y = std::numeric_limits<double>::quiet_NaN();
    upload(broken);
    try {
      cuda::upper_hull_device<double>(d_in, static_cast<index_t>(n), d_out);
      ADD_FAILURE() << "no error for a NaN at " << bad;
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find("point " + std::to_string(bad) + " is not finite"),
                std::string::npos)
          << e.what();
    }
  }
  auto unsorted = pts;
  std::swap(unsorted[1000000], unsorted[1000001]);
  upload(unsorted);
  try {
    cuda::upper_hull_device<double>(d_in, static_cast<index_t>(n), d_out);
    ADD_FAILURE() << "no error for unsorted input";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("point 1000001 is smaller than point 1000000"), std::string::npos)
        << e.what();
  }
  cudaFree(d_in);
  cudaFree(d_out);
}

/// upper_hull_on_device over a device copy of `sorted`, validated or not.
template <class T>
std::vector<Point2<T>> upper_hull_from_device(const testing::Points<T>& sorted,
                                              cuda::UpperHullWorkspace<T>& ws, bool validate) {
  cuda::DeviceBuffer<Point2<T>> d(std::max<std::size_t>(sorted.size(), 1));
  EXPECT_EQ(cudaMemcpy(d.data(), sorted.data(), sorted.size() * sizeof(Point2<T>), cudaMemcpyHostToDevice),
            cudaSuccess);
  return cuda::copy_to_host(
      cuda::upper_hull_on_device<T>(d.data(), static_cast<index_t>(sorted.size()), ws, nullptr, validate),
      nullptr);
}

// Both places that check the promise of sorted input as they read it: the guide's filter (from 2^20
// points, or from any size where a test lowers the workspace's threshold) and the first tile level
// (below it). The first point out of order is named wherever it lies among a warp's items (lanes 1,
// 31, 32, 33; a tile's first points), far in, last, or at random, after any non-finite point.
enum class CheckedBy { guide_filter, tiles };

template <class T>
void names_the_first_point_out_of_order(std::mt19937_64& rng, CheckedBy by, std::size_t n) {
  cuda::UpperHullWorkspace<T> ws;
  if (by == CheckedBy::guide_filter) {
    ws.filter_from = 0;
  } else {
    ws.filter_from = std::numeric_limits<index_t>::max();
  }
  const auto pts = testing::sorted_copy(testing::gaussian<T>(n, rng));
  std::vector<std::size_t> places = {1, 31, 32, 33, 255, 256, 257, 4095, 4096, 8191, 8192, n / 2, n - 1};
  for (int r = 0; r < 3; ++r) places.push_back(1 + rng() % (n - 1));
  const std::string name =
      (by == CheckedBy::guide_filter ? "guide filter, n=" : "tiles, n=") + std::to_string(n);
  const auto expect_error = [&](const testing::Points<T>& input, const std::string& message,
                                const std::string& what) {
    try {
      upper_hull_from_device<T>(input, ws, true);
      ADD_FAILURE() << "no error: " << what << " (" << name << ")";
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos)
          << e.what() << " (" << what << ", " << name << ")";
    }
  };
  for (const std::size_t i : places) {
    if (i >= n || !lex_less(pts[i - 1], pts[i])) continue;  // a repeated point: no order to break
    auto broken = pts;
    std::swap(broken[i - 1], broken[i]);
    expect_error(broken, "point " + std::to_string(i) + " is smaller than point " + std::to_string(i - 1),
                 "swapped at " + std::to_string(i));
    // Unvalidated, the caller vouches for the order: no error.
    EXPECT_NO_THROW(upper_hull_from_device<T>(broken, ws, false)) << i << " (" << name << ")";
  }
  auto both = pts;
  std::swap(both[n / 4], both[n / 4 + 1]);
  both[n / 2].x = std::numeric_limits<T>::quiet_NaN();
  expect_error(both, "point " + std::to_string(n / 2) + " is not finite", "a NaN after a swap");
  EXPECT_EQ(upper_hull_from_device<T>(pts, ws, true), cpu::upper_chain<T>(pts)) << name;
  if (by == CheckedBy::guide_filter) {
    EXPECT_GE(ws.survivors, 0) << name << ": the guide filter did not run";
  }
}

// The same two checks for points that are not finite: the guide filter names them as it stores
// the points it keeps (it never certifies one below the guide), the tile level from shared memory.
// NaN and both infinities, in x or in y, at a warp's and a tile's edges, far in and last; alone,
// and with a second one after it.
template <class T>
void names_the_first_non_finite_point(std::mt19937_64& rng, CheckedBy by, std::size_t n) {
  cuda::UpperHullWorkspace<T> ws;
  ws.filter_from = by == CheckedBy::guide_filter ? 0 : std::numeric_limits<index_t>::max();
  const auto pts = testing::sorted_copy(testing::gaussian<T>(n, rng));
  std::vector<std::size_t> places = {0, 1, 31, 32, 4113, n / 2, n / 2 + 1, n - 1};
  for (int r = 0; r < 3; ++r) places.push_back(rng() % n);
  const T bad_values[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                          -std::numeric_limits<T>::infinity()};
  const std::string name =
      (by == CheckedBy::guide_filter ? "guide filter, n=" : "tiles, n=") + std::to_string(n);
  for (const std::size_t i : places) {
    if (i >= n) continue;
    const T value = bad_values[rng() % std::size(bad_values)];
    const bool in_x = rng() % 2 == 0;
    auto broken = pts;
    (in_x ? broken[i].x : broken[i].y) = value;
    for (const bool second : {false, true}) {
      if (second) {
        if (i + 1000 >= n) continue;
        broken[i + 1000].y = bad_values[rng() % std::size(bad_values)];
      }
      const std::string what = "value " + std::to_string(value) + (in_x ? " in x" : " in y") + " at " +
                               std::to_string(i) + (second ? " and another after" : "") + " (" + name + ")";
      try {
        upper_hull_from_device<T>(broken, ws, true);
        ADD_FAILURE() << "no error: " << what;
      } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("point " + std::to_string(i) + " is not finite"),
                  std::string::npos)
            << e.what() << " (" << what << ")";
      }
    }
  }
  EXPECT_EQ(upper_hull_from_device<T>(pts, ws, true), cpu::upper_chain<T>(pts)) << name;
  if (by == CheckedBy::guide_filter) {
    EXPECT_GE(ws.survivors, 0) << name << ": the guide filter did not run";
  }
}

TEST_F(CudaTest, SortedInputNamesTheFirstNonFinitePointFloat) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  names_the_first_non_finite_point<float>(rng_, CheckedBy::guide_filter, (std::size_t{1} << 20) + 5);
  names_the_first_non_finite_point<float>(rng_, CheckedBy::tiles, 100003);
}

TEST_F(CudaTest, SortedInputNamesTheFirstNonFinitePointDouble) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  names_the_first_non_finite_point<double>(rng_, CheckedBy::guide_filter, (std::size_t{1} << 20) + 5);
  names_the_first_non_finite_point<double>(rng_, CheckedBy::tiles, 100003);
}

TEST_F(CudaTest, SortedInputNamesTheFirstPointOutOfOrderFloat) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  names_the_first_point_out_of_order<float>(rng_, CheckedBy::guide_filter, (std::size_t{1} << 20) + 5);
  names_the_first_point_out_of_order<float>(rng_, CheckedBy::tiles, 100003);
}

TEST_F(CudaTest, SortedInputNamesTheFirstPointOutOfOrderDouble) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  names_the_first_point_out_of_order<double>(rng_, CheckedBy::guide_filter, (std::size_t{1} << 20) + 5);
  names_the_first_point_out_of_order<double>(rng_, CheckedBy::tiles, 100003);
}

/// Owns a device copy of host points, as one array of Point2 or as two arrays (x, y).
template <class T>
class DevicePoints {
 public:
  explicit DevicePoints(const std::vector<Point2<T>>& pts) : n_(pts.size()) {
    std::vector<T> x(n_), y(n_);
    for (std::size_t i = 0; i < n_; ++i) x[i] = pts[i].x, y[i] = pts[i].y;
    const std::size_t bytes = std::max<std::size_t>(1, n_) * sizeof(Point2<T>);
    EXPECT_EQ(cudaMalloc(&points_, bytes), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&x_, bytes / 2), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&y_, bytes / 2), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&hull_, bytes), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(points_, pts.data(), n_ * sizeof(Point2<T>), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(x_, x.data(), n_ * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(y_, y.data(), n_ * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  DevicePoints(const DevicePoints&) = delete;
  DevicePoints& operator=(const DevicePoints&) = delete;
  ~DevicePoints() { cudaFree(points_), cudaFree(x_), cudaFree(y_), cudaFree(hull_); }
  /// cuda::convex_hull_device on the array of structures (soa = false) or the two arrays.
  std::vector<Point2<T>> convex_hull(bool soa) const {
    const index_t n = static_cast<index_t>(n_);
    const index_t h =
        soa ? cuda::convex_hull_device<T>(x_, y_, n, hull_) : cuda::convex_hull_device<T>(points_, n, hull_);
    std::vector<Point2<T>> out(static_cast<std::size_t>(h));
    EXPECT_EQ(cudaMemcpy(out.data(), hull_, out.size() * sizeof(Point2<T>), cudaMemcpyDeviceToHost),
              cudaSuccess);
    return out;
  }

 private:
  std::size_t n_;
  Point2<T>* points_ = nullptr;
  T *x_ = nullptr, *y_ = nullptr;
  Point2<T>* hull_ = nullptr;
};

/// Every family through the three entry points: host memory (the library's convex_hull), device
/// memory as Point2 and as two arrays.
template <class T>
void convex_hull_every_family(std::mt19937_64& rng, std::initializer_list<std::size_t> sizes) {
  for (const auto& family : testing::all_families<T>()) {
    for (std::size_t n : sizes) {
      const auto pts = family.make(n, rng);
      const auto expected = cpu::convex_hull_serial<T>(pts);
      HullStats stats;
      ASSERT_EQ(convex_hull<T>(pts, {Backend::cuda, &stats}), expected) << family.name << " n=" << n;
      EXPECT_LE(stats.survivors, static_cast<std::int64_t>(n));
      const DevicePoints<T> device(pts);
      ASSERT_EQ(device.convex_hull(false), expected) << family.name << " n=" << n << " (device, Point2)";
      ASSERT_EQ(device.convex_hull(true), expected)
          << family.name << " n=" << n << " (device, x and y arrays)";
    }
  }
}

TEST_F(CudaTest, ConvexHullEveryFamilyMatchesCpuDouble) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  convex_hull_every_family<double>(rng_, {0, 1, 2, 5, 3000, 20000, 200001, (1 << 20) + 3});
}

TEST_F(CudaTest, ConvexHullEveryFamilyMatchesCpuFloat) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  convex_hull_every_family<float>(rng_, {0, 1, 2, 5, 3000, 20000, 200001, (1 << 20) + 3});
}

/// n points on a circle and 3n just inside it, shuffled: the filter keeps nearly all of them, and
/// each chain's first tile level keeps about a quarter of its points.
template <class T>
testing::Points<T> circle_with_points_just_inside(std::size_t n, std::mt19937_64& rng) {
  auto pts = testing::circle<T>(n, rng);
  for (const auto& p : testing::circle<T>(3 * n, rng)) {
    pts.push_back({static_cast<T>(p.x * (1 - 0x1p-16)), static_cast<T>(p.y * (1 - 0x1p-16))});
  }
  std::shuffle(pts.begin(), pts.end(), rng);
  return pts;
}

// The chains of the full hull from fewer survivors than UpperHullPolicy::kFilterFrom are enqueued
// without host waits (upper_hull_enqueued), finished on the device by the first tile level or by a
// second level of one tile; else finished on the host. Sizes either side of each: in float (tiles of
// 4096 points) a chain of one tile (4 x 1000 points), of several whose hoods fit one tile (4 x 5000),
// or do not (4 x 40000: a third level; in double, with tiles half as long, from 4 x 5000); a circle,
// whose hoods are most of its points (device-wide rounds), its survivors just below and at the
// threshold (m + 2 against 2^20).
TEST_F(CudaTest, FullHullChainsEnqueuedOrFinishedOnTheHost) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (std::size_t n : {1000u, 5000u, 40000u}) {
    const auto d = circle_with_points_just_inside<double>(n, rng_);
    EXPECT_EQ(convex_hull<double>(d, {Backend::cuda}), cpu::convex_hull_serial<double>(d)) << n;
    EXPECT_EQ(DevicePoints<double>(d).convex_hull(false), cpu::convex_hull_serial<double>(d)) << n;
    const auto f = circle_with_points_just_inside<float>(n, rng_);
    EXPECT_EQ(convex_hull<float>(f, {Backend::cuda}), cpu::convex_hull_serial<float>(f)) << n;
    EXPECT_EQ(DevicePoints<float>(f).convex_hull(true), cpu::convex_hull_serial<float>(f)) << n;
  }
  for (std::size_t n : {(std::size_t{1} << 20) - 3, (std::size_t{1} << 20) - 2}) {
    const auto d = testing::circle<double>(n, rng_);
    EXPECT_EQ(DevicePoints<double>(d).convex_hull(false), cpu::convex_hull_serial<double>(d)) << n;
  }
}

/// Columns of equal x, column j holding lengths[j] points, their y drawn from a few values that
/// include the type's far ends (so that runs hold duplicates, and their lowest and highest points
/// may be anywhere in them), and `scatter` points strictly between the first and the last column;
/// shuffled.
template <class T>
testing::Points<T> equal_x_runs(const std::vector<std::size_t>& lengths, std::size_t scatter,
                                std::mt19937_64& rng) {
  T far = std::numeric_limits<T>::max();
  if constexpr (std::is_same_v<T, double>) far = T(1e300);
  if constexpr (std::is_same_v<T, float>) far = T(1e30);
  const T lowest = std::is_integral_v<T> ? std::numeric_limits<T>::min() : -far;
  constexpr std::int64_t spacing = 1000;
  std::uniform_int_distribution<int> pick(0, 5), small(-1000, 1000);
  testing::Points<T> pts;
  for (std::size_t j = 0; j < lengths.size(); ++j) {
    for (std::size_t k = 0; k < lengths[j]; ++k) {
      const T choices[] = {lowest, far, T(-1), T(0), T(1), static_cast<T>(small(rng))};
      pts.push_back({static_cast<T>(static_cast<std::int64_t>(j) * spacing), choices[pick(rng)]});
    }
  }
  const auto columns = static_cast<std::int64_t>(lengths.size());
  std::uniform_int_distribution<std::int64_t> inside_x(
      1, std::max<std::int64_t>(1, columns * spacing - spacing - 1));
  for (std::size_t k = 0; k < scatter && columns > 1; ++k) {
    pts.push_back({static_cast<T>(inside_x(rng)), static_cast<T>(small(rng))});
  }
  std::shuffle(pts.begin(), pts.end(), rng);
  return pts;
}

/// The exact hull: the integer reference for integers, the CPU backend's serial hull otherwise.
template <class T>
std::vector<Point2<T>> exact_full_hull(const testing::Points<T>& pts) {
  if constexpr (std::is_integral_v<T>) {
    return testing::reference_hull(pts);
  } else {
    return cpu::convex_hull_serial<T>(pts);
  }
}

template <class T>
void expect_full_hulls_exact(const testing::Points<T>& pts, const std::vector<Point2<T>>& expected,
                             const std::string& what) {
  ASSERT_EQ(convex_hull<T>(pts, {Backend::cuda}), expected) << what;
  ASSERT_EQ(DevicePoints<T>(pts).convex_hull(false), expected) << what << " (device)";
}

template <class T>
void expect_full_hulls_exact(const testing::Points<T>& pts, const std::string& what) {
  expect_full_hulls_exact(pts, exact_full_hull(pts), what);
}

// The survivors are sorted on x alone and each run of equal x rewritten (convex_hull.cu,
// rewrite_short_runs_kernel): runs of every length either side of kRunProbe (32) and kLongRun (64),
// long ones first and last (both chains start and end in them), unfiltered (below 2^14 points), in a
// filtered input (the two outer columns survive whole) and with more survivors than the enqueued
// chains take (2^20: the chains on the host).
template <class T>
void equal_x_runs_every_length(std::mt19937_64& rng) {
  std::vector<std::size_t> lengths;
  for (std::size_t l = 1; l <= 70; ++l) lengths.push_back(l);
  for (std::size_t l : {127u, 128u, 129u, 1000u, 5000u}) lengths.push_back(l);
  std::vector<std::size_t> shuffled = lengths;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  expect_full_hulls_exact(equal_x_runs<T>(shuffled, 0, rng), "every length, shuffled");
  std::vector<std::size_t> long_ends = lengths;
  std::swap(long_ends.front(), long_ends[lengths.size() - 2]);  // 1000 first, 5000 last
  expect_full_hulls_exact(equal_x_runs<T>(long_ends, 0, rng), "long runs first and last");
  expect_full_hulls_exact(equal_x_runs<T>({64, 63}, 0, rng), "64 then 63");
  expect_full_hulls_exact(equal_x_runs<T>({30000, 30000}, 50000, rng), "filtered");
  const std::size_t half = (std::size_t{1} << 19) + 7;
  expect_full_hulls_exact(equal_x_runs<T>({half, 3, half}, 1000, rng), "past the enqueued chains");
}

TEST_F(CudaTest, FullHullEqualXRunsOfEveryLength) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  equal_x_runs_every_length<double>(rng_);
  equal_x_runs_every_length<float>(rng_);
  equal_x_runs_every_length<std::int32_t>(rng_);
  equal_x_runs_every_length<std::int64_t>(rng_);
}

/// Runs of 1 to 400 points, in input order, taken in turn from the inside of a disk of radius
/// `scale` (the inner polygon's quick tests certify most of them) and from its circle (left in
/// doubt, most of them hull vertices), rounded to T.
template <class T>
testing::Points<T> disk_and_circle_runs(std::size_t n, double scale, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::size_t> length(1, 400);
  std::uniform_real_distribution<double> u(-1.0, 1.0), angle(0.0, 2 * M_PI);
  const auto rounded = [](double v) { return std::is_integral_v<T> ? std::round(v) : v; };
  testing::Points<T> pts;
  for (bool on_circle = false; pts.size() < n; on_circle = !on_circle) {
    for (std::size_t k = length(rng); k > 0 && pts.size() < n; --k) {
      double x = 0, y = 0;
      if (on_circle) {
        const double a = angle(rng);
        x = std::cos(a), y = std::sin(a);
      } else {
        do x = u(rng), y = u(rng);
        while (x * x + y * y > 0.9);
      }
      pts.push_back({static_cast<T>(rounded(x * scale)), static_cast<T>(rounded(y * scale))});
    }
  }
  return pts;
}

/// A setting of the full hull (read by Get, set by Set; a size threshold, or a switch) at a value for
/// as long as it lives, so that inputs of test size reach the step it guards whatever the default.
template <auto Get, auto Set>
struct ThresholdAt {
  using Value = decltype(Get());
  Value saved = Get();
  explicit ThresholdAt(Value v) { Set(v); }
  ~ThresholdAt() { Set(saved); }
  ThresholdAt(const ThresholdAt&) = delete;
  ThresholdAt& operator=(const ThresholdAt&) = delete;
};
/// The sort on a 32-bit key from `n` survivors.
using KeySortFrom = ThresholdAt<cuda::min_survivors_for_key_sort, cuda::set_min_survivors_for_key_sort>;
/// The dense guide from `n` points.
using GuideFrom = ThresholdAt<cuda::min_points_for_guide, cuda::set_min_points_for_guide>;
/// The dense guide as a polygon of its sample's star (rather than the whole sample's hull) from `n` points.
using GuideStarFrom = ThresholdAt<cuda::min_points_for_guide_star, cuda::set_min_points_for_guide_star>;
/// The dense guide's ring on or off.
using GuideRing = ThresholdAt<cuda::guide_ring_enabled, cuda::set_guide_ring_enabled>;
/// The full hull's chains joining their tile hoods (off by default).
using ChainsJoin = ThresholdAt<cuda::chains_join_hoods, cuda::set_chains_join_hoods>;

// The full hull's chains with the join of tile hoods on (cuda::chains_join_hoods, a benchmark's
// variant) and off: circles with points just inside whose enqueued chains' first level has 2 to 10
// tiles, and a circle of 2^20 - 3 points whose chains have hundreds of full hoods, each joined.
TEST_F(CudaTest, FullHullChainsWithAndWithoutTheJoin) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (const bool join : {true, false}) {
    const ChainsJoin chains_join(join);
    for (std::size_t n : {5000u, 40000u}) {
      const auto d = circle_with_points_just_inside<double>(n, rng_);
      EXPECT_EQ(DevicePoints<double>(d).convex_hull(false), cpu::convex_hull_serial<double>(d)) << n << join;
      const auto f = circle_with_points_just_inside<float>(n, rng_);
      EXPECT_EQ(DevicePoints<float>(f).convex_hull(false), cpu::convex_hull_serial<float>(f)) << n << join;
    }
    const auto d = testing::circle<double>((std::size_t{1} << 20) - 3, rng_);
    EXPECT_EQ(DevicePoints<double>(d).convex_hull(false), cpu::convex_hull_serial<double>(d)) << join;
  }
}

// The sort on a 32-bit key (core/x_key.hpp, convex_hull.cu), for survivors with 8-byte
// coordinates: n points on a circle (at 2^22, runs of one key of up to some tens of points near
// x = +-1), every point three times over, the circle with some of its points repeated to make runs
// either side of what a thread, a warp and a block sort (16, 256, 4096), an integer circle, and
// points on the segment between two far points (every survivor in one key: back to the sort on x).
template <class T>
void sorted_by_key_or_by_x(std::mt19937_64& rng, std::size_t n) {
  testing::Points<T> ring;
  if constexpr (std::is_integral_v<T>) {
    std::uniform_real_distribution<double> angle(0, 2 * M_PI);
    for (std::size_t i = 0; i < n; ++i) {
      const double a = angle(rng);
      ring.push_back({static_cast<T>(std::llround(0x1p40 * std::cos(a))),
                      static_cast<T>(std::llround(0x1p40 * std::sin(a)))});
    }
  } else {
    ring = testing::circle<T>(n, rng);
  }
  expect_full_hulls_exact(ring, "circle");
  testing::Points<T> thrice;
  for (std::size_t i = 0; i < n / 3 + 1; ++i) thrice.insert(thrice.end(), 3, ring[i]);
  std::shuffle(thrice.begin(), thrice.end(), rng);
  expect_full_hulls_exact(thrice, "every point three times");
  testing::Points<T> repeated = ring;
  std::size_t at = 0;
  for (const std::size_t times : {15, 16, 17, 255, 256, 257, 3000, 4000}) {
    at += n / 11;
    repeated.insert(repeated.end(), times, ring[at]);
  }
  std::shuffle(repeated.begin(), repeated.end(), rng);
  expect_full_hulls_exact(repeated, "runs of about 16, 256, 3000 and 4000 equal points");
  const T far = std::is_integral_v<T> ? std::numeric_limits<T>::max() : static_cast<T>(1e300);
  testing::Points<T> segment{{static_cast<T>(-far), 0}, {far, 0}};
  std::uniform_int_distribution<std::int64_t> x(-1000000, 1000000);
  for (std::size_t i = 0; i < n; ++i) segment.push_back({static_cast<T>(x(rng)), 0});
  std::shuffle(segment.begin(), segment.end(), rng);
  expect_full_hulls_exact(segment, "a segment between two far points");
}

/// Every integer family against the exact reference (defined below, where its default sizes are
/// explained).
template <class T>
void integer_hulls_every_family(std::mt19937_64& rng, std::initializer_list<std::size_t> sizes = {
                                                          0, 1, 2, 5, 3000, 20000, 200001, (1 << 20) + 3});

TEST_F(CudaTest, FullHullSortedByKeyOrByX) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  // Just past the default threshold (the circle's density there), then either side of a lowered one.
  const std::size_t past_default = static_cast<std::size_t>(cuda::kDefaultMinSurvivorsForKeySort) + 3;
  sorted_by_key_or_by_x<double>(rng_, past_default);
  sorted_by_key_or_by_x<std::int64_t>(rng_, past_default);
  {
    const KeySortFrom from(20000);
    for (const std::size_t n : {19997u, 20003u}) {
      sorted_by_key_or_by_x<double>(rng_, n);
      sorted_by_key_or_by_x<std::int64_t>(rng_, n);
    }
  }
  // Every family through the key's sort and split, from one survivor up: collinear ones (the lower
  // side empty), equal x, duplicates, the types' extremes.
  const KeySortFrom every(1);
  convex_hull_every_family<double>(rng_, {1, 2, 3, 50, 20000});
  integer_hulls_every_family<std::int64_t>(rng_, {1, 2, 5, 3000, 20000});
}

// The filter tests each warp's 128 points with the quick tests, then the fan test: for 16-byte
// points through a queue a warp when at most 96 of them are in doubt, else lane by lane; float
// points' 256 a step with the float quick tests, the points they leave queued (filter_kernel). Runs
// of doubtful and certified points put steps on both sides of 96, and the queue's last points wait
// until a warp's end.
TEST_F(CudaTest, FullHullFilterQueueAndLanesAgree) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (const std::size_t n : {std::size_t{20000}, std::size_t{300001}}) {
    const std::string what = "n=" + std::to_string(n);
    expect_full_hulls_exact(disk_and_circle_runs<double>(n, 1.0, rng_), "double " + what);
    expect_full_hulls_exact(disk_and_circle_runs<float>(n, 1.0, rng_), "float " + what);
    expect_full_hulls_exact(disk_and_circle_runs<std::int64_t>(n, 0x1p40, rng_), "int64 " + what);
    expect_full_hulls_exact(disk_and_circle_runs<std::int32_t>(n, 0x1p20, rng_), "int32 " + what);
    if (HasFatalFailure()) return;
  }
}

// From host memory the input streams through in chunks of 64 MB: these sizes take several, the last
// one partial. The filter must discard nearly all of a disk (the 256-direction polygon leaves about
// 1e-3 of it from the host's 32k-point sample); a circle keeps nearly everything.
TEST_F(CudaTest, ConvexHullLargeInputs) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (std::size_t n : {std::size_t{1} << 24, (std::size_t{1} << 26) + 5}) {
    const auto disk = testing::uniform_disk<float>(n, rng_);
    const auto expected = cpu::convex_hull_serial<float>(disk);
    HullStats stats;
    ASSERT_EQ(convex_hull<float>(disk, {Backend::cuda, &stats}), expected) << n;
    EXPECT_LT(stats.survivors, static_cast<std::int64_t>(n) / 100);
    EXPECT_EQ(DevicePoints<float>(disk).convex_hull(false), expected) << n;
    const auto ring = testing::circle<double>(n / 4, rng_);
    ASSERT_EQ(convex_hull<double>(ring, {Backend::cuda, nullptr}), cpu::convex_hull_serial<double>(ring))
        << n;
  }
}

// ---- the dense guide: from device memory, inputs the inner polygon leaves mostly whole --------------

/// The full hull of `pts` from device memory (Point2), with the survivors and the step profile.
template <class T>
struct GuidedRun {
  std::vector<Point2<T>> hull;
  index_t survivors = -1;
  cuda::FullHullProfile profile;
};

template <class T>
GuidedRun<T> device_hull_with_profile(const std::vector<Point2<T>>& pts) {
  GuidedRun<T> run;
  Point2<T>* d = nullptr;
  EXPECT_EQ(cudaMalloc(&d, pts.size() * sizeof(Point2<T>)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d, pts.data(), pts.size() * sizeof(Point2<T>), cudaMemcpyHostToDevice), cudaSuccess);
  run.hull = cuda::convex_hull_on_device<T>(d, static_cast<index_t>(pts.size()), nullptr, &run.survivors,
                                            &run.profile);
  cudaFree(d);
  return run;
}

/// The survivors' polygon from `n` points.
using SurvivorPolygonFrom =
    ThresholdAt<cuda::min_points_for_survivor_polygon, cuda::set_min_points_for_survivor_polygon>;

/// n points spread over the annulus between radii (1 - 2^-10) scale and scale, shuffled (rounded for
/// integers). The inner polygon's 256 directions leave about a twentieth of it (its edges' sagitta,
/// 7.5e-5, against the width), too few of its samples for the dense guide; the survivors' polygon of
/// 1,024 directions about a fifteenth of those.
template <class T>
testing::Points<T> thin_annulus(std::size_t n, double scale, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> angle(0, 2 * M_PI), radius(1 - 0x1p-10, 1);
  testing::Points<T> pts;
  pts.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double a = angle(rng), r = radius(rng) * scale;
    const double x = r * std::cos(a), y = r * std::sin(a);
    pts.push_back(std::is_integral_v<T>
                      ? Point2<T>{static_cast<T>(std::llround(x)), static_cast<T>(std::llround(y))}
                      : Point2<T>{static_cast<T>(x), static_cast<T>(y)});
  }
  return pts;
}

/// The thin annulus's full hull through both memories, and from device memory whether the
/// survivors' polygon cut its survivors (`expect_cut`) or left them as the inner polygon did.
template <class T>
void thin_annulus_hulls(std::mt19937_64& rng, std::size_t n, double scale, bool expect_cut) {
  const auto pts = thin_annulus<T>(n, scale, rng);
  const std::string what = "thin annulus n=" + std::to_string(n) + " scale " + std::to_string(scale);
  const auto expected = exact_full_hull(pts);
  expect_full_hulls_exact(pts, expected, what);
  const GuidedRun<T> run = device_hull_with_profile(pts);
  EXPECT_EQ(run.hull, expected) << what;
  EXPECT_GT(run.profile.polygon_survivors, static_cast<index_t>(n / 50)) << what << ": the inner polygon";
  if (expect_cut) {
    EXPECT_LT(run.survivors, run.profile.polygon_survivors / 4)
        << what << ": the survivors' polygon did not cut";
  } else {
    EXPECT_EQ(run.survivors, run.profile.polygon_survivors) << what << ": the survivors' polygon ran";
  }
  EXPECT_GE(run.survivors, static_cast<index_t>(expected.size())) << what;
}

// The survivors' polygon (survivor_polygon.cu). Forced from any size: every family and type (its
// kernels then run on whatever survives: collinear survivors have no polygon, duplicates and the
// types' extremes come among the bests, 64-bit integers beyond 2^53 are never bests or certified),
// a thin annulus that it must cut (64-bit coordinates beyond 2^53: nothing to build from, so no
// cut), and a circle whose survivors outnumber its buffer (then the first survivors are sorted).
// Then every family either side of a lowered threshold, and the annulus either side of the default.
TEST_F(CudaTest, FullHullSurvivorPolygon) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  {
    const SurvivorPolygonFrom every(0);
    convex_hull_every_family<double>(rng_, {5, 3000, 20000, 200001});
    convex_hull_every_family<float>(rng_, {5, 3000, 20000, 200001});
    integer_hulls_every_family<std::int64_t>(rng_, {5, 20000, 200001});
    integer_hulls_every_family<std::int32_t>(rng_, {5, 20000, 200001});
    for (const std::size_t n : {std::size_t{1} << 18, (std::size_t{1} << 19) + 7}) {
      thin_annulus_hulls<double>(rng_, n, 1.0, true);
      thin_annulus_hulls<float>(rng_, n, 1e3, true);
      thin_annulus_hulls<std::int32_t>(rng_, n, 0x1p30, true);
      thin_annulus_hulls<std::int64_t>(rng_, n, 0x1p50, true);
      thin_annulus_hulls<std::int64_t>(rng_, n, 0x1p60, false);
      if (HasFatalFailure()) return;
    }
    const auto circle = testing::circle<double>(std::size_t{1} << 20, rng_);
    const GuidedRun<double> run = device_hull_with_profile(circle);
    EXPECT_EQ(run.hull, cpu::convex_hull_serial<double>(circle));
    EXPECT_EQ(run.survivors, run.profile.polygon_survivors) << "a circle's survivors outnumber the buffer";
  }
  // Every family either side of a lowered threshold (from which the device takes more survivors
  // than a chain's tile: a circle's), then the thin annulus either side of the default.
  {
    const SurvivorPolygonFrom lowered(20000);
    convex_hull_every_family<double>(rng_, {19997, 20003});
    convex_hull_every_family<float>(rng_, {19997, 20003});
  }
  const auto from = static_cast<std::size_t>(cuda::kDefaultMinPointsForSurvivorPolygon);
  thin_annulus_hulls<double>(rng_, from - 1, 1.0, false);
  thin_annulus_hulls<double>(rng_, from, 1.0, true);
}

/// The inner polygon built on the device (device_polygon.cu): on random input it filters (enabled,
/// most points certified inside, the guide not taken); on every kind of input the hull is exact.
template <class T>
void device_polygon_filters(const testing::Points<T>& pts, const std::string& what, bool expect_filtered) {
  const GuidedRun<T> run = device_hull_with_profile(pts);
  EXPECT_EQ(run.hull, exact_full_hull(pts)) << what;
  // One call at a time: the float slot is free.
  EXPECT_TRUE(run.profile.device_polygon) << what;
  if (expect_filtered) {
    EXPECT_LT(run.profile.polygon_survivors, static_cast<index_t>(pts.size() / 20)) << what;
    EXPECT_EQ(run.profile.guide_vertices, 0) << what << ": the guide's path";
  }
}

TEST_F(CudaTest, FullHullDevicePolygon) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  const std::size_t n = std::size_t{1} << 20;
  device_polygon_filters(testing::uniform_disk<double>(n, rng_), "double disk", true);
  device_polygon_filters(testing::uniform_square<double>(n, rng_), "double square", true);
  device_polygon_filters(testing::gaussian<double>(n, rng_), "double gaussian", true);
  device_polygon_filters(testing::uniform_disk<float>(n, rng_), "float disk", true);
  device_polygon_filters(testing::uniform_square<float>(n, rng_), "float square", true);
  device_polygon_filters(testing::huge<double>(n, rng_), "huge", false);
  device_polygon_filters(testing::tiny<double>(n, rng_), "tiny", false);
  device_polygon_filters(testing::near_collinear_ulp<double>(n, rng_), "near collinear", false);
  device_polygon_filters(testing::octagon_ulp_edges<double>(n, rng_), "octagon ulp edges", false);
  device_polygon_filters(testing::duplicates<double>(n, rng_), "duplicates", false);
  device_polygon_filters(testing::collinear<double>(n, rng_), "collinear", false);
  // (The guide's path, where the device polygon leaves the decision to the host: a float circle,
  // GuidedFullHullOfAFloatCircle.)
}

/// The block finish up to `n` survivors (0: off).
using BlockFinishUpTo =
    ThresholdAt<cuda::max_survivors_for_block_finish, cuda::set_max_survivors_for_block_finish>;

/// Whether the block finish built the hull of `pts` from device memory (checked exact on the way).
template <class T>
bool finished_in_blocks(const testing::Points<T>& pts, const std::string& what) {
  const GuidedRun<T> run = device_hull_with_profile(pts);
  EXPECT_EQ(run.hull, exact_full_hull(pts)) << what;
  return run.profile.finished_in_blocks;
}

// The block finish (block_finish.cu). Below 2^14 points nothing is filtered, so the survivors are the
// points: every family and type either side of the bound (4,094 points in the blocks, 4,095 not);
// then either side of a lowered bound; then, with it off, the sort and chains that take over above
// it, at sizes it would otherwise take. Each side is checked to be the one taken, and a large random
// input to finish in the blocks behind its filters.
TEST_F(CudaTest, FullHullBlockFinish) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  const auto bound = static_cast<std::size_t>(cuda::kDefaultMaxSurvivorsForBlockFinish);
  convex_hull_every_family<double>(rng_, {1, 2, 3, 4, 50, bound - 1, bound, bound + 1});
  convex_hull_every_family<float>(rng_, {1, 2, 3, 4, 50, bound - 1, bound, bound + 1});
  integer_hulls_every_family<std::int64_t>(rng_, {1, 2, 3, 50, bound, bound + 1});
  integer_hulls_every_family<std::int32_t>(rng_, {1, 2, 3, 50, bound, bound + 1});
  if (HasFatalFailure()) return;
  EXPECT_TRUE(finished_in_blocks(testing::uniform_disk<double>(bound, rng_), "disk at the bound"));
  EXPECT_FALSE(finished_in_blocks(testing::uniform_disk<double>(bound + 1, rng_), "disk past the bound"));
  EXPECT_TRUE(finished_in_blocks(testing::uniform_disk<float>(std::size_t{1} << 22, rng_), "disk of 2^22"));
  {
    const BlockFinishUpTo lowered(100);
    convex_hull_every_family<double>(rng_, {99, 100, 101});
    integer_hulls_every_family<std::int64_t>(rng_, {99, 100, 101});
    EXPECT_TRUE(finished_in_blocks(testing::uniform_square<float>(100, rng_), "square at a lowered bound"));
    EXPECT_FALSE(finished_in_blocks(testing::uniform_square<float>(101, rng_), "square past it"));
  }
  const BlockFinishUpTo off(0);
  convex_hull_every_family<double>(rng_, {1, 2, 5, 3000, 200001});
  convex_hull_every_family<float>(rng_, {1, 2, 5, 3000, 200001});
  integer_hulls_every_family<std::int64_t>(rng_, {1, 2, 5, 3000});
  expect_full_hulls_exact(equal_x_runs<double>({64, 63}, 0, rng_), "64 then 63, no block finish");
  EXPECT_FALSE(finished_in_blocks(testing::uniform_disk<double>(50, rng_), "disk with the block finish off"));
}

/// `upper` (at least 2) points on a concave arc whose ends are the input's lexicographic extremes,
/// and `lower` points strictly below the line between those ends (some equal where they outnumber the
/// integer x between the ends); each point `copies` times, shuffled. The block finish's sides then
/// hold upper * copies and lower * copies points.
template <class T>
testing::Points<T> sides_of_sizes(std::size_t upper, std::size_t lower, std::size_t copies,
                                  std::mt19937_64& rng) {
  const double w = static_cast<double>(upper - 1);  // the arc spans x in [0, 2w], its ends at y = -w^2
  testing::Points<T> pts;
  for (std::size_t i = 0; i < upper; ++i) {
    const double x = 2.0 * static_cast<double>(i);
    pts.push_back({static_cast<T>(x), static_cast<T>(-(x - w) * (x - w))});
  }
  for (std::size_t j = 0; j < lower; ++j) {
    const double x = 1.0 + std::floor((2.0 * w - 2.0) * static_cast<double>(j) / static_cast<double>(lower));
    pts.push_back({static_cast<T>(x), static_cast<T>(-w * w - 1.0 - static_cast<double>(j % 7))});
  }
  testing::Points<T> out;
  for (const auto& p : pts) out.insert(out.end(), copies, p);
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

// The block finish's sort (block_bitonic_sort.cuh: a bitonic network over the side's next power of two):
// sides either side of powers of two up to the tile, with and without equal points, in every
// coordinate type. The sides' sizes are exact in double, int64 and int32 (float rounds the larger
// arcs' y, so its arcs stop at 2,049 points).
template <class T>
void block_finish_sides(std::mt19937_64& rng) {
  struct Sides {
    std::size_t upper, lower, copies;
  };
  std::vector<Sides> cases{{2, 1, 1},     {255, 1, 1},    {256, 256, 1},   {257, 255, 1}, {511, 513, 1},
                           {512, 2, 1},   {513, 1024, 1}, {1024, 1025, 1}, {2048, 2, 1},  {2049, 2045, 1},
                           {128, 128, 2}, {129, 64, 2},   {1025, 1, 2},    {300, 700, 3}};
  if (!std::is_same_v<T, float>) cases.push_back({4092, 2, 1});
  for (const Sides& c : cases) {
    const auto pts = sides_of_sizes<T>(c.upper, c.lower, c.copies, rng);
    const std::string what = std::to_string(c.upper) + " above and " + std::to_string(c.lower) +
                             " below, each " + std::to_string(c.copies) + " times";
    EXPECT_TRUE(finished_in_blocks(pts, what)) << what;
  }
}

TEST_F(CudaTest, BlockFinishSidesEitherSideOfPowersOfTwo) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  block_finish_sides<double>(rng_);
  block_finish_sides<float>(rng_);
  block_finish_sides<std::int64_t>(rng_);
  block_finish_sides<std::int32_t>(rng_);
}

/// Named inputs for the block finish's halves, which meet at the highest point (the upper chain) and
/// at the lowest (the lower chain): that point an end of its chain, repeated, sharing its y with
/// others, or on the baseline; the lower side empty; lines; one and two points. Small integers, exact
/// in every coordinate type; each point `copies` times, shuffled.
template <class T>
void block_finish_halves_cases(std::mt19937_64& rng) {
  using Raw = std::vector<std::pair<int, int>>;
  Raw rectangle, flat{{-1, 0}, {21, 0}, {10, 1}, {10, -1}};
  for (int x = 0; x <= 10; ++x) rectangle.insert(rectangle.end(), {{x, 0}, {x, 3}});
  for (int y = 1; y < 3; ++y) rectangle.insert(rectangle.end(), {{0, y}, {10, y}});
  for (int x = 0; x <= 20; ++x) flat.insert(flat.end(), {{x, 5}, {x, -5}});
  const std::vector<std::pair<std::string, Raw>> cases{
      {"the highest point leftmost", {{0, 10}, {1, 9}, {2, 7}, {3, 4}, {4, 0}, {2, -3}, {1, -1}, {2, 2}}},
      {"the highest point rightmost", {{0, 0}, {1, 4}, {2, 7}, {3, 9}, {4, 10}, {2, -3}, {3, 1}, {2, 2}}},
      {"the lowest point leftmost", {{0, -10}, {1, -9}, {2, -7}, {3, -4}, {4, 0}, {2, 3}, {1, 1}, {2, -2}}},
      {"the lowest point rightmost", {{0, 0}, {1, -4}, {2, -7}, {3, -9}, {4, -10}, {2, 3}, {3, -1}, {2, -2}}},
      {"the lower side empty", {{0, 0}, {10, 0}, {5, 5}, {2, 1}, {8, 3}, {5, 0}, {3, 0}}},
      {"the upper side only its ends", {{0, 0}, {10, 0}, {5, -5}, {2, -1}, {8, -3}, {5, 0}}},
      {"one point", {{3, 4}}},
      {"two points", {{3, 4}, {-2, 7}}},
      {"a vertical line", {{2, 0}, {2, 5}, {2, -3}, {2, 1}}},
      {"a horizontal line", {{0, 2}, {5, 2}, {-3, 2}, {1, 2}}},
      {"a diagonal line", {{0, 0}, {1, 1}, {5, 5}, {-3, -3}}},
      {"a rectangle's corners and edges", rectangle},
      {"flat top and bottom between two ends", flat},
      {"a diamond", {{0, 0}, {5, 5}, {10, 0}, {5, -5}, {5, 0}, {3, 1}, {7, -1}}},
  };
  for (const std::size_t copies : {std::size_t{1}, std::size_t{3}}) {
    for (const auto& [name, raw] : cases) {
      testing::Points<T> pts;
      for (const auto& [x, y] : raw)
        pts.insert(pts.end(), copies, Point2<T>{static_cast<T>(x), static_cast<T>(y)});
      std::shuffle(pts.begin(), pts.end(), rng);
      const std::string what = name + ", each " + std::to_string(copies) + " times";
      EXPECT_TRUE(finished_in_blocks(pts, what)) << what;
    }
  }
}

TEST_F(CudaTest, BlockFinishHalvesMeetAtTheirVertex) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  block_finish_halves_cases<double>(rng_);
  block_finish_halves_cases<float>(rng_);
  block_finish_halves_cases<std::int64_t>(rng_);
  block_finish_halves_cases<std::int32_t>(rng_);
}

/// Every point `copies` times in a row (so that a run of the samples holds one distinct point).
template <class T>
testing::Points<T> repeated_in_runs(const testing::Points<T>& pts, std::size_t copies) {
  testing::Points<T> out;
  out.reserve(pts.size() * copies);
  for (const auto& p : pts) out.insert(out.end(), copies, p);
  return out;
}

// The guide runs from 2^22 points (here) where the coarse polygon leaves more than 1/8 of its samples and at
// most 3/4 of the check's sample points are in convex position by angle (about 57 % on a float circle,
// 100 % on a double one, on the host: test_angular_convexity). A float circle takes it, and the
// guide must cut the survivors (at 2^22, about 17 % survive it on the host, against all without it);
// the odd size ends with a partial run of the samples.
// The guide as the hull of the whole sample (below 2^24 points) and as a polygon of the sample's star
// (dense_guide.cu, star_polygon), either side of the star's threshold (its default, set here so that
// the test keeps its sizes). The star needs a larger circle than the sample to cut as much: at 2^22
// points a sixth of the sample are its hull's vertices, too many for a bucket each (bench/NOTES.md).
TEST_F(CudaTest, GuidedFullHullOfAFloatCircle) {
  const GuideFrom guide_from(index_t{1} << 22);
  SCOPED_TRACE("seed " + std::to_string(seed_));
  const std::size_t star_from = std::size_t{1} << 24;
  const GuideStarFrom guide_star_from(static_cast<index_t>(star_from));
  for (std::size_t n : {std::size_t{1} << 22, (std::size_t{1} << 22) + 3, star_from - 1, star_from}) {
    const auto pts = testing::circle<float>(n, rng_);
    const auto expected = cpu::convex_hull_serial<float>(pts);
    // With the fan's ring (by default) and without it. The filter's two forms run one at a time:
    // had both kept their points, the filter's survivors with the ring would be about twice those
    // without it (each form keeps about the points outside the guide).
    index_t filter_survivors[2] = {};
    for (const bool ring : {true, false}) {
      SCOPED_TRACE(ring ? "with the ring" : "without the ring");
      const GuideRing guide_ring(ring);
      const auto run = device_hull_with_profile(pts);
      filter_survivors[ring ? 0 : 1] = run.profile.polygon_survivors;
      ASSERT_EQ(run.hull, expected) << n;
      EXPECT_GT(run.profile.check_convex, 0) << n;
      EXPECT_GE(run.profile.guide_vertices, 3) << n << ": the guide did not run";
      EXPECT_FALSE(run.profile.chain_guides) << n << ": the chains' own guides behind the dense guide";
      EXPECT_EQ(run.profile.guide_ring, ring) << n;
      EXPECT_LT(run.survivors, static_cast<index_t>(n / 4)) << n << ": the guide did not cut the survivors";
      EXPECT_GE(run.survivors, static_cast<index_t>(expected.size())) << n;
      EXPECT_EQ(DevicePoints<float>(pts).convex_hull(true), expected) << n << " (x and y arrays)";
    }
    EXPECT_LT(filter_survivors[0], filter_survivors[1] + filter_survivors[1] / 2) << n;
    EXPECT_LT(filter_survivors[1], filter_survivors[0] + filter_survivors[0] / 2) << n;
  }
  // Scaled far from 1: at 1e35 the ring's bounds' products pass 2^200, so the fan goes without it,
  // exact all the same; at 1e-15 it has one.
  for (const float scale : {1e35f, 1e-15f}) {
    auto pts = testing::circle<float>(std::size_t{1} << 22, rng_);
    for (auto& p : pts) p = {p.x * scale, p.y * scale};
    const auto run = device_hull_with_profile(pts);
    ASSERT_EQ(run.hull, cpu::convex_hull_serial<float>(pts)) << scale;
    EXPECT_GE(run.profile.guide_vertices, 3) << scale << ": the guide did not run";
    EXPECT_EQ(run.profile.guide_ring, scale < 1) << scale;
  }
}

// The guide's star where most of its angle buckets are empty: a float circle folded onto its upper
// half, whose coarse polygon's centre lies above the diameter, so that the buckets of the directions
// down to the diameter hold no sample point. Exact, and the guide still cuts the survivors.
TEST_F(CudaTest, GuidedFullHullOfAFloatHalfCircle) {
  const GuideFrom guide_from(index_t{1} << 22);
  const GuideStarFrom guide_star_from(0);
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (std::size_t n : {(std::size_t{1} << 24) + 5}) {
    auto pts = testing::circle<float>(n, rng_);
    for (auto& p : pts) p.y = std::fabs(p.y);
    const auto expected = cpu::convex_hull_serial<float>(pts);
    const auto run = device_hull_with_profile(pts);
    ASSERT_EQ(run.hull, expected) << n;
    EXPECT_GE(run.profile.guide_vertices, 3) << n << ": the guide did not run";
    EXPECT_LT(run.survivors, static_cast<index_t>(n / 4)) << n << ": the guide did not cut the survivors";
  }
}

// Inputs that take the guide's decisions other ways; all exact. The guide as the hull of the whole
// sample, as by default at these sizes, and as the star's polygon (set from 0 points); its fan with
// its ring, by default.
TEST_F(CudaTest, GuidedFullHullExactOnEveryKindOfInput) {
  const GuideFrom guide_from(index_t{1} << 22);
  SCOPED_TRACE("seed " + std::to_string(seed_));
  const auto every_kind = [&] {
    const std::size_t n = std::size_t{1} << 22;
    // A double circle: every point is a vertex (and in convex position by angle), so the check refuses
    // the guide.
    {
      const auto pts = testing::circle<double>(n, rng_);
      const auto run = device_hull_with_profile(pts);
      ASSERT_EQ(run.hull, cpu::convex_hull_serial<double>(pts)) << "double circle";
      EXPECT_GT(run.profile.check_convex, 0);
      EXPECT_EQ(run.profile.guide_vertices, 0);
      EXPECT_FALSE(run.profile.device_polygon) << "the device polygon left the decision to the host";
      // Nor do the chains (2^21 points each, past their own guides' 2^20) compute guides of their own.
      EXPECT_FALSE(run.profile.chain_guides);
    }
    // A circle with many duplicates: each point 8 times in a row (the guide runs: its vertices' copies
    // lie on its boundary, never strictly inside), and a float circle with every point twice, shuffled.
    {
      const auto pts = repeated_in_runs(testing::circle<double>(n / 8, rng_), 8);
      const auto run = device_hull_with_profile(pts);
      ASSERT_EQ(run.hull, cpu::convex_hull_serial<double>(pts)) << "double circle, runs of 8 copies";
      EXPECT_GE(run.profile.guide_vertices, 3);
      EXPECT_FALSE(run.profile.chain_guides) << "the chains' own guides behind the dense guide";
      auto twice = repeated_in_runs(testing::circle<float>(n / 2, rng_), 2);
      std::shuffle(twice.begin(), twice.end(), rng_);
      ASSERT_EQ(device_hull_with_profile(twice).hull, cpu::convex_hull_serial<float>(twice))
          << "float circle, every point twice";
    }
    // Convex position with collinear runs of 1000 points (only the runs' ends are vertices), in any
    // order: the guide runs, and keeps the points on its edges.
    {
      auto pts = convex_runs<double>(n, 1000);
      std::shuffle(pts.begin(), pts.end(), rng_);
      const auto run = device_hull_with_profile(pts);
      ASSERT_EQ(run.hull, cpu::convex_hull_serial<double>(pts)) << "convex runs";
      EXPECT_GE(run.profile.guide_vertices, 3);
    }
    // A random disk: the coarse polygon leaves almost nothing, the guide is not tried.
    for (bool single : {true, false}) {
      if (single) {
        const auto pts = testing::uniform_disk<float>(n, rng_);
        const auto run = device_hull_with_profile(pts);
        ASSERT_EQ(run.hull, cpu::convex_hull_serial<float>(pts)) << "float disk";
        EXPECT_EQ(run.profile.check_convex, 0);
        EXPECT_EQ(run.profile.guide_vertices, 0);
      } else {
        const auto pts = testing::uniform_disk<double>(n, rng_);
        const auto run = device_hull_with_profile(pts);
        ASSERT_EQ(run.hull, cpu::convex_hull_serial<double>(pts)) << "double disk";
        EXPECT_EQ(run.profile.guide_vertices, 0);
        EXPECT_TRUE(run.profile.chain_guides);
      }
    }
  };
  for (const index_t star_from : {cuda::kDefaultMinPointsForGuideStar, index_t{0}}) {
    SCOPED_TRACE(star_from == 0 ? "the star's polygon" : "the sample's hull");
    const GuideStarFrom guide_star_from(star_from);
    every_kind();
    if (HasFatalFailure()) return;
  }
}

/// The circle with runs of one split key (core::split_x_key, as the split computes it from the
/// points' extremes) on both sides of the baseline, one of each length a thread, a warp and a block
/// sorts (core::kThreadKeyRun, kWarpKeyRun, kBlockKeyRun, less one): points a hair apart along the
/// circle, each run's first and last point checked to share a key, the extremes left in place.
testing::Points<double> with_key_runs(testing::Points<double> circle) {
  const auto lex = [](const Point2<double>& a, const Point2<double>& b) { return lex_less(a, b); };
  const auto [lo_at, hi_at] = std::minmax_element(circle.begin(), circle.end(), lex);
  const Point2<double> lo = *lo_at, hi = *hi_at;
  const auto lo_index = static_cast<std::size_t>(lo_at - circle.begin());
  const auto hi_index = static_cast<std::size_t>(hi_at - circle.begin());
  const core::XKeyScale scale = core::x_key_scale(lo.x, hi.x);
  const auto on_circle = [](double angle) { return Point2<double>{std::cos(angle), std::sin(angle)}; };
  const auto key = [&](double angle) {
    const Point2<double> p = on_circle(angle);
    return core::split_x_key(p.x, orient2d(lo, hi, p) < 0, scale);
  };
  constexpr double kStep = 1e-14;  // radians between a run's points: well within one key
  std::size_t at = 1;
  for (const double side : {1.0, -2.0}) {  // above the baseline, below it
    double start = side;
    for (const int length : {core::kThreadKeyRun - 1, core::kWarpKeyRun - 1, core::kBlockKeyRun - 1}) {
      while (key(start) != key(start + kStep * (length - 1))) start += kStep * length;
      for (int k = 0; k < length; ++k) {
        while (at == lo_index || at == hi_index) ++at;
        circle[at] = on_circle(start + kStep * k);
        at += 97;
      }
      start += 0.01;  // the next run apart
    }
  }
  return circle;
}

/// The circle with many short runs of one key (2 to core::kThreadKeyRun points each, distinct points
/// 1e-14 radians apart, at random angles), and the points at x = -1 and x = 1 made runs of one key by
/// equal x (the smallest and the largest point lie in them: the lower chain's ends).
testing::Points<double> with_short_key_runs(testing::Points<double> circle, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> length(2, core::kThreadKeyRun);
  std::uniform_real_distribution<double> angle(0, 2 * M_PI);
  std::uniform_int_distribution<std::size_t> place(0, circle.size() - 1);
  const auto on_circle = [](double a) { return Point2<double>{std::cos(a), std::sin(a)}; };
  for (int run = 0; run < 4000; ++run) {
    const double start = angle(rng);
    for (int k = length(rng); k > 0; --k) circle[place(rng)] = on_circle(start + 1e-14 * k);
  }
  for (const double x : {-1.0, 1.0}) {
    for (int k = -7; k <= 7; ++k) circle[place(rng)] = {x, 1e-14 * k};
  }
  return circle;
}

// Most points in convex position and none certified inside the inner polygon: 8-byte points in one
// array skip the filter's copy and go to the sort on a key where they are (finish_unfiltered). Exact
// for a double and an int64 circle, with -0 written as +0 as the filter writes it; a non-finite
// point off the samples is named as the filter names it; a run of one key longer than a block sorts
// (a parabola's points clustered within a key at its vertex) goes back to the filter's path; two
// points far out along the x axis put the circle inside the inner polygon, so the filter runs; runs of
// one key of every length the split sorts, on both sides of the baseline, stay on the unfiltered path.
// At this n the chains' first tiles read the points by place (with many short runs of one key, and
// runs at both ends); a circle just below the chains' filter threshold (where the chains are
// enqueued) takes the split written out.
TEST_F(CudaTest, UnfilteredFullHullOfPointsInConvexPosition) {
  const GuideFrom guide_from(index_t{1} << 16);
  const KeySortFrom key_sort_from(1);
  SCOPED_TRACE("seed " + std::to_string(seed_));
  const std::size_t n = (std::size_t{1} << 20) + 3;  // every 4th point sampled for the polygon
  auto circle = testing::circle<double>(n, rng_);
  circle[n / 3] = {-0.0, 1.0};
  circle[n / 2] = {-0.0, -1.0};
  {
    const auto run = device_hull_with_profile(circle);
    ASSERT_EQ(run.hull, cpu::convex_hull_serial<double>(circle)) << "double circle";
    EXPECT_TRUE(run.profile.unfiltered) << "double circle";
    EXPECT_TRUE(run.profile.chains_read_by_place) << "double circle";
    EXPECT_EQ(run.survivors, static_cast<index_t>(n));
    EXPECT_FALSE(run.profile.chain_guides);
    for (const auto& v : run.hull) EXPECT_FALSE(std::signbit(v.x) && v.x == 0) << "-0 in the hull";
  }
  {
    testing::Points<std::int64_t> ring;
    std::uniform_real_distribution<double> angle(0, 2 * M_PI);
    for (std::size_t i = 0; i < n; ++i) {
      const double a = angle(rng_);
      ring.push_back({std::llround(0x1p40 * std::cos(a)), std::llround(0x1p40 * std::sin(a))});
    }
    const auto run = device_hull_with_profile(ring);
    ASSERT_EQ(run.hull, cpu::convex_hull_serial<std::int64_t>(ring)) << "int64 circle";
    EXPECT_TRUE(run.profile.unfiltered) << "int64 circle";
    EXPECT_TRUE(run.profile.chains_read_by_place) << "int64 circle";
  }
  for (const std::size_t bad : {std::size_t{5}, n - 2}) {  // off the polygon's and the check's samples
    auto pts = circle;
    pts[bad].y = bad == 5 ? NAN : -INFINITY;
    pts[bad + 1].x = NAN;  // a second one: the first is reported
    expect_names_non_finite([&] { DevicePoints<double>(pts).convex_hull(false); }, bad, "unfiltered");
  }
  {
    testing::Points<double> parabola;
    for (std::size_t i = 0; i <= n - 6000; ++i) {  // x from -1 to 1: the key's range
      const double x = -1 + 2 * static_cast<double>(i) / static_cast<double>(n - 6000);
      parabola.push_back({x, x * x});
    }
    for (std::size_t i = 1; i <= 6000; ++i) {  // 6,000 points within 1e-10 of the vertex
      const double x = 1.6e-14 * static_cast<double>(i);
      parabola.push_back({x, x * x});
    }
    const core::XKeyScale scale = core::x_key_scale(-1, 1);  // one key holds all of them
    ASSERT_EQ(core::split_x_key(1.6e-14, true, scale), core::split_x_key(1.6e-14 * 6000, true, scale));
    std::shuffle(parabola.begin(), parabola.end(), rng_);
    const auto run = device_hull_with_profile(parabola);
    ASSERT_EQ(run.hull, cpu::convex_hull_serial<double>(parabola)) << "parabola with a cluster";
    EXPECT_FALSE(run.profile.unfiltered) << "a key's run too long for a block";
    testing::Points<double> spread(parabola.begin(), parabola.end());
    std::erase_if(spread, [](const Point2<double>& p) { return p.x > 0 && p.x < 1e-9; });
    const auto spread_run = device_hull_with_profile(spread);
    ASSERT_EQ(spread_run.hull, cpu::convex_hull_serial<double>(spread)) << "parabola";
    EXPECT_TRUE(spread_run.profile.unfiltered) << "parabola";
  }
  {
    auto far = circle;
    far[7] = {1e12, 0.0};
    far[11] = {-1e12, 0.0};
    const auto run = device_hull_with_profile(far);
    ASSERT_EQ(run.hull, cpu::convex_hull_serial<double>(far)) << "circle with far points";
    EXPECT_FALSE(run.profile.unfiltered) << "circle with far points";
  }
  {
    // The runs a thread, a warp and a block sort, above the baseline and below it (where the split
    // writes them, reflected, to the lower chain's input).
    const auto runs = with_key_runs(circle);
    const auto run = device_hull_with_profile(runs);
    ASSERT_EQ(run.hull, cpu::convex_hull_serial<double>(runs)) << "circle with runs of one key";
    EXPECT_TRUE(run.profile.unfiltered) << "circle with runs of one key";
    EXPECT_TRUE(run.profile.chains_read_by_place) << "circle with runs of one key";
    const auto short_runs = with_short_key_runs(circle, rng_);
    const auto short_run = device_hull_with_profile(short_runs);
    ASSERT_EQ(short_run.hull, cpu::convex_hull_serial<double>(short_runs))
        << "circle with short runs of one key";
    EXPECT_TRUE(short_run.profile.chains_read_by_place) << "circle with short runs of one key";
  }
  {
    const std::size_t below = static_cast<std::size_t>(cuda::UpperHullPolicy<double>::kFilterFrom) - 100;
    const testing::Points<double> small(circle.begin(), circle.begin() + static_cast<std::ptrdiff_t>(below));
    for (const auto& pts : {small, with_key_runs(small)}) {
      const auto run = device_hull_with_profile(pts);
      ASSERT_EQ(run.hull, cpu::convex_hull_serial<double>(pts)) << "circle below the chains' filter";
      EXPECT_TRUE(run.profile.unfiltered) << "circle below the chains' filter";
      EXPECT_FALSE(run.profile.chains_read_by_place) << "circle below the chains' filter";
    }
  }
}

/// The full hull's chains' in-place rounds from `n` tile-hood points.
using ChainsInPlaceFrom = ThresholdAt<cuda::chains_in_place_from, cuda::set_chains_in_place_from>;

/// n points on a circle, in random order; for one point in four below the x axis (and above it too,
/// with `both_sides`), one more just inside it, so that the chain of that side is not every point
/// (in tiles that start with such a point, the seam between the tiles' hoods turns left, and the
/// chain takes the device-wide rounds, where the coordinates hold the circle's points in convex
/// position), while a side without them is every point of its chain (the tiles' hoods meet convexly).
template <class T>
testing::Points<T> circle_with_inner_neighbours(std::size_t n, bool both_sides, std::mt19937_64& rng) {
  const double radius = std::is_integral_v<T> ? (sizeof(T) == 8 ? 0x1p40 : 0x1p29) : 1.0;
  std::uniform_real_distribution<double> angle(0, 2 * M_PI);
  testing::Points<T> pts;
  const auto point = [&](double r, double a) {
    const double x = r * std::cos(a), y = r * std::sin(a);
    if constexpr (std::is_integral_v<T>) {
      return Point2<T>{static_cast<T>(std::llround(x)), static_cast<T>(std::llround(y))};
    } else {
      return Point2<T>{static_cast<T>(x), static_cast<T>(y)};
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    const double a = angle(rng);
    pts.push_back(point(radius, a));
    if (i % 4 == 0 && (both_sides || std::sin(a) < 0)) pts.push_back(point(radius * (1 - 1e-6), a));
  }
  std::shuffle(pts.begin(), pts.end(), rng);
  return pts;
}

// The join reads a chain's hood where the in-place rounds left it, in their tiles (no compaction
// first): with those rounds from 0 points, one chain in tiles and the other dense, then both in
// tiles, with 8-byte coordinates; with them out of reach, the same inputs take the copying rounds
// and a dense join. Each hull exact against the CPU's, in every coordinate type.
template <class T>
void chains_joined_from_their_tiles(std::mt19937_64& rng) {
  // Survivors above UpperHullPolicy::kFilterFrom: the chains take chain_and_join's path with host
  // waits, the one that asks for hoods in tiles.
  const std::size_t n = (std::size_t{1} << 20) + 5;
  for (const bool both_sides : {false, true}) {
    const auto pts = circle_with_inner_neighbours<T>(n, both_sides, rng);
    const std::string what = std::string(both_sides ? "both sides" : "below only") + ", " +
                             (std::is_integral_v<T> ? "int" : "float") + std::to_string(8 * sizeof(T));
    const auto expected = cpu::convex_hull_serial<T>(pts);
    {
      const ChainsInPlaceFrom in_place(0);
      const auto run = device_hull_with_profile(pts);
      ASSERT_EQ(run.hull, expected) << what;
      // 4-byte coordinates round a circle of 2^20 points into dents, so most points leave the tiles'
      // hoods and the chains compact rather than merge in rounds: only their hulls are checked.
      if constexpr (sizeof(T) == 8) {
        if (both_sides) {
          EXPECT_EQ(run.profile.chains_in_tiles, 2) << what;
        } else if constexpr (std::is_same_v<T, double>) {
          EXPECT_EQ(run.profile.chains_in_tiles, 1) << what << ": the upper chain every point, dense";
        } else {
          EXPECT_GE(run.profile.chains_in_tiles, 1) << what;
        }
      }
    }
    const ChainsInPlaceFrom copying(index_t{1} << 40);
    const auto run = device_hull_with_profile(pts);
    ASSERT_EQ(run.hull, expected) << what << ", copying rounds";
    EXPECT_EQ(run.profile.chains_in_tiles, 0) << what << ", copying rounds";
  }
}

TEST_F(CudaTest, FullHullJoinsChainsFromTheirTiles) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  chains_joined_from_their_tiles<double>(rng_);
  chains_joined_from_their_tiles<float>(rng_);
  chains_joined_from_their_tiles<std::int64_t>(rng_);
  chains_joined_from_their_tiles<std::int32_t>(rng_);
}

// A non-finite point in the guide's samples (point 0: in every sample) or only in the guided pass
// (point 5): the error names the point of the input, not of a sample; with the guide as the hull of
// the whole sample (which sees the point) and as the star's polygon (which leaves it out).
TEST_F(CudaTest, GuidedFullHullNamesTheNonFinitePoint) {
  const GuideFrom guide_from(index_t{1} << 22);
  const std::size_t n = std::size_t{1} << 22;
  const auto circle = testing::circle<float>(n, rng_);
  for (const index_t star_from : {cuda::kDefaultMinPointsForGuideStar, index_t{0}}) {
    const GuideStarFrom guide_star_from(star_from);
    for (std::size_t bad : {std::size_t{0}, std::size_t{5}, n - 1}) {
      auto pts = circle;
      pts[bad].x = bad == 5 ? INFINITY : NAN;
      if (bad + 1 < n) pts[bad + 1].y = NAN;  // a second one: the first is reported
      expect_names_non_finite([&] { DevicePoints<float>(pts).convex_hull(false); }, bad,
                              star_from == 0 ? "guided by the star" : "guided");
    }
  }
}

// In the sample and out of it, in the first chunk and in a later one, from host and device memory;
// float points take the float filter's vote, whose steps queue the points it leaves (filter_kernel).
template <class T>
void expect_non_finite_points_named(std::mt19937_64& rng) {
  const std::size_t n = (std::size_t{1} << 24) + 17;  // chunks of 64 MB, the last one partial
  auto pts = testing::uniform_disk<T>(n, rng);
  for (std::size_t bad : {std::size_t{0}, std::size_t{54321}, std::size_t{1} << 23, n - 1}) {
    auto with_bad = pts;
    with_bad[bad].y = bad % 2 ? NAN : INFINITY;
    with_bad[bad + 1 < n ? bad + 1 : 0].x = NAN;  // a second one: the first is reported
    const std::size_t first = bad + 1 < n ? bad : 0;
    expect_names_non_finite(
        [&] {
          convex_hull<T>(with_bad, {Backend::cuda, nullptr});
        },
        first, "from host memory");
    expect_names_non_finite([&] { DevicePoints<T>(with_bad).convex_hull(false); }, first,
                            "from device memory");
  }
}

TEST_F(CudaTest, ConvexHullNonFiniteInputIsAnInputErrorNamingThePoint) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  expect_non_finite_points_named<double>(rng_);
  expect_non_finite_points_named<float>(rng_);
}

// The radix sort orders -0 before +0, lex_less does not tell them apart: points on x = 0 with both
// signs of zero, in x and in y, must still come out as the exact hull.
TEST_F(CudaTest, ConvexHullSignedZeros) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  const double values[] = {-0.0, 0.0, 1.0, -1.0, 0.5};
  std::uniform_int_distribution<int> pick(0, 4);
  for (std::size_t n : {std::size_t{7}, std::size_t{40000}}) {
    std::vector<Point2<double>> pts(n);
    for (auto& p : pts) p = {values[pick(rng_)], values[pick(rng_)]};
    for (auto& p : pts) p.x = p.x == 1.0 ? 0.0 * (pick(rng_) - 2) : p.x;  // more zeros on x = 0
    const auto expected = cpu::convex_hull_serial<double>(pts);
    EXPECT_EQ(convex_hull<double>(pts, {Backend::cuda, nullptr}), expected) << n;
    EXPECT_EQ(DevicePoints<double>(pts).convex_hull(true), expected) << n;
  }
}

template <class T>
void convex_hull_every_family(std::mt19937_64& rng, std::initializer_list<std::size_t> sizes);

// Small enough for compute-sanitizer's racecheck (shared memory hazards in the tile kernel's
// rounds): full hoods through every in-block round, a few tiles, both precisions and policies.
TEST_F(CudaTest, RacecheckSizedInputs) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (const Rounds rounds : kEveryRounds) {
    expect_upper_equal_with_rounds(testing::sorted_copy(testing::parabola<double>(6000, rng_)), rounds,
                                   std::string("parabola double, ") + rounds_name(rounds));
    expect_upper_equal_with_rounds(testing::sorted_copy(testing::parabola<float>(9000, rng_)), rounds,
                                   std::string("parabola float, ") + rounds_name(rounds));
  }
  expect_upper_equal(mostly_strict_with_collinear_runs<double>(5000, 8, 2), "collinear runs of 3");
  for (const Rounds rounds : {Rounds::in_place_warps, Rounds::in_place_blocks}) {  // walks and searches
    expect_upper_equal_with_rounds(dented_at_tile_seams<double>(40000, 2 * core::kWalkSteps), rounds,
                                   std::string("dented at tile seams, ") + rounds_name(rounds));
    expect_upper_equal_with_rounds(scallops<double>(9000, 3000), rounds, rounds_name(rounds));
  }
  const auto circle = testing::circle<double>(20000, rng_);
  EXPECT_EQ(convex_hull<double>(circle, {Backend::cuda}), cpu::convex_hull_serial<double>(circle));
}

// Small enough for compute-sanitizer (scripts/gpu-all.sh runs memcheck and racecheck on it): one tile
// (merges inside a block), several tiles (merges across blocks), the in-place rounds, the key sort,
// the survivors' polygon, and every family.
TEST_F(CudaTest, SanitizerSizedInputs) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  both_tile_policies<double>(rng_, {100, 3000, 70000});
  expect_upper_equal(convex_runs<double>(20000, 3), "convex runs");
  expect_upper_equal(mostly_strict_with_collinear_runs<double>(20000, 8, 2), "collinear runs of 3");
  expect_upper_equal(repeated_parabola<double>(20000, 2, 5000), "repeated parabola");
  both_tile_policies<float>(rng_, {777, 5000});
  // The in-place rounds' searches, by warps and by blocks (scallops: hoods that do not meet convexly,
  // their bridges far from the seams), and their walks (dents past the seams, some too deep to walk).
  for (const Rounds rounds : {Rounds::in_place_warps, Rounds::in_place_blocks}) {
    expect_upper_equal_with_rounds(scallops<double>(20000, 3000), rounds, rounds_name(rounds));
    expect_upper_equal_with_rounds(dented_at_tile_seams<double>(40000, 2 * core::kWalkSteps), rounds,
                                   std::string("dented at tile seams, ") + rounds_name(rounds));
  }
  guide_filter_every_family<float>(rng_, {5000});
  convex_hull_every_family<double>(rng_, {50, 20000});
  const KeySortFrom from(1);
  sorted_by_key_or_by_x<double>(rng_, 5003);
  convex_hull_every_family<double>(rng_, {50});
  // The survivors' polygon's kernels (the scores, the peel, the corners, the filter).
  const SurvivorPolygonFrom every(0);
  convex_hull_every_family<double>(rng_, {20000});
  thin_annulus_hulls<double>(rng_, 1 << 17, 1.0, true);
  thin_annulus_hulls<float>(rng_, 1 << 17, 1.0, true);
}

// Sorted input in runs of equal x as long as the polygon's sample stride (floats on a grid finer
// than their own, here 2^20 points in runs of 4 and a stride of 4): the sample takes its runs of
// neighbours from anywhere in their windows (core::sample_place), so the polygon keeps its upper
// side and certifies most points inside.
// With every stride-th point the sample held only each run's lowest point, and the polygon kept 6 %
// of such a float disk at 2^28 (bench/NOTES.md, "The sorted upper hull by the full hull's pipeline").
template <class T>
void sorted_runs_leave_few_survivors(std::mt19937_64& rng) {
  const std::size_t n = std::size_t{1} << 20, run = n / static_cast<std::size_t>(core::kPolygonSampleSize);
  const std::size_t columns = n / run;
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  testing::Points<T> pts(n);
  for (std::size_t c = 0; c < columns; ++c) {
    const double x = -1.0 + 2.0 * (static_cast<double>(c) + 0.5) / static_cast<double>(columns);
    const double half = std::sqrt(1.0 - x * x);
    for (std::size_t r = 0; r < run; ++r)
      pts[c * run + r] = {static_cast<T>(x), static_cast<T>(unit(rng) * half)};
    std::sort(pts.begin() + static_cast<std::ptrdiff_t>(c * run),
              pts.begin() + static_cast<std::ptrdiff_t>((c + 1) * run), lex_less<T>);
  }
  ASSERT_TRUE(std::is_sorted(pts.begin(), pts.end(), lex_less<T>));
  cuda::DeviceBuffer<Point2<T>> d(n);
  ASSERT_EQ(cudaMemcpy(d.data(), pts.data(), n * sizeof(Point2<T>), cudaMemcpyHostToDevice), cudaSuccess);
  index_t survivors = 0;
  EXPECT_EQ(cuda::convex_hull_on_device<T>(d.data(), static_cast<index_t>(n), nullptr, &survivors),
            cpu::convex_hull_serial<T>(pts));
  EXPECT_LT(survivors, static_cast<index_t>(n / 64)) << "the polygon certified too few of " << n;
}

TEST_F(CudaTest, SortedRunsAsLongAsTheSampleStrideLeaveFewSurvivors) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  sorted_runs_leave_few_survivors<float>(rng_);
  sorted_runs_leave_few_survivors<double>(rng_);
}

// compute-sanitizer's size of the sorted input's checks: the guide filter's and the tile level's,
// each at a few thousand points, a swap and a non-finite point named.
TEST_F(CudaTest, SanitizerSizedSortedChecks) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  names_the_first_point_out_of_order<float>(rng_, CheckedBy::guide_filter, 9001);
  names_the_first_point_out_of_order<double>(rng_, CheckedBy::tiles, 9001);
  names_the_first_non_finite_point<double>(rng_, CheckedBy::guide_filter, 9001);
  names_the_first_non_finite_point<float>(rng_, CheckedBy::tiles, 9001);
}

// The join of tile hoods for compute-sanitizer (scripts/gpu-all.sh): upper_hull_enqueued's first
// level joined, over three tiles and a few more than the count fills, and a guide's small sample of
// three tiles (double: 70000 points, a sample of n/16).
TEST_F(CudaTest, SanitizerSizedJoin) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  cuda::UpperHullWorkspace<double> ws;
  ws.join_hoods = true;
  constexpr auto kTile = static_cast<std::size_t>(cuda::UpperHullPolicy<double>::kTile);
  for (const auto& make :
       {testing::uniform_disk<double>, testing::circle<double>, testing::duplicates<double>}) {
    const auto pts = testing::sorted_copy(make(3 * kTile + 5, rng_));
    for (const std::size_t bound : {pts.size(), pts.size() + 2 * kTile}) {
      cuda::EnqueuedHullWords words;
      ASSERT_EQ(enqueued_upper_hull<double>(pts, static_cast<index_t>(bound), ws, words),
                cpu::upper_chain<double>(pts));
    }
  }
  guide_filter_every_family<double>(rng_, {70000});
}

// The block finish's kernel for compute-sanitizer (its own test, so that racecheck's time limit
// for SanitizerSizedInputs stays as it was): at its bound (a full tile in the wider type), and in
// float.
TEST_F(CudaTest, SanitizerSizedBlockFinish) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  convex_hull_every_family<double>(rng_,
                                   {static_cast<std::size_t>(cuda::kDefaultMaxSurvivorsForBlockFinish)});
  convex_hull_every_family<float>(rng_, {50});
}

TEST_F(CudaTest, DeviceEntryPointTakesDevicePointers) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  auto pts = testing::sorted_copy(testing::gaussian<float>(300000, rng_));
  Point2<float>*d_in = nullptr, *d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_in, pts.size() * sizeof(pts[0])), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_out, pts.size() * sizeof(pts[0])), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_in, pts.data(), pts.size() * sizeof(pts[0]), cudaMemcpyHostToDevice), cudaSuccess);
  const index_t h = cuda::upper_hull_device<float>(d_in, static_cast<index_t>(pts.size()), d_out);
  std::vector<Point2<float>> got(static_cast<std::size_t>(h));
  ASSERT_EQ(cudaMemcpy(got.data(), d_out, got.size() * sizeof(got[0]), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(got, cpu::upper_chain<float>(pts));
  // Unsorted device input is an input error, found inside the kernel.
  std::swap(pts[1000], pts[2000]);
  ASSERT_EQ(cudaMemcpy(d_in, pts.data(), pts.size() * sizeof(pts[0]), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_THROW(cuda::upper_hull_device<float>(d_in, static_cast<index_t>(pts.size()), d_out), input_error);
  // The full hull takes any order.
  const index_t hn = cuda::convex_hull_device<float>(d_in, static_cast<index_t>(pts.size()), d_out);
  std::vector<Point2<float>> full(static_cast<std::size_t>(hn));
  ASSERT_EQ(cudaMemcpy(full.data(), d_out, full.size() * sizeof(full[0]), cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(full, cpu::convex_hull_serial<float>(pts));
  cudaFree(d_in);
  cudaFree(d_out);
}

// ---- integer points: int32 and int64, against the exact reference in the integers -----------------

/// Every integer family through the host entry point (full and upper, presorted) and both device
/// entry points, against tests/integer_reference.hpp; by default sizes on both sides of the filter's
/// threshold (2^14), of a tile and of the upper hull's guide filter (2^20).
template <class T>
void integer_hulls_every_family(std::mt19937_64& rng, std::initializer_list<std::size_t> sizes) {
  for (const auto& family : testing::integer_families<T>()) {
    for (const std::size_t n : sizes) {
      SCOPED_TRACE(family.name + " n=" + std::to_string(n));
      const auto pts = family.make(n, rng);
      const auto expected = testing::reference_hull(pts);
      HullStats stats;
      ASSERT_EQ(convex_hull<T>(pts, {Backend::cuda, &stats}), expected);
      const DevicePoints<T> device(pts);
      ASSERT_EQ(device.convex_hull(false), expected) << "device, Point2";
      ASSERT_EQ(device.convex_hull(true), expected) << "device, x and y arrays";
      HullOptions options{Backend::cuda};
      options.part = HullPart::upper;
      const auto upper = testing::reference_hull(pts, true);
      ASSERT_EQ(compute_hull<T>(pts, options).vertices, upper) << "upper";
      options.presorted = true;
      ASSERT_EQ(compute_hull<T>(testing::sorted_copy(pts), options).vertices, upper) << "upper, presorted";
    }
  }
}

TEST_F(CudaTest, Int32HullsAreExactOnEveryEntryPoint) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  integer_hulls_every_family<std::int32_t>(rng_);
}

TEST_F(CudaTest, Int64HullsAreExactOnEveryEntryPoint) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  integer_hulls_every_family<std::int64_t>(rng_);
}

// The integer kernels at sizes for compute-sanitizer (the full sizes above take over five minutes
// under racecheck): one tile, several, and the filter from 2^14.
TEST_F(CudaTest, SanitizerSizedInt32Hulls) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  integer_hulls_every_family<std::int32_t>(rng_, {0, 5, 3000, 20000});
}

TEST_F(CudaTest, SanitizerSizedInt64Hulls) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  integer_hulls_every_family<std::int64_t>(rng_, {0, 5, 3000, 20000});
}

// The filter's polygon and the dense guide take only points exact in double: a disk exact in double
// with points a unit either side of 2^53 scattered through it (sampled, and kept by the filter), a
// circle of integer points (the guide's case: rounded to the grid, not all in convex position) at
// the 2^60 scale, where none is exact, and at 2^40 with a few far points among its samples.
TEST_F(CudaTest, Int64FilterAndGuideNeverCertifyARoundedPoint) {
  const GuideFrom guide_from(index_t{1} << 22);
  SCOPED_TRACE("seed " + std::to_string(seed_));
  const std::size_t n = std::size_t{1} << 22;
  const std::int64_t far = (std::int64_t{1} << 53) + 1;
  std::uniform_int_distribution<std::size_t> at(0, n - 1);
  std::uniform_int_distribution<int> unit(-2, 2);
  {
    auto pts = testing::integer_disk<std::int64_t>(n, 0x1p40, 0, 0, rng_);
    for (int k = 0; k < 1000; ++k) pts[at(rng_)] = {far + unit(rng_), unit(rng_)};
    pts[0] = {-far, -far};
    const auto run = device_hull_with_profile(pts);
    ASSERT_EQ(run.hull, testing::reference_hull(pts)) << "disk with far points";
    EXPECT_LT(run.survivors, static_cast<index_t>(n / 100)) << "the filter did not run";
  }
  // The guide as the hull of the whole sample (whose gather replaces rounded points) and as the
  // star's polygon (which leaves them out).
  std::uniform_real_distribution<double> angle(0, 2 * M_PI);
  for (const index_t star_from : {cuda::kDefaultMinPointsForGuideStar, index_t{0}}) {
    const GuideStarFrom guide_star_from(star_from);
    for (const double radius : {0x1p60, 0x1p40}) {
      std::vector<Point2<std::int64_t>> pts(n);
      for (auto& p : pts) {
        const double a = angle(rng_);
        p = {static_cast<std::int64_t>(radius * std::cos(a)),
             static_cast<std::int64_t>(radius * std::sin(a))};
      }
      if (radius < 0x1p53) {
        for (int k = 0; k < 100; ++k) pts[at(rng_)] = {far + unit(rng_), far};
      }
      const std::string what =
          "circle of radius " + std::to_string(radius) + (star_from == 0 ? ", star" : "");
      const auto run = device_hull_with_profile(pts);
      ASSERT_EQ(run.hull, testing::reference_hull(pts)) << what;
      EXPECT_GE(run.survivors, static_cast<index_t>(run.hull.size())) << what;
      ASSERT_EQ(convex_hull<std::int64_t>(pts, {Backend::cuda, nullptr}), run.hull)
          << what << ", from the host";
    }
  }
}

// Several devices (all there are) on integer points: the slices' hulls merged by merge_hulls.
TEST_F(CudaTest, Int64HullsOnEveryDevice) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (const auto& family : testing::integer_families<std::int64_t>()) {
    const auto pts = family.make(std::size_t{1} << 20, rng_);
    HullOptions options{Backend::cuda};
    options.devices = {all_devices};
    options.indices = true;
    const auto got = compute_hull<std::int64_t>(pts, options);
    const auto expected = testing::reference_hull(pts);
    ASSERT_EQ(got.vertices, expected) << family.name;
    ASSERT_EQ(got.indices, testing::reference_indices(pts, expected)) << family.name;
  }
}

}  // namespace
}  // namespace wagener
