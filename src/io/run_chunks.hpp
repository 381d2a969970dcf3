// The point reader's parallel passes (text chunks, binary slices) on the shared slice runner
// (core/parallel_slices.hpp), the calling thread only waiting.
#pragma once

#include <cstddef>

#include "core/parallel_slices.hpp"

namespace wagener::reading {

// The most chunks (and so threads) one parallel pass of the reader is cut into.
constexpr unsigned kMaxChunks = 256;

// Runs work(i) for i in [0, n), each on a thread of its own when n > 1 (detail::run_slices_waiting:
// this thread only waits); false if any call threw.
template <class Work>
bool run_chunks(std::size_t n, const Work& work) {
  if (n == 0) return true;
  try {
    detail::run_slices_waiting(n, n, [&](std::size_t i, std::size_t, std::size_t) { work(i); });
  } catch (...) {
    return false;
  }
  return true;
}

}  // namespace wagener::reading
