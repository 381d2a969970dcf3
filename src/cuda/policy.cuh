// Launch parameters of the upper-hull kernels, in one place (measurements in bench/NOTES.md).
#pragma once

#include <cstddef>

namespace wagener::cuda {

template <class T>
struct UpperHullPolicy {
  // A block hulls a tile of kThreads strips of kStrip points: each thread chains its strip serially
  // (the seed's optimal-work variant), then log2(kThreads) Wagener rounds merge the strip hoods in
  // place in shared memory. Strips are padded to kStrip + 1 slots so that the threads' serial walks
  // hit distinct banks. 32-point float strips and 16-point double strips keep a block's shared memory
  // near 45 KB, so four or more blocks share a multiprocessor.
  static constexpr int kThreads = 128;
  static constexpr int kStrip = sizeof(T) == 4 ? 32 : 16;
  static constexpr int kStride = kStrip + 1;
  static constexpr int kTile = kThreads * kStrip;
  // Between levels, the tile hoods are compacted into a new, shorter point set while that at least
  // halves it; otherwise (most points on the hull) device-wide rounds merge the tile hoods.
  static constexpr double kCompactionGain = 0.5;
  // Device-wide rounds: threads per block and virtual processors per work unit (one block-wide loop).
  static constexpr int kRoundThreads = 256;
  static constexpr int kUnit = 2048;
  // Blocks per multiprocessor for the grid-stride kernels.
  static constexpr int kBlocksPerSm = 8;
};

}  // namespace wagener::cuda
