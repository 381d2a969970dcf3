// One host thread per device, kept for the life of the process: the backend's streams, workspaces
// and pinned staging belong to a thread and a device (per_device.cuh), so calls on several devices
// that started threads of their own paid for all of them again each time (2^28 doubles already on
// two devices: 11.8 ms against 12.8 ms on one, where the hull alone takes about 2 ms;
// bench/NOTES.md, "Several GPUs").
#pragma once

#include <functional>
#include <utility>
#include <vector>

namespace wagener::cuda {

/// Runs each job on the worker thread of its device (the current device already set there), all at
/// once, jobs for one device one after another; returns when all have returned. A job's exception is
/// rethrown here after all have finished (the first in job order). Jobs must not themselves call
/// run_on_devices. Safe to call from several threads at once (their jobs for one device queue).
void run_on_devices(std::vector<std::pair<int, std::function<void()>>> jobs);

}  // namespace wagener::cuda
