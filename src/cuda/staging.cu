#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "cuda/buffers.cuh"
#include "cuda/check.cuh"
#include "cuda/per_device.cuh"
#include "cuda/staging.cuh"

namespace wagener::cuda {
namespace {

// Chunk size: large enough that the per-chunk costs (an event wait, starting the copy threads)
// vanish, small enough that the first DMA starts early. Pinning the two buffers costs about 0.55 ms
// per MB (70 ms for these two), yet 16 MB chunks made the whole copy slower, 227 ms against 131 ms
// for 10^8 f64 points, allocation included (bench/NOTES.md, "Pinned staging").
constexpr std::size_t kChunkBytes = std::size_t{64} << 20;
// Each copy thread moves at least this much; fewer threads for small chunks.
constexpr std::size_t kMinBytesPerThread = std::size_t{8} << 20;
constexpr unsigned kMaxCopyThreads = 8;

void parallel_memcpy(void* dst, const void* src, std::size_t bytes) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads =
      std::clamp<std::size_t>(bytes / kMinBytesPerThread, 1, std::min(hw, kMaxCopyThreads));
  auto piece = [&](std::size_t t) {
    const std::size_t begin = bytes * t / threads, end = bytes * (t + 1) / threads;
    std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin, end - begin);
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(piece, t);
  piece(0);
  for (auto& th : pool) th.join();
}

/// Two pinned buffers and the events that say when their last DMA finished; per thread, grown on
/// demand (pinning memory is slow: a few ms per 100 MB), so repeated calls pay it once.
struct Staging {
  std::size_t bytes = 0;
  PinnedBuffer<unsigned char> buffer[2];
  Event done[2];
  bool pending[2] = {false, false};

  void reserve(std::size_t need) {
    if (need <= bytes) return;
    for (int i = 0; i < 2; ++i) {
      if (pending[i]) WAGENER_CUDA_CHECK(cudaEventSynchronize(done[i].get()));
      pending[i] = false;
      buffer[i] = PinnedBuffer<unsigned char>(need);
    }
    bytes = need;
  }
};

Staging& thread_staging() {
  return per_device_thread_local<Staging>();  // its events belong to a device
}

}  // namespace

std::size_t staging_chunk(std::size_t element_bytes) {
  return kChunkBytes / element_bytes;
}

void stream_to_device(const void* host, std::size_t count, std::size_t element_bytes, cudaStream_t stream,
                      const ChunkDestination& destination, const ChunkReady& ready) {
  if (count == 0) return;
  const std::size_t chunk = staging_chunk(element_bytes);
  Staging& staging = thread_staging();
  staging.reserve(std::min(chunk, count) * element_bytes);
  int slot = 0;
  for (std::size_t first = 0; first < count; first += chunk, slot ^= 1) {
    const std::size_t n = std::min(chunk, count - first);
    const std::size_t bytes = n * element_bytes;
    if (staging.pending[slot]) WAGENER_CUDA_CHECK(cudaEventSynchronize(staging.done[slot].get()));
    parallel_memcpy(staging.buffer[slot].data(), static_cast<const char*>(host) + first * element_bytes,
                    bytes);
    void* device = destination(first, n, slot);
    WAGENER_CUDA_CHECK(
        cudaMemcpyAsync(device, staging.buffer[slot].data(), bytes, cudaMemcpyHostToDevice, stream));
    staging.done[slot].record(stream);
    staging.pending[slot] = true;
    if (ready) ready(device, first, n);
  }
}

}  // namespace wagener::cuda
