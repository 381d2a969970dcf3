// Device level: the upper hull of sorted points already on the device.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "core/hood_join.hpp"
#include "core/merge_step.hpp"
#include "core/nested_bridge.hpp"
#include "cuda/buffers.cuh"
#include "cuda/placed_points.cuh"
#include "cuda/policy.cuh"
#include "wagener/point.hpp"

namespace wagener::cuda {

/// Where upper_hull_enqueued's hull ended up, in device memory: the caller reads it back once its
/// stream has finished (with whatever else it waits for), instead of a host wait a level.
struct EnqueuedHullWords {
  index_t n = 0;            ///< the input's points, read from the device count
  index_t total = 0;        ///< the first level's hood points (when it had more than one tile)
  index_t size = 0;         ///< the hull's points when the first level finished it
  index_t second_n = 0;     ///< the second level's input points (0: no second level)
  index_t second_size = 0;  ///< the hull's points when the second level finished it
  int finished = 0;         ///< 1: the first level's hood, 2: the second's, 0: more levels needed

  __host__ __device__ index_t hull_size() const { return finished == 2 ? second_size : size; }
  /// Of the first level's hood buffer and the second level's, the one that holds the hull.
  template <class P>
  __host__ __device__ P* hull_buffer(P* first, P* second) const {
    return finished == 2 ? second : first;
  }
};

/// The guide filter's survivors' enqueued levels (upper_hull_on_device), in device memory and read
/// back in the call's last wait: the levels' outcome, their input count, and the survivors.
struct EnqueuedSteps {
  EnqueuedHullWords levels;
  index_t count = 0;      ///< the levels' input points: the survivors, or 0 past the bound
  index_t survivors = 0;  ///< the guide filter's survivors, whatever the bound
};

/// Whether workspaces that leave UpperHullWorkspace::join_hoods at -1 join a level's tile hoods in
/// one step (per process). On by default: measured faster on the presorted disks (bench/NOTES.md,
/// "The last levels as one join"); the benchmark sets it to compare both ways.
bool hood_join_enabled();
void set_hood_join_enabled(bool on);

/// Whether workspaces that leave UpperHullWorkspace::direction_guide at -1 first try the guide from
/// the small sample's extremes in fixed directions (direction_guide.cuh), per process; the benchmark
/// sets it to compare both ways.
bool direction_guide_enabled();
void set_direction_guide_enabled(bool on);

/// The thinning of workspaces that leave UpperHullWorkspace::filter_thinning at -1 (per process;
/// FilterThinning::none by default); the benchmark sets it to compare the three.
FilterThinning filter_thinning();
void set_filter_thinning(FilterThinning thinning);

/// What the direction guide's kernels leave for the host's one wait (direction_guide.cuh).
struct DirectionGuideWords {
  index_t size = 0;             ///< the guide's points
  unsigned long long kept = 0;  ///< sample points the guide does not certify below it
};

/// Device workspace of upper_hull_on_device(): two padded hood buffers with their sizes, the merge
/// plans and bridge cells of one round, and the validation flags. Sized once for n points; the rounds
/// allocate nothing.
template <class T>
struct UpperHullWorkspace {
  index_t capacity = -1;
  index_t width = 0;  ///< the narrowest first round width reserved for
  DeviceBuffer<Point2<T>> hood[2];
  DeviceBuffer<index_t> size[2];
  DeviceBuffer<index_t> offsets;          ///< exclusive scan of size[0] between levels
  DeviceBuffer<unsigned char> scan_temp;  ///< CUB's scan storage
  DeviceBuffer<core::MergePlan> plans;
  DeviceBuffer<index_t> cells;
  DeviceBuffer<unsigned long long> first_bad;  ///< [0] first non-finite index, [1] first unsorted index
  DeviceBuffer<Point2<T>> sample;              ///< the guide filter's evenly spaced sample
  DeviceBuffer<Point2<T>> guide;               ///< the sample's upper hull
  DeviceBuffer<int> guide_tile_starts;  ///< where the filter's walk along the guide starts, a tile each
  // Hoods kept in place for the device-wide rounds (core/nested_bridge.hpp): per tile its live range
  // and the links of dead tiles; CUB's storage for the links' scans.
  DeviceBuffer<index_t> strip_lo, strip_hi, strip_prev, strip_next;
  DeviceBuffer<unsigned char> link_scan_temp;
  DeviceBuffer<Point2<T>> last;  ///< upper_hull_enqueued's second level: one tile's hood
  /// The join of a level's tile hoods (core/hood_join.hpp): every pair's bridge (core::pair_slot)
  /// and every hood's span, for UpperHullPolicy::kJoinMostHoods hoods. Allocated by the first join.
  DeviceBuffer<core::PairBridge> bridges;
  DeviceBuffer<core::HoodSpan> spans;
  /// The direction guide's bests (a block's a direction each), its words and their host mirror.
  /// Allocated by the first such guide.
  DeviceBuffer<unsigned long long> direction_best;
  DeviceBuffer<DirectionGuideWords> direction_words;
  PinnedBuffer<DirectionGuideWords> host_direction_words;

  // Guide filter settings (UpperHullPolicy has the defaults and the reasons); the benchmark varies them.
  index_t filter_from = UpperHullPolicy<T>::kFilterFrom;  ///< smallest n that is filtered
  int sample_shift = UpperHullPolicy<T>::kSampleShift;    ///< the sample has n >> sample_shift points
  int dense_sample_shift = UpperHullPolicy<T>::kDenseSampleShift;  ///< ... or this, after a dense guide
  index_t min_sample = UpperHullPolicy<T>::kMinSample;             ///< but at least this many
  /// The small sample's first level keeping more than this share of it: the bigger sample at once (1: never).
  double dense_first_level = UpperHullPolicy<T>::kDenseFirstLevel;
  /// Device-wide rounds keep the hoods in place from this many tile-hood points up (else copy them).
  index_t in_place_from = UpperHullPolicy<T>::kInPlaceFrom;
  /// In those rounds, a round of fewer merges than this gives each merge a block, not a warp (-1: the
  /// device's multiprocessors, UpperHullPolicy::kBlockMergeSamples).
  index_t block_merges_below = -1;
  /// Levels of at most this many tiles per multiprocessor use SmallLevelPolicy (0: none do).
  int small_level_tiles_per_sm = SmallLevelPolicy<T>::kMaxTilesPerSm;
  /// The guide filter's survivors go through enqueued levels (no host wait before the call's last)
  /// where they number at most this many, after a sparse guide; -1: a small level's tiles (the
  /// levels' grid: small_level_tiles_per_sm a multiprocessor), 0: never. The tests move it.
  index_t enqueued_levels_bound = -1;
  /// Points left by the last call's guide filter, or -1 when it did not filter.
  index_t survivors = -1;
  /// Whether the last call's guide filter took the direction guide.
  bool took_direction_guide = false;
  /// A level whose tile hoods turn strictly right at every seam ends there: the hoods side by side
  /// are the hood (core::tile_seam_turns_right), and no rounds or further levels run. The rounds'
  /// tests turn it off, to run the rounds on full hoods.
  bool join_convex_seams = true;
  /// A level of 2 to UpperHullPolicy::kJoinMostHoods tiles whose hoods would go on to further levels
  /// (the guide's small sample, upper_hull_enqueued's first) ends in one join of its tile hoods
  /// instead: 1 joins, 0 runs the levels, -1 follows hood_join_enabled() (the process's setting, which
  /// the benchmark alternates). The tests set it both ways.
  int join_hoods = -1;
  /// The guide filter first tries the guide from its small sample's extremes in fixed directions
  /// (DirectionGuidePolicy): 1 tries it, 0 builds the sample's hull at once, -1 follows
  /// direction_guide_enabled(). The tests set it both ways.
  int direction_guide = -1;
  /// The guide filter's thinning (FilterThinning's value), or -1 to follow filter_thinning(). The
  /// tests set each.
  int filter_thinning = -1;
  /// A level's total and, where a seam does not turn right, its epoch (scan_tile_sizes): pinned host
  /// words that level_tail_kernel writes at their device address, so that the level's wait has no
  /// copy behind it. Allocated by reserve().
  PinnedBuffer<index_t> level_tail;
  index_t* level_tail_on_device = nullptr;
  index_t level_epoch = 0;
  /// Pinned host words that the levels' waits copy into (scan_tile_sizes, read_size, the call's size
  /// and validation flags): a copy to pageable memory is staged by the driver, and each level waits
  /// on it (bench/NOTES.md, "The presorted path's words in pinned memory"). Allocated by reserve().
  PinnedBuffer<index_t> host_sizes;
  PinnedBuffer<unsigned long long> host_bad;
  /// The survivors' enqueued levels' words (EnqueuedSteps) and their host mirror. Allocated by
  /// reserve().
  DeviceBuffer<EnqueuedSteps> steps;
  PinnedBuffer<EnqueuedSteps> host_steps;

  /// The guide filter's sample size for n points and a sample shift: n >> shift, at least min_sample.
  index_t sample_count(index_t n, int shift) const {
    const index_t least = n < min_sample ? n : min_sample;
    const index_t most = n < UpperHullPolicy<T>::kMaxSample ? n : index_t{UpperHullPolicy<T>::kMaxSample};
    const index_t m = n >> shift;
    return m < least ? least : (m > most ? most : m);
  }

  /// Room for n points, tiled, and for device-wide rounds starting from hoods of first_width points.
  void reserve(index_t n, index_t first_width = UpperHullPolicy<T>::kTile);
};

/// A hood that the device-wide in-place rounds left in their tiles (upper_hull_on_device's
/// `hood_in_tiles`): tile t's live points, points[t * stride + lo[t] ...) of size[t], are the hood's
/// from offset[t] on, tile after tile.
template <class T>
struct TiledHood {
  const Point2<T>* points = nullptr;
  const index_t* lo = nullptr;
  const index_t* size = nullptr;
  const index_t* offset = nullptr;
  index_t stride = 0;
  index_t tiles = 0;  ///< 0: not in tiles (DeviceHull::data holds the hood)
};

template <class T>
struct DeviceHull {
  const Point2<T>* data;  ///< inside the workspace; valid until its next use (nullptr: in_tiles)
  index_t size;
  TiledHood<T> in_tiles{};  ///< where the hood was left in its tiles (in_tiles.tiles > 0)
};

/// The hull's points on the host; waits for `stream`.
template <class T>
std::vector<Point2<T>> copy_to_host(const DeviceHull<T>& hull, cudaStream_t stream) {
  std::vector<Point2<T>> out(static_cast<std::size_t>(hull.size));
  if (hull.size > 0) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(out.data(), hull.data, out.size() * sizeof(Point2<T>),
                                       cudaMemcpyDeviceToHost, stream));
  }
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  return out;
}

/// Where upper_hull_on_device's time goes, from events between its steps (for the benchmark).
struct UpperHullProfile {
  float guide_ms = 0;   ///< the sample and its hull (0 when not filtered)
  float filter_ms = 0;  ///< the filter pass and the packing of its survivors
  float levels_ms = 0;  ///< tile levels and device-wide rounds over the survivors (or the input)
  int levels = 0;       ///< tile levels run over the survivors (or the input)
  bool joined = false;  ///< the last level's tile hoods were the hood (join_convex_seams)
  /// The survivors' first levels ran enqueued (UpperHullWorkspace::enqueued_levels_bound).
  bool enqueued = false;
  /// The guide was the small sample's extremes in fixed directions, not a sample's hull.
  bool direction_guide = false;
};

/// Enqueues on `stream`, with no host wait, the upper hull of d_points[0 .. *d_n) (sorted by (x, y),
/// not validated), the count in device memory, n_bound >= *d_n known on the host (the grid is sized
/// by it; no guide filter). Two tile levels at most, the second only where the first one's hoods fit
/// one tile: every hull of the full hull's survivors of random input, and of a presorted call's
/// survivors after a sparse guide. The outcome lands in *words (device memory); then
/// finish_enqueued().
template <class T>
void upper_hull_enqueued(const Point2<T>* d_points, const index_t* d_n, index_t n_bound,
                         UpperHullWorkspace<T>& ws, EnqueuedHullWords* words, cudaStream_t stream);

/// After upper_hull_enqueued's work, with its words read back: the hull where it finished, or else
/// the remaining levels (as upper_hull_on_device, from where the first level left them; host waits).
template <class T>
DeviceHull<T> finish_enqueued(const Point2<T>* d_points, const EnqueuedHullWords& words,
                              UpperHullWorkspace<T>& ws, cudaStream_t stream);

/// Upper hull of d_points[0..n), sorted by (x, y), on `stream`. With `validate`, non-finite or
/// unsorted input throws input_error (checked inside the first kernel, no extra pass).
/// Synchronises once, to read the hull's size. `guide` false skips the guide filter whatever n (the
/// caller knows most points are vertices, where the guide would be computed and then dropped).
/// `hood_in_tiles`: where the device-wide in-place rounds built the hood, it stays in their tiles
/// (DeviceHull::in_tiles, data nullptr) for a caller that reads it once (the full hull's join),
/// without the compaction that would read and write it all first.
template <class T>
DeviceHull<T> upper_hull_on_device(const Point2<T>* d_points, index_t n, UpperHullWorkspace<T>& ws,
                                   cudaStream_t stream, bool validate, UpperHullProfile* profile = nullptr,
                                   bool guide = true, bool hood_in_tiles = false);

/// The same for points read by place (PlacedPoints: sorted as its places run, finite), without the
/// guide filter: the full hull's chains after the sort on a key, whose points the first tile level
/// reads where they lie rather than from a copy written in order. Instantiated for 8-byte
/// coordinates (the sort on a key's).
template <class T>
DeviceHull<T> upper_hull_on_device(PlacedPoints<T> points, index_t n, UpperHullWorkspace<T>& ws,
                                   cudaStream_t stream, bool hood_in_tiles);

/// Called after each device-wide round: the width and number of hood blocks before the round, and
/// the workspace buffers it read and wrote (plans and cells still hold that round's merges).
using RoundHook = std::function<void(index_t width, index_t blocks, int in, int out)>;

/// Wagener's device-wide rounds over `blocks` padded hoods of width `width` in ws.hood[cur] (sizes in
/// ws.size[cur]); returns the buffer holding the final hood at offset 0.
template <class T>
int device_rounds(index_t blocks, index_t width, UpperHullWorkspace<T>& ws, int cur, cudaStream_t stream,
                  const RoundHook& after_round = {});

/// out[i] = -in[n-1-i]: the lower chain's input for the upper-hull machinery.
template <class T>
void reflect_reversed(const Point2<T>* in, index_t n, Point2<T>* out, cudaStream_t stream);

}  // namespace wagener::cuda
