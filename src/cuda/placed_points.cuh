// A chain's input read where the points lie, in the order a sort of their places gave: the full hull's
// sort on a key (convex_hull.cu; its words, KeyedPlaces) hands its places to the chains' first tile
// level (upper_hull.cu) instead of writing the points out in order.
#pragma once

#include <cstdint>

#include "core/chains.hpp"
#include "core/x_key.hpp"
#include "wagener/point.hpp"

namespace wagener::cuda {

/// A point with each -0 written as +0: the radix sort orders -0 before +0, lex_less does not tell
/// them apart. The filter writes its survivors through this, and the points that took no filter are
/// read through it, so the hull's vertices do not depend on the path.
template <class T>
__host__ __device__ Point2<T> plus_zeros(const Point2<T>& p) {
  return {p.x + T(0), p.y + T(0)};
}

/// A point as the split writes it for a chain (SplitTargets, PlacedTargets, PlacedPoints): each -0 as
/// +0, and reflected (core::reflected) for the lower chain.
template <class T>
__host__ __device__ Point2<T> split_point(const Point2<T>& p, bool reflect) {
  return reflect ? core::reflected(plus_zeros(p)) : plus_zeros(p);
}

/// The sort's words: a point's key in the high 32 bits and its place in the low 32, sorted on the
/// high bits alone (CUB's SortKeys, bits 32-64: stable, so places ascend within a key). One word a
/// point through each pass took 0.38 ms less than a key and a place as a pair (bench/NOTES.md, "The
/// double circle's sort as keys alone"). On the device (little-endian) a word's place is the 32-bit
/// half at its lower address.
struct KeyedPlaces {
  const std::uint64_t* words;
  static constexpr int kKeyBit = 32;
  __host__ __device__ static std::uint64_t word(std::uint32_t key, std::uint32_t place) {
    return static_cast<std::uint64_t>(key) << kKeyBit | place;
  }
  __host__ __device__ static std::uint32_t key_of(std::uint64_t word) {
    return static_cast<std::uint32_t>(word >> kKeyBit);
  }
  __host__ __device__ static std::uint32_t place_of(std::uint64_t word) {
    return static_cast<std::uint32_t>(word);
  }
  __device__ std::uint32_t operator[](index_t i) const { return key_of(words[i]); }
  __device__ std::uint32_t place(index_t i) const { return place_of(words[i]); }
};

/// Point j of a chain's input is from[place(j)], the place in the low half of the sorted 64-bit word
/// words[word(j)] (its key in the high half), with each -0 written as +0 and, for the lower chain,
/// reflected (core::reflected), as the split writes its points. word(j) is first + j, except at
/// j == wrap, which reads word 0: the lower chain's input ends with the smallest point, the upper
/// side's first word. `tile + start` is the same view from point `start` on.
///
/// The order is the words' except within a run of one key of at most kShortRun points inside one
/// kTile-point tile of the chain, which the tile's load sorts (load_placed); any other run is sorted
/// among the words already (the full hull's list_key_runs_kernel says which).
template <class T>
struct PlacedPoints {
  static constexpr int kShortRun = core::kThreadKeyRun;
  const std::uint64_t* words = nullptr;
  const Point2<T>* from = nullptr;
  index_t first = 0;
  index_t wrap = -1;  ///< no point wraps when negative
  bool reflect = false;

  __host__ __device__ PlacedPoints operator+(index_t start) const {
    return {words, from, first + start, wrap - start, reflect};
  }
  __device__ index_t word(index_t j) const { return j == wrap ? 0 : first + j; }
  __device__ std::uint64_t entry(index_t j) const { return words[word(j)]; }
  __device__ std::uint32_t key(index_t j) const { return KeyedPlaces::key_of(entry(j)); }
  /// Where point j lies (from + place(j)), untransformed: an asynchronous copy's source, finish()
  /// afterwards.
  __device__ std::uint32_t place(index_t j) const { return KeyedPlaces::place_of(entry(j)); }
  /// A point read from its place as the chain takes it.
  __device__ Point2<T> finish(const Point2<T>& p) const { return split_point(p, reflect); }
  /// Point j, where it is not in a run that a tile's load sorts.
  __device__ Point2<T> operator[](index_t j) const { return finish(from[place(j)]); }
};

}  // namespace wagener::cuda
