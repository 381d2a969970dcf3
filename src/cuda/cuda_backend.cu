// Host-side entry points of the CUDA backend: transfers, workspaces, timing.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

#include "core/chains.hpp"
#include "core/merge_step.hpp"
#include "core/trace_round.hpp"
#include "cuda/buffers.cuh"
#include "cuda/check.cuh"
#include "cuda/convex_hull.cuh"
#include "cuda/cuda_backend.hpp"
#include "cuda/per_device.cuh"
#include "cuda/staging.cuh"
#include "cuda/upper_hull.cuh"
#include "wagener/cuda.hpp"
#include "wagener/error.hpp"

namespace wagener::cuda {
namespace {

template <class T>
void copy_to_device(std::span<const Point2<T>> host, Point2<T>* device, cudaStream_t stream) {
  stream_to_device(host.data(), host.size(), sizeof(Point2<T>), stream,
                   [&](std::size_t first, std::size_t, int) -> void* { return device + first; });
}

template <class T>
UpperHullWorkspace<T>& thread_workspace() {
  return per_device_thread_local<UpperHullWorkspace<T>>();
}

}  // namespace

namespace {

// The driver's start-up and the primary context take a few hundred milliseconds (bench/NOTES.md),
// which a process can overlap with reading its input. The state lives on the heap and is never
// destroyed: the detached thread may outlive main(), and a static destructor would race it.
struct StartupState {
  std::once_flag started;
  std::chrono::steady_clock::time_point since;
  std::chrono::steady_clock::time_point finished;  // written before `outcome` is made ready
  std::shared_future<std::string> outcome;         // "" once the device is ready, else why it is not
};

StartupState& startup_state() {
  static StartupState* state = new StartupState;
  return *state;
}

// The process's device: its local rank (choose_device_for_local_rank) mod the device count, so
// that ranks sharing a host spread over its devices. The start-up counts the devices; a rank chosen
// after it (a program that called cuda_available() or warm_up() before its first hull over MPI)
// still moves the process to its device, whose context the runtime creates on first use.
std::mutex device_choice;  // guards the two below, and every write of chosen_device
int local_rank = 0;
int device_count = 0;  // 0 until the start-up has counted them
std::atomic<int> chosen_device{0};

std::string start_driver_and_context() {
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    cudaGetLastError();
    return std::string(cudaGetErrorString(e)) + " (" + cudaGetErrorName(e) + ")";
  }
  if (count == 0) return "the driver reports no device";
  {
    const std::lock_guard<std::mutex> lock(device_choice);
    device_count = count;
    chosen_device = local_rank % count;
  }
  const int device = chosen_device.load();
  if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess) {
    cudaGetLastError();
    return "cannot select device " + std::to_string(device) + ": " + cudaGetErrorString(e);
  }
  if (const cudaError_t e = cudaFree(nullptr); e != cudaSuccess) {  // creates the primary context
    cudaGetLastError();
    return std::string("cannot create a context: ") + cudaGetErrorString(e);
  }
  return {};
}

}  // namespace

void start_device() {
  StartupState& state = startup_state();
  std::call_once(state.started, [&state] {
    state.since = std::chrono::steady_clock::now();
    const auto timed_start = [&state] {
      std::string outcome = start_driver_and_context();
      state.finished = std::chrono::steady_clock::now();
      return outcome;
    };
    std::packaged_task<std::string()> task(timed_start);
    state.outcome = task.get_future().share();
    try {
      std::thread(std::move(task)).detach();
    } catch (const std::system_error&) {
      // No thread to be had: start the device here instead.
      std::packaged_task<std::string()> inline_task(timed_start);
      state.outcome = inline_task.get_future().share();
      inline_task();
    }
  });
}

DeviceStartup device_startup() {
  StartupState& state = startup_state();
  DeviceStartup out;
  if (!state.outcome.valid()) return out;
  out.elapsed_milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - state.since).count();
  if (state.outcome.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    out.state = DeviceStartup::State::pending;
    return out;
  }
  out.reason = state.outcome.get();
  out.state = out.reason.empty() ? DeviceStartup::State::ready : DeviceStartup::State::failed;
  out.startup_milliseconds = std::chrono::duration<double, std::milli>(state.finished - state.since).count();
  return out;
}

// The calling thread works on the chosen device (a thread starts on device 0).
bool use_chosen_device() {
  if (!startup_state().outcome.get().empty()) return false;
  WAGENER_CUDA_CHECK(cudaSetDevice(chosen_device.load()));
  return true;
}

bool device_available() {
  start_device();
  return use_chosen_device();
}

void choose_device_for_local_rank(int rank) {
  const std::lock_guard<std::mutex> lock(device_choice);
  local_rank = rank < 0 ? 0 : rank;
  if (device_count > 0) chosen_device = local_rank % device_count;
}

int chosen_device_ordinal() {
  return device_available() ? chosen_device.load() : -1;
}

std::string device_description() {
  const int device = chosen_device_ordinal();
  if (device < 0) return {};
  cudaDeviceProp properties{};
  WAGENER_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  return std::string(properties.name) + ", " + std::to_string(properties.multiProcessorCount) + " SMs, " +
         std::to_string(properties.totalGlobalMem >> 30) + " GiB";
}

void require_device() {
  start_device();
  if (const std::string& reason = startup_state().outcome.get(); !reason.empty()) {
    throw cuda_error("no CUDA device available: " + reason);
  }
  use_chosen_device();
}

template <class T>
std::vector<Point2<T>> upper_hull(std::span<const Point2<T>> sorted, HullStats* stats) {
  Stream stream;
  DeviceBuffer<Point2<T>> points(sorted.size());
  Event t0, t1, t2;
  t0.record(stream.get());
  copy_to_device(sorted, points.data(), stream.get());
  t1.record(stream.get());
  const auto hull = upper_hull_on_device(points.data(), static_cast<index_t>(sorted.size()),
                                         thread_workspace<T>(), stream.get(), /*validate=*/false);
  t2.record(stream.get());
  auto out = copy_to_host(hull, stream.get());
  if (stats) {
    stats->transfer_milliseconds = t1.since(t0);
    stats->device_milliseconds = t2.since(t1);
  }
  return out;
}

template <class T>
std::vector<Point2<T>> convex_hull(std::span<const Point2<T>> points, HullStats* stats) {
  Stream stream;
  Event t0, t1, t2;
  t0.record(stream.get());
  index_t survivors = 0;
  auto hull = convex_hull_from_host(points, stream.get(), &survivors, t1.get());
  t2.record(stream.get());
  if (stats) {
    // The copy and the filter overlap chunk by chunk: "transfer" is both, "device" what follows.
    stats->transfer_milliseconds = t1.since(t0);
    stats->device_milliseconds = t2.since(t1);
    stats->survivors = survivors;
  }
  return hull;
}

template <class T>
std::vector<Point2<T>> upper_hull_traced(std::span<const Point2<T>> sorted,
                                         const std::function<void(TraceRound<T>&&)>& observer) {
  const index_t n = static_cast<index_t>(sorted.size());
  if (n == 0) return {};
  Stream stream;
  auto& ws = thread_workspace<T>();
  ws.reserve(n, 1);
  // Round 0: every point is its own hood.
  std::vector<Point2<T>> before(sorted.begin(), sorted.end());
  std::vector<index_t> sizes(sorted.size(), 1);
  copy_to_device(sorted, ws.hood[0].data(), stream.get());
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(ws.size[0].data(), sizes.data(), sizes.size() * sizeof(index_t),
                                     cudaMemcpyHostToDevice, stream.get()));
  int round = 0;
  observer(core::make_trace_round<T>(0, 1, before, sizes, {}));
  // After each device-wide round: copy the round's hoods, sizes, plans and bridge cells back.
  const int result =
      device_rounds<T>(n, 1, ws, 0, stream.get(), [&](index_t w, index_t blocks, int, int out) {
        const index_t merges = (blocks + 1) / 2;
        const index_t smax = core::ceil_sqrt(w);
        std::vector<index_t> size(static_cast<std::size_t>(merges));
        std::vector<core::MergePlan> plans(static_cast<std::size_t>(merges));
        std::vector<index_t> cells(static_cast<std::size_t>(merges * core::cells_per_merge(smax)));
        std::vector<Point2<T>> after(sorted.size());
        // The round ran on our (non-blocking) stream: copy on it and wait, never on the default stream.
        auto fetch = [&](void* dst, const void* src, std::size_t bytes) {
          WAGENER_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream.get()));
        };
        fetch(size.data(), ws.size[out].data(), size.size() * sizeof(index_t));
        fetch(plans.data(), ws.plans.data(), plans.size() * sizeof(core::MergePlan));
        fetch(cells.data(), ws.cells.data(), cells.size() * sizeof(index_t));
        fetch(after.data(), ws.hood[out].data(), after.size() * sizeof(Point2<T>));
        stream.synchronize();
        std::vector<Bridge<T>> bridges;
        for (index_t k = 0; k < merges; ++k) {
          const core::MergePlan& plan = plans[static_cast<std::size_t>(k)];
          if (plan.s == 0) continue;  // no partner, or the right hood was only a seam duplicate
          index_t a, b;
          core::bridge_of(plan, core::cells_at(cells.data() + k * core::cells_per_merge(smax), smax), &a, &b);
          const Point2<T>* p = before.data() + 2 * k * w;
          bridges.push_back({k, p[a], p[w + plan.dup + b]});
        }
        ++round;
        observer(core::make_trace_round<T>(round, 2 * w, after, size, std::move(bridges)));
        before.swap(after);
      });
  index_t h = 0;
  WAGENER_CUDA_CHECK(
      cudaMemcpyAsync(&h, ws.size[result].data(), sizeof h, cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  return copy_to_host(DeviceHull<T>{ws.hood[result].data(), h}, stream.get());
}

template <class T>
index_t upper_hull_device(const Point2<T>* d_sorted, index_t n, Point2<T>* d_hull, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  const auto hull = upper_hull_on_device(d_sorted, n, thread_workspace<T>(), s, /*validate=*/true);
  if (hull.size > 0) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(d_hull, hull.data,
                                       static_cast<std::size_t>(hull.size) * sizeof(Point2<T>),
                                       cudaMemcpyDeviceToDevice, s));
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(s));
  }
  return hull.size;
}

template <class T>
index_t convex_hull_device(const Point2<T>* d_points, index_t n, Point2<T>* d_hull, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  return convex_hull_on_device(d_points, n, d_hull, s);
}

template <class T>
index_t convex_hull_device(const T* d_x, const T* d_y, index_t n, Point2<T>* d_hull, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  return convex_hull_on_device(d_x, d_y, n, d_hull, s);
}

#define WAGENER_INSTANTIATE(T)                                                                     \
  template std::vector<Point2<T>> upper_hull(std::span<const Point2<T>>, HullStats*);              \
  template std::vector<Point2<T>> convex_hull(std::span<const Point2<T>>, HullStats*);             \
  template index_t convex_hull_device(const T*, const T*, index_t, Point2<T>*, void*);             \
  template index_t convex_hull_device(const Point2<T>*, index_t, Point2<T>*, void*);               \
  template std::vector<Point2<T>> upper_hull_traced(std::span<const Point2<T>>,                    \
                                                    const std::function<void(TraceRound<T> &&)>&); \
  template index_t upper_hull_device(const Point2<T>*, index_t, Point2<T>*, void*);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cuda
