// Grouped hulls on the device: one pipeline for all the groups, never a launch per group.
//  1. hull_groups_by_thread: a warp takes 32 consecutive groups, a thread per group. The warp stages
//     the groups' points in shared memory with one coalesced copy (in rounds, when they do not fit
//     at once), and each thread then runs the whole small-hull recipe on its own group there:
//     finiteness and the eight extreme points (src/core/small_hull.hpp), a list of the points the
//     extreme polygon cannot discard, an insertion sort of that list and the monotone chain. The
//     thread writes the hull into the group's own range of a scratch array. A group of more points
//     than kThreadGroupPoints, or with more survivors than kThreadSurvivors, is listed for step 2.
//     (A warp per group, the earlier design, spent about 10,000 warp instructions per 100-point
//     group, most of them in one lane's sort and chain: bench/NOTES.md.)
//  2. hull_listed_groups: a warp per listed group reads the group's points (coalesced), finds the
//     extremes across the warp, compacts the survivors into shared memory, sorts them by rank across
//     the warp, and one lane chains them. A group too large for this (more points than
//     kWarpGroupPoints, or more survivors than kWarpSurvivors) is deferred.
//  3. Deferred groups, listed by step 2: the large ones on the device's single-hull pipeline
//     (convex_hull_on_device), the rest on the host's (compute_hull). Rare for the inputs this is for
//     (many small groups); hull-like groups of hundreds of points take this path.
//  4. An inclusive scan of the hull sizes (CUB) gives the hull offsets, and a warp per group copies
//     its hull into place.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cub/device/device_scan.cuh>
#include <string>
#include <vector>

#include "core/small_hull.hpp"
#include "cuda/buffers.cuh"
#include "cuda/check.cuh"
#include "cuda/convex_hull.cuh"
#include "cuda/cuda_backend.hpp"
#include "cuda/grouped_backend.hpp"
#include "cuda/launch.cuh"
#include "wagener/cuda.hpp"
#include "wagener/error.hpp"
#include "wagener/hull.hpp"

namespace wagener::cuda {
namespace {

// Step 1: a warp of 32 threads per block, a group per thread. Groups of more points than this go to
// step 2 (a thread would take too long over them, and their positions would not fit a byte).
constexpr int kTileGroups = 32;
constexpr int kThreadGroupPoints = 255;
// Survivors of the extreme polygon one thread sorts and chains (a 100-point disk leaves ~10); a
// group with more goes to step 2.
constexpr int kThreadSurvivors = 64;
// The bytes of points a block stages at once: four blocks (warps) fit a multiprocessor's shared
// memory, with their survivor lists. 3200 double or 6400 float points: 32 groups of 100 in one
// round.
constexpr std::size_t kStageBytes = 51200;
// Per thread: its survivors' positions in its group, then its chain's (one more).
constexpr std::size_t kListBytes = 2 * kThreadSurvivors + 1;
constexpr std::size_t kTileSharedBytes = kStageBytes + kTileGroups * kListBytes;

// Step 2: one warp per group, four warps per block: the shared buffers of four warps (double:
// 2 x 129 elements of 32 bytes each) stay within the 48 KB a block may take statically.
constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = 4;
// Groups of more points than this are deferred: a warp would take too long over them.
constexpr index_t kWarpGroupPoints = 4096;
// Survivors of the filter one warp sorts and chains in shared memory.
constexpr int kWarpSurvivors = 128;
// Deferred groups above this size run on the device's single-hull pipeline, the others on the host.
constexpr index_t kDeviceGroupPoints = index_t{1} << 16;

/// Adds group g to a list (of the groups step 2 or step 3 takes).
__device__ void list_group(index_t g, std::int64_t* list, unsigned long long* list_size) {
  list[atomicAdd(list_size, 1ull)] = g;
}

/// The extreme polygon of one group for one thread: the same eight corners as
/// core::ExtremePolygon (the extremes of x, x + y, y and y - x, counter-clockwise), found by position
/// and tested as a fixed octagon whose edges between equal corners are skipped. Everything stays in
/// registers and the test is branch-free: ExtremePolygon's dropped corners index its arrays at run
/// time, which puts them in local memory, and the lanes of a warp, each on its own group, would
/// diverge over its early exits.
template <class T>
class ThreadOctagon {
 public:
  /// Pre: n >= 1 points, all finite.
  __device__ ThreadOctagon(const Point2<T>* points, int n) {
    // The keys are rounded sums in T: they only choose which input points become corners, and any
    // choice is a valid filter (core::ExtremePolygon).
    T low[4], high[4];
    int low_at[4] = {0, 0, 0, 0}, high_at[4] = {0, 0, 0, 0};
    keys(points[0], low);
    keys(points[0], high);
    for (int i = 1; i < n; ++i) {
      T key[4];
      keys(points[i], key);
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        if (key[k] < low[k]) low[k] = key[k], low_at[k] = i;
        if (key[k] > high[k]) high[k] = key[k], high_at[k] = i;
      }
    }
    int distinct = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const Point2<T> c = points[k < 4 ? low_at[k] : high_at[k - 4]];
      x_[k] = static_cast<double>(c.x), y_[k] = static_cast<double>(c.y);
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      skip_[k] = x_[k] == x_[(k + 1) % 8] && y_[k] == y_[(k + 1) % 8];
      distinct += skip_[k] ? 0 : 1;
    }
    // Fewer than three distinct corners in a row certify nothing (core::ExtremePolygon::finish).
    enabled_ = distinct >= 3;
  }

  /// True when p is certified strictly left of every edge between distinct corners.
  __device__ bool strictly_inside(const Point2<T>& p) const {
    const auto px = static_cast<double>(p.x), py = static_cast<double>(p.y);
    double dx[8], dy[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) dx[k] = x_[k] - px, dy[k] = y_[k] - py;
    bool inside = enabled_;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int next = (k + 1) % 8;
      inside &= skip_[k] | certified_left_differences(dx[k], dy[k], dx[next], dy[next]);
    }
    return inside;
  }

 private:
  __device__ static void keys(const Point2<T>& p, T (&key)[4]) {
    key[0] = p.x, key[1] = p.x + p.y, key[2] = p.y, key[3] = p.y - p.x;
  }

  double x_[8], y_[8];
  bool skip_[8];
  bool enabled_;
};

/// Step 1 for one group of n points staged at `points` (shared memory), by one thread: returns false
/// when the group has more survivors than kThreadSurvivors (nothing written). Writes counts[g] and
/// the hull at scratch[begin ...] (indices at scratch_index, global). A non-finite point is reported
/// through first_bad (the call fails) and the group left.
template <class T>
__device__ bool hull_group_by_thread(const Point2<T>* points, int n, std::int64_t begin, index_t g,
                                     HullPart part, std::uint8_t* survivors, std::uint8_t* chain,
                                     Point2<T>* scratch, std::int64_t* scratch_index, std::int64_t* counts,
                                     unsigned long long* first_bad) {
  if (n == 0) {
    counts[g] = 0;
    return true;
  }
  int bad = n;
  for (int i = n - 1; i >= 0; --i) bad = isfinite(points[i].x) && isfinite(points[i].y) ? bad : i;
  if (bad < n) {
    atomicMin(first_bad, static_cast<unsigned long long>(begin + bad));
    return true;
  }
  const ThreadOctagon<T> octagon(points, n);
  // The survivors' positions, in index order: the stable sort below then keeps equal points in
  // index order, so the chain keeps the first of them, as compute_hull() does.
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (octagon.strictly_inside(points[i])) continue;
    if (m < kThreadSurvivors) survivors[m] = static_cast<std::uint8_t>(i);
    ++m;
  }
  if (m > kThreadSurvivors) return false;
  for (int i = 1; i < m; ++i) {
    const std::uint8_t e = survivors[i];
    const Point2<T> p = points[e];
    int j = i;
    for (; j > 0; --j) {
      const Point2<T> q = points[survivors[j - 1]];
      if (!(p.x < q.x || (p.x == q.x && p.y < q.y))) break;
      survivors[j] = survivors[j - 1];
    }
    survivors[j] = e;
  }
  const int k = core::chain_sorted(survivors, m, chain, part,
                                   [points](std::uint8_t e) -> const Point2<T>& { return points[e]; });
  counts[g] = k;
  for (int v = 0; v < k; ++v) {
    scratch[begin + v] = points[chain[v]];
    if (scratch_index) scratch_index[begin + v] = begin + chain[v];
  }
  return true;
}

/// Step 1 (see the file comment). Lists in warp_groups the groups it leaves to step 2.
template <class T>
__global__ void __launch_bounds__(kTileGroups)
    hull_groups_by_thread(const Point2<T>* points, const std::int64_t* offsets, index_t groups, HullPart part,
                          Point2<T>* scratch, std::int64_t* scratch_index, std::int64_t* counts,
                          std::int64_t* warp_groups, unsigned long long* warp_group_count,
                          unsigned long long* first_bad) {
  namespace cg = cooperative_groups;
  extern __shared__ __align__(16) unsigned char tile_shared[];
  constexpr int kStagePoints = static_cast<int>(kStageBytes / sizeof(Point2<T>));
  static_assert(kStagePoints >= kThreadGroupPoints, "a group on this path fits the stage alone");
  auto* staged = reinterpret_cast<Point2<T>*>(tile_shared);
  const int lane = static_cast<int>(threadIdx.x);
  std::uint8_t* survivors = tile_shared + kStageBytes + lane * kListBytes;
  std::uint8_t* chain = survivors + kThreadSurvivors;
  const cg::thread_block block = cg::this_thread_block();

  const index_t g = static_cast<index_t>(blockIdx.x) * kTileGroups + lane;
  const bool mine = g < groups;
  const std::int64_t begin = mine ? offsets[g] : 0, end = mine ? offsets[g + 1] : 0;
  // (end >= begin and begin >= base below hold for valid offsets; they keep a bad offsets array,
  // which the caller should have refused, from indexing outside the stage.)
  const bool by_thread = mine && end >= begin && end - begin <= kThreadGroupPoints;
  if (mine && !by_thread) list_group(g, warp_groups, warp_group_count);

  // Rounds: each stages the points of consecutive groups on this path that fit the stage together
  // (contiguous in the input), from the first group still pending.
  unsigned pending = __ballot_sync(0xffffffffu, by_thread);
  while (pending != 0) {
    const int first = __ffs(pending) - 1;
    const std::int64_t base = __shfl_sync(0xffffffffu, begin, first);
    const bool fits = by_thread && lane >= first && begin >= base && end - base <= kStagePoints;
    const unsigned stops = __ballot_sync(0xffffffffu, !fits) & (0xffffffffu << first);
    const int last = stops != 0 ? __ffs(stops) - 2 : kTileGroups - 1;
    const std::int64_t top = __shfl_sync(0xffffffffu, end, last);
    cg::memcpy_async(block, staged, points + base, static_cast<std::size_t>(top - base) * sizeof(Point2<T>));
    cg::wait(block);
    if (lane >= first && lane <= last) {
      if (!hull_group_by_thread(staged + (begin - base), static_cast<int>(end - begin), begin, g, part,
                                survivors, chain, scratch, scratch_index, counts, first_bad))
        list_group(g, warp_groups, warp_group_count);
    }
    block.sync();  // the stage is read before the next round overwrites it
    const unsigned through_last = last == 31 ? 0xffffffffu : (1u << (last + 1)) - 1u;
    pending &= ~through_last;
  }
}

template <class T>
struct Keyed {
  Point2<T> p;
  int index;  // within the group (< kWarpGroupPoints)
};

template <class T>
__device__ bool keyed_less(const Keyed<T>& a, const Keyed<T>& b) {
  if (a.p.x != b.p.x) return a.p.x < b.p.x;
  if (a.p.y != b.p.y) return a.p.y < b.p.y;
  return a.index < b.index;
}

template <class T>
__device__ void shuffle_point(Point2<T>& p, int lane) {
  p.x = __shfl_sync(0xffffffffu, p.x, lane);
  p.y = __shfl_sync(0xffffffffu, p.y, lane);
}

/// Step 2 (see the file comment), for the groups listed in `listed`. Writes counts[g] (or lists g in
/// deferred[]) and the hull of each group it finishes at scratch[offsets[g] ...] (indices
/// at scratch_index, global).
template <class T>
__global__ void hull_listed_groups(const Point2<T>* points, const std::int64_t* offsets,
                                   const std::int64_t* listed, index_t listed_count, HullPart part,
                                   Point2<T>* scratch, std::int64_t* scratch_index, std::int64_t* counts,
                                   std::int64_t* deferred, unsigned long long* deferred_count,
                                   unsigned long long* first_bad) {
  __shared__ Keyed<T> kept_all[kWarpsPerBlock][kWarpSurvivors];
  __shared__ Keyed<T> chain_all[kWarpsPerBlock][kWarpSurvivors + 1];
  const int warp = static_cast<int>(threadIdx.x) / kWarp;
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const index_t listed_at = static_cast<index_t>(blockIdx.x) * kWarpsPerBlock + warp;
  if (listed_at >= listed_count) return;  // the whole warp leaves together
  const index_t g = listed[listed_at];
  Keyed<T>* kept = kept_all[warp];
  Keyed<T>* chain = chain_all[warp];
  const std::int64_t begin = offsets[g];
  const index_t n = offsets[g + 1] - begin;
  const Point2<T>* group = points + begin;
  if (n == 0) {
    if (lane == 0) counts[g] = 0;
    return;
  }

  // Pass 1: finiteness and this lane's extremes.
  core::ExtremePolygon<T> polygon;
  polygon.start(group[0]);
  bool finite = true;
  index_t bad = LLONG_MAX;
  for (index_t i = lane; i < n; i += kWarp) {
    const Point2<T> p = group[i];
    if (!(isfinite(p.x) && isfinite(p.y))) {
      finite = false;
      bad = min(bad, i);
    } else {
      polygon.add(p);
    }
  }
  if (!finite) atomicMin(first_bad, static_cast<unsigned long long>(begin + bad));
  if (__any_sync(0xffffffffu, !finite)) return;  // reported; the call fails
  if (n > kWarpGroupPoints) {
    if (lane == 0) list_group(g, deferred, deferred_count);
    return;
  }
  // The warp's extremes: each corner is the best of the lanes' (ties: any; every choice of input
  // points as corners is a valid filter, so lanes need not agree).
  polygon.reduce_warp();
  polygon.finish();

  // Pass 2: compact the survivors into shared memory, in index order.
  int m = 0;
  for (index_t base = 0; base < n; base += kWarp) {
    const index_t i = base + lane;
    const bool keep = i < n && !polygon.strictly_inside(group[i]);
    const unsigned ballot = __ballot_sync(0xffffffffu, keep);
    const int at = m + __popc(ballot & ((1u << lane) - 1u));
    if (keep && at < kWarpSurvivors) kept[at] = {group[i], static_cast<int>(i)};
    m += __popc(ballot);
  }
  if (m > kWarpSurvivors) {
    if (lane == 0) list_group(g, deferred, deferred_count);
    return;
  }
  __syncwarp();
  // Sorted by rank across the warp: each survivor's place is the number of survivors less than it
  // (all keys differ: the index breaks ties), m steps of broadcast reads a lane. Lane 0 alone,
  // sorting by insertion and chaining, issued about 70 % of the kernel's warp instructions with one
  // thread active (ncu, bench/NOTES.md).
  for (int i = lane; i < m; i += kWarp) {
    const Keyed<T> e = kept[i];
    int rank = 0;
    for (int j = 0; j < m; ++j) rank += keyed_less(kept[j], e) ? 1 : 0;
    chain[rank] = e;
  }
  __syncwarp();
  for (int i = lane; i < m; i += kWarp) kept[i] = chain[i];
  __syncwarp();
  int k = 0;
  if (lane == 0) {
    k = core::chain_sorted(kept, m, chain, part, [](const Keyed<T>& e) -> const Point2<T>& { return e.p; });
    counts[g] = k;
  }
  k = __shfl_sync(0xffffffffu, k, 0);
  __syncwarp();
  for (int v = lane; v < k; v += kWarp) {
    scratch[begin + v] = chain[v].p;
    if (scratch_index) scratch_index[begin + v] = begin + chain[v].index;
  }
}

/// Step 4: a warp per group copies its hull from its input range of the scratch into place.
template <class T>
__global__ void gather_hulls(const Point2<T>* scratch, const std::int64_t* scratch_index,
                             const std::int64_t* offsets, const std::int64_t* hull_offsets, index_t groups,
                             Point2<T>* hull, std::int64_t* indices) {
  const index_t g = (static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  if (g >= groups) return;
  const std::int64_t from = offsets[g], to = hull_offsets[g], k = hull_offsets[g + 1] - to;
  for (std::int64_t v = lane; v < k; v += kWarp) {
    hull[to + v] = scratch[from + v];
    if (indices) indices[to + v] = scratch_index[from + v];
  }
}

/// The hull of a deferred group, by the single-hull paths, into the group's range of the scratch.
template <class T>
std::int64_t hull_deferred_group(const Point2<T>* d_group, std::int64_t begin, index_t n, HullPart part,
                                 bool with_indices, Point2<T>* scratch, std::int64_t* scratch_index,
                                 cudaStream_t stream) {
  std::vector<Point2<T>> vertices;
  std::vector<std::int64_t> indices;
  if (n > kDeviceGroupPoints && part == HullPart::full && !with_indices) {
    vertices = convex_hull_on_device(d_group, n, stream, nullptr);
  } else {
    std::vector<Point2<T>> group(static_cast<std::size_t>(n));
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(group.data(), d_group, group.size() * sizeof(Point2<T>),
                                       cudaMemcpyDeviceToHost, stream));
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    HullOptions options;
    options.backend = Backend::cpu;
    options.part = part;
    options.indices = with_indices;
    HullResult<T> r = compute_hull<T>(group, options);
    vertices = std::move(r.vertices);
    for (const std::int64_t i : r.indices) indices.push_back(begin + i);
  }
  if (!vertices.empty()) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(scratch + begin, vertices.data(), vertices.size() * sizeof(Point2<T>),
                                       cudaMemcpyHostToDevice, stream));
  }
  if (with_indices && !indices.empty()) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(scratch_index + begin, indices.data(),
                                       indices.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice,
                                       stream));
  }
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host vectors go out of scope
  return static_cast<std::int64_t>(vertices.size());
}

}  // namespace

template <class T>
index_t convex_hulls_device(const Point2<T>* d_points, const std::int64_t* d_offsets, index_t n,
                            index_t groups, Point2<T>* d_hull, std::int64_t* d_hull_offsets,
                            std::int64_t* d_indices, HullPart part, void* stream_handle) {
  const auto stream = static_cast<cudaStream_t>(stream_handle);
  WAGENER_CUDA_CHECK(cudaMemsetAsync(d_hull_offsets, 0, sizeof(std::int64_t), stream));
  if (groups == 0) {
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    return 0;
  }
  const bool with_indices = d_indices != nullptr;
  DeviceBuffer<Point2<T>> scratch(static_cast<std::size_t>(std::max<index_t>(n, 1)));
  DeviceBuffer<std::int64_t> scratch_index(with_indices ? static_cast<std::size_t>(std::max<index_t>(n, 1))
                                                        : 0);
  // Groups step 1 leaves to step 2, and groups step 2 leaves to step 3.
  DeviceBuffer<std::int64_t> listed(static_cast<std::size_t>(groups));
  DeviceBuffer<std::int64_t> deferred(static_cast<std::size_t>(groups));
  DeviceBuffer<unsigned long long> flags(3);  // [0] listed, [1] deferred, [2] first non-finite point
  const unsigned long long initial[3] = {0, 0, ULLONG_MAX};
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(flags.data(), initial, sizeof initial, cudaMemcpyHostToDevice, stream));
  // The sizes go straight into the hull offsets (shifted by one), which the scan then sums in place.
  std::int64_t* counts = d_hull_offsets + 1;
  WAGENER_CUDA_CHECK(cudaFuncSetAttribute(hull_groups_by_thread<T>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(kTileSharedBytes)));
  hull_groups_by_thread<T>
      <<<static_cast<unsigned>(ceil_div(groups, kTileGroups)), kTileGroups, kTileSharedBytes, stream>>>(
          d_points, d_offsets, groups, part, scratch.data(), scratch_index.data(), counts, listed.data(),
          flags.data(), flags.data() + 2);
  WAGENER_CUDA_CHECK_LAUNCH();
  unsigned long long listed_count = 0;
  WAGENER_CUDA_CHECK(
      cudaMemcpyAsync(&listed_count, flags.data(), sizeof listed_count, cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (listed_count > 0) {
    hull_listed_groups<T>
        <<<static_cast<unsigned>(ceil_div(static_cast<index_t>(listed_count), kWarpsPerBlock)),
           kWarpsPerBlock * kWarp, 0, stream>>>(
            d_points, d_offsets, listed.data(), static_cast<index_t>(listed_count), part, scratch.data(),
            scratch_index.data(), counts, deferred.data(), flags.data() + 1, flags.data() + 2);
    WAGENER_CUDA_CHECK_LAUNCH();
  }
  unsigned long long status[2] = {0, 0};  // deferred, first non-finite point
  WAGENER_CUDA_CHECK(
      cudaMemcpyAsync(status, flags.data() + 1, sizeof status, cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (status[1] != ULLONG_MAX) throw input_error("point " + std::to_string(status[1]) + " is not finite");

  if (status[0] > 0) {
    std::vector<std::int64_t> late(status[0]);
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(late.data(), deferred.data(), late.size() * sizeof(std::int64_t),
                                       cudaMemcpyDeviceToHost, stream));
    std::vector<std::int64_t> late_offsets(2 * late.size());
    for (std::size_t i = 0; i < late.size(); ++i) {
      WAGENER_CUDA_CHECK(cudaMemcpyAsync(&late_offsets[2 * i], d_offsets + late[i], 2 * sizeof(std::int64_t),
                                         cudaMemcpyDeviceToHost, stream));
    }
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t i = 0; i < late.size(); ++i) {
      const std::int64_t begin = late_offsets[2 * i];
      const std::int64_t k =
          hull_deferred_group(d_points + begin, begin, late_offsets[2 * i + 1] - begin, part, with_indices,
                              scratch.data(), scratch_index.data(), stream);
      WAGENER_CUDA_CHECK(cudaMemcpyAsync(counts + late[i], &k, sizeof k, cudaMemcpyHostToDevice, stream));
      WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
  }

  std::size_t temp_bytes = 0;
  WAGENER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, counts, counts, groups, stream));
  DeviceBuffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
  WAGENER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data(), temp_bytes, counts, counts, groups, stream));
  constexpr int kGatherThreads = 256;
  gather_hulls<T>
      <<<static_cast<unsigned>(ceil_div(groups * kWarp, kGatherThreads)), kGatherThreads, 0, stream>>>(
          scratch.data(), scratch_index.data(), d_offsets, d_hull_offsets, groups, d_hull, d_indices);
  WAGENER_CUDA_CHECK_LAUNCH();
  std::int64_t total = 0;
  WAGENER_CUDA_CHECK(
      cudaMemcpyAsync(&total, d_hull_offsets + groups, sizeof total, cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  return total;
}

template <class T>
GroupedHulls<T> grouped_hulls(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets,
                              HullPart part, bool with_indices, HullStats* stats) {
  require_device();
  Stream stream;
  Event start, copied, done;
  start.record(stream.get());
  const std::size_t n = points.size(), groups = offsets.size() - 1;
  DeviceBuffer<Point2<T>> d_points(std::max<std::size_t>(n, 1));
  DeviceBuffer<std::int64_t> d_offsets(offsets.size());
  DeviceBuffer<Point2<T>> d_hull(std::max<std::size_t>(n, 1));
  DeviceBuffer<std::int64_t> d_hull_offsets(offsets.size());
  DeviceBuffer<std::int64_t> d_indices(with_indices ? std::max<std::size_t>(n, 1) : 0);
  if (n > 0) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(d_points.data(), points.data(), n * sizeof(Point2<T>),
                                       cudaMemcpyHostToDevice, stream.get()));
  }
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(d_offsets.data(), offsets.data(), offsets.size() * sizeof(std::int64_t),
                                     cudaMemcpyHostToDevice, stream.get()));
  copied.record(stream.get());
  const index_t total = convex_hulls_device<T>(
      d_points.data(), d_offsets.data(), static_cast<index_t>(n), static_cast<index_t>(groups), d_hull.data(),
      d_hull_offsets.data(), with_indices ? d_indices.data() : nullptr, part, stream.get());
  done.record(stream.get());
  GroupedHulls<T> out;
  out.vertices.resize(static_cast<std::size_t>(total));
  out.offsets.resize(offsets.size());
  if (with_indices) out.indices.resize(static_cast<std::size_t>(total));
  if (total > 0) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(out.vertices.data(), d_hull.data(),
                                       out.vertices.size() * sizeof(Point2<T>), cudaMemcpyDeviceToHost,
                                       stream.get()));
    if (with_indices) {
      WAGENER_CUDA_CHECK(cudaMemcpyAsync(out.indices.data(), d_indices.data(),
                                         out.indices.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost,
                                         stream.get()));
    }
  }
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(out.offsets.data(), d_hull_offsets.data(),
                                     out.offsets.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost,
                                     stream.get()));
  stream.synchronize();
  if (stats) {
    stats->transfer_milliseconds = copied.since(start);
    stats->device_milliseconds = done.since(copied);
  }
  return out;
}

#define WAGENER_INSTANTIATE(T)                                                                              \
  template GroupedHulls<T> grouped_hulls(std::span<const Point2<T>>, std::span<const std::int64_t>,         \
                                         HullPart, bool, HullStats*);                                       \
  template index_t convex_hulls_device(const Point2<T>*, const std::int64_t*, index_t, index_t, Point2<T>*, \
                                       std::int64_t*, std::int64_t*, HullPart, void*);
WAGENER_INSTANTIATE(float)
WAGENER_INSTANTIATE(double)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cuda
