// Launch parameters of the upper-hull kernels, in one place.
#pragma once

namespace wagener::cuda {

struct UpperHullPolicy {
  // A block hulls a tile of kThreads strips of kStrip points: each thread builds its strip's hood
  // serially (the seed's optimal-work variant), then log2(kThreads) Wagener rounds merge them in
  // shared memory. 128 x 8 = 1024 points keeps two tile buffers of double points at 32 KB.
  static constexpr int kThreads = 128;
  static constexpr int kStrip = 8;
  static constexpr int kTile = kThreads * kStrip;
  // Device-wide rounds: threads per block and virtual processors per work unit (one block-wide loop).
  static constexpr int kRoundThreads = 256;
  static constexpr int kUnit = 2048;
  // Blocks per multiprocessor for the grid-stride round kernels.
  static constexpr int kRoundBlocksPerSm = 8;
};

}  // namespace wagener::cuda
