// Output made of blocks: threads produce blocks in parallel, each into its own buffer, and the blocks
// are consumed (appended to a file or a string) in order. The buffers are reused block after block, so
// memory stays at a few blocks per thread whatever the output's size, and it stays in cache and in
// pages already faulted in: on virtual machines, first touching fresh memory can cost more than
// formatting into it.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string_view>

#include "core/parallel_slices.hpp"

namespace wagener::detail {

/// Blocks [0, blocks) on `threads` threads. Each thread makes its own producer with make_producer();
/// producer(block) returns the block's bytes, valid until its next call. consume(block, bytes) is then
/// called in block order, one call at a time, unless `ordered` is false: then it is called as soon as
/// a block is made, from several threads at once (a positional write). Rethrows the first exception
/// once all threads have stopped; after one, no further block is consumed in order.
template <class MakeProducer, class Consume>
void produce_blocks(std::uint64_t blocks, std::size_t threads, bool ordered,
                    const MakeProducer& make_producer, const Consume& consume) {
  if (blocks == 0) return;
  threads = static_cast<std::size_t>(std::clamp<std::uint64_t>(threads, 1, blocks));
  std::atomic<std::uint64_t> next_block{0};
  std::mutex mutex;
  std::condition_variable turn;
  std::uint64_t blocks_consumed = 0;  // under mutex
  bool failed = false;                // under mutex: a thread has stopped, so no one may wait for it

  run_slices(threads, threads, [&](std::size_t, std::size_t, std::size_t) {
    try {
      auto produce = make_producer();
      for (;;) {
        const std::uint64_t block = next_block.fetch_add(1);
        if (block >= blocks) return;
        const std::string_view bytes = produce(block);
        if (!ordered) {
          consume(block, bytes);
          continue;
        }
        {
          std::unique_lock lock(mutex);
          turn.wait(lock, [&] { return blocks_consumed == block || failed; });
          if (failed) return;
        }
        // Every other thread holds a later block and waits: this one has the consumer to itself.
        consume(block, bytes);
        {
          const std::lock_guard lock(mutex);
          ++blocks_consumed;
        }
        turn.notify_all();
      }
    } catch (...) {
      {
        const std::lock_guard lock(mutex);
        failed = true;
      }
      turn.notify_all();
      throw;
    }
  });
}

}  // namespace wagener::detail
