// For tests/test_block_emulated.cpp only: the part of CUB's BlockScan that
// src/cuda/block_upper_hull.cuh uses, over the emulation's block barrier, so that the block's
// device code runs on the CPU. This folder comes first on that test's include path alone.
#pragma once

namespace cub {

enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_WARP_SCANS };

template <class T, int Threads, BlockScanAlgorithm = BLOCK_SCAN_RAKING>
class BlockScan {
 public:
  struct TempStorage {
    T value[Threads];
  };
  explicit BlockScan(TempStorage& storage) : t_(storage) {}

  /// Every thread's input posted, then each sums those before its own; the barrier after lets the
  /// storage be used again.
  void ExclusiveSum(T input, T& output, T& aggregate) {
    t_.value[threadIdx.x] = input;
    __syncthreads();
    output = T{};
    aggregate = T{};
    for (int t = 0; t < Threads; ++t) {
      if (t < static_cast<int>(threadIdx.x)) output += t_.value[t];
      aggregate += t_.value[t];
    }
    __syncthreads();
  }

 private:
  TempStorage& t_;
};

}  // namespace cub
