// Launch parameters of the upper-hull kernels, in one place (measurements in bench/NOTES.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace wagener::cuda {

/// What the guide filter also drops of the points its guide keeps, from each point's two input
/// neighbours (core/neighbour_thinning.hpp), where the guide came from the bigger sample (a dense
/// hull: many survivors) and only for float points (UpperHullPolicy::kFilterThins); every other
/// filter launch is the kernel without it.
enum class FilterThinning : int {
  none = 0,     ///< nothing: every point the guide does not certify below it survives
  repeats = 1,  ///< a point equal to the input's point before it
  in_line = 2,  ///< that, and a point exactly inside the segment from the point before it to the
                ///< next point unlike it
};

template <class T>
struct UpperHullPolicy {
  // A block hulls a tile of kThreads strips of kStrip points: each thread chains its strip serially
  // (the seed's optimal-work variant), then log2(kThreads) Wagener rounds merge the strip hoods in
  // place in shared memory. Strips are padded to kStrip + 1 slots so that the threads' serial walks
  // hit distinct banks. 32-point float strips and 16-point double strips keep a block's shared memory
  // near 45 KB, so four or more blocks share a multiprocessor.
  static constexpr int kThreads = 128;
  static constexpr int kStrip = sizeof(T) == 4 ? 32 : 16;
  static constexpr int kStride = kStrip + 1;
  static constexpr int kTile = kThreads * kStrip;
  // Rounds of the peel (core/peel.hpp) on a hull's first level before a tile falls back to the
  // strips' chains and the merges. Simulated on the host at the density of 2^28 points: a double
  // circle's tiles are their own hoods after 3-4 rounds (10-17 % of the points dropped in the
  // first), a float circle's survivors after 4-11, random points after a dozen or more. Measured
  // (bench/NOTES.md): the double circle's chains 26.1 -> 19.8 ms with 4 rounds or 16; the float
  // parabola's levels 1.21 -> 0.90 ms and the float circle's chains 1.03 -> 0.90 with 16, not 4.
  static constexpr int kPeelRounds = 16;
  // A tile's points reach shared memory by asynchronous copies, all in flight at once
  // (BlockUpperHull::load).
  static constexpr bool kLoadAsync = true;
  // After its first round, the peel judges only the points whose neighbours changed, for 8-byte
  // coordinates: the double circle's tile kernel 2.33 -> 1.97 ms; a float strip (32 points, drops
  // all along it on the float parabola) paid more for the bookkeeping than it saved (bench/NOTES.md,
  // "The peel judging again only the points whose neighbours changed").
  static constexpr bool kPeelJudgesAgain = sizeof(T) == 8;
  // Blocks of the tile kernel a multiprocessor should hold (__launch_bounds__' second argument):
  // shared memory allows six, where the 93-96 registers ptxas takes unbounded allow five. At six it
  // takes 78-80 (36-48 bytes of spills): the double circle's tile kernel 1.96 -> 1.78 ms, the float
  // parabola's largest 363 -> 329 µs (bench/NOTES.md, "The tile kernel at six blocks a multiprocessor").
  static constexpr int kTileBlocksPerSm = 6;
  // Steps of the walk from the seam before a merge's search (core::walk_bridge); 0: search only.
  static constexpr int kWalkSteps = 0;
  // Between levels, the tile hoods are compacted into a new, shorter point set while that at least
  // halves it; otherwise (most points on the hull) device-wide rounds merge the tile hoods.
  static constexpr double kCompactionGain = 0.5;
  // A level of at most this many tiles (the guide's small sample, the filter's survivors, a random
  // input's chains) whose hoods would go to further levels is joined in one step instead
  // (core/hood_join.hpp: every pair's bridge, a warp a pair, then every hood's span): the last kernel
  // scans the spans in each of its blocks, this many threads, a thread a hood. The enqueued survivors'
  // levels take up to two tiles a multiprocessor. On by default
  // (hood_join_enabled(), UpperHullWorkspace::join_hoods).
  static constexpr int kJoinMostHoods = 512;
  // Device-wide rounds: threads per block and virtual processors per work unit (one block-wide loop).
  static constexpr int kRoundThreads = 256;
  static constexpr int kUnit = 2048;
  // Device-wide rounds with hoods kept in place (in_place_rounds): one warp per merge finds the
  // bridge by nested sampling with at most kMaxSamples samples per bracket (kMaxSamples^2 <= 32
  // lanes, one virtual processor each); deeper searches for larger hoods (5^13 > 2^30 positions).
  static constexpr int kMaxSamples = 5;
  // A round of fewer merges than the device has multiprocessors (the last rounds, over the largest
  // hoods) leaves most of them idle while each warp's search takes depth (depth + 1) steps, some 150
  // at 2^27 positions. Then a block of kBlockMergeSamples^2 threads takes each merge: 16 samples a
  // bracket, depth 7 at 2^27 (56 steps), each step a block-wide sync.
  static constexpr int kBlockMergeSamples = 16;
  // The in-place rounds from this many tile-hood points up; below, the copying rounds (Wagener's
  // mam phases over the whole device, one hood copy per round: seven launches a round, against the
  // in-place rounds' one). Measured (bench_cuda --in-place-from-log2 and
  // --chains-in-place-from-log2, H200, bench/NOTES.md): from 2^16 rather than 2^24, the presorted
  // float parabola's levels 0.61 -> 0.41 ms at 2^24 points and 0.87 -> 0.66 at 2^28, the float
  // circle's chains 0.65-0.79 -> 0.50-0.59 ms at 2^28, the double circle's 6.8 -> 0.6-0.7 ms at
  // 2^24; at 2^20 points, the same. (Once, before the seam tests and the block merges, the float
  // parabola's second-level hoods lost 0.5-1 ms in place.)
  static constexpr long long kInPlaceFrom = 1 << 16;
  static constexpr int kMergeWarpsPerBlock = 8;
  // Blocks per multiprocessor for the grid-stride kernels.
  static constexpr int kBlocksPerSm = 8;
  // Guide filter for large inputs: the upper hull of an evenly spaced sample of n >> kSampleShift
  // points (kMinSample to kMaxSample) is computed first, by these same kernels; one streaming pass then drops
  // every point certified strictly below it, and only the survivors are tiled. A dense guide, k vertices of a
  // sample of m with k^2 > kDenseGuide m (a uniform disk's hood has ~3.4 m^(1/3) vertices; a hull
  // of points mostly near it, like the float parabola, a fixed fraction of m), leaves many
  // survivors, and a sample of n >> kDenseSampleShift takes its place: for 2^28 float points, half
  // the survivors on the parabola (6.4 ms instead of 8.3), where the disk would pay 0.13 ms for the
  // larger sample (bench/NOTES.md). The filter is skipped when the guide keeps more than
  // kMaxGuideFraction of its sample (nearly every point a vertex: nothing would be dropped). One
  // filter block covers one tile, kFilterItems points a thread.
  static constexpr long long kFilterFrom = 1 << 20;
  static constexpr int kSampleShift = 12;
  static constexpr int kDenseSampleShift = 8;
  static constexpr double kDenseGuide = 16;
  static constexpr long long kMinSample = 1 << 10;
  static constexpr long long kMaxSample = 1 << 22;
  static constexpr double kMaxGuideFraction = 0.5;
  // The small sample's first tile level bounds its hull's size (every vertex of it is one of its
  // tile's hood): where its hoods keep more than this share of the sample, the bigger sample is taken
  // at once, without the small one's further levels. On the bench's 2^28 points (65,536 samples):
  // the float disk's hoods keep 225 (its hull 82), the float parabola's 25,694 (its hull 25,670,
  // dense). Measured (H200, bench/NOTES.md): the float parabola's guide 0.42-0.47 -> 0.33 ms, the
  // disks unchanged. Locally convex, globally concave arcs would take the bigger sample needlessly.
  static constexpr double kDenseFirstLevel = 0.125;
  // The guide filter's blocks (a tile each): float tiles by 512 threads of 8 points (40 registers
  // under __launch_bounds__(512, 3): 48 warps a multiprocessor), the others by 256 threads (64
  // registers; 64-bit integers 72, under a bound of three blocks, without which ptxas chose 64 and
  // spilled). Measured on an H200 against 256 threads (bench/NOTES.md, "The guide filter with more
  // warps, or its tiles staged ahead"): the float parabola's filter 1.15-1.16 -> 1.04-1.06 ms, the
  // float disk's the same; doubles at 512 threads of 4 points were 0.1 ms slower, and 32-bit
  // integers (orient2d's filter in double) spill at 40 registers.
  static constexpr bool kWideFilter = std::is_same_v<T, float>;
  static constexpr int kFilterThreads = kWideFilter ? 512 : 256;
  static constexpr int kFilterBlocksPerSm =
      kWideFilter || std::is_same_v<T, std::int64_t> ? 3 : 0;  // 0: no bound
  static constexpr int kFilterItems = kTile / kFilterThreads;
  // The filter's thinning (FilterThinning) after a dense guide, in float only: the float parabola's
  // survivors are mostly repeats and points in line (bench/NOTES.md, "The guide filter's kept runs
  // peeled"), and core::certainly_inside_segment decides in float arithmetic.
  static constexpr bool kFilterThins = std::is_same_v<T, float>;
};

/// The guide filter's guide from its small sample's extremes in fixed directions
/// (direction_guide.cuh): a thread a direction of the upper half-turn, blocks of chunks of samples
/// (at most kBlocksPerSm a multiprocessor, so that one block of the collecting kernel reads few of
/// their bests); the guide is taken where it leaves at most kMostKept of the sample uncertified, else
/// the sample's hull is built as before. A uniform disk's small sample at 2^28 points (65,536) has an
/// upper hull of about 80 vertices, whose normal cones are about 2 degrees wide against the
/// directions' 0.7.
struct DirectionGuidePolicy {
  static constexpr int kDirections = 256;
  static constexpr int kChunk = 512;
  static constexpr int kBlocksPerSm = 2;
  static constexpr double kMostKept = 1.0 / 32;
};

/// The guide filter's survivors packed in order (upper_hull.cu's gather_runs_kernel): blocks of
/// kThreads threads, kItems output places a thread, at most kBlocksPerSm blocks a multiprocessor,
/// each going on to the places a grid further where there are more.
struct GatherPolicy {
  static constexpr int kThreads = 256;
  static constexpr int kItems = 4;
  static constexpr int kBlocksPerSm = 8;
  static constexpr long long kPlaces = static_cast<long long>(kThreads) * kItems;  // a block's turn
};

/// Tiles of a small level (fewer tiles than kMaxTilesPerSm per multiprocessor: the guide's sample,
/// the filter's survivors, the levels after the first): the same tile in more, shorter strips. A
/// lone block's rounds are a serial chain of phases; with four times the threads each thread runs a
/// quarter of the processors of every phase, at the cost of two more rounds.
template <class T>
struct SmallLevelPolicy {
  static constexpr int kThreads = 512;
  static constexpr int kStrip = sizeof(T) == 4 ? 8 : 4;
  static constexpr int kStride = kStrip + 1;
  static constexpr int kTile = kThreads * kStrip;
  static_assert(kTile == UpperHullPolicy<T>::kTile, "both policies tile alike: one workspace layout");
  // No peel: a small level's few tiles are each a block's latency, and a peel's rounds lengthen it
  // (with the peel on small levels too, the random rows' chains took 0.03-0.25 ms longer).
  static constexpr int kPeelRounds = 0;
  static constexpr bool kPeelJudgesAgain = false;
  // 0: no bound, ptxas' own choice (58-64 registers, two blocks a multiprocessor). A bound of one
  // let it take 123-125 registers, one block a multiprocessor: the presorted double disk's levels
  // 0.132-0.134 -> 0.153-0.157 ms; two gave other code than the unbounded kernel's.
  static constexpr int kTileBlocksPerSm = 0;
  static constexpr int kWalkSteps = 0;
  static constexpr bool kLoadAsync = true;
  static constexpr int kMaxTilesPerSm = 2;
};

}  // namespace wagener::cuda
