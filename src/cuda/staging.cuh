// Host data to the device in chunks, through pinned staging buffers kept per thread.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>

namespace wagener::cuda {

/// Where chunk [first, first + count) of the host array goes on the device; `slot` (0 or 1)
/// alternates between consecutive chunks, so a caller can ping-pong two device buffers.
using ChunkDestination = std::function<void*(std::size_t first, std::size_t count, int slot)>;
/// Enqueues, on the copy's stream, the work that consumes a chunk once it has landed at `device`.
using ChunkReady = std::function<void(void* device, std::size_t first, std::size_t count)>;

/// Copies `count` elements of `element_bytes` each from pageable host memory to the device on
/// `stream`, in chunks: the host fills one pinned buffer (on several cores: one core cannot keep up
/// with the PCIe link) while the DMA of the other runs. Returns when every chunk is queued; the
/// copies and the work `ready` enqueued complete in stream order.
void stream_to_device(const void* host, std::size_t count, std::size_t element_bytes, cudaStream_t stream,
                      const ChunkDestination& destination, const ChunkReady& ready = {});

/// Elements per chunk of stream_to_device.
std::size_t staging_chunk(std::size_t element_bytes);

}  // namespace wagener::cuda
