// Which input points the full hull's polygon samples on the GPU (cuda/full_hull.cuh): the device's
// sample_extremes_kernel and the host's gather of the same sample read the same places. Here, not in
// the CUDA headers, so that the host tests check the places themselves (tests/test_strided_sample.cpp).
#pragma once

#include <cstdint>

#include "wagener/config.hpp"

namespace wagener::core {

/// The device polygon's sample: about this many points (cuda/full_hull.cuh lays out its blocks).
inline constexpr index_t kPolygonSampleSize = index_t{1} << 18;

/// A sample of about `size` of n points: a stride of n / size (at least 1), so ceil(n / stride)
/// samples, each at its sample_place.
struct StridedSample {
  index_t stride, samples;
};
WAGENER_HD constexpr StridedSample strided_sample(index_t n, index_t size) {
  const index_t stride = n / size > 1 ? n / size : 1;
  return {stride, (n + stride - 1) / stride};
}

/// Samples come in runs of kPolygonSampleRun neighbouring points, aligned in the array (64 bytes of
/// float points, 128 of double: one cache line): the sample's loads are scattered, and with one
/// point a line sample_extremes_kernel waited on them a third of its time (bench/NOTES.md, "The
/// sample in runs of neighbouring points").
inline constexpr index_t kPolygonSampleRun = 8;

/// Sample j's place, of `samples` taken with a stride (samples = ceil(n / stride)): run j /
/// kPolygonSampleRun of the samples lies in its window of kPolygonSampleRun strides, at an offset (a
/// multiple of kPolygonSampleRun) that a hash of the run picks, and sample j is point j %
/// kPolygonSampleRun of it; the last run, whose window may be short, gives the first point of each of
/// its strides. Every stride-th point would sit at one place of each window, and in input sorted with
/// runs of equal x (floats on a finer grid than their own) that place is always the lowest point of
/// its run: a float disk's polygon then lost its upper side and kept 6 % of the points
/// (bench/NOTES.md, "The sorted upper hull by the full hull's pipeline"). With a stride of 1 sample j
/// is point j.
WAGENER_HD inline index_t sample_place(index_t j, index_t stride, index_t samples) {
  const index_t run = j / kPolygonSampleRun;
  if ((run + 1) * kPolygonSampleRun >= samples) return j * stride;  // below n: (samples - 1) * stride < n
  const index_t window = kPolygonSampleRun * stride;
  const auto hash =
      static_cast<std::uint32_t>((static_cast<std::uint64_t>(run) * 0x9E3779B97F4A7C15ull) >> 32);
  // In [0, window - kPolygonSampleRun], so the run ends inside its window, before the last run's.
  const auto offset = static_cast<index_t>(
      (static_cast<std::uint64_t>(hash) * static_cast<std::uint64_t>(window - kPolygonSampleRun + 1)) >> 32);
  return run * window + (offset & ~(kPolygonSampleRun - 1)) + j % kPolygonSampleRun;
}

}  // namespace wagener::core
