// The CUDA block and warp intrinsics as CPU threads, for the tests that run device code on the CPU
// (test_block_emulated, test_join_emulated). A thread stands for each GPU thread of the block,
// __syncthreads runs over the block's threads, and the warp intrinsics over the lanes their mask
// names, each mask of a warp its own barrier and exchange. An intrinsic whose mask leaves out the
// calling lane, or whose source lane is outside the mask, fails the test (run_block); a collective
// that some lane of its mask never reaches hangs it (CTest's timeout), as divergent code would
// deadlock or read garbage on the GPU. Include it after device_scalars.hpp and before the device
// code under test.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace block_emulation {

constexpr int kWarp = 32;

/// The lanes of one warp that one mask names: their barrier and their words for an exchange.
struct MaskGroup {
  explicit MaskGroup(unsigned mask) : barrier(__builtin_popcount(mask)) {}
  std::barrier<> barrier;
  std::uint64_t slot[kWarp] = {};
};

struct Block {
  explicit Block(int threads) : barrier(threads), word(static_cast<std::size_t>(threads)) {}
  std::barrier<> barrier;
  std::vector<std::uint64_t> word;  // each thread's word for __syncthreads_or / _and
  std::mutex lock;
  std::map<std::pair<int, unsigned>, std::unique_ptr<MaskGroup>> groups;
  std::atomic<bool> misuse{false};

  MaskGroup& group(int warp, unsigned mask) {
    const std::lock_guard<std::mutex> hold(lock);
    auto& g = groups[{warp, mask}];
    if (!g) g = std::make_unique<MaskGroup>(mask);
    return *g;
  }
};

inline Block* block = nullptr;  // the block under test (one at a time)
struct Index {
  unsigned x = 0, y = 0, z = 0;
};

/// The calling lane's group for `mask`, after checking that the mask names it and the source.
inline MaskGroup& group_of(unsigned mask, int lane, int source = -1);

}  // namespace block_emulation

inline thread_local block_emulation::Index threadIdx;

namespace block_emulation {

/// Whether `mask` names lane `lane` (0 to 31; any other lane is in no mask).
inline bool names(unsigned mask, int lane) {
  return lane >= 0 && lane < kWarp && (mask >> lane & 1u) != 0;
}

inline MaskGroup& group_of(unsigned mask, int lane, int source) {
  if (!names(mask, lane) || (source != -1 && !names(mask, source))) block->misuse = true;
  return block->group(static_cast<int>(threadIdx.x) / kWarp, mask);
}

/// Every lane of the mask posts a word, all wait, each reads the word of `source`, all wait again.
inline std::uint64_t exchange(unsigned mask, std::uint64_t word, int source) {
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  MaskGroup& g = group_of(mask, lane, source);
  g.slot[lane] = word;
  g.barrier.arrive_and_wait();
  const std::uint64_t got = g.slot[names(mask, source) ? source : lane];
  g.barrier.arrive_and_wait();
  return got;
}

/// __syncthreads_or (any) or __syncthreads_and: every thread posts its predicate, all wait, each
/// reduces them, all wait again.
inline int reduce(int predicate, bool any) {
  block->word[threadIdx.x] = predicate != 0 ? 1 : 0;
  block->barrier.arrive_and_wait();
  bool result = !any;
  for (const std::uint64_t w : block->word) result = any ? (result || w != 0) : (result && w != 0);
  block->barrier.arrive_and_wait();
  return result ? 1 : 0;
}

}  // namespace block_emulation

inline void __syncthreads() {
  block_emulation::block->barrier.arrive_and_wait();
}
inline int __syncthreads_or(int predicate) {
  return block_emulation::reduce(predicate, true);
}
inline int __syncthreads_and(int predicate) {
  return block_emulation::reduce(predicate, false);
}
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  block_emulation::group_of(mask, static_cast<int>(threadIdx.x) % block_emulation::kWarp)
      .barrier.arrive_and_wait();
}
template <class V>
V __shfl_sync(unsigned mask, V value, int source) {
  static_assert(sizeof(V) <= 8, "a word a lane");
  std::uint64_t word = 0;
  std::memcpy(&word, &value, sizeof value);
  const std::uint64_t got = block_emulation::exchange(mask, word, source);
  V out;
  std::memcpy(&out, &got, sizeof out);
  return out;
}
/// As on the GPU, a lane whose source (its own lane + delta) is past the warp keeps its own value.
template <class V>
V __shfl_down_sync(unsigned mask, V value, unsigned delta) {
  const int lane = static_cast<int>(threadIdx.x) % block_emulation::kWarp;
  const int source = lane + static_cast<int>(delta);
  return __shfl_sync(mask, value, source < block_emulation::kWarp ? source : lane);
}
inline unsigned __ballot_sync(unsigned mask, bool predicate) {
  using namespace block_emulation;
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  MaskGroup& g = group_of(mask, lane);
  g.slot[lane] = predicate ? 1 : 0;
  g.barrier.arrive_and_wait();
  unsigned bits = 0;
  for (int l = 0; l < kWarp; ++l)
    if ((mask >> l & 1u) != 0 && g.slot[l] != 0) bits |= 1u << l;
  g.barrier.arrive_and_wait();
  return bits;
}
inline bool __any_sync(unsigned mask, bool predicate) {
  return __ballot_sync(mask, predicate) != 0;
}
namespace block_emulation {

/// Runs body() on Threads CPU threads, one for each GPU thread of an emulated block (threadIdx.x set),
/// and checks that no warp intrinsic's mask left out its lane or its source.
template <int Threads, class Body>
void run_block(Body&& body) {
  block_emulation::Block emulated(Threads);
  block_emulation::block = &emulated;
  std::vector<std::thread> threads;
  for (int t = 0; t < Threads; ++t) {
    threads.emplace_back([&, t] {
      threadIdx.x = static_cast<unsigned>(t);
      body(t);
    });
  }
  for (auto& t : threads) t.join();
  block_emulation::block = nullptr;
  EXPECT_FALSE(emulated.misuse) << "a warp intrinsic whose mask leaves out its lane or its source";
}

}  // namespace block_emulation
