// The full hull's pieces shared by its files: convex_hull.cu (the inner polygon, the streaming
// filter, the sorted chains, the entry points), dense_guide.cu (the dense guide that filters where
// the inner polygon leaves most points) and survivor_polygon.cu (the second filter of many
// survivors). Nothing else includes this.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cub/block/block_scan.cuh>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>

#include "core/chains.hpp"
#include "core/chord_fan.hpp"
#include "core/inner_polygon.hpp"
#include "core/strided_sample.hpp"
#include "cuda/buffers.cuh"
#include "cuda/convex_hull.cuh"
#include "cuda/launch.cuh"
#include "cuda/upper_hull.cuh"
#include "wagener/point.hpp"

namespace wagener::cuda::full_hull {

// The inner polygon's vertices are the sample's extreme points in this many equally spaced
// directions: a 256-gon leaves about 1e-4 of a disk's area outside. One thread per direction.
constexpr int kDirections = 256;
// Sample points (every stride-th input point), shared by up to kSampleBlocks blocks of
// kSamplesPerBlock: 512 blocks of one full tile (kSampleTile) each, one wave at four blocks a
// multiprocessor. At 256 a block, two waves of 1,024 took the polygon step 0-7 µs longer at 2^28 on
// the H200 (6-7 on the float rows; bench/NOTES.md).
constexpr index_t kSampleSize = core::kPolygonSampleSize;
constexpr int kSampleBlocks = 1024;
constexpr index_t kSamplesPerBlock = 512;
constexpr int kSampleTile = 512;  // sample points staged in shared memory at a time
// From host memory the sample is gathered by the CPU, from all over the input: fewer points.
constexpr index_t kHostSampleSize = index_t{1} << 15;
// Below this many points the polygon's host round trip costs more than sorting everything.
constexpr index_t kMinPointsToFilter = index_t{1} << 14;
// The streaming filter: threads per block, and points per thread per step (loads in flight).
constexpr int kFilterThreads = 256;
// Behind the dense guide's fan with its ring too (a float circle), 8-byte points take 4 runs a step:
// with the ring and its queue, 4 measured faster than 8 (the float circle's filter 1.53 against
// 1.75 ms at 2^28); without the ring 8 is faster (GuideFanTest; bench/NOTES.md, "The guided filter
// at four runs a step, with the ring").
constexpr int kFilterUnroll = 4;
// Float points behind the inner polygon (one vote a step, filter_kernel's kFloatFirst) take 8 runs
// a step too: at 4, the vote made the disk's filter, near its read, 3 % slower. At 8, 72 registers
// (3 blocks a multiprocessor, against 4 at 58) keep half as many bytes again in flight
// (bench/NOTES.md).
constexpr int kFloatFilterUnroll = 8;
constexpr int kFilterBlocksPerSm = 8;
// Fan tables on the device: vertices, their angles, and the angle buckets (at most 4 per vertex,
// rounded up to a power of two).
constexpr int kMaxFanBuckets = 4 * kDirections;
constexpr int kWarp = 32;
// The dense guide (device memory only). Tried from this many points, when more than 1 / kOutsideShare
// of kDecisionSamples points spread over the polygon's sample are not certified inside it (a disk
// leaves about 1e-4 of them, a float circle all); those points come back with the extreme points,
// in the polygon's one round trip, and are tested on the host. Samples are runs of kSampleRun consecutive
// points (one 32-byte sector of floats), one run every period runs. First a check on about
// kCheckSampleSize points, in one more round trip and a few short kernels: sorted by angle around the
// coarse centre, how many make a certified strict left turn with their neighbours
// (core/angular_convexity.hpp); no guide when more than kMaxCheckConvexShare of them do, since then
// nearly every point is a vertex and a guide removes almost nothing. Measured on the host (numpy, the
// bench's circle at 2^22-2^28 and the guided tests' inputs): a double circle 99.99-100 %, a float
// circle 56-57 %, a double circle whose points come 8 times in a row 0 %, convex runs of 1000
// collinear points 13 %; the 3/4 line sits 18 points above the float circle and 25 below the double
// one, where circles rounded to a grid put the hull vertex share of the sample, the earlier check's
// statistic, at about 72 % (bench/NOTES.md). Then the guide, from a sample of every kGuidePeriod-th
// run: its exact hull, or its star's chains (below).
// Heuristics only: correctness never depends on them. The fewest points for a guide is
// min_points_for_guide() (tests lower it).
constexpr index_t kOutsideShare = 8;
constexpr int kDecisionSamples = 1024;
constexpr index_t kSampleRun = 4;
constexpr index_t kCheckSampleSize = index_t{1} << 16;
constexpr double kMaxCheckConvexShare = 0.75;
// Where the check finds its sample mostly convex and the inner polygon certifies less than 1 - this
// share of the decision samples inside (a double circle: none of the 1,024), the filter would copy
// nearly every point: 8-byte points in one array skip it, and the sort on a 32-bit key reads them
// where they are (finish_unfiltered). Both tests are needed: points far out along the x axis leave
// a circle's points in convex position by angle, but inside the polygon.
constexpr double kMinUnfilteredShare = 0.99;
constexpr int kCheckThreads = 256;  // the check's kernels (grids: stride_grid)
constexpr int kCheckKeyBits = 32;   // the sort takes all of core::angle_key (std::uint32_t)
constexpr index_t kGuidePeriod = 16;
// From min_points_for_guide_star() the guide is not the run sample's hull but a polygon of its star
// (dense_guide.cu, star_polygon): the farthest sample point from the centre in each of about one
// pseudo-angle bucket for every kStarSamplesPerBucket sample points, at most kMaxStarBuckets (a word
// each). Heuristics only: any polygon of input points in angle order is a safe guide (build_guide).
// At 2^28 float points 2^21 buckets (16 MB of words, 8 sample points each) made the guide and its
// filter 0.4 ms faster than 2^22 did, with 0.4 % fewer survivors, and 2^20 (16 each) 0.13 ms faster
// again (bench/NOTES.md, "The star at eight sample points a bucket" and the section after it); at
// 2^24 and 2^26, 8 sample points a bucket measured within the spread of 4, so the cap binds from
// 2^27 points only.
constexpr index_t kStarSamplesPerBucket = 4;
constexpr index_t kMaxStarBuckets = index_t{1} << 20;
// Then each run of kStarChainBuckets buckets keeps its chain convex as seen from the centre, a thread
// a run (kStarChainThreads a block), and so again over the chains, in runs shifted by half a run from
// the level before's, kStarChainLevels levels in all: the guide's polygon, with dents left only where
// two runs of the last level meet.
constexpr int kStarChainBuckets = 32;
constexpr int kStarChainThreads = 256;
constexpr int kStarChainLevels = 4;

/// The star's buckets over m sample points: the largest power of two at most m / samples_per_bucket
/// (the caller's star_samples_per_bucket(): kStarSamplesPerBucket unless set) and kMaxStarBuckets,
/// at least 1 (so never more than m, for m >= 1).
inline int star_buckets(index_t m, index_t samples_per_bucket) {
  index_t buckets = 1;
  while (2 * buckets <= m / samples_per_bucket && 2 * buckets <= kMaxStarBuckets) buckets *= 2;
  return static_cast<int>(buckets);
}
// The survivors' polygon (survivor_polygon.cu): where the inner polygon leaves more survivors than a
// chain's tile, their own extremes in kSurvivorDirections directions (each survivor scored in the
// 2 kSurvivorWindow + 1 directions nearest its own around the centre), peeled to about their hull,
// and that polygon's fan of kSurvivorBuckets buckets filter the survivors once more, into a buffer of
// kSurvivorCapacity points (more: the first survivors are sorted instead). Random inputs of 2^28
// points keep 26-3,475 of 16-215 thousand (bench/NOTES.md).
constexpr int kSurvivorDirections = 1024;
constexpr int kSurvivorWindow = 2;
constexpr int kSurvivorBuckets = 4 * kSurvivorDirections;  // core::chord_fan_buckets of the most vertices
constexpr index_t kSurvivorCapacity = index_t{1} << 18;
// The block finish (block_finish.cu): a chain's input, the survivors on one side of the baseline
// with its two ends, fits one tile of a block.
constexpr int kBlockFinishTile = 4096;
constexpr index_t kBlockFinishPoints = kBlockFinishTile - 2;
constexpr int kBlockFinishBlocks = 4;  ///< the most blocks the block finish takes (a half-chain each)

/// The survivors finish() hulls, as the counters give them: the survivors' polygon's (in ws.alt) where
/// it ran and they fit its buffer, else the inner polygon's (in ws.kept).
struct SurvivorsInUse {
  bool in_alt;
  index_t count;
};
__host__ __device__ inline SurvivorsInUse survivors_in_use(const unsigned long long* counters) {
  const bool in_alt = counters[3] != 0 && counters[2] <= static_cast<unsigned long long>(kSurvivorCapacity);
  return {in_alt, static_cast<index_t>(in_alt ? counters[2] : counters[0])};
}

/// The order-preserving 64-bit image of a coordinate or a score, and back (floats through the double
/// they equal exactly): extreme_key's order, and a long run's slot (convex_hull.cu).
template <class T>
__device__ unsigned long long ordered_image(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    const auto bits = static_cast<unsigned long long>(__double_as_longlong(static_cast<double>(v)));
    return (bits >> 63) ? ~bits : bits | (1ull << 63);
  } else {
    return static_cast<unsigned long long>(static_cast<long long>(v)) ^ (1ull << 63);
  }
}
template <class T>
__device__ T from_ordered_image(unsigned long long image) {
  if constexpr (std::is_floating_point_v<T>) {
    const unsigned long long bits = (image >> 63) ? image & ~(1ull << 63) : ~image;
    return static_cast<T>(__longlong_as_double(static_cast<long long>(bits)));
  } else {
    return static_cast<T>(static_cast<long long>(image ^ (1ull << 63)));
  }
}

/// A direction's best point as one 64-bit word, so that blocks combine by atomicMax: the top 32
/// bits of the order-preserving image of the score (a double, so any finite range works), then
/// 2^32 - 1 - j, so that ties go to the smaller point number j. 0 means no point.
inline __device__ unsigned long long extreme_key(double score, unsigned j) {
  return (ordered_image(score) & 0xffffffff00000000ull) | (0xffffffffu - j);
}

/// The point number j of a nonzero extreme_key.
inline __device__ index_t extreme_index(unsigned long long key) {
  return 0xffffffffu - static_cast<unsigned>(key & 0xffffffffu);
}

using core::sample_place;  // the sample's places (core/strided_sample.hpp)

/// Step 1's gather, one block of kDirections threads: this thread's direction's best sample as a
/// point (NaN where none) at extreme[threadIdx.x], returned too; then `decision` samples spread
/// evenly over all of them (sample q * samples / decision, for q < decision <= samples, each at its
/// sample_place) at extreme[kDirections ...], for the guide's decision. The host's polygon and the
/// device's read them there.
template <class T, class Points>
__device__ Point2<double> gather_extremes(Points points, index_t samples, index_t stride, int decision,
                                          const unsigned long long* best, Point2<double>* extreme) {
  const unsigned long long key = best[threadIdx.x];
  Point2<double> p{NAN, NAN};
  if (key != 0) {
    const Point2<T> q = points[sample_place(extreme_index(key), stride, samples)];
    p = {static_cast<double>(q.x), static_cast<double>(q.y)};
  }
  extreme[threadIdx.x] = p;
  for (int q = threadIdx.x; q < decision; q += blockDim.x) {
    const Point2<T> d = points[sample_place(q * samples / decision, stride, samples)];
    extreme[kDirections + q] = {static_cast<double>(d.x), static_cast<double>(d.y)};
  }
  return p;
}

/// A chord fan's vertex v, followed by w, around the centre (cx, cy): returns whether the centre is
/// strictly left of the edge v->w (exact), and sets *angle to v's angle (core::chord_fan_angle), whose
/// bits (angle_bits) the caller takes the least of, for the fan's first vertex. The dense guide's
/// vertices and the survivors' polygon's.
template <class T>
__device__ bool chord_fan_vertex(const Point2<T>& v, const Point2<T>& w, double cx, double cy,
                                 double* angle) {
  const double vx = static_cast<double>(v.x), vy = static_cast<double>(v.y);
  const bool centred = orient2d(vx, vy, static_cast<double>(w.x), static_cast<double>(w.y), cx, cy) > 0;
  *angle = core::chord_fan_angle(vx, vy, cx, cy);
  return centred;
}

/// An angle's bits, which order as the angles do (non-negative doubles; pseudo_angle never gives -0).
inline __device__ unsigned long long angle_bits(double a) {
  return static_cast<unsigned long long>(__double_as_longlong(a));
}

/// A grid's share of a chord fan's corners (core::ChordFanView): corner b for b in [0, buckets]
/// (core::chord_fan_corner over the k vertices, from vertex `first`, and their angles from it made
/// non-decreasing), written as bucket b's first corner and bucket b-1's second; NaN without a
/// certified centre (`centred` false), so that the fan certifies nothing. The dense guide's corners
/// and the survivors' polygon's.
template <class T>
__device__ void write_chord_fan_corners(const Point2<T>* vertex, index_t k, index_t first,
                                        const double* sorted_angle, double cx, double cy, int buckets,
                                        bool centred, Point2<double>* corner) {
  const double bucket_scale = static_cast<double>(buckets) / 4;
  for (index_t b = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; b <= buckets;
       b += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const Point2<double> q = centred ? core::chord_fan_corner(vertex, k, first, sorted_angle, cx, cy,
                                                              static_cast<double>(b) / bucket_scale)
                                     : Point2<double>{NAN, NAN};
    if (b < buckets) corner[2 * b] = q;
    if (b > 0) corner[2 * b - 1] = q;
  }
}

/// Points as an array of structures (Point2) or as two arrays.
template <class T>
struct AosPoints {
  const Point2<T>* p;
  __device__ Point2<T> operator[](index_t i) const { return p[i]; }
};
template <class T>
struct SoaPoints {
  const T* x;
  const T* y;
  __device__ Point2<T> operator[](index_t i) const { return {x[i], y[i]}; }
};

/// The dense guide's device words (FullHullWorkspace::guide_words, set by build_guide): the least
/// vertex angle's bits, the fan's first vertex, whether the centre check passed, and whether every
/// edge of the guide had a bound for the ring.
enum GuideWord { kLeastAngleBits, kFirstVertex, kCentreInside, kRingOk, kGuideWords };

/// Whether the guide's fan has its ring: the centre check passed and every edge had a bound
/// (`words`: guide_ring_words on the device, or those two words read back to the host).
__host__ __device__ inline bool guide_ring_on(const unsigned long long* words) {
  return words[0] != 0 && words[1] != 0;
}

/// The guided filter's test: the guide fan's ring, then its triangles. Each certifies strictly inside
/// a polygon whose vertices are input points (the guide's: its sample's hull vertices, or its
/// star's), so each drops only points that are no hull vertex. The coarse polygon's tests are left
/// out: the guide is built only where they leave most decision samples in doubt, and where the guide
/// is the sample's hull it holds the coarse polygon's vertices, so its ring holds most of their disk.
/// Without them this filter, bound by its instructions, took 11 % less time (bench/NOTES.md, "The
/// guided filter's quick test as the ring alone").
///
/// The ring is known to be on only on the device (dense_guide.cu zeroes it where the centre check or
/// an edge's bound fails), and the filter that suits it is slower without it (bench/NOTES.md, "The
/// guided filter at four runs a step, with the ring"). So the host launches both forms, GuideTest
/// and GuideFanTest, each with `ring_words` (the guide's centre and ring flags, both non-zero where
/// the ring is on), and the grid of the form that does not suit returns at once.
struct GuideTest {
  /// Not read by the tests, but kept: without it the compiler lays this filter out otherwise (more
  /// branches and votes), and it issued 8.6 % more instructions; the float circle's filter at 2^28
  /// took 1.45-1.46 ms against 1.36-1.37 with it, in turn (bench/NOTES.md, "GuideTest's unread
  /// member, measured in turn"). A layout the compiler chose, which another compiler may not: measure
  /// again before dropping it.
  core::InnerPolygonView coarse;
  core::ChordFanView guide;
  const unsigned long long* ring_words = nullptr;  ///< nullptr: run, whatever the ring's state
  /// The filter's warps gather the points the quick tests leave and test them 32 at a time, whatever
  /// their size (filter_kernel): the fan's ring leaves few (a float circle at 2^28: a few in a
  /// hundred, modelled), and a warp whose lanes each test their own waits on one record read for
  /// every run that holds one (bench/NOTES.md, "The guide's fan with a ring of radii").
  static constexpr bool kQueueDoubts = true;
  static constexpr int kUnroll = kFilterUnroll;
  /// The filter's two stages, as core::InnerPolygonView names them: the fan's ring (an L1 read);
  /// then the fan's triangles (a record read from L2).
  __device__ bool quick_inside(double px, double py) const { return guide.ring_inside(px, py); }
  __device__ bool fan_inside(double px, double py) const { return guide.triangle_inside(px, py); }
  /// The grid returns at once where the ring is off.
  __device__ bool skips() const { return ring_words != nullptr && !guide_ring_on(ring_words); }
};

/// GuideTest's form for a fan without its ring, after the coarse polygon's quick tests (disk and
/// cross): nearly every point reaches the fan's triangles, so 8-byte points each test their own (no
/// queue) and a warp takes 8 runs a step, as measured fastest there (a float circle's filter at
/// 2^28: 2.67-2.73 ms, against 3.05-3.06 in GuideTest's form).
struct GuideFanTest {
  core::InnerPolygonView coarse;
  core::ChordFanView guide;
  const unsigned long long* ring_words = nullptr;  ///< nullptr: run, whatever the ring's state
  static constexpr int kUnroll = 8;
  __device__ bool quick_inside(double px, double py) const { return coarse.quick_inside(px, py); }
  __device__ bool fan_inside(double px, double py) const { return guide.triangle_inside(px, py); }
  /// The grid returns at once where the ring is on.
  __device__ bool skips() const { return ring_words != nullptr && guide_ring_on(ring_words); }
};

/// The full hull's grid-stride kernels: at most kStrideBlocksPerSm blocks of 256 threads a
/// multiprocessor.
constexpr int kStrideBlocksPerSm = 8;
inline int stride_grid(index_t n) {
  return static_cast<int>(
      std::clamp<index_t>(ceil_div(n, index_t{256}), 1, index_t{multiprocessors()} * kStrideBlocksPerSm));
}

/// A long run of equal x after the sort on x alone (convex_hull.cu, rewrite_short_runs_kernel): its
/// highest y and the complement of its lowest, as order-preserving images, each combined by atomicMax
/// from zero, which is below every finite coordinate's image but the smallest int64's (and that one
/// decodes back to itself).
struct RunSlot {
  unsigned long long highest;
  unsigned long long not_lowest;
};

/// A run of equal key (the sort on a 32-bit key, in finish()) that a block sorts: its first place and
/// its number of points.
struct KeyRun {
  index_t head;
  index_t length;
};

/// The smallest and the largest of some points, lexicographically (the sort on a key's baseline).
template <class T>
struct LexExtremes {
  Point2<T> lo;
  Point2<T> hi;
};

/// The smallest and the largest of two pairs of extremes (the survivors' reductions: CUB's over the
/// survivors in finish(), each survivor its own pair, and the block finish's).
struct WidenLexExtremes {
  template <class T>
  __host__ __device__ LexExtremes<T> operator()(const LexExtremes<T>& a, const LexExtremes<T>& b) const {
    return {lex_less(b.lo, a.lo) ? b.lo : a.lo, lex_less(a.hi, b.hi) ? b.hi : a.hi};
  }
};

/// The reduction's initial pair, which every point widens (the filter let no non-finite point through).
template <class T>
__host__ __device__ LexExtremes<T> no_extremes() {
  constexpr T kMax = std::numeric_limits<T>::max(), kLowest = std::numeric_limits<T>::lowest();
  return {{kMax, kMax}, {kLowest, kLowest}};
}

/// The hull's size from its chains' sizes (core::join_chains): the lower chain's l points, then the
/// upper chain's u without its two ends.
__host__ __device__ inline index_t joined_size(index_t l, index_t u) {
  return l + (u > 2 ? u - 2 : 0);
}

/// join_chains with each chain's point j read by lower_at(j) and upper_at(j) (a chain in pieces: the
/// block finish's halves). A thread's points are read in batches of kBatch, all before any is
/// written: `out` may alias the chains as far as the compiler knows, so a read after a write would
/// wait for the one before.
template <class T, class LowerAt, class UpperAt>
__device__ void join_chains_at(LowerAt lower_at, index_t l, UpperAt upper_at, index_t u, Point2<T>* out,
                               index_t first, index_t step) {
  constexpr int kBatch = 4;
  const index_t size = joined_size(l, u);
  for (index_t i = first; i < size; i += kBatch * step) {
    Point2<T> p[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      const index_t at = i + b * step;
      if (at < size) p[b] = at < l ? core::reflected(lower_at(l - 1 - at)) : upper_at(u - 2 - (at - l));
    }
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      if (i + b * step < size) out[i + b * step] = p[b];
    }
  }
}

/// Points first, first + step, ... of the counter-clockwise hull from its two chains (core::join_chains
/// on the device): the lower chain, given as the upper hood of the reflected points (so read backwards
/// and reflected back), then the upper chain backwards without its two ends. `load` reads a chain's
/// point (the block finish reads the other block's chain past L1).
template <class T, class Load>
__device__ void join_chains(const Point2<T>* lower_reflected, index_t l, const Point2<T>* upper, index_t u,
                            Point2<T>* out, index_t first, index_t step, Load load) {
  join_chains_at<T>([&](index_t j) { return load(lower_reflected + j); }, l,
                    [&](index_t j) { return load(upper + j); }, u, out, first, step);
}

constexpr int kCounters = 10;               ///< FullHullWorkspace::counters
constexpr int kLeavesManyWord = kCounters;  ///< FullHullWorkspace::counters_host's last word

/// A peel round's rule over points in order around a centre (the survivors' polygon, the device's
/// inner polygon): p, between the live points before and after it, drops when it repeats the one
/// before, or does not turn strictly left between them; of a run of repeats the first stays (its turn
/// is judged once the others are gone).
template <class T>
__device__ bool peel_drops(const Point2<T>& before, const Point2<T>& p, const Point2<T>& after) {
  return same_point(p, before) || (!same_point(p, after) && orient2d(before, p, after) <= 0);
}

/// The peel's rounds, within each warp first (up to kWarpPeelRounds, for the points with live
/// neighbours in the warp, without a block barrier), then over the block (up to kMaxPeelRounds),
/// until a round drops none; p is this thread's point in order (a thread a point, kThreads threads),
/// live whether it takes part, and stays so. The survivors go to vertex[0 .. k) in order; returns k
/// (the block's). Both peels run it: the survivors' polygon's and the device's inner polygon's.
constexpr int kWarpPeelRounds = 16;
constexpr int kMaxPeelRounds = 32;  // each a scan and two barriers
template <int kThreads, class P>
__device__ int peel_in_order(const P& p, bool& live, P* vertex,
                             typename cub::BlockScan<int, kThreads>::TempStorage& temp) {
  constexpr unsigned kAll = 0xffffffffu;
  const int lane = threadIdx.x % kWarp;
  const unsigned lanes_below = (1u << lane) - 1, lanes_above = lane + 1 == kWarp ? 0u : ~0u << (lane + 1);
  for (int round = 0; round < kWarpPeelRounds; ++round) {
    const unsigned alive = __ballot_sync(kAll, live);
    const unsigned lower = alive & lanes_below, upper = alive & lanes_above;
    const int from = lower != 0 ? 31 - __clz(static_cast<int>(lower)) : lane;
    const int to = upper != 0 ? __ffs(static_cast<int>(upper)) - 1 : lane;
    const P before{__shfl_sync(kAll, p.x, from), __shfl_sync(kAll, p.y, from)};
    const P after{__shfl_sync(kAll, p.x, to), __shfl_sync(kAll, p.y, to)};
    const bool drop = live && lower != 0 && upper != 0 && peel_drops(before, p, after);
    live = live && !drop;
    if (!__any_sync(kAll, drop)) break;
  }
  int k = 0, at = 0;
  for (int round = 0;; ++round) {
    cub::BlockScan<int, kThreads>(temp).ExclusiveSum(live ? 1 : 0, at, k);
    if (live) vertex[at] = p;
    __syncthreads();
    if (round == kMaxPeelRounds || k < 3) break;  // the whole block alike
    const bool drop =
        live && peel_drops(vertex[at == 0 ? k - 1 : at - 1], p, vertex[at + 1 == k ? 0 : at + 1]);
    live = live && !drop;
    // Also the barrier between this round's reads of the vertices and the next round's writes.
    if (!__syncthreads_or(drop)) break;
  }
  return k;
}

/// The inner polygon's tests as the device builds them (device_polygon.cu), in device memory, where
/// the filter reads them: the view (its tables in FullHullWorkspace::device_fan), its float quick
/// tests, whether it certifies anything, and the dense guide's decision (leaves_many: the filter
/// then does nothing, and the host takes the guide's path).
struct DevicePolygon {
  core::InnerPolygonView view;
  core::FloatQuickTests quick;
  int enabled = 0;
  int leaves_many = 0;
};
/// Where the survivors' polygon finds the inner polygon's centre: given by the host, whose polygon it
/// is, or (`device` set) read on the device from the polygon the device built.
struct SurvivorCentre {
  double cx = 0, cy = 0;
  bool enabled = false;
  const DevicePolygon* device = nullptr;
  __device__ SurvivorCentre resolved() const {
    if (device == nullptr) return *this;
    return {device->view.cx, device->view.cy, device->enabled != 0, nullptr};
  }
};
// The device polygon's tables at fixed places: vertices, angles, the ring's radii, the buckets.
constexpr std::size_t kDeviceFanAngles = kDirections * sizeof(Point2<double>);
constexpr std::size_t kDeviceFanRing = kDeviceFanAngles + kDirections * sizeof(double);
constexpr std::size_t kDeviceFanBuckets = kDeviceFanRing + kMaxFanBuckets * sizeof(double);
constexpr std::size_t kDeviceFanBytes = kDeviceFanBuckets + kMaxFanBuckets * sizeof(int);

/// The device memory of one full-hull computation, kept per thread and grown on demand, so that
/// repeated calls allocate nothing.
template <class T>
struct FullHullWorkspace {
  DeviceBuffer<Point2<T>> kept;  ///< survivors; then the sort's second buffer
  DeviceBuffer<Point2<T>> alt;   ///< the sort's other buffer
  DeviceBuffer<unsigned char> sort_temp;
  DeviceBuffer<RunSlot> run_slots;   ///< [0].highest: whether any run is long; then one a long run
  DeviceBuffer<Point2<T>> chunk[2];  ///< host input lands here, chunk by chunk
  DeviceBuffer<Point2<T>> host_sample;
  DeviceBuffer<unsigned long long> best{kDirections};
  DeviceBuffer<Point2<double>> extremes{kDirections + kDecisionSamples};
  DeviceBuffer<unsigned char> fan;                          ///< the polygon's vertices, angles and buckets
  DeviceBuffer<unsigned char> device_fan{kDeviceFanBytes};  ///< the device polygon's tables
  DeviceBuffer<DevicePolygon> device_polygon{1};
  PinnedBuffer<DevicePolygon> device_polygon_host{1};
  /// [0] survivors, [1] first non-finite index, [2] the survivors' polygon's survivors (in alt), [3]
  /// whether that polygon filtered them (survivor_polygon.cu); the block finish (block_finish.cu): [4]
  /// its blocks done, [5] the hull's size plus one where it built the hull, [6 ... 9] its blocks'
  /// chains' sizes
  DeviceBuffer<unsigned long long> counters{kCounters};
  DeviceBuffer<index_t> upper_count{1};  ///< the points on or above the baseline (the split's count)
  DeviceBuffer<index_t> lower_count{1};  ///< the lower chain's points
  PinnedBuffer<index_t> upper_count_host{1};
  DeviceBuffer<EnqueuedHullWords> chain_words{2};  ///< the chains' outcomes (upper, lower), when enqueued
  PinnedBuffer<EnqueuedHullWords> chain_words_host{2};
  /// The fan's tables on their way up (inner_polygon): vertices, angles, the ring's radii, buckets.
  PinnedBuffer<unsigned char> fan_staging{kDirections * (sizeof(Point2<double>) + sizeof(double)) +
                                          kMaxFanBuckets * (sizeof(double) + sizeof(int))};
  /// The counters as the host reads them after its wait, and [kLeavesManyWord] the device polygon's
  /// leaves_many: written there by the block finish (publish_counters), else copied by finish().
  PinnedBuffer<unsigned long long> counters_host{kCounters + 1};
  unsigned long long* counters_host_on_device = nullptr;  ///< counters_host's device address, once found
  // The sort on a 32-bit key (finish(), core/x_key.hpp): each point's key and place as one word
  // (KeyedPlaces; with the sort's other buffer), the heads of the runs of equal key a warp sorts, the
  // runs a block sorts, the baseline's ends, and those runs' numbers and whether one was too long for
  // a block.
  DeviceBuffer<std::uint64_t> keyed_places[2];
  DeviceBuffer<index_t> long_key_runs;
  DeviceBuffer<KeyRun> block_key_runs;
  DeviceBuffer<LexExtremes<T>> key_extremes{1};
  DeviceBuffer<unsigned long long> key_words{3};
  PinnedBuffer<unsigned long long> key_words_host{1};
  PinnedBuffer<Point2<double>> extremes_host{kDirections + kDecisionSamples};
  UpperHullWorkspace<T> upper, lower;  ///< one per chain: the chains are built concurrently
  Stream side;                         ///< the lower chain's stream
  Event sorted, lower_done;
  // The dense guide (build_guide).
  PinnedBuffer<Point2<T>> polygon_host{kDirections};  ///< the coarse polygon's vertices (inner_polygon)
  index_t polygon_vertices = 0;
  DeviceBuffer<Point2<T>> guide_sample;  ///< the check's sample, then the guide's (or the star's chains)
  DeviceBuffer<unsigned long long> guide_star;  ///< per star bucket, its farthest point's word
  DeviceBuffer<Point2<T>> guide_chain;          ///< the star's chains, then the guide's polygon
  DeviceBuffer<int> guide_chain_lengths;        ///< a chain level's lengths, then their offsets
  DeviceBuffer<double> guide_angle;             ///< the guide's vertex angles, then (at + k) sorted
  DeviceBuffer<unsigned char> guide_scan_temp;
  DeviceBuffer<unsigned long long> guide_words{kGuideWords};  ///< GuideWord's layout
  DeviceBuffer<Point2<double>> guide_corner;                  ///< the fan's corners, two per bucket
  DeviceBuffer<unsigned long long> guide_ring{core::kChordFanRingBuckets};  ///< the fan's ring, as bits
  std::unique_ptr<FullHullWorkspace> nested;                                ///< the guide's hull (no guide)
  // The check (check_by_angle): the sort's other point buffer, its two key buffers back to back, the
  // convex count and the non-finite flag, and the size of the sort's temp storage (in sort_temp) for
  // check_sort_items items (queried again only when that number changes).
  DeviceBuffer<Point2<T>> check_sorted;
  DeviceBuffer<std::uint32_t> check_keys;
  DeviceBuffer<unsigned long long> check_words{2};
  PinnedBuffer<unsigned long long> check_words_host{2};
  index_t check_sort_items = -1;
  std::size_t check_sort_bytes = 0;
  // The survivors' polygon (filter_by_survivor_polygon): each direction's best survivor, the
  // polygon's vertices, their angles from its first vertex, its size and first vertex, and the fan's
  // corners.
  DeviceBuffer<unsigned long long> survivor_best{kSurvivorDirections};
  /// Whether best and survivor_best are zero on the call's stream already (reset_call_state cleared
  /// them in its first launch), so that their first user in the call enqueues no clearing of its own;
  /// that user, or the call's end, sets the flag back.
  bool best_cleared = false, survivor_best_cleared = false;
  DeviceBuffer<Point2<T>> survivor_vertex{kSurvivorDirections};
  DeviceBuffer<double> survivor_angle{kSurvivorDirections};
  DeviceBuffer<index_t> survivor_words{2};
  DeviceBuffer<Point2<double>> survivor_corner{2 * kSurvivorBuckets};
  // The block finish: each block's chain input, then its chain; the hull where finish() has no `out`.
  DeviceBuffer<Point2<T>> block_chains{kBlockFinishBlocks * kBlockFinishTile};
  DeviceBuffer<Point2<T>> block_hull{kBlockFinishTile};

  /// Room for n items (the survivor and sort buffers take the survivors plus the partition's two
  /// extra slots: see finish()).
  template <class Item>
  static void grow(DeviceBuffer<Item>& b, index_t n) {
    if (b.size() < static_cast<std::size_t>(n)) b = DeviceBuffer<Item>(static_cast<std::size_t>(n));
  }
};

/// Where a full hull ends up on the device: its vertices and their number.
template <class T>
struct JoinedHull {
  const Point2<T>* data = nullptr;
  index_t size = 0;
};

/// The whole pipeline over points already on the device, with the workspace `ws`. `guide`: whether
/// the dense guide may be tried (not in the guide's own hulls). `non_finite`: see finish(). Defined
/// in convex_hull.cu, and instantiated there for AosPoints, the view the guide's own hull takes.
template <class T, class Points>
JoinedHull<T> hull_of_device_points(FullHullWorkspace<T>& ws, Points points, index_t n, cudaStream_t stream,
                                    index_t* survivors, Point2<T>* out, FullHullProfile* out_profile,
                                    bool guide, bool* non_finite = nullptr);

/// The dense guide: a fan (core::ChordFanView, tables in ws.guide_corner) certifying points strictly
/// inside the exact hull of a sample of the input, or nothing when the check says a guide would not
/// pay or a sample point is not finite (the filter then reports it by its index in the input).
/// `coarse`: the coarse polygon's view (enabled), whose centre becomes the fan's centre and whose
/// vertices (ws.polygon_host) join the sample, so that the guide holds the coarse polygon and so
/// its centre; the centre is still checked exactly on the device. *mostly_convex: whether the check
/// found most of its sample in convex position (so no guide, and nearly every survivor a vertex).
/// Defined in dense_guide.cu, for both point views.
template <class T, class Points>
std::optional<core::ChordFanView> build_guide(Points points, index_t n, const core::InnerPolygonView& coarse,
                                              FullHullWorkspace<T>& ws, cudaStream_t stream,
                                              FullHullProfile* profile, bool* mostly_convex);

/// The words a guided filter's two forms read after build_guide (GuideTest::ring_words): kCentreInside,
/// then kRingOk.
template <class T>
const unsigned long long* guide_ring_words(FullHullWorkspace<T>& ws) {
  static_assert(kRingOk == kCentreInside + 1, "guide_ring_on reads the two words in a row");
  return ws.guide_words.data() + kCentreInside;
}

/// Enqueues (no host wait) the survivors' polygon after the filter: the survivors' own extremes
/// peeled to about their hull, its fan around the inner polygon's centre (`centre`), certified
/// strictly inside the input's hull, and one more filter of ws.kept[0 .. counters[0]) by that fan
/// into ws.alt, counted in counters[2]; counters[3] = 1 when it ran. On the device it does nothing
/// (counters[3] = 0) where the inner polygon is not enabled, below `min_survivors` survivors or above
/// 2^23, or when the centre is not strictly inside that polygon. Defined in survivor_polygon.cu.
template <class T>
void filter_by_survivor_polygon(FullHullWorkspace<T>& ws, SurvivorCentre centre, index_t min_survivors,
                                cudaStream_t stream);

/// Enqueues (no host wait) the inner polygon built on the device from ws.best (sample_extremes):
/// its tests to ws.device_polygon (tables in ws.device_fan), the directions' bests and `decision`
/// samples to ws.extremes as gather_extremes leaves them. Defined in device_polygon.cu.
template <class T, class Points>
void build_device_polygon(Points points, index_t samples, index_t stride, int decision,
                          FullHullWorkspace<T>& ws, cudaStream_t stream);

/// Enqueues the block finish (no host wait): where there is no non-finite point and the survivors
/// in use (survivors_in_use) number 1 to min(max_points, kBlockFinishPoints), four blocks sort them,
/// build both chains (each in two halves) and join them into `out` (room for the survivors), and set
/// counters[5] to the hull's size plus one; otherwise they do nothing. Either way the kernel then
/// writes the counters, and `polygon`'s leaves_many (0 without one), to ws.counters_host, so that
/// finish() reads them after its wait with no copy of its own. Returns whether it enqueued the kernel
/// (false for max_points 0: then the caller copies them). Defined in block_finish.cu.
template <class T>
bool finish_in_blocks(FullHullWorkspace<T>& ws, Point2<T>* out, index_t max_points,
                      const DevicePolygon* polygon, cudaStream_t stream);

}  // namespace wagener::cuda::full_hull
