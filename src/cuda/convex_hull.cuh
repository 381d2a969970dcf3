// Device level: the full hull of unsorted points, from device or host memory.
#pragma once

#include <cuda_runtime.h>

#include <span>
#include <vector>

#include "wagener/point.hpp"

namespace wagener::cuda {

/// From this many points (device memory only) the full hull may take the dense guide. Chosen when the
/// guide's check was a latency-bound hull of 2^16 points (about 1 ms on an H100, most of a call below
/// it); above it, a float circle gains at every size measured (2^24: 3.2 -> 2.8 ms), and a double
/// circle, which the check turns away, paid that millisecond (bench/RESULTS.md). The check has since
/// become a sort of 2^16 keys and one round trip, so the guide's own nested hull is what a lower
/// threshold would have to repay.
inline constexpr index_t kDefaultMinPointsForGuide = index_t{1} << 22;
/// The current threshold (per process): kDefaultMinPointsForGuide unless set, as tests and the
/// benchmark do to reach or to avoid the guide.
index_t min_points_for_guide();
void set_min_points_for_guide(index_t n);

/// From this many points the dense guide is a polygon of its sample's star (dense_guide.cu,
/// star_polygon): the sample point farthest from the centre in each narrow angle bucket, about a
/// quarter of the sample, cut to convex chains; no hull of its own. Below it, the exact hull of the
/// whole sample: at 2^22 points a sixth of the sample are that hull's vertices, too many for a bucket
/// each (modelled, bench/NOTES.md); from 2^24 the star keeps as many points out of the filter's
/// survivors, and the float circle takes 0.3-0.7 ms less at 2^24 and 1.4-1.6 ms less at 2^28 (H200).
inline constexpr index_t kDefaultMinPointsForGuideStar = index_t{1} << 24;
/// The current threshold (per process): kDefaultMinPointsForGuideStar unless set, as tests and the
/// benchmark do to take the star, or the sample, at any size.
index_t min_points_for_guide_star();
void set_min_points_for_guide_star(index_t n);

/// Sample points a bucket of the star (full_hull.cuh, star_buckets): kStarSamplesPerBucket unless
/// set, as the benchmark does to compare (at least 1).
index_t star_samples_per_bucket();
void set_star_samples_per_bucket(index_t n);

/// Whether the dense guide's fan first tries its ring (core::ChordFanView: a squared radius per
/// angle bucket, a table small enough for L1), on unless set off, as tests and the benchmark do to
/// compare.
bool guide_ring_enabled();
void set_guide_ring_enabled(bool on);

/// The fewest survivors with 8-byte coordinates (double, int64) that the full hull sorts on a 32-bit
/// key monotone in x (four radix passes of the key and each survivor's place, then each run of equal
/// key exactly) instead of on all of x: below it, the sort on x is short and the key's passes over
/// the survivors for x's range and the keys would not pay (bench/NOTES.md).
inline constexpr index_t kDefaultMinSurvivorsForKeySort = index_t{1} << 22;
/// The current threshold (per process): kDefaultMinSurvivorsForKeySort unless set, as tests do to
/// reach the key's sort with inputs of test size.
index_t min_survivors_for_key_sort();
void set_min_survivors_for_key_sort(index_t n);

/// From how many tile-hood points the full hull's chains merge their hoods across the device in place
/// (UpperHullWorkspace::in_place_from); such a chain's hood stays in its tiles, and the join reads it
/// there (no compaction first). -1, the default: each chain's policy (UpperHullPolicy::kInPlaceFrom).
/// Tests set it to take either rounds at test size.
index_t chains_in_place_from();
void set_chains_in_place_from(index_t n);

/// From this many points the full hull filters its survivors once more, by a polygon of their own
/// extremes (full_hull.cuh, survivor_polygon.cu), where they outnumber a chain's tile: a random input
/// then keeps a few thousand, one tile a chain and a short sort. Below it a random input's
/// survivors fit a tile or two already (a disk keeps about 8e-4 of its points).
inline constexpr index_t kDefaultMinPointsForSurvivorPolygon = index_t{1} << 22;
/// The current threshold (per process): kDefaultMinPointsForSurvivorPolygon unless set. Set lower
/// than a chain's tile, it also lowers the survivors the device requires to it, so that tests reach
/// the polygon with inputs of any size.
index_t min_points_for_survivor_polygon();
void set_min_points_for_survivor_polygon(index_t n);

/// Up to this many survivors (the points the filters keep) the full hull is finished by four blocks
/// enqueued behind the filters (block_finish.cu): each sorts the survivors of half of one side of the
/// baseline and builds that half-chain, the last to finish joins them, and the host launches nothing
/// after its one wait for the count. Above it, CUB's sort and the chains' kernels, launched after
/// that wait. The most is kDefaultMaxSurvivorsForBlockFinish (a chain's input fits one block's tile).
inline constexpr index_t kDefaultMaxSurvivorsForBlockFinish = 4094;
/// The current bound (per process): kDefaultMaxSurvivorsForBlockFinish unless set; 0 turns the block
/// finish off (tests and the benchmark compare both ways), and a larger value counts as the most.
index_t max_survivors_for_block_finish();
void set_max_survivors_for_block_finish(index_t n);

/// Whether the full hull's chains join tile hoods (UpperHullWorkspace::join_hoods) as the presorted
/// path's levels do: the enqueued chains' first level (few survivors: upper_hull_enqueued), and the
/// small samples of the chains' guides. Off by default: the chains that reach that level have many
/// survivors, most of them vertices (a circle of 2^20 points: 128 full hoods a chain, 8,128 long
/// bridge searches), and with the join the float circle's call took 0.70 -> 0.76 ms and the double's
/// 0.585 -> 0.598 on an H100, the random rows (the block finish's) unchanged (bench/NOTES.md, "The
/// last levels as one join"). Per process; the benchmark's variants turn it on.
bool chains_join_hoods();
void set_chains_join_hoods(bool on);

/// Where the time of one full hull from device memory goes (CUDA events, for the benchmark): the
/// inner polygon (sample kernels and a host round trip), the streaming filter, reading the survivor
/// count and sorting the survivors, and both chains. From min_points_for_guide(), where the polygon leaves
/// many of its samples (decided in its round trip), between the polygon and the filter, the dense guide's
/// step (guide_ms): the check (the sample's points in convex position by angle), the guide's hull and
/// the guide's fan.
struct FullHullProfile {
  float polygon_ms = 0, filter_ms = 0, sort_ms = 0, chains_ms = 0;
  float guide_ms = 0;
  float survivor_polygon_ms = 0;  ///< the survivors' polygon and its filter (0: not enqueued)
  index_t polygon_survivors = 0;  ///< the points the (inner or guide) polygon's filter kept
  index_t check_convex = 0;  ///< the check sample's points in convex position by angle (0: no check or none)
  index_t guide_vertices = 0;  ///< vertices of the guide whose fan filtered the input (0: no guide)
  /// Whether that fan took its ring (core::ChordFanView), read back from the device: one round trip,
  /// only where a profile is asked for.
  bool guide_ring = false;
  /// Whether the chains could take their own guide filters: not where the check found most of its
  /// sample in convex position (nearly every survivor a vertex), nor behind the dense guide's fan.
  bool chain_guides = true;
  /// Whether the block finish built the hull (then sort_ms is 0 and chains_ms its time).
  bool finished_in_blocks = false;
  /// Whether the filter took the polygon built on the device (doubles, and floats where the device's
  /// slot was free; off the dense guide's path).
  bool device_polygon = false;
  /// Whether the filter was skipped (8-byte points in one array, mostly in convex position, nearly
  /// none certified inside the inner polygon: kMinUnfilteredShare): the chains took every point.
  bool unfiltered = false;
  /// Whether, unfiltered, the chains' first tiles read the points by place from the sort on a key
  /// (PlacedPoints: many points, the chains with host waits), not from a copy written in order.
  bool chains_read_by_place = false;
  /// How many chains the join read from the tiles where the in-place rounds left their hoods.
  int chains_in_tiles = 0;
};

/// Full hull (counter-clockwise from the lexicographically smallest vertex) of d_points[0..n), any
/// order, on `stream`. Throws input_error for a non-finite point. `survivors` (optional) receives
/// how many points the interior filters kept: the points the chains were built from.
template <class T>
std::vector<Point2<T>> convex_hull_on_device(const Point2<T>* d_points, index_t n, cudaStream_t stream,
                                             index_t* survivors, FullHullProfile* profile = nullptr);

/// The same for points given as two device arrays, x and y.
template <class T>
std::vector<Point2<T>> convex_hull_on_device(const T* d_x, const T* d_y, index_t n, cudaStream_t stream,
                                             index_t* survivors);

/// The same, leaving the hull in device memory: its vertices to d_hull (room for n points), their
/// number returned. Blocks until the hull is written.
template <class T>
index_t convex_hull_on_device(const Point2<T>* d_points, index_t n, Point2<T>* d_hull, cudaStream_t stream,
                              index_t* survivors = nullptr, FullHullProfile* profile = nullptr);
template <class T>
index_t convex_hull_on_device(const T* d_x, const T* d_y, index_t n, Point2<T>* d_hull, cudaStream_t stream);
/// The same for points in (pageable) host memory: copied in chunks through pinned staging, each
/// chunk filtered as soon as it lands, so only the survivors are ever stored on the device.
/// `filtered` (optional) is recorded on `stream` once every chunk is copied and filtered.
template <class T>
std::vector<Point2<T>> convex_hull_from_host(std::span<const Point2<T>> points, cudaStream_t stream,
                                             index_t* survivors, cudaEvent_t filtered = nullptr);

}  // namespace wagener::cuda
