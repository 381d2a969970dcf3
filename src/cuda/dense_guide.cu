// The dense guide of the full hull (convex_hull.cu): where the inner polygon leaves most of a large
// input (a float circle: all of it), a polygon of input points around the coarse centre (the exact
// hull of a sample of the input, computed by the same pipeline; from 2^24 points, the convex chains
// of the sample's star, its farthest point in each narrow angle bucket), and its fan
// (core::ChordFanView), which the streaming filter then tests every point against. First a check that the
// guide would pay: a small sample's points sorted by angle, and how many of them are in convex position
// (core/angular_convexity.hpp).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <memory>
#include <optional>

#include "core/angular_convexity.hpp"
#include "core/chord_fan.hpp"
#include "core/inner_polygon.hpp"
#include "cuda/check.cuh"
#include "cuda/full_hull.cuh"
#include "wagener/predicates.hpp"

namespace wagener::cuda::full_hull {
namespace {

/// The number of points in a run sample of n points: runs of kSampleRun consecutive points, the
/// first run of every `period` (run r starts at input point r * period * kSampleRun).
index_t run_sample_size(index_t n, index_t period) {
  const index_t block = period * kSampleRun;
  return n / block * kSampleRun + std::min(n % block, kSampleRun);
}

/// The input point that is point s of the run sample with this period; < n for s < run_sample_size(n,
/// period).
__device__ index_t run_sample_point(index_t s, index_t period) {
  return s / kSampleRun * period * kSampleRun + s % kSampleRun;
}

/// sample[s] = points[run_sample_point(s, period)] for s < m = run_sample_size(n, period); a point
/// that is not exact in double (converts_exactly) is replaced by `stand_in`, another input point that
/// is: the guide's fan runs in double, so its hull must have exact vertices.
template <class T, class Points>
__global__ void gather_runs_kernel(Points points, index_t period, index_t m, Point2<T> stand_in,
                                   Point2<T>* sample) {
  for (index_t s = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; s < m;
       s += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const Point2<T> p = points[run_sample_point(s, period)];
    sample[s] = converts_exactly(p) ? p : stand_in;
  }
}

/// A star word: the top 64 - place_bits bits of d's (non-negative) double, above the sample place s
/// (s < 2^place_bits, place_bits in [1, 32]). Words order as the distances do, then as the places:
/// with 24 place bits (2^28 points), 29 bits of the mantissa stay. A float distance (23 bits) could
/// not tell a float circle's points apart: their squared radii differ by about one of its units, and
/// a bucket kept one of its points at random (measured: a quarter more survivors at 2^28).
__device__ unsigned long long star_word(double d, index_t s, int place_bits) {
  const auto bits = static_cast<unsigned long long>(__double_as_longlong(d));  // d >= 0: sign bit 0
  return (bits >> (place_bits - 1)) << place_bits | static_cast<unsigned long long>(s);
}

/// The star's first step: for each run sample point s < m (points[run_sample_point(s, period)]) that is
/// finite and exact in double, its pseudo-angle bucket around (cx, cy) of `buckets`, and into
/// farthest[bucket] by atomicMax its star_word (its squared distance from the centre above s; ties go
/// to the larger s). The distance is rounded, and that is safe: which sample point a bucket keeps only
/// shapes the guide, which is safe whichever it holds (build_guide). (m <= 2^place_bits: star_period.)
template <class T, class Points>
__global__ void star_farthest_kernel(Points points, index_t period, index_t m, double cx, double cy,
                                     int buckets, int place_bits, unsigned long long* farthest) {
  const double scale = static_cast<double>(buckets) / 4;
  for (index_t s = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; s < m;
       s += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const Point2<T> p = points[run_sample_point(s, period)];
    if (!is_finite(p) || !converts_exactly(p)) continue;
    const double dx = static_cast<double>(p.x) - cx, dy = static_cast<double>(p.y) - cy;
    const double a = core::pseudo_angle(dx, dy);
    if (!(a >= 0 && a <= 4)) continue;  // p == c, or a difference that overflowed
    const int b = min(buckets - 1, static_cast<int>(a * scale));
    // (A distance that overflows to infinity still orders: its bits are above every finite one's.)
    // One atomic a point: reading the word first to skip the atomics that cannot win measured the
    // same (bench/NOTES.md), the read costing what it saved.
    atomicMax(&farthest[b], star_word(dx * dx + dy * dy, s, place_bits));
  }
}

/// The star's buckets as a chain level's input: item i is bucket i's point, if it has one.
template <class T, class Points>
struct StarBuckets {
  Points points;
  index_t period;
  const unsigned long long* farthest;
  unsigned long long place_mask;
  index_t buckets;
  __device__ index_t size() const { return buckets; }
  __device__ bool at(index_t i, Point2<T>* p) const {
    const unsigned long long word = farthest[i];
    if (word == 0) return false;  // an empty bucket
    *p = points[run_sample_point(static_cast<index_t>(word & place_mask), period)];
    return true;
  }
};

/// The chains of the level before as the next level's input: *count points.
template <class T>
struct ChainedPoints {
  const Point2<T>* point;
  const unsigned long long* count;
  __device__ index_t size() const { return static_cast<index_t>(*count); }
  __device__ bool at(index_t i, Point2<T>* p) const {
    *p = point[i];
    return true;
  }
};

/// A chain level: thread t < segments takes the points of items [t S - shift, t S - shift + S) of
/// `source` (S = kStarChainBuckets; within the source), in angle order around (cx, cy), and keeps
/// their chain convex as seen from there (a Graham scan: a point goes while it makes no left turn
/// between the one before and the one after), into chains[t S ...], its length into lengths[t] (0
/// past the source's end). A run's first and last points always stay, though few are the hull's; the
/// next level, shifted by half a run, takes them in the middle of its runs. The turns are
/// tested in plain double: which points stay only shapes the guide (build_guide says why any polygon of
/// input points in angle order is safe). A level's runs span a small angle where the star is taken
/// (2^24 points and up: 2^18 buckets or more), as the scan needs.
template <class T, class Source>
__global__ void __launch_bounds__(kStarChainThreads)
    star_chains_kernel(Source source, index_t segments, int shift, double cx, double cy, Point2<T>* chains,
                       int* lengths) {
  const index_t t = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= segments) return;
  const index_t start = t * kStarChainBuckets - shift;
  const index_t last = std::min<index_t>(start + kStarChainBuckets, source.size());
  // The run's points first, all their reads in flight at once (a bucket's word, then its point at a
  // random place of the input: one after another, they were most of this kernel's time).
  Point2<T> item[kStarChainBuckets];
  bool present[kStarChainBuckets];
#pragma unroll
  for (int j = 0; j < kStarChainBuckets; ++j) {
    const index_t i = start + j;
    present[j] = i >= 0 && i < last && source.at(i, &item[j]);
  }
  Point2<T> chain[kStarChainBuckets];
  int top = 0;
  for (int j = 0; j < kStarChainBuckets; ++j) {
    if (!present[j]) continue;
    const Point2<T> p = item[j];
    const double px = static_cast<double>(p.x) - cx, py = static_cast<double>(p.y) - cy;
    while (top >= 2) {
      const double ax = static_cast<double>(chain[top - 2].x) - cx,
                   ay = static_cast<double>(chain[top - 2].y) - cy;
      const double bx = static_cast<double>(chain[top - 1].x) - cx,
                   by = static_cast<double>(chain[top - 1].y) - cy;
      if ((bx - ax) * (py - ay) - (by - ay) * (px - ax) > 0) break;  // a left turn at chain[top - 1]
      --top;
    }
    chain[top++] = p;
  }
  for (int i = 0; i < top; ++i) chains[t * kStarChainBuckets + i] = chain[i];
  lengths[t] = top;
}

/// A chain level's end: chain t to out[offsets[t] ...] (offsets: the exclusive sum of the lengths),
/// and *count = all their points, in order.
template <class T>
__global__ void gather_chains_kernel(const Point2<T>* chains, const int* lengths, const int* offsets,
                                     index_t segments, Point2<T>* out, unsigned long long* count) {
  for (index_t t = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < segments;
       t += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const int at = offsets[t], length = lengths[t];
    for (int i = 0; i < length; ++i) out[at + i] = chains[t * kStarChainBuckets + i];
    if (t == segments - 1) *count = static_cast<unsigned long long>(at + length);
  }
}

/// The check's first step: the run sample (run_sample_point) to sample[0 .. m), each point's key
/// around (cx, cy) (core::angle_key) to key[0 .. m), and *non_finite = 1 when a sample point is not
/// finite (every writer writes 1: no atomics).
template <class T, class Points>
__global__ void check_keys_kernel(Points points, index_t period, index_t m, double cx, double cy,
                                  Point2<T>* sample, std::uint32_t* key, unsigned long long* non_finite) {
  for (index_t s = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; s < m;
       s += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const Point2<T> p = points[run_sample_point(s, period)];
    const double px = static_cast<double>(p.x), py = static_cast<double>(p.y);
    if (!is_finite(p)) *non_finite = 1;
    sample[s] = p;
    key[s] = core::angle_key(px, py, cx, cy);
  }
}

/// The check's last step: *convex += the number of points of sorted[0 .. m) (the sample in key order)
/// that make a certified left turn with their cyclic neighbours (core::certified_left_turn); one sum
/// a block, one atomicAdd a block.
template <class T>
__global__ void __launch_bounds__(kCheckThreads)
    count_convex_kernel(const Point2<T>* sorted, index_t m, unsigned long long* convex) {
  using BlockSum = cub::BlockReduce<unsigned, kCheckThreads>;
  __shared__ typename BlockSum::TempStorage temp;
  unsigned count = 0;
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < m;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const Point2<T> before = sorted[i == 0 ? m - 1 : i - 1], after = sorted[i + 1 == m ? 0 : i + 1];
    count += core::certified_left_turn(before, sorted[i], after) ? 1u : 0u;
  }
  const unsigned total = BlockSum(temp).Sum(count);
  if (threadIdx.x == 0 && total > 0) atomicAdd(convex, static_cast<unsigned long long>(total));
}

/// Per guide vertex i (the guide: k >= 3 input points in angle order around c): its pseudo-angle
/// around c (0 where it overflows: any value only costs filtering), the smallest angle as bits in
/// *min_bits (atomicMin, one a warp: non-negative doubles order as their bit patterns; pseudo_angle
/// never gives -0), and *centre_inside = 0 unless c is strictly left of the edge from vertex i
/// (exact). Every vertex writes 0 or nothing, so the flag needs no atomics.
template <class T>
__global__ void guide_angles_kernel(const Point2<T>* guide, index_t k, double cx, double cy, double* angle,
                                    unsigned long long* min_bits, unsigned long long* centre_inside) {
  // This thread's smallest, then its warp's: one atomic a warp (10^5 on one word took most of this
  // kernel's 86 us at 2^28 points).
  unsigned long long smallest = ~0ull;
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < k;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    if (!chord_fan_vertex(guide[i], guide[i + 1 == k ? 0 : i + 1], cx, cy, &angle[i])) *centre_inside = 0;
    smallest = std::min(smallest, angle_bits(angle[i]));
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    const unsigned long long other = __shfl_xor_sync(0xffffffffu, smallest, offset);
    smallest = other < smallest ? other : smallest;
  }
  if (threadIdx.x % 32 == 0 && smallest != ~0ull) atomicMin(min_bits, smallest);
}

/// *first = the smallest vertex index whose angle is the smallest (zeroed to ULLONG_MAX before).
__global__ void guide_first_kernel(const double* angle, index_t k, const unsigned long long* min_bits,
                                   unsigned long long* first) {
  const unsigned long long smallest = *min_bits;
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < k;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    if (static_cast<unsigned long long>(__double_as_longlong(angle[i])) == smallest) {
      atomicMin(first, static_cast<unsigned long long>(i));
    }
  }
}

/// The first vertex of the fan (0 if none was found: any start is safe, only slower).
__device__ index_t fan_first(const unsigned long long* first, index_t k) {
  const unsigned long long f = *first;
  return f < static_cast<unsigned long long>(k) ? static_cast<index_t>(f) : 0;
}

/// sorted[r] = angle[(first + r) mod k]: the angles from the smallest on, to be made non-decreasing
/// by a max-scan (rounding may break near-ties the wrong way, which only costs filtering).
__global__ void rotate_angles_kernel(const double* angle, index_t k, const unsigned long long* first,
                                     double* sorted) {
  const index_t f = fan_first(first, k);
  for (index_t r = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < k;
       r += static_cast<index_t>(gridDim.x) * blockDim.x) {
    sorted[r] = angle[(f + r) % k];
  }
}

struct MaxOfDoubles {
  __device__ double operator()(double a, double b) const { return a > b ? a : b; }
};

/// Corner b of the fan, for b in [0, buckets] (core::chord_fan_corner), written as bucket b's first
/// corner and bucket b-1's second. Without a certified centre every corner is NaN, and the fan
/// certifies nothing (core::ChordFanView: a NaN difference is never certified).
template <class T>
__global__ void guide_corners_kernel(const Point2<T>* guide, index_t k, const unsigned long long* first,
                                     const double* sorted, double cx, double cy, int buckets,
                                     const unsigned long long* centre_inside, Point2<double>* corner) {
  write_chord_fan_corners(guide, k, fan_first(first, k), sorted, cx, cy, buckets, *centre_inside != 0,
                          corner);
}

/// The run sample of `points` with this period, gathered into ws.guide_sample[0 ...), its points
/// not exact in double replaced by the coarse polygon's first vertex; returns its size.
template <class T, class Points>
index_t gather_runs(Points points, index_t n, index_t period, FullHullWorkspace<T>& ws, cudaStream_t stream) {
  const index_t m = run_sample_size(n, period);
  gather_runs_kernel<T><<<stride_grid(m), 256, 0, stream>>>(points, period, m, ws.polygon_host.data()[0],
                                                            ws.guide_sample.data());
  WAGENER_CUDA_CHECK_LAUNCH();
  return m;
}

/// The star's sample period: kGuidePeriod, doubled until the sample's places fit 32 bits of a star
/// word (from 2^36 points on).
index_t star_period(index_t n) {
  index_t period = kGuidePeriod;
  while (run_sample_size(n, period) > (index_t{1} << 32)) period *= 2;
  return period;
}

/// The bits a star word gives the places of m sample points (m <= 2^32): enough for m - 1, at least 1.
int star_place_bits(index_t m) {
  int bits = 1;
  while (bits < 32 && (index_t{1} << bits) < m) ++bits;
  return bits;
}

/// The guide from the star of the run sample of `points` with this period: its farthest point from
/// (cx, cy) in each of star_buckets(m, star_samples_per_bucket()) pseudo-angle buckets, then
/// kStarChainLevels levels of convex chains over runs of kStarChainBuckets of them
/// (star_chains_kernel), into ws.guide_chain[0 ...) in angle order; returns how many (one host round
/// trip). A bucket keeps the one of its sample points (about kStarSamplesPerBucket, more where
/// kMaxStarBuckets binds) that lies farthest out, so the star holds nearly every vertex of the
/// sample's hull (where a bucket holds two, it loses one), and the chains drop the points in its
/// dents but where two runs meet (bench/NOTES.md).
template <class T, class Points>
index_t star_polygon(Points points, index_t n, index_t period, double cx, double cy, FullHullWorkspace<T>& ws,
                     cudaStream_t stream) {
  const index_t m = run_sample_size(n, period);
  const int buckets = star_buckets(m, star_samples_per_bucket()), place_bits = star_place_bits(m);
  // One run more than the buckets fill, for the levels shifted by half a run.
  const index_t segments = ceil_div(index_t{buckets}, index_t{kStarChainBuckets}) + 1;
  FullHullWorkspace<T>::grow(ws.guide_star, buckets);
  FullHullWorkspace<T>::grow(ws.guide_chain, segments * kStarChainBuckets);
  FullHullWorkspace<T>::grow(ws.guide_chain_lengths, 2 * segments);
  int* lengths = ws.guide_chain_lengths.data();
  int* offsets = lengths + segments;
  Point2<T>* chains = ws.guide_sample.data();  // segments * kStarChainBuckets <= m + kDirections points
  unsigned long long* count = ws.check_words.data();  // the check's words are read by now
  std::size_t scan_bytes = 0;
  WAGENER_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, lengths, offsets, segments, stream));
  FullHullWorkspace<T>::grow(ws.guide_scan_temp, static_cast<index_t>(std::max<std::size_t>(scan_bytes, 1)));
  scan_bytes = ws.guide_scan_temp.size();

  WAGENER_CUDA_CHECK(cudaMemsetAsync(ws.guide_star.data(), 0,
                                     static_cast<std::size_t>(buckets) * sizeof(unsigned long long), stream));
  star_farthest_kernel<T><<<stride_grid(m), 256, 0, stream>>>(points, period, m, cx, cy, buckets, place_bits,
                                                              ws.guide_star.data());
  WAGENER_CUDA_CHECK_LAUNCH();
  const auto grid = static_cast<unsigned>(ceil_div(segments, index_t{kStarChainThreads}));
  for (int level = 0; level < kStarChainLevels; ++level) {
    // Level 0 reads the buckets; each later one the chains before it (at most `buckets` points, so
    // `segments` threads still cover them), its runs shifted by half a run from the level before's.
    const int shift = level % 2 == 0 ? 0 : kStarChainBuckets / 2;
    if (level == 0) {
      const StarBuckets<T, Points> source{points, period, ws.guide_star.data(), (1ull << place_bits) - 1,
                                          buckets};
      star_chains_kernel<T>
          <<<grid, kStarChainThreads, 0, stream>>>(source, segments, shift, cx, cy, chains, lengths);
    } else {
      const ChainedPoints<T> source{ws.guide_chain.data(), count};
      star_chains_kernel<T>
          <<<grid, kStarChainThreads, 0, stream>>>(source, segments, shift, cx, cy, chains, lengths);
    }
    WAGENER_CUDA_CHECK_LAUNCH();
    WAGENER_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(ws.guide_scan_temp.data(), scan_bytes, lengths, offsets,
                                                     segments, stream));
    gather_chains_kernel<T><<<stride_grid(segments), 256, 0, stream>>>(chains, lengths, offsets, segments,
                                                                       ws.guide_chain.data(), count);
    WAGENER_CUDA_CHECK_LAUNCH();
  }
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(ws.check_words_host.data(), count, sizeof(unsigned long long),
                                     cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  return static_cast<index_t>(ws.check_words_host.data()[0]);
}

/// What the dense guide's check found: its sample's size, how many of those points are in convex
/// position by angle, and whether one is not finite.
struct AngularCheck {
  index_t samples = 0;
  index_t convex = 0;
  bool non_finite = false;
};

/// The dense guide's check (core::angular_convex_count, on the device): the run sample of `points`
/// with this period (in ws.guide_sample, which has room for it), keyed by angle around (cx, cy), radix-sorted
/// by key with the points as values (stable, as the host reference), and the certified left turns of the
/// sorted points counted. One host round trip, for the count and the non-finite flag together.
template <class T, class Points>
AngularCheck check_by_angle(Points points, index_t n, index_t period, double cx, double cy,
                            FullHullWorkspace<T>& ws, cudaStream_t stream) {
  const index_t m = run_sample_size(n, period);
  FullHullWorkspace<T>::grow(ws.check_sorted, m);
  FullHullWorkspace<T>::grow(ws.check_keys, 2 * m);
  cub::DoubleBuffer<std::uint32_t> keys(ws.check_keys.data(), ws.check_keys.data() + m);
  cub::DoubleBuffer<Point2<T>> values(ws.guide_sample.data(), ws.check_sorted.data());
  if (ws.check_sort_items != m) {  // m is about the same every call: skip CUB's query
    WAGENER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, ws.check_sort_bytes, keys, values, m, 0,
                                                       kCheckKeyBits, stream));
    ws.check_sort_items = m;
  }
  FullHullWorkspace<T>::grow(ws.sort_temp, static_cast<index_t>(ws.check_sort_bytes));
  unsigned long long* convex = ws.check_words.data();
  unsigned long long* non_finite = convex + 1;
  WAGENER_CUDA_CHECK(cudaMemsetAsync(convex, 0, 2 * sizeof(unsigned long long), stream));
  const int grid = stride_grid(m);
  check_keys_kernel<T><<<grid, kCheckThreads, 0, stream>>>(points, period, m, cx, cy, ws.guide_sample.data(),
                                                           ws.check_keys.data(), non_finite);
  WAGENER_CUDA_CHECK_LAUNCH();
  std::size_t sort_bytes = ws.check_sort_bytes;
  WAGENER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(ws.sort_temp.data(), sort_bytes, keys, values, m, 0,
                                                     kCheckKeyBits, stream));
  count_convex_kernel<T><<<grid, kCheckThreads, 0, stream>>>(values.Current(), m, convex);
  WAGENER_CUDA_CHECK_LAUNCH();
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(ws.check_words_host.data(), convex, 2 * sizeof(unsigned long long),
                                     cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  return {m, static_cast<index_t>(ws.check_words_host.data()[0]), ws.check_words_host.data()[1] != 0};
}

/// The fan's ring (core::ChordFanView), edge r a thread: its bound (core::edge_distance_bound) as
/// bits, taken the least of by atomicMin in each ring bucket its angle range meets (non-negative
/// doubles order as their bits; the words start at ~0, above every bound), or *ring_ok = 0 where it
/// has none. Edge r runs from vertex (first + r) mod k to the next, as sorted[r] is the first's angle.
template <class T>
__global__ void guide_ring_kernel(const Point2<T>* guide, index_t k, const unsigned long long* first,
                                  const double* sorted, double cx, double cy, unsigned long long* ring,
                                  unsigned long long* ring_ok) {
  const index_t f = fan_first(first, k);
  for (index_t r = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < k;
       r += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const Point2<T> v = guide[(f + r) % k], w = guide[(f + r + 1) % k];
    const double q = core::edge_distance_bound({static_cast<double>(v.x), static_cast<double>(v.y)},
                                               {static_cast<double>(w.x), static_cast<double>(w.y)}, cx, cy);
    if (!(q >= 0)) {
      *ring_ok = 0;
      continue;
    }
    const auto bits = static_cast<unsigned long long>(__double_as_longlong(q));
    core::ring_span(sorted, k, r, core::kChordFanRingBuckets, [&](int b) { atomicMin(&ring[b], bits); });
  }
}

/// The ring's words as the doubles the fan reads: each bucket's bound, or 0 (certifies nothing) for
/// every bucket unless the centre check and every edge's bound passed, and for a bucket no edge met.
__global__ void guide_ring_finish_kernel(const unsigned long long* centre_inside,
                                         const unsigned long long* ring_ok, unsigned long long* ring) {
  const int b = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (b >= core::kChordFanRingBuckets) return;
  if (*centre_inside == 0 || *ring_ok == 0 || ring[b] == ~0ull) ring[b] = 0;
}

}  // namespace

/// The dense guide: a fan (core::ChordFanView, tables in ws.guide_corner) certifying points strictly
/// inside the input's hull, over a polygon of input points (the exact hull of a sample of the input,
/// or from min_points_for_guide_star() the sample's star: star_polygon), or nothing when the check
/// says a guide would not pay or a sample point is not finite (the filter then reports it by its index
/// in the input). `coarse`: the coarse polygon's view (enabled), whose centre c becomes the fan's
/// centre; its vertices (ws.polygon_host) join the sample, so that the sample's hull holds c. Either
/// way the centre is checked exactly on the device against every edge of the guide.
template <class T, class Points>
std::optional<core::ChordFanView> build_guide(Points points, index_t n, const core::InnerPolygonView& coarse,
                                              FullHullWorkspace<T>& ws, cudaStream_t stream,
                                              FullHullProfile* profile, bool* mostly_convex) {
  const index_t check_period = std::max<index_t>(1, n / kCheckSampleSize);
  FullHullWorkspace<T>::grow(ws.guide_sample, std::max(run_sample_size(n, check_period),
                                                       run_sample_size(n, kGuidePeriod) + kDirections));

  // The check: are most of a small sample's points in convex position?
  const AngularCheck check = check_by_angle<T>(points, n, check_period, coarse.cx, coarse.cy, ws, stream);
  if (profile) profile->check_convex = check.convex;
  *mostly_convex = !check.non_finite && static_cast<double>(check.convex) >
                                            kMaxCheckConvexShare * static_cast<double>(check.samples);
  if (check.non_finite || *mostly_convex) return std::nullopt;

  // The guide: from min_points_for_guide_star(), the star's chains (star_polygon); below, the exact hull
  // of the run sample and the coarse polygon's vertices (uploaded from pinned memory written before
  // the last synchronisation; the next write waits for this call's end), by this same pipeline. Sample
  // points not finite are left out of the star, and make the sample's hull return none; either way
  // the filter names them. Either polygon is safe for the fan: its vertices are input points in angle
  // order around the coarse centre c, which the coarse polygon certified strictly inside itself, so
  // strictly inside the input's hull; and the fan's centre check below keeps the fan only if c is
  // strictly left of every edge (exact). Then each fan triangle lies in a closed triangle of c and two
  // input points (core::chord_fan_corner checks each corner exactly), so in the input's hull, and a
  // point strictly inside it is strictly inside that hull. The polygon need not be convex: convexity
  // only shapes how much the fan certifies.
  const Point2<T>* guide = nullptr;
  index_t k = 0;
  if (n >= min_points_for_guide_star()) {
    k = star_polygon(points, n, star_period(n), coarse.cx, coarse.cy, ws, stream);
    guide = ws.guide_chain.data();
  } else {
    if (!ws.nested) ws.nested = std::make_unique<FullHullWorkspace<T>>();
    const index_t sampled = gather_runs(points, n, kGuidePeriod, ws, stream);
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(ws.guide_sample.data() + sampled, ws.polygon_host.data(),
                                       static_cast<std::size_t>(ws.polygon_vertices) * sizeof(Point2<T>),
                                       cudaMemcpyHostToDevice, stream));
    bool non_finite = false;
    const JoinedHull<T> hull = hull_of_device_points<T>(*ws.nested, AosPoints<T>{ws.guide_sample.data()},
                                                        sampled + ws.polygon_vertices, stream, nullptr,
                                                        nullptr, nullptr, false, &non_finite);
    if (non_finite) return std::nullopt;
    guide = hull.data, k = hull.size;
  }
  if (k < 3) return std::nullopt;

  // Its fan around the coarse centre: angles, the first vertex, the angles from it made
  // non-decreasing, then the corners. No host round trip: a failed centre check zeroes a flag that
  // the corner kernel reads, and the fan then certifies nothing.
  const index_t buckets = core::chord_fan_buckets(k);
  FullHullWorkspace<T>::grow(ws.guide_angle, 2 * k);
  FullHullWorkspace<T>::grow(ws.guide_corner, 2 * buckets);
  double* angle = ws.guide_angle.data();
  double* sorted = angle + k;
  unsigned long long* min_bits = ws.guide_words.data() + kLeastAngleBits;
  unsigned long long* first = ws.guide_words.data() + kFirstVertex;
  unsigned long long* centre_inside = ws.guide_words.data() + kCentreInside;
  unsigned long long* ring_ok = ws.guide_words.data() + kRingOk;
  WAGENER_CUDA_CHECK(
      cudaMemsetAsync(ws.guide_words.data(), 0xff, kGuideWords * sizeof(unsigned long long), stream));
  WAGENER_CUDA_CHECK(cudaMemsetAsync(ws.guide_ring.data(), 0xff,
                                     core::kChordFanRingBuckets * sizeof(unsigned long long), stream));
  const int vertex_grid = stride_grid(k);
  guide_angles_kernel<T>
      <<<vertex_grid, 256, 0, stream>>>(guide, k, coarse.cx, coarse.cy, angle, min_bits, centre_inside);
  WAGENER_CUDA_CHECK_LAUNCH();
  guide_first_kernel<<<vertex_grid, 256, 0, stream>>>(angle, k, min_bits, first);
  WAGENER_CUDA_CHECK_LAUNCH();
  rotate_angles_kernel<<<vertex_grid, 256, 0, stream>>>(angle, k, first, sorted);
  WAGENER_CUDA_CHECK_LAUNCH();
  std::size_t scan_bytes = 0;
  WAGENER_CUDA_CHECK(
      cub::DeviceScan::InclusiveScan(nullptr, scan_bytes, sorted, sorted, MaxOfDoubles{}, k, stream));
  FullHullWorkspace<T>::grow(ws.guide_scan_temp, static_cast<index_t>(std::max<std::size_t>(scan_bytes, 1)));
  scan_bytes = ws.guide_scan_temp.size();
  WAGENER_CUDA_CHECK(cub::DeviceScan::InclusiveScan(ws.guide_scan_temp.data(), scan_bytes, sorted, sorted,
                                                    MaxOfDoubles{}, k, stream));
  core::ChordFanView fan;
  fan.cx = coarse.cx, fan.cy = coarse.cy;
  fan.corner = ws.guide_corner.data();
  fan.buckets = static_cast<int>(buckets);
  fan.bucket_scale = static_cast<double>(buckets) / 4;
  guide_corners_kernel<T><<<stride_grid(buckets + 1), 256, 0, stream>>>(
      guide, k, first, sorted, fan.cx, fan.cy, fan.buckets, centre_inside, ws.guide_corner.data());
  WAGENER_CUDA_CHECK_LAUNCH();
  guide_ring_kernel<T><<<vertex_grid, 256, 0, stream>>>(guide, k, first, sorted, fan.cx, fan.cy,
                                                        ws.guide_ring.data(), ring_ok);
  WAGENER_CUDA_CHECK_LAUNCH();
  guide_ring_finish_kernel<<<ceil_div(core::kChordFanRingBuckets, 256), 256, 0, stream>>>(
      centre_inside, ring_ok, ws.guide_ring.data());
  WAGENER_CUDA_CHECK_LAUNCH();
  if (guide_ring_enabled()) {
    fan.ring = reinterpret_cast<const double*>(ws.guide_ring.data());
    fan.ring_buckets = core::kChordFanRingBuckets;
    fan.ring_scale = static_cast<double>(core::kChordFanRingBuckets) / 4;
  }
  if (profile) {
    profile->guide_vertices = k;
    unsigned long long flags[2] = {};  // the words the filter's two forms read
    WAGENER_CUDA_CHECK(
        cudaMemcpyAsync(flags, guide_ring_words(ws), sizeof flags, cudaMemcpyDeviceToHost, stream));
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    profile->guide_ring = fan.ring != nullptr && guide_ring_on(flags);
  }
  return fan;
}

#define WAGENER_INSTANTIATE(T)                                                                   \
  template std::optional<core::ChordFanView> build_guide<T, AosPoints<T>>(                       \
      AosPoints<T>, index_t, const core::InnerPolygonView&, FullHullWorkspace<T>&, cudaStream_t, \
      FullHullProfile*, bool*);                                                                  \
  template std::optional<core::ChordFanView> build_guide<T, SoaPoints<T>>(                       \
      SoaPoints<T>, index_t, const core::InnerPolygonView&, FullHullWorkspace<T>&, cudaStream_t, \
      FullHullProfile*, bool*);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cuda::full_hull

namespace wagener::cuda {
namespace {
std::atomic<index_t> min_points_for_guide_star_now{kDefaultMinPointsForGuideStar};
std::atomic<bool> guide_ring_now{true};
std::atomic<index_t> star_samples_per_bucket_now{full_hull::kStarSamplesPerBucket};
}  // namespace

index_t star_samples_per_bucket() {
  return star_samples_per_bucket_now.load(std::memory_order_relaxed);
}

void set_star_samples_per_bucket(index_t n) {
  star_samples_per_bucket_now.store(std::max<index_t>(n, 1), std::memory_order_relaxed);
}

bool guide_ring_enabled() {
  return guide_ring_now.load(std::memory_order_relaxed);
}

void set_guide_ring_enabled(bool on) {
  guide_ring_now.store(on, std::memory_order_relaxed);
}

index_t min_points_for_guide_star() {
  return min_points_for_guide_star_now.load(std::memory_order_relaxed);
}

void set_min_points_for_guide_star(index_t n) {
  min_points_for_guide_star_now.store(n, std::memory_order_relaxed);
}

}  // namespace wagener::cuda
