// Input indices of hull vertices (scipy's ConvexHull.vertices): one parallel pass over the points
// against a small hash table of the vertices.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/parallel_slices.hpp"
#include "wagener/hull.hpp"

namespace wagener {
namespace {

template <class T>
using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

// Equal coordinates must hash alike: -0.0 == 0.0, and adding +0.0 turns -0.0 into +0.0 (round to
// nearest) while leaving every other finite value unchanged. Integers are their own keys.
template <class T>
std::uint64_t coordinate_key(T v) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<std::uint64_t>(static_cast<Bits<T>>(v));
  } else {
    return static_cast<std::uint64_t>(std::bit_cast<Bits<T>>(static_cast<T>(v + T(0))));
  }
}

constexpr std::uint64_t mix(std::uint64_t h) {  // the SplitMix64 finaliser
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

// Below this many points per thread, a thread costs more than it saves.
constexpr std::size_t kMinPointsPerThread = std::size_t{1} << 16;
constexpr std::int64_t kUnset = std::numeric_limits<std::int64_t>::max();

/// Open addressing over the vertices, at most half full, plus a one-bit-per-slot prefilter on x
/// alone: most points share no x with any vertex and cost one multiply and one bit test.
template <class T>
class VertexTable {
 public:
  explicit VertexTable(std::span<const Point2<T>> vertices) : vertices_(vertices) {
    std::size_t size = 16;
    while (size < 2 * vertices.size()) size *= 2;
    mask_ = size - 1;
    slots_.assign(size, -1);
    x_seen_.assign(size / 64 + 1, 0);
    for (std::size_t v = 0; v < vertices.size(); ++v) {
      const auto& p = vertices[v];
      const std::uint64_t hx = mix(coordinate_key(p.x));
      x_seen_[(hx & mask_) / 64] |= std::uint64_t{1} << ((hx & mask_) % 64);
      for (std::size_t s = hash(p) & mask_;; s = (s + 1) & mask_) {
        if (slots_[s] < 0) {
          slots_[s] = static_cast<std::int64_t>(v);
          break;
        }
        if (vertices[static_cast<std::size_t>(slots_[s])] == p) break;  // a repeated vertex: first wins
      }
    }
  }

  /// The vertex equal to p, or -1.
  std::int64_t find(const Point2<T>& p) const {
    const std::uint64_t hx = mix(coordinate_key(p.x)) & mask_;
    if (!((x_seen_[hx / 64] >> (hx % 64)) & 1)) return -1;
    for (std::size_t s = hash(p) & mask_; slots_[s] >= 0; s = (s + 1) & mask_) {
      if (vertices_[static_cast<std::size_t>(slots_[s])] == p) return slots_[s];
    }
    return -1;
  }

 private:
  static std::uint64_t hash(const Point2<T>& p) {
    return mix(coordinate_key(p.x) * 0x9e3779b97f4a7c15ULL ^ coordinate_key(p.y));
  }

  std::span<const Point2<T>> vertices_;
  std::size_t mask_ = 0;
  std::vector<std::int64_t> slots_;
  std::vector<std::uint64_t> x_seen_;
};

}  // namespace

template <class T>
std::vector<std::int64_t> vertex_indices(std::span<const Point2<T>> points,
                                         std::span<const Point2<T>> vertices) {
  const VertexTable<T> table(vertices);
  // Slices run in index order, so a slice's first match is the smallest only within it: keep the
  // minimum over slices.
  std::vector<std::atomic<std::int64_t>> first(vertices.size());
  for (auto& f : first) f.store(kUnset, std::memory_order_relaxed);
  const std::size_t n = points.size();
  detail::run_slices(
      n, detail::slice_count(n, detail::resolve_threads(0), kMinPointsPerThread),
      [&](std::size_t, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          const std::int64_t v = table.find(points[i]);
          if (v < 0) [[likely]]
            continue;
          auto& slot = first[static_cast<std::size_t>(v)];
          auto seen = slot.load(std::memory_order_relaxed);
          const auto index = static_cast<std::int64_t>(i);
          while (index < seen && !slot.compare_exchange_weak(seen, index, std::memory_order_relaxed)) {
          }
        }
      });
  std::vector<std::int64_t> out(vertices.size());
  for (std::size_t v = 0; v < vertices.size(); ++v) {
    // Every vertex is in the table; a repeated one shares its first copy's entry.
    const std::int64_t found = first[static_cast<std::size_t>(table.find(vertices[v]))].load();
    if (found == kUnset) {
      throw std::invalid_argument("vertex " + std::to_string(v) + " is not one of the points");
    }
    out[v] = found;
  }
  return out;
}

#define WAGENER_INSTANTIATE(T) \
  template std::vector<std::int64_t> vertex_indices(std::span<const Point2<T>>, std::span<const Point2<T>>);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener
