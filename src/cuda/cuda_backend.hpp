// Host-side entry points of the CUDA backend. Only src/hull.cpp and src/mpi/ include this.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "wagener/hull.hpp"
#include "wagener/point.hpp"
#include "wagener/trace.hpp"

namespace wagener::cuda {

/// Where the device's start-up (driver, then the primary context) stands.
struct DeviceStartup {
  enum class State { not_started, pending, ready, failed };
  State state = State::not_started;
  double elapsed_milliseconds = 0;  ///< since start_device() began it
  std::string reason;               ///< failed: why no device can be used
  double startup_milliseconds = 0;  ///< ready or failed: how long the start-up itself took
};

/// Begins the device's start-up on a background thread; returns at once. Idempotent.
void start_device();
/// The start-up's state, without waiting for it.
DeviceStartup device_startup();
/// True when the build has the CUDA backend and a device can be used (starts and waits for it).
bool device_available();
/// Throws cuda_error("no CUDA device available: REASON") unless device_available().
void require_device();
/// Processes sharing a host (MPI ranks): this one uses device `local_rank` mod the device count
/// (default: device 0), from the next hull on, whether or not the device has started.
void choose_device_for_local_rank(int local_rank);
/// The device this process uses (starts it and waits), or -1 without one.
int chosen_device_ordinal();
/// The device this process uses, in words ("NVIDIA H100 80GB HBM3, 132 SMs, 79 GiB"), or "" without
/// one (starts it and waits). Names the device that auto's measured GPU rates belong to.
std::string device_description();

/// Upper hull of sorted host points on the device (copied in through pinned staging).
template <class T>
std::vector<Point2<T>> upper_hull(std::span<const Point2<T>> sorted, HullStats* stats);

/// Upper hull of sorted host points by the seed's arrangement on the device (hoods of blocks of 2^r
/// points, device-wide rounds from single points), reporting every round to `observer` (--trace).
template <class T>
std::vector<Point2<T>> upper_hull_traced(std::span<const Point2<T>> sorted,
                                         const std::function<void(TraceRound<T>&&)>& observer);

/// Full hull of host points on the device.
template <class T>
std::vector<Point2<T>> convex_hull(std::span<const Point2<T>> points, HullStats* stats);

/// Full hull of host points on several devices (HullOptions::devices; {all_devices}: every one):
/// one contiguous slice per device, hulled by a host thread of its own on its device, the slices'
/// hulls merged by merge_hulls(). Throws std::invalid_argument for a device that does not exist.
template <class T>
std::vector<Point2<T>> convex_hull_on_devices(std::span<const Point2<T>> points, std::span<const int> devices,
                                              HullStats* stats);

}  // namespace wagener::cuda
