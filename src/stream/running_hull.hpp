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
    const auto inner = filter_view();
    if (scratch_.size() < points.size()) scratch_.resize(points.size());
    const std::size_t m = keep_survivors<T>(inner ? &*inner : nullptr, points.data(), points.size(), scratch_.data(), on_bad);
    kept_ += static_cast<std::int64_t>(m);
    pending_.insert(pending_.end(), scratch_.begin(), scratch_.begin() + static_cast<std::ptrdiff_t>(m));
    if (pending_.size() >= pending_limit_ || hull_.size() < 3) hull_pending();
  }

  /// Hulls what is left; then the hull is `hull()`.
  void finish() { hull_pending(); }

  const std::vector<Point2<T>>& hull() const { return hull_; }
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

  void hull_pending() {
    merge_hull_of(pending_);
    pending_.clear();
  }

  void merge_hull_of(std::span<const Point2<T>> points) {
    if (points.empty()) return;
    const auto chunk_hull = compute_hull<T>(points, chunk_options_).vertices;
    const std::span<const Point2<T>> parts[] = {hull_, chunk_hull};
    hull_ = merge_hulls<T>(parts);
    if (after_merge) after_merge(hull_);
    if (hull_.size() >= 3) {
      std::vector<Point2<double>> polygon;
      polygon.reserve(hull_.size());
      for (const Point2<T>& v : hull_) polygon.push_back({v.x, v.y});  // exact: float widens to double
      inner_.emplace(std::move(polygon), kFilterVertices);
    }
  }

  HullOptions options_;
  HullOptions chunk_options_;
  HullStats chunk_stats_;
  std::size_t pending_limit_;
  std::vector<Point2<T>> hull_, pending_, scratch_;
  std::optional<core::InnerPolygon> inner_;
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
    result.vertices = running.hull();
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
