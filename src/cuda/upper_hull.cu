// Kernels of the upper hull and the host loop over Wagener's device-wide rounds.
#include <algorithm>
#include <climits>
#include <cub/device/device_scan.cuh>
#include <string>

#include "core/merge_step.hpp"
#include "cuda/block_upper_hull.cuh"
#include "cuda/check.cuh"
#include "cuda/launch.cuh"
#include "cuda/policy.cuh"
#include "cuda/upper_hull.cuh"
#include "wagener/error.hpp"

namespace wagener::cuda {
namespace {

// ---- tile level --------------------------------------------------------------------------------

/// One block per tile: validate (optionally), chain the strips, merge them; write the tile's hood at
/// the tile's offset of `hood` and its size at size[tile]. Shared memory is dynamic (over 48 KB).
template <class T>
__global__ void __launch_bounds__(UpperHullPolicy<T>::kThreads)
    tile_hoods_kernel(const Point2<T>* points, index_t n, Point2<T>* hood, index_t* size,
                      unsigned long long* first_bad, bool validate) {
  using Policy = UpperHullPolicy<T>;
  using Block = BlockUpperHull<T, Policy>;
  extern __shared__ unsigned char shared_bytes[];
  auto& storage = *reinterpret_cast<typename Block::TempStorage*>(shared_bytes);
  const index_t start = static_cast<index_t>(blockIdx.x) * Policy::kTile;
  const index_t remaining = n - start;
  const int count = remaining < Policy::kTile ? static_cast<int>(remaining) : Policy::kTile;
  if (validate) {
    for (int i = threadIdx.x; i < count; i += Policy::kThreads) {
      const index_t g = start + i;
      const Point2<T> p = points[g];
      if (!isfinite(p.x) || !isfinite(p.y)) atomicMin(&first_bad[0], static_cast<unsigned long long>(g));
      if (g > 0 && lex_less(p, points[g - 1])) atomicMin(&first_bad[1], static_cast<unsigned long long>(g));
    }
  }
  Block block(storage);
  const index_t h = block.run(points + start, count);
  for (index_t i = threadIdx.x; i < h; i += Policy::kThreads) hood[start + i] = block.hood()[i];
  if (threadIdx.x == 0) size[blockIdx.x] = h;
}

/// Compaction between levels: tile t's hood (at t * tile) goes to dense[offset[t] ...], one warp a tile.
template <class T>
__global__ void gather_kernel(const Point2<T>* hood, const index_t* size, const index_t* offset,
                              index_t tiles, index_t tile, Point2<T>* dense) {
  constexpr int kWarp = 32;
  const index_t warps = static_cast<index_t>(gridDim.x) * blockDim.x / kWarp;
  for (index_t t = (static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp; t < tiles;
       t += warps) {
    const Point2<T>* src = hood + t * tile;
    Point2<T>* dst = dense + offset[t];
    for (index_t i = threadIdx.x % kWarp; i < size[t]; i += kWarp) dst[i] = src[i];
  }
}

// ---- device-wide rounds ------------------------------------------------------------------------
// Round r merges hood blocks of width w (points) pairwise. A merge's processors are cut into work
// units of Policy::kUnit; units of all merges are spread over a grid-stride loop, so a round costs
// the same launches whatever the hood sizes, and large merges use the whole GPU.

template <class T>
__global__ void plan_kernel(const Point2<T>* hood, const index_t* size, index_t blocks, index_t w,
                            core::MergePlan* plans) {
  const index_t k = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (2 * k >= blocks) return;
  const index_t m = size[2 * k];
  const index_t n = 2 * k + 1 < blocks ? size[2 * k + 1] : 0;
  plans[k] = core::plan_merge(hood + 2 * k * w, m, hood + (2 * k + 1) * w, n);
}

template <class T, class Policy = UpperHullPolicy<T>>
__global__ void __launch_bounds__(Policy::kRoundThreads)
    phase_kernel(int phase, const Point2<T>* hood, index_t merges, index_t w, index_t smax,
                 index_t units_per_merge, const core::MergePlan* plans, index_t* cells) {
  const index_t units = merges * units_per_merge;
  for (index_t u = blockIdx.x; u < units; u += gridDim.x) {
    const index_t k = u / units_per_merge;
    const index_t first = (u % units_per_merge) * Policy::kUnit;
    const core::MergePlan plan = plans[k];
    const index_t vps = plan.s == 0 ? 0 : core::phase_processors(phase, plan.s);
    if (first >= vps) continue;  // uniform across the block
    const Point2<T>* p = hood + 2 * k * w;
    const core::MergeView<T> view(p, plan.m, p + w + plan.dup, plan.n, plan.s);
    const core::BridgeCells c = core::cells_at(cells + k * core::cells_per_merge(smax), smax);
    const index_t last = min(vps, first + Policy::kUnit);
    for (index_t vp = first + threadIdx.x; vp < last; vp += blockDim.x) core::run_phase(phase, view, c, vp);
  }
}

/// mam 6 across the device: the merged hood of merge k goes to out[2 k w ...], its size to out_size[k].
template <class T, class Policy = UpperHullPolicy<T>>
__global__ void __launch_bounds__(Policy::kRoundThreads)
    copy_kernel(const Point2<T>* in, Point2<T>* out, index_t* out_size, index_t merges, index_t w,
                index_t smax, index_t units_per_merge, const core::MergePlan* plans, index_t* cells) {
  const index_t units = merges * units_per_merge;
  for (index_t u = blockIdx.x; u < units; u += gridDim.x) {
    const index_t k = u / units_per_merge;
    const index_t first = (u % units_per_merge) * Policy::kUnit;
    const core::MergePlan plan = plans[k];
    index_t a, b;
    core::bridge_of(plan, core::cells_at(cells + k * core::cells_per_merge(smax), smax), &a, &b);
    if (first == 0 && threadIdx.x == 0) out_size[k] = core::merged_size(plan.n, a, b);
    const index_t total = plan.m + plan.n;
    if (first >= total) continue;
    const Point2<T>* p = in + 2 * k * w;
    const Point2<T>* q = p + w + plan.dup;
    const index_t last = min(total, first + Policy::kUnit);
    for (index_t e = first + threadIdx.x; e < last; e += blockDim.x) {
      const index_t dst = core::mam6_destination(e, plan.m, a, b);
      if (dst >= 0) out[2 * k * w + dst] = e < plan.m ? p[e] : q[e - plan.m];
    }
  }
}

template <class T>
__global__ void reflect_reversed_kernel(const Point2<T>* in, index_t n, Point2<T>* out) {
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const Point2<T> p = in[n - 1 - i];
    out[i] = {-p.x, -p.y};
  }
}

/// Blocks for a grid-stride loop over `units` pieces of work.
template <class T>
int stride_grid(index_t units) {
  const index_t most = index_t{multiprocessors()} * UpperHullPolicy<T>::kBlocksPerSm;
  return static_cast<int>(std::max<index_t>(1, std::min<index_t>(units, most)));
}

/// The most cells any device-wide round needs: merges halve each round while the grid side grows by
/// about sqrt 2, so the first round needs the most.
index_t round_cells_needed(index_t n, index_t first_width) {
  index_t most = 0;
  for (index_t w = first_width, blocks = ceil_div(n, first_width); blocks > 1;
       w *= 2, blocks = ceil_div(blocks, 2)) {
    most = std::max(most, ceil_div(blocks, 2) * core::cells_per_merge(core::ceil_sqrt(w)));
  }
  return most;
}

template <class T>
std::size_t tile_shared_bytes() {
  return sizeof(typename BlockUpperHull<T, UpperHullPolicy<T>>::TempStorage);
}

/// Tile level: hoods of consecutive tiles of points[0..n) into ws.hood[out] (padded) and ws.size[out].
template <class T>
void tile_level(const Point2<T>* points, index_t n, UpperHullWorkspace<T>& ws, int out, cudaStream_t stream,
                bool validate) {
  using Policy = UpperHullPolicy<T>;
  static const bool configured = [] {
    WAGENER_CUDA_CHECK(cudaFuncSetAttribute(tile_hoods_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(tile_shared_bytes<T>())));
    return true;
  }();
  (void)configured;
  tile_hoods_kernel<T>
      <<<static_cast<unsigned>(ceil_div(n, Policy::kTile)), Policy::kThreads, tile_shared_bytes<T>(),
         stream>>>(points, n, ws.hood[out].data(), ws.size[out].data(), ws.first_bad.data(), validate);
  WAGENER_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class T>
int device_rounds(index_t blocks, index_t w, UpperHullWorkspace<T>& ws, int cur, cudaStream_t stream,
                  const RoundHook& after_round) {
  using Policy = UpperHullPolicy<T>;
  for (; blocks > 1; w *= 2) {
    const index_t merges = ceil_div(blocks, 2);
    const index_t smax = core::ceil_sqrt(w);
    constexpr int kPlanThreads = 256;
    plan_kernel<T><<<static_cast<unsigned>(ceil_div(merges, kPlanThreads)), kPlanThreads, 0, stream>>>(
        ws.hood[cur].data(), ws.size[cur].data(), blocks, w, ws.plans.data());
    WAGENER_CUDA_CHECK_LAUNCH();
    const index_t phase_units = ceil_div(smax * smax, Policy::kUnit);
    for (int phase = core::kFirstPhase; phase <= core::kLastPhase; ++phase) {
      phase_kernel<T><<<stride_grid<T>(merges * phase_units), Policy::kRoundThreads, 0, stream>>>(
          phase, ws.hood[cur].data(), merges, w, smax, phase_units, ws.plans.data(), ws.cells.data());
      WAGENER_CUDA_CHECK_LAUNCH();
    }
    const index_t copy_units = ceil_div(2 * w, Policy::kUnit);
    copy_kernel<T><<<stride_grid<T>(merges * copy_units), Policy::kRoundThreads, 0, stream>>>(
        ws.hood[cur].data(), ws.hood[cur ^ 1].data(), ws.size[cur ^ 1].data(), merges, w, smax, copy_units,
        ws.plans.data(), ws.cells.data());
    WAGENER_CUDA_CHECK_LAUNCH();
    if (after_round) after_round(w, blocks, cur, cur ^ 1);
    cur ^= 1;
    blocks = merges;
  }
  return cur;
}

template <class T>
void UpperHullWorkspace<T>::reserve(index_t n, index_t first_width) {
  using Policy = UpperHullPolicy<T>;
  if (n <= capacity && first_width >= width) return;
  const index_t tiles = std::max<index_t>(1, ceil_div(n, Policy::kTile));
  const index_t blocks = std::max<index_t>(1, ceil_div(n, first_width));
  for (int i = 0; i < 2; ++i) {
    hood[i] = DeviceBuffer<Point2<T>>(
        static_cast<std::size_t>(std::max(tiles * Policy::kTile, blocks * first_width)));
    size[i] = DeviceBuffer<index_t>(static_cast<std::size_t>(std::max(tiles, blocks)));
  }
  offsets = DeviceBuffer<index_t>(static_cast<std::size_t>(tiles));
  std::size_t scan_bytes = 0;
  WAGENER_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, size[0].data(), offsets.data(), tiles));
  scan_temp = DeviceBuffer<unsigned char>(scan_bytes);
  plans = DeviceBuffer<core::MergePlan>(static_cast<std::size_t>(ceil_div(std::max(tiles, blocks), 2)));
  const index_t cells_needed =
      std::max(round_cells_needed(n, Policy::kTile), round_cells_needed(n, first_width));
  cells = DeviceBuffer<index_t>(static_cast<std::size_t>(std::max<index_t>(1, cells_needed)));
  first_bad = DeviceBuffer<unsigned long long>(2);
  capacity = n;
  width = first_width;
}

template <class T>
DeviceHull<T> upper_hull_on_device(const Point2<T>* d_points, index_t n, UpperHullWorkspace<T>& ws,
                                   cudaStream_t stream, bool validate) {
  using Policy = UpperHullPolicy<T>;
  if (n == 0) return {nullptr, 0};
  ws.reserve(n);
  if (validate) {
    WAGENER_CUDA_CHECK(cudaMemsetAsync(ws.first_bad.data(), 0xff, 2 * sizeof(unsigned long long), stream));
  }
  // Levels: hull the tiles, compact their hoods into a shorter sorted point set, repeat -- while that
  // pays. Buffer 0 receives tile hoods, buffer 1 the compacted points of the next level.
  const Point2<T>* level_points = d_points;
  index_t level_n = n;
  int result = 0;
  for (bool first = true;; first = false) {
    tile_level(level_points, level_n, ws, 0, stream, validate && first);
    const index_t tiles = ceil_div(level_n, Policy::kTile);
    if (tiles == 1) break;
    std::size_t scan_bytes = ws.scan_temp.size();
    WAGENER_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(ws.scan_temp.data(), scan_bytes, ws.size[0].data(),
                                                     ws.offsets.data(), tiles, stream));
    index_t tail[2] = {0, 0};
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(&tail[0], ws.offsets.data() + tiles - 1, sizeof(index_t),
                                       cudaMemcpyDeviceToHost, stream));
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(&tail[1], ws.size[0].data() + tiles - 1, sizeof(index_t),
                                       cudaMemcpyDeviceToHost, stream));
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    const index_t total = tail[0] + tail[1];
    if (static_cast<double>(total) > Policy::kCompactionGain * static_cast<double>(level_n)) {
      // Most points are on the hood: merge the tile hoods by Wagener's rounds across the device.
      result = device_rounds(tiles, index_t{Policy::kTile}, ws, 0, stream);
      break;
    }
    constexpr int kGatherThreads = 256;
    gather_kernel<T><<<stride_grid<T>(ceil_div(tiles * 32, kGatherThreads)), kGatherThreads, 0, stream>>>(
        ws.hood[0].data(), ws.size[0].data(), ws.offsets.data(), tiles, Policy::kTile, ws.hood[1].data());
    WAGENER_CUDA_CHECK_LAUNCH();
    level_points = ws.hood[1].data();
    level_n = total;
  }

  index_t size = 0;
  unsigned long long bad[2] = {ULLONG_MAX, ULLONG_MAX};
  WAGENER_CUDA_CHECK(
      cudaMemcpyAsync(&size, ws.size[result].data(), sizeof size, cudaMemcpyDeviceToHost, stream));
  if (validate) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(bad, ws.first_bad.data(), sizeof bad, cudaMemcpyDeviceToHost, stream));
  }
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (bad[0] != ULLONG_MAX) throw input_error("point " + std::to_string(bad[0]) + " is not finite");
  if (bad[1] != ULLONG_MAX) {
    throw input_error("points are not sorted by (x, y): point " + std::to_string(bad[1]) +
                      " is smaller than point " + std::to_string(bad[1] - 1));
  }
  return {ws.hood[result].data(), size};
}

template <class T>
void reflect_reversed(const Point2<T>* in, index_t n, Point2<T>* out, cudaStream_t stream) {
  if (n == 0) return;
  constexpr int kThreads = 256;
  reflect_reversed_kernel<T><<<stride_grid<T>(ceil_div(n, kThreads)), kThreads, 0, stream>>>(in, n, out);
  WAGENER_CUDA_CHECK_LAUNCH();
}

template struct UpperHullWorkspace<float>;
template struct UpperHullWorkspace<double>;
template DeviceHull<float> upper_hull_on_device(const Point2<float>*, index_t, UpperHullWorkspace<float>&,
                                                cudaStream_t, bool);
template DeviceHull<double> upper_hull_on_device(const Point2<double>*, index_t, UpperHullWorkspace<double>&,
                                                 cudaStream_t, bool);
template void reflect_reversed(const Point2<float>*, index_t, Point2<float>*, cudaStream_t);
template int device_rounds(index_t, index_t, UpperHullWorkspace<float>&, int, cudaStream_t, const RoundHook&);
template int device_rounds(index_t, index_t, UpperHullWorkspace<double>&, int, cudaStream_t,
                           const RoundHook&);
template void reflect_reversed(const Point2<double>*, index_t, Point2<double>*, cudaStream_t);

}  // namespace wagener::cuda
