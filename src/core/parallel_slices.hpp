// Work split into contiguous slices, one thread each: the CPU backend's passes, the vertex indices,
// and the writers' formatting and generating. Results must not depend on the number of slices; callers
// make each slice's work a function of its own range alone.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace wagener::detail {

/// The thread count a request of `requested` means: 0 asks for one per hardware thread.
inline std::size_t resolve_threads(unsigned requested) {
  const unsigned threads = requested != 0 ? requested : std::thread::hardware_concurrency();
  return std::max(1u, threads);
}

/// How many slices to cut n items into: at most `threads`, and no slice of fewer than
/// `min_per_slice` items (below that, starting a thread costs more than it saves); at least one.
inline std::size_t slice_count(std::size_t n, std::size_t threads, std::size_t min_per_slice) {
  return std::clamp<std::size_t>(n / std::max<std::size_t>(min_per_slice, 1), 1, threads);
}

/// Slice s of `slices` contiguous slices of [0, n): [slice_begin(n, slices, s), slice_begin(n, slices, s +
/// 1)).
inline std::size_t slice_begin(std::size_t n, std::size_t slices, std::size_t s) {
  // n * s can overflow only beyond 2^64 / threads items, far beyond any memory.
  return n / slices * s + n % slices * s / slices;
}

/// Runs body(s, begin, end) for each slice s of [0, n), the calling thread taking slice 0. Once all
/// have finished, rethrows the first exception any of them threw.
template <class Body>
void run_slices(std::size_t n, std::size_t slices, Body&& body) {
  if (slices <= 1) return body(std::size_t{0}, std::size_t{0}, n);
  std::vector<std::exception_ptr> errors(slices);
  const auto run = [&](std::size_t s) {
    try {
      body(s, slice_begin(n, slices, s), slice_begin(n, slices, s + 1));
    } catch (...) {
      errors[s] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(slices - 1);
  try {
    for (std::size_t s = 1; s < slices; ++s) pool.emplace_back(run, s);
  } catch (...) {
    // No thread to be had: the started ones must be joined before their handles are destroyed.
    for (std::thread& thread : pool) thread.join();
    throw;
  }
  run(0);
  for (std::thread& thread : pool) thread.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace wagener::detail
