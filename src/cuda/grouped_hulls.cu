// Grouped hulls on the device: one pipeline for all the groups, never a launch per group.
//  1. hull_groups_by_team: a team of kTeamLanes lanes per group, the 4 or 8 groups of a one-warp
//     block consecutive. The warp stages its groups' points in shared memory with one coalesced copy
//     (in rounds, when they do not fit at once), and each team then runs the small-hull recipe on
//     its group there: finiteness and the eight extreme points (src/core/small_hull.hpp) in one pass,
//     each lane over every kTeamLanes-th point, then agreed by shuffles; the points the extreme
//     polygon cannot discard, compacted by ballots in index order and split by the line from the
//     smallest point to the largest; each side sorted by rank, split over the team; and each side's
//     chain in pieces split at the octagon's corners, a lane each (chain_sides). It writes the hull's size
//     and its vertices' positions in the group (a byte each). A group of more points than kThreadGroupPoints,
//     or with more survivors than kThreadSurvivors, is listed for step 2. (A warp per group spent ~10,000
//     warp instructions per 100-point group, most of them in one lane's sort and chain; a thread per group,
//     ~1,000, but a 32-group stage left one warp per scheduler to wait out every latency: bench/NOTES.md.)
//  2. hull_listed_groups: a warp per listed group reads the group's points (coalesced), finds the
//     extremes across the warp, compacts the survivors into shared memory, sorts them by rank across
//     the warp, and one lane chains them, into a scratch array at the group's input range. A group
//     too large for this (more points than kWarpGroupPoints, or more survivors than kWarpSurvivors)
//     is deferred.
//  3. Deferred groups, listed by step 2: the large ones on the device's single-hull pipeline
//     (convex_hull_on_device), the rest on the host's (compute_hull). Rare for the inputs this is for
//     (many small groups); hull-like groups of hundreds of points take this path.
//  4. An inclusive scan of the hull sizes (CUB) gives the hull offsets, and a warp per 32 groups
//     writes their hulls in place, from the input at step 1's positions or from step 2's scratch.
//     The scratch (n points) is allocated only when step 1 lists a group. The rest of a call's
//     working memory (n bytes of positions, two lists of groups) lies at the end of d_hull where it
//     fits there, so that a call of small groups allocates nothing (Workspace).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <string>
#include <type_traits>
#include <vector>

#include "core/small_hull.hpp"
#include "cuda/buffers.cuh"
#include "cuda/check.cuh"
#include "cuda/convex_hull.cuh"
#include "cuda/cuda_backend.hpp"
#include "cuda/grouped_backend.hpp"
#include "cuda/grouped_team.cuh"
#include "cuda/launch.cuh"
#include "wagener/cuda.hpp"
#include "wagener/error.hpp"
#include "wagener/hull.hpp"

namespace wagener::cuda {
namespace {

using namespace grouped_team;  // step 1's work for one group (grouped_team.cuh)

// Lanes per group: more lanes, fewer groups per warp, a smaller stage and more warps per
// multiprocessor; but more shuffles, and more lanes idle while one chains. Measured on an H100 with
// 10^6 groups of 100 points (bench/NOTES.md): 8 for double, 4 for float.
template <class T>
constexpr int kTeamLanes = sizeof(T) == 8 ? 8 : 4;
// The bytes of points a block stages at once: 32 / Lanes groups of 100 points in one round.
template <class T, int Lanes>
constexpr std::size_t kStageBytes = 3200 / Lanes * sizeof(Point2<T>);
// Per group, four lists of survivors' positions and the chains' six split corners (TeamLists), padded
// to 8 bytes (no fewer blocks per multiprocessor than without them).
constexpr std::size_t kListBytes = 4 * kThreadSurvivors + 8;
template <class T, int Lanes>
constexpr std::size_t kTileSharedBytes = kStageBytes<T, Lanes> + (32 / Lanes * kListBytes);
// Blocks per multiprocessor the registers must allow: as many as shared memory allows on an H100
// (228 KB, 1 KB of it reserved per block), 27 for double and 24 for float, so 72 and 80 registers
// a lane. (At 32 blocks, 64 registers, the kernel spilled in its loops.)
template <class T>
constexpr int kTeamBlocks =
    static_cast<int>(std::min<std::size_t>(32, 228 * 1024 / (kTileSharedBytes<T, kTeamLanes<T>> + 1024)));
// Marks, in step 1's positions, a group it listed: a position on the thread path is at most 254.
constexpr std::uint8_t kListed = 0xff;
static_assert(kThreadGroupPoints <= kListed, "positions on the thread path stay below the mark");

// Step 4: threads per block, and outputs a lane places at a time.
constexpr int kPlaceThreads = 256;
constexpr int kPlaceBatch = 4;
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

/// Step 1 (see the file comment), a team of Lanes lanes per group, registers for MinBlocks blocks
/// per multiprocessor. For each group it finishes, writes counts[g] and the chain's positions in the
/// group at positions[offsets[g] ...]; lists the others in `listed`, marking positions[offsets[g]]
/// with kListed.
template <class T, int Lanes, int MinBlocks>
__global__ void __launch_bounds__(kWarp, MinBlocks)
    hull_groups_by_team(const Point2<T>* points, const std::int64_t* offsets, index_t groups, HullPart part,
                        std::int64_t* counts, std::uint8_t* positions, std::int64_t* listed,
                        unsigned long long* listed_count, unsigned long long* first_bad) {
  namespace cg = cooperative_groups;
  extern __shared__ __align__(16) unsigned char tile_shared[];
  constexpr int kStagePoints = static_cast<int>(kStageBytes<T, Lanes> / sizeof(Point2<T>));
  static_assert(kStagePoints >= kThreadGroupPoints, "a group on this path fits the stage alone");
  auto* staged = reinterpret_cast<Point2<T>*>(tile_shared);
  const int lane = static_cast<int>(threadIdx.x);
  const int slot = lane / Lanes, team_lane = lane % Lanes;
  const unsigned team_mask = ((1u << Lanes) - 1u) << (slot * Lanes);
  const bool leader = team_lane == 0;
  const TeamLists lists(tile_shared + kStageBytes<T, Lanes> + slot * kListBytes);
  const cg::thread_block block = cg::this_thread_block();

  const index_t g = static_cast<index_t>(blockIdx.x) * (kWarp / Lanes) + slot;
  const bool mine = g < groups;
  const std::int64_t begin = mine ? offsets[g] : 0, end = mine ? offsets[g + 1] : 0;
  // (end >= begin and begin >= base below hold for valid offsets; they keep a bad offsets array,
  // which the caller should have refused, from indexing outside the stage.)
  const bool by_team = mine && end >= begin && end - begin <= kThreadGroupPoints;
  TeamHull hull{-1, 0};  // once this team has its group's hull

  // Rounds: each stages the points of consecutive groups on this path that fit the stage together
  // (contiguous in the input), from the first group still pending. The teams' leaders decide.
  unsigned pending = __ballot_sync(0xffffffffu, by_team && leader);
  while (pending != 0) {
    const int first = __ffs(pending) - 1;
    const std::int64_t base = __shfl_sync(0xffffffffu, begin, first);
    const bool fits = by_team && lane >= first && begin >= base && end - base <= kStagePoints;
    const unsigned stops = __ballot_sync(0xffffffffu, leader && !fits) & (0xffffffffu << first);
    const int last = stops != 0 ? __ffs(stops) - 1 - Lanes : kWarp - Lanes;  // the last leader in the round
    const std::int64_t top = __shfl_sync(0xffffffffu, end, last);
    cg::memcpy_async(block, staged, points + base, static_cast<std::size_t>(top - base) * sizeof(Point2<T>));
    cg::wait(block);
    if (lane >= first && lane < last + Lanes) {
      hull = hull_group_by_team<T, Lanes>(staged + (begin - base), static_cast<int>(end - begin), begin, part,
                                          team_lane, team_mask, lists, first_bad);
    }
    block.sync();  // the stage is read before the next round overwrites it
    const unsigned through_last = last + Lanes == kWarp ? 0xffffffffu : (1u << (last + Lanes)) - 1u;
    pending &= ~through_last;
  }
  if (!mine) return;
  if (hull.count >= 0) {
    if (leader) counts[g] = hull.count;
    for (int v = team_lane; v < hull.count; v += Lanes) positions[begin + v] = hull.position(v, lists);
  } else if (leader) {
    list_group(g, listed, listed_count);
    positions[begin] = kListed;  // a listed group has points (more than kThreadSurvivors)
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
/// deferred[]) and the hull of each group it finishes at scratch[offsets[g] ...] (indices at
/// scratch_index, into the whole input).
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
    if (!is_finite(p)) {
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

/// Step 4: a warp per kWarp consecutive groups writes their hulls in place, one contiguous range
/// of the output, a vertex a lane (coalesced writes; a warp per group left half its lanes idle on
/// 15-vertex hulls and waited on three dependent loads per group): from the input at step 1's
/// positions, or, for a group step 1 listed, from the scratch steps 2 and 3 wrote.
template <class T>
__global__ void place_hulls(const Point2<T>* points, const std::int64_t* offsets,
                            const std::uint8_t* positions, const Point2<T>* scratch,
                            const std::int64_t* scratch_index, const std::int64_t* hull_offsets,
                            index_t groups, Point2<T>* hull, std::int64_t* indices) {
  constexpr int kWarps = kPlaceThreads / kWarp;
  // Per group of the warp's: where its points begin (negated when step 1 listed it), where its hull
  // goes; one more entry for the end of the last hull.
  __shared__ std::int64_t begin_all[kWarps][kWarp], to_all[kWarps][kWarp + 1];
  const int warp = static_cast<int>(threadIdx.x) / kWarp, lane = static_cast<int>(threadIdx.x) % kWarp;
  const index_t first = (static_cast<index_t>(blockIdx.x) * kWarps + warp) * kWarp;
  if (first >= groups) return;  // the whole warp leaves together
  const index_t tile = std::min<index_t>(kWarp, groups - first);
  std::int64_t* begin = begin_all[warp];
  std::int64_t* to = to_all[warp];
  if (lane < tile) {
    const index_t g = first + lane;
    const std::int64_t b = offsets[g], t = hull_offsets[g];
    // The mark is a listed group's first position; a group with a hull has points to read it from.
    const bool listed = hull_offsets[g + 1] > t && positions[b] == kListed;
    begin[lane] = listed ? -1 - b : b;
    to[lane] = t;
  }
  if (lane == 0) to[tile] = hull_offsets[first + tile];
  __syncwarp();
  // kPlaceBatch outputs a lane at a time: their loads are issued before any is used, so that each
  // lane has several gathers from the input in flight rather than one.
  const std::int64_t start = to[0], stop = to[tile];
  for (std::int64_t batch = start; batch < stop; batch += kPlaceBatch * kWarp) {
    std::int64_t from[kPlaceBatch];  // the input index of each output, negated for the scratch
#pragma unroll
    for (int r = 0; r < kPlaceBatch; ++r) {
      const std::int64_t o = batch + r * kWarp + lane;
      from[r] = 0;
      if (o >= stop) continue;
      // The group holding output o: the last of the tile whose hull starts at or before it (a
      // binary search; empty hulls share their start with the next, which the search passes over).
      int low = 0, high = static_cast<int>(tile) - 1;
      while (low < high) {
        const int mid = (low + high + 1) / 2;
        if (to[mid] <= o) {
          low = mid;
        } else {
          high = mid - 1;
        }
      }
      const std::int64_t v = o - to[low], b = begin[low];
      from[r] = b < 0 ? b - v : b + positions[b + v];
    }
#pragma unroll
    for (int r = 0; r < kPlaceBatch; ++r) {
      const std::int64_t o = batch + r * kWarp + lane;
      if (o >= stop) continue;
      if (from[r] < 0) {
        hull[o] = scratch[-1 - from[r]];
        if (indices) indices[o] = scratch_index[-1 - from[r]];
      } else {
        hull[o] = points[from[r]];
        if (indices) indices[o] = from[r];
      }
    }
  }
}

/// The hull of a deferred group (begin: its place in the input), by the single-hull paths, written at
/// hull (indices, when asked, at hull_indices, into the whole input). Returns its size.
template <class T>
std::int64_t hull_deferred_group(const Point2<T>* d_group, std::int64_t begin, index_t n, HullPart part,
                                 bool with_indices, Point2<T>* hull, std::int64_t* hull_indices,
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
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(hull, vertices.data(), vertices.size() * sizeof(Point2<T>),
                                       cudaMemcpyHostToDevice, stream));
  }
  if (with_indices && !indices.empty()) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(hull_indices, indices.data(), indices.size() * sizeof(std::int64_t),
                                       cudaMemcpyHostToDevice, stream));
  }
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host vectors go out of scope
  return static_cast<std::int64_t>(vertices.size());
}

/// The per-call state in one piece of device memory: the end of the output array where it fits there
/// (the hulls, written last, rarely reach it), else one allocation (each cudaMalloc and cudaFree is
/// a call into the driver: ~0.2 ms for 10^8 positions).
struct Workspace {
  static constexpr int kFlags = 3;    // [0] listed, [1] deferred, [2] first non-finite point
  DeviceBuffer<unsigned char> bytes;  // empty when the workspace is borrowed from the output
  bool borrowed = false;
  std::size_t borrowed_from = 0;  // where it starts in the output, in bytes, when borrowed
  unsigned long long* flags = nullptr;
  std::int64_t* listed = nullptr;    // groups step 1 leaves to step 2
  std::int64_t* deferred = nullptr;  // groups step 2 leaves to step 3
  void* scan_storage = nullptr;      // step 4's scan (CUB's temporary storage)
  std::size_t scan_bytes = 0;
  std::uint8_t* positions = nullptr;  // step 1's chains, by position in their groups (n entries)

  /// `output`: the caller's output array, `output_bytes` long, which the workspace may borrow.
  Workspace(index_t n, index_t groups, std::int64_t* counts, void* output, std::size_t output_bytes,
            cudaStream_t stream) {
    WAGENER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, counts, counts, groups, stream));
    const auto aligned = [](std::size_t b) { return (b + 255) / 256 * 256; };
    const std::size_t flag_bytes = aligned(kFlags * sizeof(unsigned long long));
    const std::size_t list_bytes = aligned(static_cast<std::size_t>(groups) * sizeof(std::int64_t));
    const std::size_t scan_at = flag_bytes + 2 * list_bytes, positions_at = scan_at + aligned(scan_bytes);
    const std::size_t size = positions_at + static_cast<std::size_t>(std::max<index_t>(n, 1));
    unsigned char* at = nullptr;
    if (output != nullptr && size + 256 <= output_bytes) {
      // 256-byte aligned, as CUB's storage and the lists' atomics want, wherever the output starts.
      const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(output), end = start + output_bytes;
      const std::uintptr_t from = (end - size) / 256 * 256;
      borrowed = true;
      borrowed_from = from - start;
      at = reinterpret_cast<unsigned char*>(from);
    } else {
      bytes = DeviceBuffer<unsigned char>(size);
      at = bytes.data();
    }
    flags = reinterpret_cast<unsigned long long*>(at);
    listed = reinterpret_cast<std::int64_t*>(at + flag_bytes);
    deferred = reinterpret_cast<std::int64_t*>(at + flag_bytes + list_bytes);
    scan_storage = at + scan_at;
    positions = at + positions_at;
  }
};

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
  // The sizes go straight into the hull offsets (shifted by one), which the scan then sums in place.
  std::int64_t* counts = d_hull_offsets + 1;
  Workspace work(n, groups, counts, d_hull, static_cast<std::size_t>(n) * sizeof(Point2<T>), stream);
  // Flags 0 and 1 count from 0; flag 2, the first non-finite point, starts at ULLONG_MAX.
  WAGENER_CUDA_CHECK(cudaMemsetAsync(work.flags, 0, 2 * sizeof(unsigned long long), stream));
  WAGENER_CUDA_CHECK(cudaMemsetAsync(work.flags + 2, 0xff, sizeof(unsigned long long), stream));

  // Step 1: the hulls of the small groups, as sizes and positions.
  constexpr int kLanes = kTeamLanes<T>;
  constexpr std::size_t kShared = kTileSharedBytes<T, kLanes>;
  constexpr auto step1 = hull_groups_by_team<T, kLanes, kTeamBlocks<T>>;
  allow_dynamic_shared<step1>(static_cast<int>(kShared));
  step1<<<static_cast<unsigned>(ceil_div(groups, kWarp / kLanes)), kWarp, kShared, stream>>>(
      d_points, d_offsets, groups, part, counts, work.positions, work.listed, work.flags, work.flags + 2);
  WAGENER_CUDA_CHECK_LAUNCH();
  unsigned long long status[Workspace::kFlags] = {};
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(status, work.flags, sizeof status, cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto refuse_non_finite = [&] {
    if (status[2] != ULLONG_MAX) throw input_error("point " + std::to_string(status[2]) + " is not finite");
  };
  refuse_non_finite();

  // Steps 2 and 3, for the groups step 1 listed: their hulls go to the scratch, at their input places.
  DeviceBuffer<Point2<T>> scratch;
  DeviceBuffer<std::int64_t> scratch_index;
  if (status[0] > 0) {
    scratch = DeviceBuffer<Point2<T>>(static_cast<std::size_t>(std::max<index_t>(n, 1)));
    if (with_indices)
      scratch_index = DeviceBuffer<std::int64_t>(static_cast<std::size_t>(std::max<index_t>(n, 1)));
    hull_listed_groups<T><<<static_cast<unsigned>(ceil_div(static_cast<index_t>(status[0]), kWarpsPerBlock)),
                            kWarpsPerBlock * kWarp, 0, stream>>>(
        d_points, d_offsets, work.listed, static_cast<index_t>(status[0]), part, scratch.data(),
        scratch_index.data(), counts, work.deferred, work.flags + 1, work.flags + 2);
    WAGENER_CUDA_CHECK_LAUNCH();
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(status, work.flags, sizeof status, cudaMemcpyDeviceToHost, stream));
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    refuse_non_finite();
  }
  if (status[1] > 0) {
    std::vector<std::int64_t> late(status[1]);
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(late.data(), work.deferred, late.size() * sizeof(std::int64_t),
                                       cudaMemcpyDeviceToHost, stream));
    std::vector<std::int64_t> late_offsets(2 * late.size());
    for (std::size_t i = 0; i < late.size(); ++i) {
      WAGENER_CUDA_CHECK(cudaMemcpyAsync(&late_offsets[2 * i], d_offsets + late[i], 2 * sizeof(std::int64_t),
                                         cudaMemcpyDeviceToHost, stream));
    }
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t i = 0; i < late.size(); ++i) {
      const std::int64_t begin = late_offsets[2 * i];
      const std::int64_t k = hull_deferred_group(
          d_points + begin, begin, late_offsets[2 * i + 1] - begin, part, with_indices,
          scratch.data() + begin, with_indices ? scratch_index.data() + begin : nullptr, stream);
      WAGENER_CUDA_CHECK(cudaMemcpyAsync(counts + late[i], &k, sizeof k, cudaMemcpyHostToDevice, stream));
      WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
  }

  // Step 4: the hull offsets from the sizes, and every hull in its place.
  WAGENER_CUDA_CHECK(
      cub::DeviceScan::InclusiveSum(work.scan_storage, work.scan_bytes, counts, counts, groups, stream));
  std::int64_t total = 0;
  WAGENER_CUDA_CHECK(
      cudaMemcpyAsync(&total, d_hull_offsets + groups, sizeof total, cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  // A workspace borrowed from the output must not be overwritten by the hulls before it is read:
  // where they would reach it (nearly every point a vertex), the positions move out first.
  const std::uint8_t* positions = work.positions;
  DeviceBuffer<std::uint8_t> moved_positions;
  if (work.borrowed && static_cast<std::size_t>(total) * sizeof(Point2<T>) > work.borrowed_from) {
    moved_positions = DeviceBuffer<std::uint8_t>(static_cast<std::size_t>(n));
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(moved_positions.data(), work.positions, static_cast<std::size_t>(n),
                                       cudaMemcpyDeviceToDevice, stream));
    positions = moved_positions.data();
  }
  place_hulls<T><<<static_cast<unsigned>(ceil_div(groups, kPlaceThreads)), kPlaceThreads, 0, stream>>>(
      d_points, d_offsets, positions, scratch.data(), scratch_index.data(), d_hull_offsets, groups, d_hull,
      d_indices);
  WAGENER_CUDA_CHECK_LAUNCH();
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

WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE_CUDA_GROUPED)

}  // namespace wagener::cuda
