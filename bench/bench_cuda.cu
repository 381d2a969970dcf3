// GPU benchmark of the presorted upper hull: wagener's CUDA rounds against the memory floor (a CUB
// reduction reading the same bytes, timed in turn with the call once the device has settled), the CPU
// serial scan, and the seed's arrangement (one block per merge, padded hoods, a host round trip per
// round) where it can run.
// Then the full hull of unsorted points: from device memory against the same floor, from host memory
// against one plain cudaMemcpy of the input, and against the Thrust peer (thrust_peer.cuh) and the
// CPU backend. CGAL and Qhull are not on the GPU machine: bench_full_peers times them elsewhere.
//
// Usage: bench_cuda --help (kUsage below).
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_reduce.cuh>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/merge_step.hpp"
#include "cpu/monotone_chain.hpp"
#include "cuda/buffers.cuh"
#include "cuda/check.cuh"
#include "cuda/convex_hull.cuh"
#include "cuda/cuda_backend.hpp"
#include "cuda/upper_hull.cuh"
#include "families.hpp"
#include "thrust_peer.cuh"
#include "wagener/cuda.hpp"
#include "wagener/grouped.hpp"

namespace {
constexpr const char* kUsage =
    R"(Usage: bench_cuda [--markdown FILE] [--min-log2 N] [--max-log2 N] [--precision float|double]
                  [--input disk|parabola|full] [--family square|disk|gaussian|circle] [--quick]
                  [--in-place-from-log2 N]   (device-wide rounds keep hoods in place from 2^N points)
                  [--dense-first-level F]   (the guide's bigger sample at once where the small one's
                                             first level keeps more than F of it; 1: never)
                  [--block-merges-below N]   (in those rounds, a block a merge below N merges; 0: warps)
                  [--no-join]   (levels whose tile hoods meet convexly still take the rounds)
                  [--join-hoods on|off]   (a level of 2 to 512 tile hoods joined in one step; the
                                           full hull's chains: the variant join-hoods=1)
                  [--direction-guide on|off]   (the guide filter first tries its small sample's
                                                extremes in fixed directions)
                  [--filter-thinning off|repeats|in-line]   (what the float guide filter also drops
                                                after a dense guide: copies, points in line)
                  [--sample-shift S] [--filter-from-log2 N]   (the upper hull's guide filter)
                  [--dense-sample-shift S]   (its sample of n >> S points where the first is dense)
                  [--small-level-tiles-per-sm N]   (which levels use SmallLevelPolicy; 0: none)
                  [--guide-from N]   (the full hull's dense guide from 2^N points)
                  [--guide-star-from N]   (that guide a polygon of its sample's star from 2^N points)
                  [--no-guide-ring]   (that guide's fan without its ring of radii)
                  [--star-samples-per-bucket N]   (the star's buckets, one for N sample points)
                  [--chains-in-place-from-log2 N]   (the full hull's chains: rounds in place from 2^N)
                  [--key-sort-from N]   (the full hull's sort on a key from 2^N survivors)
                  [--survivor-polygon-from N]   (the full hull's survivors' polygon from 2^N points)
                  [--block-finish-up-to N]      (the full hull's block finish up to N survivors; 0: off)
                  [--step-calls N]   (N more full-hull calls a row, each call's steps to stderr)
                  [--variants "A;B"] [--variant-rounds R]   (settings alternated on each full row's
                                             input, as guide-from=L,block-finish-up-to=N,
                                             join-hoods=0|1 (the chains' join); "base")
                  [--validated-rounds R]   (each upper-hull row's call unvalidated and validated,
                                            alternated over R rounds)
       bench_cuda --crossover   (cuda against cpu backend on small host inputs: auto's threshold)
       bench_cuda --grouped [GROUPS [SIZE]]   (GROUPS groups of SIZE points, 10^6 of 100: double, float,
                                            int64, int32)
       bench_cuda --help
)";
}  // namespace

using wagener::index_t;
using wagener::Point2;
namespace core = wagener::core;
namespace cpu = wagener::cpu;
namespace wcuda = wagener::cuda;
using wcuda::DeviceBuffer;
using wcuda::Event;

namespace {

using bench::unit_hash;

/// Points with x increasing in i: a uniform disk (x stratified, y uniform in the chord) or the
/// parabola y = -x^2 (bench::sorted_parabola_point: every point on the upper hull before rounding).
template <class T>
__global__ void generate_kernel(Point2<T>* out, index_t n, bool parabola) {
  for (index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    if (parabola) {
      out[i] = bench::sorted_parabola_point<T>(static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(n));
    } else {
      const double x = -1.0 + 2.0 * (static_cast<double>(i) + 0.5) / static_cast<double>(n);
      const T xt = static_cast<T>(x);
      const double half = sqrt(fmax(0.0, 1.0 - x * x));
      out[i] = {xt, static_cast<T>((2.0 * unit_hash(static_cast<std::uint64_t>(i)) - 1.0) * half)};
    }
  }
}

/// Unsorted-input families for the full hull (bench/families.hpp; bench_full_peers generates the
/// same points on the host for CGAL and Qhull).
template <class T>
__global__ void generate_full_kernel(Point2<T>* out, index_t n, int family) {
  for (index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    out[i] = bench::full_family_point<T>(static_cast<std::uint64_t>(i), family);
  }
}

struct LexLess {
  template <class T>
  __host__ __device__ bool operator()(const Point2<T>& a, const Point2<T>& b) const {
    return wagener::lex_less(a, b);
  }
};

/// The median of t (not empty).
double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class F>
double median_ms(int reps, F&& f) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) t.push_back(f());
  return median(std::move(t));
}

/// Milliseconds of wall time that f() takes.
template <class F>
double wall_ms(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// The floor: CUB's sum over the same bytes (2n values of T), one run at a time.
template <class T>
class Floor {
 public:
  Floor(const Point2<T>* d_points, index_t n, cudaStream_t stream)
      : values_(reinterpret_cast<const T*>(d_points)), n_(n), stream_(stream) {
    WAGENER_CUDA_CHECK(
        cub::DeviceReduce::Sum(nullptr, temp_bytes_, values_, result_.data(), 2 * n_, stream_));
    temp_ = DeviceBuffer<unsigned char>(temp_bytes_);
    run();  // warm-up
  }
  double once() {
    Event a, b;
    a.record(stream_);
    run();
    b.record(stream_);
    return b.since(a);
  }

 private:
  void run() {
    WAGENER_CUDA_CHECK(
        cub::DeviceReduce::Sum(temp_.data(), temp_bytes_, values_, result_.data(), 2 * n_, stream_));
  }
  const T* values_;
  index_t n_;
  cudaStream_t stream_;
  DeviceBuffer<T> result_{1};
  std::size_t temp_bytes_ = 0;
  DeviceBuffer<unsigned char> temp_;
};

/// How long a row runs its call before it is timed. Where the row before freed its buffers and this
/// one allocated, the device's reads ran up to 15 % slower for some 5-20 ms after (bench/NOTES.md,
/// "The GPU rows timed after the device settles"): timed at once, a row's first calls paid for the
/// row before it.
constexpr double kSettleMs = 100;

struct CallAndFloor {
  double call_ms, floor_ms;
};

/// call() (which waits for the device and returns its milliseconds) run for kSettleMs, then timed
/// `reps` times in turn with the floor over d_points[0..n): the medians.
template <class T, class Call>
CallAndFloor time_with_floor(const Point2<T>* d_points, index_t n, cudaStream_t stream, int reps,
                             Call&& call) {
  Floor<T> floor(d_points, n, stream);
  const auto t0 = std::chrono::steady_clock::now();
  do {
    call();
  } while (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() <
           kSettleMs);
  std::vector<double> calls, floors;
  for (int r = 0; r < reps; ++r) {
    floors.push_back(floor.once());
    calls.push_back(call());
  }
  return {median(std::move(calls)), median(std::move(floors))};
}

// ---- the seed's arrangement: one block per merge, padded hoods, host round trip every round ----

template <class T>
__global__ void seed_round_kernel(const Point2<T>* hood, const index_t* size, Point2<T>* out,
                                  index_t* out_size, index_t d, index_t* cells) {
  const index_t k = blockIdx.x;
  const Point2<T>* p = hood + 2 * k * d;
  __shared__ core::MergePlan plan;
  if (threadIdx.x == 0) plan = core::plan_merge(p, size[2 * k], p + d, size[2 * k + 1]);
  __syncthreads();
  const index_t smax = core::ceil_sqrt(d);
  const core::MergeView<T> view(p, plan.m, p + d + plan.dup, plan.n, plan.s);
  const core::BridgeCells c = core::cells_at(cells + k * core::cells_per_merge(smax), smax);
  for (int phase = core::kFirstPhase; phase <= core::kLastPhase; ++phase) {
    const index_t vps = plan.s == 0 ? 0 : core::phase_processors(phase, plan.s);
    for (index_t vp = threadIdx.x; vp < vps; vp += blockDim.x) core::run_phase(phase, view, c, vp);
    __syncthreads();
  }
  index_t a, b;
  core::bridge_of(plan, c, &a, &b);
  for (index_t e = threadIdx.x; e < plan.m + plan.n; e += blockDim.x) {
    const index_t dst = core::mam6_destination(e, plan.m, a, b);
    if (dst >= 0) out[2 * k * d + dst] = e < plan.m ? p[e] : p[d + plan.dup + e - plan.m];
  }
  if (threadIdx.x == 0) out_size[k] = core::merged_size(plan.n, a, b);
}

/// n must be a power of two (the seed's limit); hoods start as single points.
template <class T>
double seed_arrangement_ms(const std::vector<Point2<T>>& sorted, cudaStream_t stream) {
  const index_t n = static_cast<index_t>(sorted.size());
  std::vector<Point2<T>> host(sorted);
  std::vector<index_t> sizes(sorted.size(), 1);
  DeviceBuffer<Point2<T>> hood(sorted.size()), out(sorted.size());
  DeviceBuffer<index_t> size(sorted.size()), out_size(sorted.size());
  DeviceBuffer<index_t> cells(static_cast<std::size_t>(n * core::cells_per_merge(core::ceil_sqrt(n))));
  const auto start = std::chrono::steady_clock::now();
  for (index_t d = 1; d < n; d *= 2) {
    WAGENER_CUDA_CHECK(
        cudaMemcpyAsync(hood.data(), host.data(), n * sizeof(Point2<T>), cudaMemcpyHostToDevice, stream));
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(size.data(), sizes.data(), (n / d) * sizeof(index_t),
                                       cudaMemcpyHostToDevice, stream));
    const int threads = static_cast<int>(std::min<index_t>(2 * d, 1024));
    seed_round_kernel<T><<<static_cast<unsigned>(n / (2 * d)), threads, 0, stream>>>(
        hood.data(), size.data(), out.data(), out_size.data(), d, cells.data());
    WAGENER_CUDA_CHECK_LAUNCH();
    WAGENER_CUDA_CHECK(
        cudaMemcpyAsync(host.data(), out.data(), n * sizeof(Point2<T>), cudaMemcpyDeviceToHost, stream));
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(sizes.data(), out_size.data(), (n / (2 * d)) * sizeof(index_t),
                                       cudaMemcpyDeviceToHost, stream));
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  host.resize(static_cast<std::size_t>(sizes[0]));
  if (host != cpu::upper_chain<T>(sorted)) {
    std::fprintf(stderr, "seed arrangement returned a wrong hood at n = %lld\n", static_cast<long long>(n));
    std::exit(1);
  }
  return ms;
}

/// --quick: only the device-memory columns (and the check against the CPU backend's hull), for
/// iterating on the kernels; the peers and host-memory columns print as -1.
bool quick = false;
/// --family NAME: only that full-hull input family.
std::string only_family;
/// --step-calls N: after a full-hull row's timed calls, N more with FullHullProfile, one line each on
/// stderr (the call between events, its wall time, the steps' sum and the steps), so that an A/B of
/// two builds compares steps call by call rather than one profiled call's.
int step_calls = 0;
/// --variants "A;B;...": after a full-hull row's timed calls, each variant's settings in turn (a
/// variant: comma-separated settings of the thresholds above, guide-from=L, key-sort-from=L,
/// survivor-polygon-from=L (2^L points), block-finish-up-to=N, join-hoods=0|1 (the chains' join:
/// chains_join_hoods); "base": none),
/// --variant-rounds rounds over all of them, each a median of the row's timed calls and one profiled call;
/// every variant's hull checked equal to the row's. One process and one input for all, alternated, so that
/// the process's own spread cancels (bench/NOTES.md: the same variant's medians within 0.01 ms).
std::vector<std::string> variants;
int variant_rounds = 5;

struct Knobs {
  index_t guide_from, key_sort_from, survivor_polygon_from, block_finish_up_to;
  bool chains_join_hoods;
};

Knobs current_knobs() {
  return {wcuda::min_points_for_guide(), wcuda::min_survivors_for_key_sort(),
          wcuda::min_points_for_survivor_polygon(), wcuda::max_survivors_for_block_finish(),
          wcuda::chains_join_hoods()};
}

void apply_knobs(const Knobs& k) {
  wcuda::set_min_points_for_guide(k.guide_from);
  wcuda::set_min_survivors_for_key_sort(k.key_sort_from);
  wcuda::set_min_points_for_survivor_polygon(k.survivor_polygon_from);
  wcuda::set_max_survivors_for_block_finish(k.block_finish_up_to);
  wcuda::set_chains_join_hoods(k.chains_join_hoods);
}

/// The base's knobs with a variant's settings over them; exits on a setting it does not know.
Knobs parse_variant(const std::string& spec, Knobs k) {
  std::size_t at = 0;
  while (at < spec.size()) {
    std::size_t end = spec.find(',', at);
    if (end == std::string::npos) end = spec.size();
    const std::string item = spec.substr(at, end - at);
    const std::size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (key == "guide-from") {
      k.guide_from = index_t{1} << std::atoi(value.c_str());
    } else if (key == "key-sort-from") {
      k.key_sort_from = index_t{1} << std::atoi(value.c_str());
    } else if (key == "survivor-polygon-from") {
      k.survivor_polygon_from = index_t{1} << std::atoi(value.c_str());
    } else if (key == "block-finish-up-to") {
      k.block_finish_up_to = std::atoll(value.c_str());
    } else if (key == "join-hoods" && (value == "0" || value == "1")) {
      k.chains_join_hoods = value == "1";
    } else if (!key.empty() && key != "base") {
      std::fprintf(stderr, "unknown variant setting \"%s\"\n", item.c_str());
      std::exit(2);
    }
    at = end + 1;
  }
  return k;
}

struct Row {
  std::string precision, distribution;
  index_t n;
  index_t hull;
  index_t survivors;  ///< left by the guide filter; -1 when it did not run
  double wagener_ms, floor_ms, cpu_ms, seed_ms;
  wcuda::UpperHullProfile steps;
};

/// --validated-rounds R: after each upper-hull row's timed calls, the call unvalidated (as the row
/// times it: compute_hull's callers checked the order on the host) and validated (as the device
/// entry point, upper_hull_device, calls it), alternated over R rounds on the row's input, each
/// round's median of five calls; every hull checked against the row's.
int validated_rounds = 0;

template <class T>
void compare_validation(const DeviceBuffer<Point2<T>>& points, index_t n, wcuda::UpperHullWorkspace<T>& ws,
                        const std::vector<Point2<T>>& expected, const char* input, cudaStream_t stream) {
  std::vector<double> medians[2];
  for (int round = 0; round < validated_rounds; ++round) {
    for (const bool validate : {false, true}) {
      const auto hull =
          wcuda::upper_hull_on_device(points.data(), n, ws, stream, validate);  // warm-up, check
      std::vector<Point2<T>> got(static_cast<std::size_t>(hull.size));
      WAGENER_CUDA_CHECK(
          cudaMemcpy(got.data(), hull.data, got.size() * sizeof(Point2<T>), cudaMemcpyDeviceToHost));
      if (got != expected) {
        std::fprintf(stderr, "THE %s CALL GAVE A DIFFERENT HULL: n = %lld\n",
                     validate ? "VALIDATED" : "UNVALIDATED", static_cast<long long>(n));
        std::exit(1);
      }
      medians[validate ? 1 : 0].push_back(median_ms(5, [&] {
        Event a, b;
        a.record(stream);
        wcuda::upper_hull_on_device(points.data(), n, ws, stream, validate);
        b.record(stream);
        return static_cast<double>(b.since(a));
      }));
    }
  }
  for (const bool validate : {false, true}) {
    const auto& m = medians[validate ? 1 : 0];
    std::fprintf(stderr, "%-11s %s %s 2^%d: call %.3f (%.3f-%.3f) ms\n",
                 validate ? "validated" : "unvalidated", sizeof(T) == 4 ? "float" : "double", input,
                 static_cast<int>(std::log2(static_cast<double>(n))), median(m),
                 *std::min_element(m.begin(), m.end()), *std::max_element(m.begin(), m.end()));
  }
}

/// Guide filter and rounds settings for the upper-hull rows (negative: the workspace's defaults).
int sample_shift = -1;
int dense_sample_shift = -1;
int filter_from_log2 = -1;
int small_level_tiles_per_sm = -1;
int in_place_from_log2 = -1;
double dense_first_level = -1;
long long block_merges_below = -1;
bool join_convex_seams = true;

template <class T>
Row measure(index_t n, bool parabola, cudaStream_t stream) {
  DeviceBuffer<Point2<T>> points(static_cast<std::size_t>(n));
  generate_kernel<T><<<1024, 256, 0, stream>>>(points.data(), n, parabola);
  WAGENER_CUDA_CHECK_LAUNCH();
  thrust::sort(thrust::cuda::par.on(stream), points.data(), points.data() + n, LexLess{});
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  const int reps = n >= (index_t{1} << 26) ? 11 : 31;

  wcuda::UpperHullWorkspace<T> ws;
  if (sample_shift >= 0) ws.sample_shift = sample_shift;
  if (dense_sample_shift >= 0) ws.dense_sample_shift = dense_sample_shift;
  if (filter_from_log2 >= 0) ws.filter_from = index_t{1} << filter_from_log2;
  if (small_level_tiles_per_sm >= 0) ws.small_level_tiles_per_sm = small_level_tiles_per_sm;
  if (in_place_from_log2 >= 0) ws.in_place_from = index_t{1} << in_place_from_log2;
  if (dense_first_level >= 0) ws.dense_first_level = dense_first_level;
  if (block_merges_below >= 0) ws.block_merges_below = block_merges_below;
  ws.join_convex_seams = join_convex_seams;
  auto hull = wcuda::upper_hull_on_device(points.data(), n, ws, stream, false);  // warm-up, allocations
  const auto [ms, floor] = time_with_floor(points.data(), n, stream, reps, [&] {
    Event a, b;
    a.record(stream);
    hull = wcuda::upper_hull_on_device(points.data(), n, ws, stream, false);
    b.record(stream);
    return static_cast<double>(b.since(a));
  });
  wcuda::UpperHullProfile steps;
  wcuda::upper_hull_on_device(points.data(), n, ws, stream, false, &steps);

  std::vector<Point2<T>> host(static_cast<std::size_t>(n));
  WAGENER_CUDA_CHECK(cudaMemcpy(host.data(), points.data(), n * sizeof(Point2<T>), cudaMemcpyDeviceToHost));
  std::vector<Point2<T>> expected;
  const double cpu = median_ms(
      quick                     ? 1
      : n >= (index_t{1} << 24) ? 3
                                : 11,
      [&] {
        const auto t0 = std::chrono::steady_clock::now();
        expected = cpu::upper_chain<T>(host);
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      });
  std::vector<Point2<T>> got(static_cast<std::size_t>(hull.size));
  WAGENER_CUDA_CHECK(
      cudaMemcpy(got.data(), hull.data, got.size() * sizeof(Point2<T>), cudaMemcpyDeviceToHost));
  if (got != expected) {
    std::fprintf(stderr, "WRONG HULL: n = %lld\n", static_cast<long long>(n));
    std::exit(1);
  }
  if (validated_rounds > 0)
    compare_validation<T>(points, n, ws, expected, parabola ? "parabola" : "disk", stream);
  double seed = -1;
  if (n <= 2048) {
    seed_arrangement_ms(host, stream);  // warm-up
    seed = median_ms(reps, [&] { return seed_arrangement_ms(host, stream); });
  }
  return {sizeof(T) == 4 ? "float" : "double",
          parabola ? "parabola" : "disk",
          n,
          hull.size,
          ws.survivors,
          ms,
          floor,
          cpu,
          seed,
          steps};
}

/// The reference of the host-memory target: one plain synchronous cudaMemcpy of the same pageable
/// host vector into a device buffer of the same size, wall time. A pageable copy may return before
/// its last DMA lands, so the device is synchronised inside the timed region.
template <class T>
double copy_ms(const std::vector<Point2<T>>& host, int reps) {
  DeviceBuffer<Point2<T>> target(host.size());
  auto copy = [&] {
    WAGENER_CUDA_CHECK(
        cudaMemcpy(target.data(), host.data(), host.size() * sizeof(Point2<T>), cudaMemcpyHostToDevice));
    WAGENER_CUDA_CHECK(cudaDeviceSynchronize());
  };
  copy();  // warm-up
  return median_ms(reps, [&] { return wall_ms(copy); });
}

struct FullRow {
  std::string precision, distribution;
  index_t n, hull, survivors;
  double device_ms, floor_ms, host_ms, copy_ms, thrust_ms, cpu_ms;
  wcuda::FullHullProfile steps;  ///< one extra device-memory run, timed step by step
};

template <class T>
FullRow measure_full(index_t n, int family, cudaStream_t stream) {
  const auto& kNames = bench::kFullFamilies;
  const auto fail = [&](const char* what) {
    std::fprintf(stderr, "%s: %s %s n = %lld\n", what, sizeof(T) == 4 ? "float" : "double", kNames[family],
                 static_cast<long long>(n));
    std::exit(1);
  };
  DeviceBuffer<Point2<T>> points(static_cast<std::size_t>(n));
  generate_full_kernel<T><<<1024, 256, 0, stream>>>(points.data(), n, family);
  WAGENER_CUDA_CHECK_LAUNCH();
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  const int reps = n >= (index_t{1} << 26) ? 5 : 15;
  // The host-memory, copy and Thrust timings take seconds per run for the largest circles.
  const int wall_reps = n >= (index_t{1} << 26) ? 3 : n >= (index_t{1} << 22) ? 7 : 15;
  // From device memory to device memory, as wagener::cuda::convex_hull_device leaves it.
  index_t survivors = 0;
  DeviceBuffer<Point2<T>> out(static_cast<std::size_t>(n));
  index_t vertices =
      wcuda::convex_hull_on_device(points.data(), n, out.data(), stream, &survivors);  // warm-up
  const auto [ms, floor] = time_with_floor(points.data(), n, stream, reps, [&] {
    Event a, b;
    a.record(stream);
    vertices = wcuda::convex_hull_on_device(points.data(), n, out.data(), stream, &survivors);
    b.record(stream);
    return static_cast<double>(b.since(a));
  });
  for (int call = 0; call < step_calls; ++call) {
    wcuda::FullHullProfile profile;
    Event a, b;
    const auto t0 = std::chrono::steady_clock::now();
    a.record(stream);
    wcuda::convex_hull_on_device(points.data(), n, out.data(), stream, &survivors, &profile);
    b.record(stream);
    const double total = b.since(a);
    const double wall =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double sum = profile.polygon_ms + profile.guide_ms + profile.filter_ms +
                       profile.survivor_polygon_ms + profile.sort_ms + profile.chains_ms;
    std::fprintf(stderr,
                 "steps %s %s: call %.3f wall %.3f sum %.3f | polygon %.3f%s guide %.3f filter %.3f "
                 "survivors' polygon %.3f sort %.3f chains %.3f\n",
                 sizeof(T) == 4 ? "float" : "double", kNames[family], total, wall, sum, profile.polygon_ms,
                 profile.device_polygon ? " (device)" : "", profile.guide_ms, profile.filter_ms,
                 profile.survivor_polygon_ms, profile.sort_ms, profile.chains_ms);
  }
  wcuda::FullHullProfile steps;
  wcuda::convex_hull_on_device(points.data(), n, out.data(), stream, &survivors, &steps);
  const auto hull = wcuda::copy_to_host(wcuda::DeviceHull<T>{out.data(), vertices}, stream);
  if (!variants.empty()) {
    // The variants in turn, each round: its hull (against the row's, first round), a warm-up call,
    // the median of `reps` calls, one profiled call.
    const Knobs base = current_knobs();
    struct Seen {
      std::vector<double> call, polygon, filter, survivor_polygon, chains;
    };
    std::vector<Seen> seen(variants.size());
    for (int round = 0; round < variant_rounds; ++round) {
      for (std::size_t v = 0; v < variants.size(); ++v) {
        apply_knobs(parse_variant(variants[v], base));
        const index_t h = wcuda::convex_hull_on_device(points.data(), n, out.data(), stream, &survivors);
        if (round == 0 && wcuda::copy_to_host(wcuda::DeviceHull<T>{out.data(), h}, stream) != hull)
          fail(("VARIANT " + variants[v] + " GAVE A DIFFERENT HULL").c_str());
        seen[v].call.push_back(median_ms(reps, [&] {
          Event a, b;
          a.record(stream);
          wcuda::convex_hull_on_device(points.data(), n, out.data(), stream, &survivors);
          b.record(stream);
          return static_cast<double>(b.since(a));
        }));
        wcuda::FullHullProfile profile;
        wcuda::convex_hull_on_device(points.data(), n, out.data(), stream, &survivors, &profile);
        seen[v].polygon.push_back(profile.polygon_ms);
        seen[v].filter.push_back(profile.filter_ms);
        seen[v].survivor_polygon.push_back(profile.survivor_polygon_ms);
        seen[v].chains.push_back(profile.chains_ms + profile.sort_ms);
      }
    }
    apply_knobs(base);
    for (std::size_t v = 0; v < variants.size(); ++v) {
      const Seen& x = seen[v];
      std::fprintf(stderr,
                   "variant %-32s %s %s: call %.3f (%.3f-%.3f) | polygon %.3f filter %.3f "
                   "survivors' polygon %.3f chains %.3f\n",
                   variants[v].c_str(), sizeof(T) == 4 ? "float" : "double", kNames[family], median(x.call),
                   *std::min_element(x.call.begin(), x.call.end()),
                   *std::max_element(x.call.begin(), x.call.end()), median(x.polygon), median(x.filter),
                   median(x.survivor_polygon), median(x.chains));
    }
  }

  // Host memory: the same points in an ordinary pageable vector, touched by the copy that fills it.
  std::vector<Point2<T>> host(static_cast<std::size_t>(n));
  WAGENER_CUDA_CHECK(cudaMemcpy(host.data(), points.data(), n * sizeof(Point2<T>), cudaMemcpyDeviceToHost));
  const std::span<const Point2<T>> host_span(host);
  if (quick) {
    if (hull != cpu::convex_hull_parallel<T>(host)) fail("WRONG FULL HULL");
    return {sizeof(T) == 4 ? "float" : "double",
            kNames[family],
            n,
            static_cast<index_t>(hull.size()),
            survivors,
            ms,
            floor,
            -1,
            -1,
            -1,
            -1,
            steps};
  }
  wagener::HullStats stats;
  if (wcuda::convex_hull<T>(host_span, &stats) != hull) fail("WRONG FULL HULL from host memory");  // warm-up
  const double host_ms =
      median_ms(wall_reps, [&] { return wall_ms([&] { wcuda::convex_hull<T>(host_span, &stats); }); });
  const double copy = copy_ms(host, wall_reps);

  // The Thrust peer, from device memory like the device column; a fast wrong peer is not a result.
  if (bench::thrust_convex_hull<T>(points.data(), n, stream) != hull)
    fail("THRUST PEER GAVE A DIFFERENT HULL");
  const double thrust_ms = median_ms(
      wall_reps, [&] { return wall_ms([&] { bench::thrust_convex_hull<T>(points.data(), n, stream); }); });

  std::vector<Point2<T>> expected;
  const double cpu_ms = wall_ms([&] { expected = cpu::convex_hull_parallel<T>(host); });
  if (hull != expected) fail("WRONG FULL HULL");
  return {sizeof(T) == 4 ? "float" : "double",
          kNames[family],
          n,
          static_cast<index_t>(hull.size()),
          survivors,
          ms,
          floor,
          host_ms,
          copy,
          thrust_ms,
          cpu_ms,
          steps};
}

/// --crossover: the full hull of host points (uniform disk, the CLI's path) by the cuda backend and
/// by the cpu backend at n = 2^10 .. 2^22, to place --backend auto's threshold.
template <class T>
void crossover(cudaStream_t stream) {
  std::printf(
      "\n| precision | n | cuda backend ms (host memory) | cpu backend ms | faster "
      "|\n|---|---|---|---|---|\n");
  for (int log2n = 10; log2n <= 22; ++log2n) {
    const index_t n = index_t{1} << log2n;
    DeviceBuffer<Point2<T>> points(static_cast<std::size_t>(n));
    generate_full_kernel<T><<<1024, 256, 0, stream>>>(points.data(), n, 1);
    WAGENER_CUDA_CHECK_LAUNCH();
    std::vector<Point2<T>> host(static_cast<std::size_t>(n));
    WAGENER_CUDA_CHECK(cudaMemcpy(host.data(), points.data(), n * sizeof(Point2<T>), cudaMemcpyDeviceToHost));
    const std::span<const Point2<T>> span(host);
    wagener::HullStats stats;
    if (wcuda::convex_hull<T>(span, &stats) != cpu::convex_hull_parallel<T>(host)) {
      std::fprintf(stderr, "WRONG FULL HULL at crossover n = %lld\n", static_cast<long long>(n));
      std::exit(1);
    }
    const double gpu = median_ms(21, [&] { return wall_ms([&] { wcuda::convex_hull<T>(span, &stats); }); });
    const double cpu_ms = median_ms(21, [&] { return wall_ms([&] { cpu::convex_hull_parallel<T>(host); }); });
    std::printf("| %s | 2^%d | %.3f | %.3f | %s |\n", sizeof(T) == 4 ? "float" : "double", log2n, gpu, cpu_ms,
                gpu < cpu_ms ? "cuda" : "cpu");
  }
}

}  // namespace

// ---- grouped hulls: many small groups from device memory ----

/// The grouped rows' unit for T: integer groups are the float groups scaled, int32 to about 2^30 and
/// int64 to about 2^60 (beyond double's 2^53, where a conversion would round).
template <class T>
constexpr double kGroupScale = std::is_floating_point_v<T> ? 1.0
                               : sizeof(T) == 4            ? 0x1p20
                                                           : 0x1p50;

/// A name for the grouped table's precision column.
template <class T>
constexpr const char* kGroupTypeName = std::is_same_v<T, float>          ? "float"
                                       : std::is_same_v<T, double>       ? "double"
                                       : std::is_same_v<T, std::int32_t> ? "int32"
                                                                         : "int64";

/// Group g holds points g*size .. (g+1)*size - 1: a uniform disk of radius 1 around its own centre
/// (times kGroupScale<T>).
template <class T>
__global__ void generate_groups_kernel(Point2<T>* out, index_t n, index_t size) {
  for (index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const auto g = static_cast<std::uint64_t>(i / size);
    const double cx = 2000.0 * unit_hash(2 * g) - 1000.0, cy = 2000.0 * unit_hash(2 * g + 1) - 1000.0;
    const double r = sqrt(unit_hash(3 * static_cast<std::uint64_t>(i) + 7));
    const double a = 6.283185307179586 * unit_hash(3 * static_cast<std::uint64_t>(i) + 8);
    constexpr double kScale = kGroupScale<T>;
    out[i] = {static_cast<T>(kScale * (cx + r * cos(a))), static_cast<T>(kScale * (cy + r * sin(a)))};
  }
}

__global__ void group_offsets_kernel(std::int64_t* offsets, index_t groups, index_t size) {
  for (index_t g = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; g <= groups;
       g += static_cast<index_t>(gridDim.x) * blockDim.x) {
    offsets[g] = g * size;
  }
}

/// wagener::cuda::convex_hulls_device on `groups` groups of `size` points in device memory against
/// the floor (reading the points once); prints a markdown table.
template <class T>
void grouped(index_t groups, index_t size, cudaStream_t stream) {
  const index_t n = groups * size;
  DeviceBuffer<Point2<T>> points(static_cast<std::size_t>(n)), hull(static_cast<std::size_t>(n));
  DeviceBuffer<std::int64_t> offsets(static_cast<std::size_t>(groups + 1)),
      hull_offsets(static_cast<std::size_t>(groups + 1));
  generate_groups_kernel<T><<<1024, 256, 0, stream>>>(points.data(), n, size);
  WAGENER_CUDA_CHECK_LAUNCH();
  group_offsets_kernel<<<1024, 256, 0, stream>>>(offsets.data(), groups, size);
  WAGENER_CUDA_CHECK_LAUNCH();
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto run = [&] {
    return wcuda::convex_hulls_device<T>(points.data(), offsets.data(), n, groups, hull.data(),
                                         hull_offsets.data(), nullptr, wagener::HullPart::full, stream);
  };
  const index_t vertices = run();  // warm-up
  // Every group's hull against the CPU backend's (one call on all cores), before the timed calls.
  {
    const auto to_host = [](const auto* device, index_t count) {
      std::vector<std::remove_cv_t<std::remove_pointer_t<decltype(device)>>> host(
          static_cast<std::size_t>(count));
      WAGENER_CUDA_CHECK(
          cudaMemcpy(host.data(), device, host.size() * sizeof(host[0]), cudaMemcpyDeviceToHost));
      return host;
    };
    const auto host_points = to_host(points.data(), n);
    const auto host_offsets = to_host(offsets.data(), groups + 1);
    wagener::HullOptions options;
    options.backend = wagener::Backend::cpu;
    const auto expected = wagener::convex_hulls<T>(host_points, host_offsets, options);
    if (expected.vertices != to_host(hull.data(), vertices) ||
        expected.offsets != to_host(hull_offsets.data(), groups + 1)) {
      std::fprintf(stderr, "WRONG GROUPED HULLS (%s)\n", kGroupTypeName<T>);
      std::exit(1);
    }
  }
  const auto [ms, floor] = time_with_floor(points.data(), n, stream, 7, [&] { return wall_ms(run); });
  std::printf(
      "| precision | groups | points per group | hull vertices | wagener ms (device memory) | floor ms | x "
      "floor |\n"
      "|---|---|---|---|---|---|---|\n"
      "| %s | %lld | %lld | %lld | %.3f | %.4f | %.1f |\n",
      kGroupTypeName<T>, static_cast<long long>(groups), static_cast<long long>(size),
      static_cast<long long>(vertices), ms, floor, ms / floor);
}

/// Device 0's properties, or false with a message where there is none to measure on (no GPU, no
/// driver), instead of the first CUDA call's exception ending the process.
bool first_device(cudaDeviceProp& prop) {
  const cudaError_t status = cudaGetDeviceProperties(&prop, 0);
  if (status == cudaSuccess) return true;
  std::fprintf(stderr, "bench_cuda: no CUDA device to measure on (%s: %s)\n", cudaGetErrorName(status),
               cudaGetErrorString(status));
  return false;
}

int main(int argc, char** argv) {
  std::string markdown, only_precision, only_input;
  int max_log2 = 28, min_log2 = 0;
  // Each argument is an option of kUsage, its value next where it takes one; anything else (an
  // unknown option, a missing value, a number that is not one) stops the bench with exit 2 before
  // it touches the device, not a run that silently ignores it.
  const auto usage_error = [](const std::string& why) {
    std::fprintf(stderr, "bench_cuda: %s\n%s", why.c_str(), kUsage);
    std::exit(2);
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto text = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(arg + " needs a value");
      return argv[++i];
    };
    const auto integer = [&]() -> long long {
      const std::string value = text();
      long long number = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
      if (error != std::errc{} || end != value.data() + value.size())
        usage_error(arg + " takes an integer, not \"" + value + "\"");
      return number;
    };
    const auto on_off = [&]() -> bool {
      const std::string value = text();
      if (value != "on" && value != "off") usage_error(arg + " takes on or off, not \"" + value + "\"");
      return value == "on";
    };
    const auto power_of_two = [&]() -> index_t {
      const long long log2 = integer();
      if (log2 < 0 || log2 > 62) usage_error(arg + " takes a power of two's exponent, 0 to 62");
      return index_t{1} << log2;
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--markdown") {
      markdown = text();
    } else if (arg == "--max-log2") {
      max_log2 = static_cast<int>(integer());
    } else if (arg == "--min-log2") {
      min_log2 = static_cast<int>(integer());
    } else if (arg == "--precision") {
      only_precision = text();
      if (only_precision != "float" && only_precision != "double")
        usage_error("--precision takes float or double, not \"" + only_precision + "\"");
    } else if (arg == "--input") {
      only_input = text();
      if (only_input != "disk" && only_input != "parabola" && only_input != "full")
        usage_error("--input takes disk, parabola or full, not \"" + only_input + "\"");
    } else if (arg == "--family") {
      only_family = text();
      if (std::find_if(std::begin(bench::kFullFamilies), std::end(bench::kFullFamilies),
                       [&](const char* name) { return only_family == name; }) ==
          std::end(bench::kFullFamilies))
        usage_error("--family takes square, disk, gaussian or circle, not \"" + only_family + "\"");
    } else if (arg == "--quick") {
      quick = true;
    } else if (arg == "--in-place-from-log2") {
      in_place_from_log2 = static_cast<int>(integer());
    } else if (arg == "--dense-first-level") {
      const std::string value = text();
      char* end = nullptr;
      dense_first_level = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0')
        usage_error("--dense-first-level takes a number, not \"" + value + "\"");
    } else if (arg == "--block-merges-below") {
      block_merges_below = integer();
    } else if (arg == "--no-join") {
      join_convex_seams = false;
    } else if (arg == "--join-hoods") {
      wcuda::set_hood_join_enabled(on_off());
    } else if (arg == "--direction-guide") {
      wcuda::set_direction_guide_enabled(on_off());
    } else if (arg == "--filter-thinning") {
      const std::string value = text();
      if (value != "off" && value != "repeats" && value != "in-line")
        usage_error("--filter-thinning takes off, repeats or in-line, not \"" + value + "\"");
      wcuda::set_filter_thinning(value == "off"       ? wcuda::FilterThinning::none
                                 : value == "repeats" ? wcuda::FilterThinning::repeats
                                                      : wcuda::FilterThinning::in_line);
    } else if (arg == "--sample-shift") {
      sample_shift = static_cast<int>(integer());
    } else if (arg == "--dense-sample-shift") {
      dense_sample_shift = static_cast<int>(integer());
    } else if (arg == "--filter-from-log2") {
      filter_from_log2 = static_cast<int>(integer());
    } else if (arg == "--small-level-tiles-per-sm") {
      small_level_tiles_per_sm = static_cast<int>(integer());
    } else if (arg == "--step-calls") {
      step_calls = static_cast<int>(integer());
    } else if (arg == "--guide-from") {
      wcuda::set_min_points_for_guide(power_of_two());
    } else if (arg == "--guide-star-from") {
      wcuda::set_min_points_for_guide_star(power_of_two());
    } else if (arg == "--no-guide-ring") {
      wcuda::set_guide_ring_enabled(false);
    } else if (arg == "--star-samples-per-bucket") {
      wcuda::set_star_samples_per_bucket(integer());
    } else if (arg == "--chains-in-place-from-log2") {
      wcuda::set_chains_in_place_from(power_of_two());
    } else if (arg == "--key-sort-from") {
      wcuda::set_min_survivors_for_key_sort(power_of_two());
    } else if (arg == "--survivor-polygon-from") {
      wcuda::set_min_points_for_survivor_polygon(power_of_two());
    } else if (arg == "--block-finish-up-to") {
      wcuda::set_max_survivors_for_block_finish(integer());
    } else if (arg == "--variants") {
      const std::string list = text();
      for (std::size_t at = 0; at <= list.size();) {
        std::size_t end = list.find(';', at);
        if (end == std::string::npos) end = list.size();
        if (end > at) variants.push_back(list.substr(at, end - at));
        at = end + 1;
      }
    } else if (arg == "--variant-rounds") {
      variant_rounds = std::max(1, static_cast<int>(integer()));
    } else if (arg == "--validated-rounds") {
      validated_rounds = std::max(1, static_cast<int>(integer()));
    } else if (arg == "--crossover") {
      if (cudaDeviceProp prop{}; !first_device(prop)) return 1;
      wcuda::Stream stream;
      crossover<float>(stream.get());
      crossover<double>(stream.get());
      return 0;
    } else if (arg == "--grouped") {  // --grouped [GROUPS [SIZE]]: the numbers that follow, if any
      index_t groups = 1000000, size = 100;
      if (i + 1 < argc && argv[i + 1][0] != '-') groups = integer();
      if (i + 1 < argc && argv[i + 1][0] != '-') size = integer();
      if (groups < 1 || size < 1) usage_error("--grouped takes at least one group of one point");
      if (cudaDeviceProp prop{}; !first_device(prop)) return 1;
      wcuda::Stream stream;
      grouped<double>(groups, size, stream.get());
      grouped<float>(groups, size, stream.get());
      grouped<std::int64_t>(groups, size, stream.get());
      grouped<std::int32_t>(groups, size, stream.get());
      return 0;
    } else {
      usage_error("unknown argument \"" + arg + "\"");
    }
  }
  cudaDeviceProp prop{};
  if (!first_device(prop)) return 1;
  wcuda::Stream stream;
  std::vector<Row> rows;
  for (int log2n : {11, 20, 24, 28}) {
    if (log2n > max_log2 || log2n < min_log2) continue;
    const index_t n = index_t{1} << log2n;
    for (bool parabola : {false, true}) {
      if (!only_input.empty() && only_input != (parabola ? "parabola" : "disk")) continue;
      if (only_precision != "double") rows.push_back(measure<float>(n, parabola, stream.get()));
      if (only_precision != "float") rows.push_back(measure<double>(n, parabola, stream.get()));
    }
  }
  std::vector<FullRow> full_rows;
  if (only_input.empty() || only_input == "full") {
    for (int log2n : {20, 24, 26, 28}) {
      if (log2n > max_log2 || log2n < min_log2) continue;
      for (int family = 0; family < 4; ++family) {
        if (!only_family.empty() && only_family != bench::kFullFamilies[family]) continue;
        if (only_precision != "double")
          full_rows.push_back(measure_full<float>(index_t{1} << log2n, family, stream.get()));
        if (only_precision != "float")
          full_rows.push_back(measure_full<double>(index_t{1} << log2n, family, stream.get()));
      }
    }
  }
  std::string table =
      "| precision | input | n | hull | filter survivors | wagener ms | Gpts/s | floor ms | x floor | CPU "
      "serial ms | seed arrangement ms |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    char line[512];
    std::snprintf(
        line, sizeof line, "| %s | %s | 2^%d | %lld | %s | %.4f | %.2f | %.4f | %.2f | %.3f | %s |\n",
        r.precision.c_str(), r.distribution.c_str(), static_cast<int>(std::log2(static_cast<double>(r.n))),
        static_cast<long long>(r.hull), r.survivors < 0 ? "-" : std::to_string(r.survivors).c_str(),
        r.wagener_ms, static_cast<double>(r.n) / r.wagener_ms / 1e6, r.floor_ms, r.wagener_ms / r.floor_ms,
        r.cpu_ms, r.seed_ms < 0 ? "-" : std::to_string(r.seed_ms).substr(0, 6).c_str());
    table += line;
  }
  // Where the upper hull's time goes, from one more run with events between the steps.
  table +=
      "\n| precision | input | n | filter survivors | guide ms | filter ms | levels ms | levels |\n"
      "|---|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    char line[256];
    std::snprintf(line, sizeof line, "| %s | %s | 2^%d | %s | %.3f | %.3f | %.3f | %d%s%s%s |\n",
                  r.precision.c_str(), r.distribution.c_str(),
                  static_cast<int>(std::log2(static_cast<double>(r.n))),
                  r.survivors < 0 ? "-" : std::to_string(r.survivors).c_str(), r.steps.guide_ms,
                  r.steps.filter_ms, r.steps.levels_ms, r.steps.levels, r.steps.joined ? ", joined" : "",
                  r.steps.enqueued ? ", enqueued" : "", r.steps.direction_guide ? ", direction guide" : "");
    table += line;
  }
  // Gpts/s and x floor are of the device-memory time; host / copy is the host-memory target's ratio.
  std::string full =
      "\n| precision | input | n | hull | survivors | wagener ms (device memory) | Gpts/s | floor ms "
      "| x floor | wagener ms (host memory) | copy ms (cudaMemcpy, pageable) | host / copy "
      "| Thrust peer ms (device memory) | CPU backend ms |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const FullRow& r : full_rows) {
    char line[512];
    std::snprintf(
        line, sizeof line,
        "| %s | %s | 2^%d | %lld | %lld | %.3f | %.2f | %.4f | %.1f | %.3f | %.3f | %.2f | %.3f | %.1f |\n",
        r.precision.c_str(), r.distribution.c_str(), static_cast<int>(std::log2(static_cast<double>(r.n))),
        static_cast<long long>(r.hull), static_cast<long long>(r.survivors), r.device_ms,
        static_cast<double>(r.n) / r.device_ms / 1e6, r.floor_ms, r.device_ms / r.floor_ms, r.host_ms,
        r.copy_ms, r.host_ms / r.copy_ms, r.thrust_ms, r.cpu_ms);
    full += line;
  }
  // Where the device-memory time goes, from one more run with events between the steps.
  // The guide's step (from 2^22 points): its time, the check sample's points in convex position by
  // angle and the guide's vertices (0: not reached, or no guide). The filter's survivors, then the
  // survivors' polygon's step and what it left (the survivors column: the points sorted). Where the
  // block finish built the hull, its time is the chains column's and the sort's is 0.
  std::string steps =
      "\n| precision | input | n | filter survivors | survivors | polygon ms | guide ms | check convex "
      "| guide vertices | filter ms | survivors' polygon ms | count + sort ms | chains ms | block finish |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const FullRow& r : full_rows) {
    char line[384];
    std::snprintf(
        line, sizeof line,
        "| %s | %s | 2^%d | %lld | %lld | %.3f | %.3f | %lld | %lld | %.3f | %.3f | %.3f | %.3f | %s |\n",
        r.precision.c_str(), r.distribution.c_str(), static_cast<int>(std::log2(static_cast<double>(r.n))),
        static_cast<long long>(r.steps.polygon_survivors), static_cast<long long>(r.survivors),
        r.steps.polygon_ms, r.steps.guide_ms, static_cast<long long>(r.steps.check_convex),
        static_cast<long long>(r.steps.guide_vertices), r.steps.filter_ms, r.steps.survivor_polygon_ms,
        r.steps.sort_ms, r.steps.chains_ms, r.steps.finished_in_blocks ? "yes" : "no");
    steps += line;
  }
  full += steps;
  if (rows.empty()) table.clear();
  if (full_rows.empty()) full.clear();
  table += full;
  std::printf("device: %s (%d SMs)\n%s", prop.name, prop.multiProcessorCount, table.c_str());
  if (!markdown.empty()) {
    std::ofstream(markdown) << "device: " << prop.name << "\n\n" << table;
  }
  return 0;
}
