// Work cut into chunks, one thread each, for the point reader's parallel passes (text chunks, binary
// slices).
#pragma once

#include <algorithm>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace wagener::reading {

// The most chunks (and so threads) one parallel pass of the reader is cut into.
constexpr unsigned kMaxChunks = 256;

// Runs work(i) for i in [0, n), each on a thread of its own when n > 1; false if any call threw.
// This thread only waits: when it took a share, Linux often queued a new thread behind it on its
// own core for milliseconds (on a 2-core KVM guest, 2 slices of a 10 ms scan took 5 or 9 ms, at
// random; with this thread waiting, 5 every time).
template <class Work>
bool run_chunks(std::size_t n, const Work& work) {
  std::vector<char> failed(n, 0);
  const auto run = [&](std::size_t i) {
    try {
      work(i);
    } catch (...) {
      failed[i] = 1;
    }
  };
  if (n == 1) {
    run(0);
  } else {
    std::vector<std::jthread> threads;
    std::size_t launched = 0;
    try {
      for (; launched < n; ++launched) threads.emplace_back(run, launched);
    } catch (const std::system_error&) {
      // No more threads to be had: this one runs what is left.
    }
    for (std::size_t i = launched; i < n; ++i) run(i);
  }  // joins
  return std::find(failed.begin(), failed.end(), 1) == failed.end();
}

}  // namespace wagener::reading
