// The running hull of points that come a piece at a time (wagener/stream.hpp's chunks, a cold file's
// blocks): each piece filtered against the hull so far on all cores, the survivors hulled and merged
// into it by the one hull-of-hulls merge.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/inner_polygon.hpp"
#include "core/parallel_slices.hpp"
#include "cpu/filter_pass.hpp"
#include "cpu/monotone_chain.hpp"
#include "wagener/hull.hpp"

namespace wagener::detail {

// The filter keeps the running hull's fan tables small enough for the cache; thinning the polygon
// only weakens the filter, never its certificate.
constexpr std::size_t kFilterVertices = 4096;
// The most points gathered before they are hulled, however hull-like the input (1 GiB of doubles).
constexpr std::size_t kMaxPendingPoints = std::size_t{1} << 26;

// The filter's unit of work: a run of points checked for finiteness and then filtered while it
// is still in the core's caches.
constexpr std::size_t kFilterRun = 4096;
// Fewer points a thread than this are filtered on fewer threads.
constexpr std::size_t kMinPointsPerSlice = std::size_t{1} << 16;

/// Keeps, in order, the points of [in, in + n) that `view` (null: none) does not certify strictly
/// inside, writing them to out (which may equal in: compaction in place; else room for n points);
/// returns how many. On all cores. Calls on_bad(i) (which must throw) for the first i whose point
/// is not finite.
template <class T, class OnBad>
std::size_t keep_survivors(const core::InnerPolygonView* view, const Point2<T>* in, std::size_t n, Point2<T>* out,
                           OnBad&& on_bad) {
  const std::size_t slices = slice_count(n, hardware_threads(), kMinPointsPerSlice);
  std::vector<std::size_t> kept(slices, 0);
  std::vector<std::int64_t> bad(slices, -1);
  run_slices(n, slices, [&](std::size_t s, std::size_t begin, std::size_t end) {
    std::size_t m = begin;  // survivors of this slice go to [begin, m) of out
    for (std::size_t run = begin; run < end; run += kFilterRun) {
      const std::size_t len = std::min(kFilterRun, end - run);
      if (const std::int64_t b = cpu::first_non_finite<T>({in + run, len}); b >= 0) {
        bad[s] = static_cast<std::int64_t>(run) + b;
        return;
      }
      if (view != nullptr) {
        m += cpu::keep_uncertified(*view, in + run, len, out + m);
      } else {
        if (out != in) std::copy(in + run, in + run + len, out + m);
        m += len;
      }
    }
    kept[s] = m - begin;
  });
  for (const std::int64_t b : bad) {
    if (b >= 0) on_bad(static_cast<std::size_t>(b));
  }
  std::size_t total = kept[0];
  for (std::size_t s = 1; s < slices; ++s) {
    std::copy(out + slice_begin(n, slices, s), out + slice_begin(n, slices, s) + kept[s], out + total);
    total += kept[s];
  }
  return total;
}

/// The hull of points that come a piece at a time: each piece is filtered against the hull so far
/// (a point is dropped only when certified strictly inside it), the survivors are gathered and, once
/// there are `pending_limit` of them (0: after every piece), hulled by compute_hull() on the
/// options' backend and merged into the hull by merge_hulls().
template <class T>
class RunningHull {
 public:
  RunningHull(const HullOptions& options, std::size_t pending_limit)
      : options_(options), pending_limit_(pending_limit) {
    chunk_options_ = options;
    chunk_options_.part = HullPart::full;
    chunk_options_.stats = &chunk_stats_;
    chunk_options_.presorted = false;
    chunk_options_.indices = false;
  }

  /// Adds the next points, in place: `chunk` is filtered (compacted in place) and its survivors
  /// gathered. on_bad(i) must throw for the non-finite point chunk[i].
  template <class OnBad>
  void add_in_place(std::vector<Point2<T>>& chunk, OnBad&& on_bad) {
    seen_ += static_cast<std::int64_t>(chunk.size());
    const auto inner = filter_view();
    chunk.resize(keep_survivors<T>(inner ? &*inner : nullptr, chunk.data(), chunk.size(), chunk.data(), on_bad));
    kept_ += static_cast<std::int64_t>(chunk.size());
    if (pending_limit_ == 0) {
      merge_hull_of(chunk);  // no second buffer beside the chunk: a bounded stream's memory holds one
      return;
    }
    pending_.insert(pending_.end(), chunk.begin(), chunk.end());
    if (pending_.size() >= pending_limit_ || hull_.size() < 3) hull_pending();
  }

  /// Adds the next points, which stay where they are (the survivors are copied).
  template <class OnBad>
  void add(std::span<const Point2<T>> points, OnBad&& on_bad) {
    seen_ += static_cast<std::int64_t>(points.size());
    std::size_t m = 0;
    if (gather_all_) {
      // Every point is kept (the filter certifies nothing on hull-like input): checked and written
      // straight into pending_, whose capacity grows geometrically when expect_points() did not
      // reserve it (a fresh allocation a block cost more page faults than the block's filter).
      const std::size_t before = pending_.size();
      if (pending_.capacity() < before + points.size()) {
        pending_.reserve(std::max(before + points.size(), 2 * pending_.capacity()));
      }
      pending_.resize(before + points.size());
      m = keep_survivors<T>(nullptr, points.data(), points.size(), pending_.data() + before, on_bad);
    } else {
      // Few survivors: filtered into a scratch buffer of the block's size, kept from block to block.
      const auto inner = filter_view();
      if (scratch_.size() < points.size()) scratch_.resize(points.size());
      m = keep_survivors<T>(inner ? &*inner : nullptr, points.data(), points.size(), scratch_.data(), on_bad);
      pending_.insert(pending_.end(), scratch_.begin(), scratch_.begin() + static_cast<std::ptrdiff_t>(m));
    }
    kept_ += static_cast<std::int64_t>(m);
    if (pending_.size() >= pending_limit_ || hull_.size() < 3) hull_pending();
  }

  /// How many points the whole input holds, where known: a hull-like input's points are then
  /// gathered into one allocation, not a growing one (its page faults and copies cost as much as
  /// the hull on 2 cores).
  void expect_points(std::size_t total) { expected_points_ = total; }

  /// Hulls what is left; then the hull is `hull()`.
  void finish() { hull_pending(/*last=*/true); }

  const std::vector<Point2<T>>& hull() const { return hull_; }
  /// The hull, moved out (the running hull is done with).
  std::vector<Point2<T>> take_hull() { return std::move(hull_); }
  std::int64_t seen() const { return seen_; }
  std::int64_t kept() const { return kept_; }
  const HullStats& chunk_stats() const { return chunk_stats_; }

  /// Called after each merge with the hull's size, so that a bounded stream can refuse to go on.
  std::function<void(const std::vector<Point2<T>>&)> after_merge;

 private:
  std::optional<core::InnerPolygonView> filter_view() {
    if (!inner_ || !inner_->enabled()) return std::nullopt;
    return inner_->view();
  }

  void hull_pending(bool last = false) {
    if (pending_.empty()) return;
    if (!last && gather_all_ && pending_.size() < kMaxPendingPoints) return;  // hulled once, at the end
    auto chunk_hull = compute_hull<T>(pending_, chunk_options_).vertices;
    // Hull-like input (a circle): most of a batch is on its hull, and merging a growing hull batch
    // after batch cost more than hulling everything once (a cold circle of 10^7 points took 3.1 s
    // against 0.66 s warm on 32 cores; bench/NOTES.md). From such a batch on, unless memory is
    // bounded, the points are gathered, this batch's too, and hulled at the end.
    if (!last && pending_limit_ != 0 && !gather_all_ && chunk_hull.size() > pending_.size() / 2 &&
        pending_.size() < kMaxPendingPoints) {
      gather_all_ = true;
      pending_.reserve(std::min(kMaxPendingPoints, expected_points_));
      scratch_ = {};  // not needed again
      return;
    }
    pending_.clear();
    merge_into_hull(std::move(chunk_hull), last);
  }

  void merge_hull_of(std::span<const Point2<T>> points) {
    if (!points.empty()) merge_into_hull(compute_hull<T>(points, chunk_options_).vertices);
  }

  void merge_into_hull(std::vector<Point2<T>>&& chunk_hull, bool last = false) {
    if (hull_.empty()) {
      hull_ = std::move(chunk_hull);  // already a hull: merge_hulls would check it again
    } else {
      const std::span<const Point2<T>> parts[] = {hull_, chunk_hull};
      hull_ = merge_hulls<T>(parts);
    }
    if (after_merge) after_merge(hull_);
    if (!last && hull_.size() >= 3) {  // the next points' filter
      // In double, on the vertices double holds exactly (all but 64-bit integers beyond 2^53; a
      // subset of a convex polygon's vertices is a convex polygon inside it), so that the filter
      // certifies no rounded point (converts_exactly).
      std::vector<Point2<double>> polygon;
      polygon.reserve(hull_.size());
      for (const Point2<T>& v : hull_) {
        if (converts_exactly(v)) polygon.push_back({static_cast<double>(v.x), static_cast<double>(v.y)});
      }
      if (polygon.size() >= 3) {
        inner_.emplace(std::move(polygon), kFilterVertices);
      } else {
        inner_.reset();
      }
    }
  }

  HullOptions options_;
  HullOptions chunk_options_;
  HullStats chunk_stats_;
  std::size_t pending_limit_;
  std::vector<Point2<T>> hull_, pending_, scratch_;
  std::optional<core::InnerPolygon> inner_;
  bool gather_all_ = false;  // hull-like input: every point gathered and hulled once
  std::size_t expected_points_ = 0;
  std::int64_t seen_ = 0, kept_ = 0;
};

/// The result in options.part, and the statistics, of a finished RunningHull.
template <class T>
HullResult<T> running_result(RunningHull<T>& running, const HullOptions& options,
                             std::chrono::steady_clock::time_point start, std::string reading) {
  running.finish();
  HullResult<T> result;
  if (options.part == HullPart::upper) {
    // The hull's own vertices hold its upper chain: hull them again, a small input.
    HullOptions upper;
    upper.part = HullPart::upper;
    upper.backend = Backend::cpu;
    result.vertices = compute_hull<T>(running.hull(), upper).vertices;
  } else {
    result.vertices = running.take_hull();
  }
  if (options.stats) {
    HullStats stats = running.chunk_stats();
    stats.points = running.seen();
    stats.survivors = running.kept();
    stats.hull_vertices = static_cast<std::int64_t>(result.vertices.size());
    stats.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    stats.predicted_cpu_milliseconds = stats.predicted_cuda_milliseconds = 0;
    stats.prediction_basis.clear();
    stats.reading = std::move(reading);
    *options.stats = stats;
  }
  return result;
}

}  // namespace wagener::detail
