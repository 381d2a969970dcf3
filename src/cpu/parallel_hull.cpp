// The multi-core full hull: the exact hull of a strided sample bounds an inner polygon, one pass over
// all cores discards the points certified strictly inside it, the survivors are sorted and chained.
#include <algorithm>
#include <atomic>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/chains.hpp"
#include "core/huge_pages.hpp"
#include "core/inner_polygon.hpp"
#include "core/nested_bridge.hpp"
#include "core/parallel_slices.hpp"
#include "cpu/filter_pass.hpp"
#include "cpu/lex_sort.hpp"
#include "cpu/merge_hulls.hpp"
#include "cpu/monotone_chain.hpp"
#include "cpu/octagon_filter.hpp"
#include "cpu/parallel_chains.hpp"
#include "wagener/error.hpp"
#include "wagener/hull.hpp"
#include "wagener/predicates.hpp"

namespace wagener::cpu {
namespace {

// Below this many points per thread, starting a thread costs more than it saves.
constexpr std::size_t kMinPointsPerThread = 1 << 16;
// Below this many points the filter cannot pay for its sample: sort everything.
constexpr std::size_t kMinPointsToFilter = 512;
// About this many points form the sample (every stride-th point). A larger sample gives a polygon
// with more vertices and fewer survivors (uniform disk, 10^7 points: 8k -> 0.84 %, 16k -> 0.56 %,
// 32k -> 0.31 %, 64k -> 0.20 %) but costs more on one core before the parallel pass (0.6, 1.0, 1.7,
// 3.4 ms); 32k was the fastest overall.
constexpr std::size_t kSampleSize = 1 << 15;
// On many threads, each gathering and hulling its part of the sample in parallel, the sample takes
// kSamplePerThread points a thread where that is at most 1/kMaxSampleShare of the input (64k at 10^7
// on 16 threads; 32k still on two threads and at 10^6): the survivors' ring of a disk 0.30 -> 0.20 %,
// its 10^7 calls 0.09 ms faster there (bench/NOTES.md).
constexpr std::size_t kSamplePerThread = 1 << 12;
constexpr std::size_t kMaxSampleShare = 128;
constexpr std::size_t kMinSampleStride = 4;
// The sample is taken in runs of this many consecutive points (one run every stride * kSampleRun
// points) rather than one point every stride: a point every few kilobytes cost a TLB and a cache
// miss each, 32k of them about 2-5 ms on 2 cores at 10^7 points, more than the filter pass; a run
// of 1 KB costs one. 512 runs still spread over the whole array, sorted or not.
constexpr std::size_t kSampleRun = 64;
// The sample's gather prefetches the runs this many runs ahead of the one it reads.
constexpr std::size_t kSampleRunsAhead = 8;
// About this many sample points choose the center of the inner polygon's disk and cross, and judge
// the polygon. 1,024 cost 45-90 us of the serial step between the regions on 16 cores (their median,
// two candidates' quick tests, the judge's fan tests, on data other cores wrote); 256 tell the same
// (bench/NOTES.md).
constexpr std::size_t kMedianSample = 256;
// The inner polygon keeps at most this many of the sample hull's vertices, so that its lookup
// tables stay in the L1/L2 cache whatever the input.
constexpr std::size_t kMaxPolygonVertices = 1024;
// When fewer sample points than this fraction are discarded, the input is hull-like (a circle):
// the filter would cost a ring test per point and save nothing, so every point is kept untested.
constexpr double kMinUsefulDiscard = 0.1;

std::size_t thread_count(std::size_t n, unsigned requested) {
  return detail::slice_count(n, detail::resolve_threads(requested), kMinPointsPerThread);
}

using core::InnerPolygon;
using core::InnerPolygonView;

/// The points of `points` (fewer than 2^32) that the polygon of their eight extremes does not certify
/// inside (cpu::OctagonFilter), in order, to kept[0, m); false, with nothing written, where the
/// octagon cannot be built (fewer than three distinct extremes, or coordinates too large or small
/// for its margins) or, if `dense` is given, does not certify it inside.
bool keep_outside_octagon(std::span<const Point2<double>> points, Point2<double>* kept, std::size_t& m,
                          const Point2<double>* dense = nullptr) {
  const auto n = static_cast<std::uint32_t>(points.size());
  const GroupExtremes extremes = find_extremes(points.data(), n);
  OctagonFilter octagon;
  if (!extremes.finite || !octagon.build(points.data(), extremes)) return false;
  if (dense != nullptr && !octagon.inside(*dense)) return false;
  std::vector<std::uint32_t> survivors(n);
  m = octagon_survivors(octagon, points.data(), n, survivors.data());
  for (std::size_t j = 0; j < m; ++j) kept[j] = points[survivors[j]];
  return true;
}

/// The median x and median y of `points` (NaN, NaN where there are none): a point amid them even
/// where their hull is stretched far to one side.
Point2<double> coordinate_median(std::span<const Point2<double>> points) {
  if (points.empty()) return {NAN, NAN};
  std::vector<double> xs, ys;
  xs.reserve(points.size()), ys.reserve(points.size());
  for (const auto& p : points) xs.push_back(p.x), ys.push_back(p.y);
  const auto half = static_cast<std::ptrdiff_t>(xs.size() / 2);
  std::nth_element(xs.begin(), xs.begin() + half, xs.end());
  std::nth_element(ys.begin(), ys.begin() + half, ys.end());
  return {xs[xs.size() / 2], ys[ys.size() / 2]};
}

/// A few of `points` (31 at most), spread evenly through them: their coordinate median tells where
/// most of the points are, cheaply.
std::vector<Point2<double>> spread_probes(std::span<const Point2<double>> points) {
  constexpr std::size_t kProbes = 31;
  const std::size_t count = std::min(kProbes, points.size());
  std::vector<Point2<double>> probes(count);
  for (std::size_t i = 0; i < count; ++i) probes[i] = points[i * points.size() / count];
  return probes;
}

/// The inner polygon of `hull` (the hull of a sample of some points) for filtering those points,
/// centred where most of them are. `probes`: a few of the points. The disk and cross are centred at
/// the middle of the polygon's bounding box, unless their quick tests miss the probes' median; then
/// also around that median, and the polygon whose quick tests certify more of the probes is kept.
/// A heavy tail's sample hull is a few far outliers (Kuzmin: 4-6 vertices), the middle of their box
/// far from the dense core, and nearly every point went to the fan test (16k points: 90-218 us where
/// a disk's took 17-24, bench/NOTES.md); on a disk or a ring the median lies inside the middle's
/// disk, and the one polygon built is the middle's, which the median would shift off centre.
InnerPolygon centred_polygon(std::span<const Point2<double>> hull, std::span<const Point2<double>> probes) {
  const auto build = [&](const Point2<double>* centre) {
    return InnerPolygon(std::vector<Point2<double>>(hull.begin(), hull.end()), kMaxPolygonVertices, centre);
  };
  const Point2<double> median = coordinate_median(probes);
  InnerPolygon middle = build(nullptr);
  if (middle.enabled() && middle.view().quick_inside(median.x, median.y)) return middle;
  const auto quick = [&](const InnerPolygon& polygon) {
    if (!polygon.enabled()) return std::size_t{0};
    const InnerPolygonView view = polygon.view();
    std::size_t certified = 0;
    for (const auto& p : probes) certified += view.quick_inside(p.x, p.y);
    return certified;
  };
  InnerPolygon around = build(&median);
  return !middle.enabled() || quick(around) > quick(middle) ? std::move(around) : std::move(middle);
}

/// The exact hull of `points` (finite, any order), serially, by the same method as the whole
/// input: a polygon of input points certifies most of them inside, and only the rest are sorted.
/// Below kDirect points the polygon is the octagon of their extremes; from kDirect up, or from
/// kMinSubSample up where that octagon cannot be built or misses the points' median (a heavy tail's
/// few far outliers), the hull of every kStride-th point. On 16 cores (bench/NOTES.md) the
/// sub-sample's polygon cost more than the octagon for 2-4k points: a part of the sample (2,048
/// points) took 55-58 us with it and 31-34 with the octagon; a thread's ring of about 2k survivors
/// near the hull, of which it certified a third, 198 us against 146-163 through the octagon. Sorting
/// 32k sample points outright cost more than the filter pass.
std::vector<Point2<double>> hull_by_filter(std::span<const Point2<double>> points) {
  constexpr std::size_t kDirect = 4096, kMinSubSample = 2048, kStride = 16, kMinOctagon = 64;
  // The points to sort: those the polygon does not certify, in a buffer left uninitialised, so that
  // only the pages they fill are touched (a copy of all of them, 0.5 MB at 10^6 points, landed in
  // freshly mapped pages on every call: page faults and copying, ms a call).
  std::unique_ptr<Point2<double>[]> kept(new Point2<double>[std::max<std::size_t>(points.size(), 1)]);
  std::size_t m = 0;
  // Where a sub-sample's polygon can be had instead, the octagon must hold the median of a few points:
  // the extremes of a heavy tail can be a few far outliers whose octagon is a sliver beside the dense
  // core (Kuzmin at 10^7 on 16 threads: 12 of a part's 2,048 points certified, 179 us).
  bool by_octagon = false;
  if (points.size() >= kMinOctagon && points.size() < kDirect) {
    const bool has_alternative = points.size() >= kMinSubSample;
    const Point2<double> dense =
        has_alternative ? coordinate_median(spread_probes(points)) : Point2<double>{NAN, NAN};
    by_octagon = keep_outside_octagon(points, kept.get(), m, has_alternative ? &dense : nullptr);
  }
  if (!by_octagon) {
    InnerPolygon inner;
    if (points.size() >= kMinSubSample) {
      std::vector<Point2<double>> sub;
      sub.reserve(points.size() / kStride + 1);
      for (std::size_t i = 0; i < points.size(); i += kStride) sub.push_back(points[i]);
      inner = centred_polygon(hull_by_filter(sub), spread_probes(sub));
    }
    if (inner.enabled()) {
      m = keep_uncertified(inner.view(), points.data(), points.size(), kept.get());
    } else {
      std::copy(points.begin(), points.end(), kept.get());
      m = points.size();
    }
  }
  sort_lexicographic(kept.get(), m);
  return hull_of_sorted<double>(std::span<const Point2<double>>(kept.get(), m));
}

/// Hulls of contiguous slices merged up a binary tree as the slices finish, on the slices' own
/// threads: at each node, the thread of whichever half finishes second merges the two halves' hulls
/// and goes on up, so no thread waits for another, and the thread that finishes last ends with the
/// hull of all. Against the merge after the region that it replaces: on 2 cores 9-32 us instead of
/// 60-126 (10^7 points); on 16 cores about the same, 0.1-0.16 ms at 10^7 points either way, since
/// every merge there reads hulls that other cores wrote (bench/NOTES.md); and one region hand-over
/// fewer.
class HullTree {
 public:
  explicit HullTree(std::size_t slices)
      : slices_(slices), node_(std::max<std::size_t>(slices, 1)), arrivals_(node_.size()) {}

  /// Slice s's hull, from s's thread, once (an input point set's hull in convex_hull()'s
  /// convention, which must outlive the tree; `none`: the slice has none, and neither has the whole).
  void finish(std::size_t s, std::span<const Point2<double>> hull, bool none = false) {
    node_[s].hull = hull;
    node_[s].none = none;
    // The node of halves [a, a + half) and [a + half, a + 2 half), a a multiple of 2 half, keeps its
    // hull in node_[a] and counts arrivals in arrivals_[a + half - 1]: a + half has half as its
    // lowest set bit, so no two nodes share a counter, and a + half < slices.
    for (std::size_t half = 1; half < slices_; half *= 2) {
      const std::size_t a = s / (2 * half) * (2 * half);
      if (a + half >= slices_) continue;  // no right half: the node is its left half
      if (arrivals_[a + half - 1].fetch_add(1, std::memory_order_acq_rel) == 0) return;
      Node &left = node_[a], &right = node_[a + half];
      left.none = left.none || right.none;
      if (!left.none) {
        const std::span<const Point2<double>> halves[] = {left.hull, right.hull};
        left.merged = merge_hulls_in_slabs<double>(halves, 1, true);
        left.hull = left.merged;
      }
      s = a;
    }
  }

  /// After every slice finished: the hull of all slices, or null where one had none.
  const std::span<const Point2<double>>* root() const { return node_[0].none ? nullptr : &node_[0].hull; }

 private:
  struct Node {
    std::span<const Point2<double>> hull;
    std::vector<Point2<double>> merged;  // owns hull above the leaves
    bool none = false;
  };
  std::size_t slices_;
  std::vector<Node> node_;
  std::vector<std::atomic<std::uint8_t>> arrivals_;
};

/// The inner polygon from the exact hull of one finite point in stride, exact in double, taken in
/// runs of kSampleRun (all of them input points, so the polygon lies inside the hull); disabled when
/// that hull is degenerate, when most of about kMedianSample of the sample points are not exact in
/// double (64-bit integers beyond 2^53), or, unless `forced`, when it would discard too few points to
/// pay for its test (a hull-like input such as a circle), judged by how many of those it discards.
/// *beyond_double (where given): whether it was disabled for the points not exact in double.
template <class T>
InnerPolygon sample_polygon(std::span<const Point2<T>> points, std::size_t stride, bool forced,
                            std::size_t threads, bool* beyond_double) {
  // Each thread gathers and hulls its share of the sample; the hull of those hulls is the sample's
  // hull. (On one thread, the gather's cache misses and the hull were ~1 ms before the pass.)
  // The sub-sample that picks the center: every step-th point of the sample's runs laid end to end
  // (counted by input index, so the same points whatever the threads), gathered by each thread as it
  // reads them. Picked out of the threads' parts afterwards, each point was a cache line of another
  // core's, 40-50 us on 16 threads (bench/NOTES.md).
  const std::size_t period = stride * kSampleRun;
  const std::size_t step = (points.size() + period - 1) / period * kSampleRun / kMedianSample + 1;
  std::vector<std::vector<Point2<double>>> part_hulls(threads), subs(threads);
  // Sub-sample points left out as not exact in double (64-bit integers beyond 2^53), which the
  // polygon then never certifies: they count against it below.
  std::vector<std::size_t> subs_inexact(threads, 0);
  HullTree tree(threads);  // the parts' hulls, merged as the threads finish them
  detail::run_slices(points.size(), threads, [&](std::size_t t, std::size_t begin, std::size_t end) {
    // Gathered into vectors of this thread's own: pushed into the threads' vectors side by side in
    // one array, every point wrote an end pointer into a cache line that other threads were writing
    // too (bench/NOTES.md).
    std::vector<Point2<double>> part, sub_part;
    // Reserved whole: grown by doubling, the vector's last copies landed in freshly mapped pages
    // (10^6 f32 points: 2.0 -> 6.8 ms a call, page faults and copies).
    part.reserve((end - begin) / period * kSampleRun + kSampleRun);
    // Each run lies pages away from the last, where neither the TLB nor the hardware prefetcher
    // looks ahead: the first load of each run waited for a page walk and memory, half the gather's
    // time (perf). So every run's first point is loaded once before the gather, loads independent of
    // each other whose walks overlap, and while a run is read the lines of the runs kSampleRunsAhead
    // ahead are prefetched. (Prefetches alone, 2 or 8 runs ahead, did not help measurably.) One
    // thread's gather of 16k points, 2 threads at 10^7 points: 170-270 -> 85-180 us; at 10^6: 45-75
    // -> 23-30 us.
    const std::size_t first_run = (begin + period - 1) / period * period;
    for (std::size_t run = first_run; run < end; run += period)
      static_cast<void>(*static_cast<const volatile T*>(&points[run].x));
    const auto prefetch_run = [&](std::size_t run) {
      if (run >= end) return;
      const auto* first = reinterpret_cast<const char*>(points.data() + run);
      const auto* last = reinterpret_cast<const char*>(points.data() + std::min(end, run + kSampleRun));
      for (const char* line = first; line < last; line += 64) __builtin_prefetch(line);
    };
    for (std::size_t ahead = 0; ahead < kSampleRunsAhead; ++ahead) prefetch_run(first_run + ahead * period);
    for (std::size_t run = first_run; run < end; run += period) {
      prefetch_run(run + kSampleRunsAhead * period);
      // Only points exact in double are sampled (all but 64-bit integers beyond 2^53): the polygon's
      // corners are then input points, and it certifies no point that was rounded (converts_exactly).
      for (std::size_t i = run; i < std::min(end, run + kSampleRun); ++i) {
        const auto& p = points[i];
        if (is_finite(p) && converts_exactly(p))
          part.push_back({static_cast<double>(p.x), static_cast<double>(p.y)});
      }
      // The run's points at sample places (run / period) * kSampleRun + offset divisible by step.
      const std::size_t place = run / period * kSampleRun;
      for (std::size_t offset = (step - place % step) % step; offset < kSampleRun && run + offset < end;
           offset += step) {
        const auto& p = points[run + offset];
        if (is_finite(p) && converts_exactly(p))
          sub_part.push_back({static_cast<double>(p.x), static_cast<double>(p.y)});
        else if (!converts_exactly(p))
          ++subs_inexact[t];
      }
    }
    subs[t] = std::move(sub_part);
    part_hulls[t] = hull_by_filter(part);
    tree.finish(t, part_hulls[t]);
  });
  std::vector<Point2<double>> sub;
  for (const auto& part_sub : subs) sub.insert(sub.end(), part_sub.begin(), part_sub.end());
  // The parts' hulls were merged up the tree in the region: sorting all their vertices afresh after
  // it took 50-70 us serially on 16 threads, merging them there 52-55 us (bench/NOTES.md).
  InnerPolygon polygon = centred_polygon(*tree.root(), sub);
  std::size_t inexact = 0;
  for (const std::size_t count : subs_inexact) inexact += count;
  // Most of the input beyond 2^53: a polygon of its few exact points covers little of it, and the
  // octagon of all of its extremes takes it instead (convex_hull_parallel).
  if (inexact > sub.size()) {
    if (beyond_double != nullptr) *beyond_double = true;
    return {};
  }
  if (forced) return polygon;
  // Judged by the sub-sample: a few hundred points tell 10 % from the 0 % of a circle or the 99 % of a
  // disk (at 10 %, 256 points' share has a standard error under 2 %). (The whole sample, copied into one
  // array and run through the filter kernel, took 0.06-0.07 ms and 0.02-0.03 ms of a 2 ms call at 10^6
  // points, serially.)
  const InnerPolygonView view = polygon.view();
  std::size_t discarded = 0;
  for (const auto& p : sub) discarded += view.certainly_inside(p.x, p.y);
  // The inexact points count too: the polygon never certifies them.
  if (static_cast<double>(discarded) < kMinUsefulDiscard * static_cast<double>(sub.size() + inexact))
    return {};
  return polygon;
}

/// Whether points[0, m) all convert to double exactly (always, unless T is a 64-bit integer): the
/// survivors' hull in double (hull_by_filter) is then theirs; otherwise they are sorted and chained
/// in T.
template <class T>
bool all_convert_exactly(const Point2<T>* points, std::size_t m) {
  if constexpr (exact_in_double_v<T>) {
    return true;
  } else {
    bool exact = true;
    for (std::size_t i = 0; i < m; ++i) exact &= converts_exactly(points[i]);
    return exact;
  }
}

/// Sorted survivors of one slice, in a buffer allocated uninitialised (its pages are touched only
/// as far as survivors are written) and, when large, in huge pages: when the filter keeps every
/// point (a circle), 4 KiB page faults on these buffers and the merge's were a third of a 10^6-point
/// call on 2 cores (bench/NOTES.md).
template <class T>
struct Kept {
  std::unique_ptr<Point2<T>[], detail::FreeDeleter> buffer;
  std::size_t size = 0;
  std::size_t capacity = 0;
  std::int64_t first_non_finite = -1;
  bool sorted = false;
  /// When the slice's survivors are few: their exact hull (in double), computed on the slice's own
  /// thread; buffer still holds the survivors themselves.
  std::vector<Point2<double>> hull;
  bool hulled = false;
  std::span<const Point2<T>> span() const { return {buffer.get(), size}; }

  /// Room for `more` points after the first `size`.
  void make_room(std::size_t more) {
    if (size + more <= capacity) return;
    const std::size_t grown = std::max(2 * capacity, size + more);
    auto bigger = detail::huge_page_array<Point2<T>>(grown);
    std::copy(buffer.get(), buffer.get() + size, bigger.get());
    buffer.swap(bigger);
    capacity = grown;
  }
};

template <class T>
void sort_kept(Kept<T>& k) {
  // A lambda, not the function pointer, so that the comparison is inlined into the sort.
  std::sort(k.buffer.get(), k.buffer.get() + k.size,
            [](const Point2<T>& a, const Point2<T>& b) { return lex_less(a, b); });
  k.sorted = true;
}

// The filter pass writes a slice's survivors into a buffer that starts at kFirstKept points or
// 1/kFirstKeptFraction of the slice, whichever is more, and hands the kernel only as many input
// points as the buffer has room for, so that it doubles only when the survivors fill it (when less
// than kMinFilterRun points' room is left). A buffer of the slice's size (80 MB at 10^7 points on 2
// threads) was mapped fresh by malloc on every call, and each 4 KiB page the survivors touched cost
// a page fault (about 12 us on the project's VMs: 1-2 ms of a 10 ms call); a buffer under malloc's
// mapping threshold is reused from call to call. Making room for a whole 64k-point chunk before
// each chunk instead grew every 1 MiB buffer to a fresh 2 MiB mapping after the first chunk, on
// every call: a huge page zeroed for a few KB of survivors, 0.12-0.24 ms of a 2 ms call at 10^6
// points, and milliseconds where the guest had returned that memory to its host (bench/NOTES.md).
constexpr std::size_t kFirstKept = 1 << 16;
constexpr std::size_t kFirstKeptFraction = 64;
constexpr std::size_t kMinFilterRun = 1 << 12;

/// Merges sorted a and b into out, split into `pieces` independent merges run in parallel: each
/// piece takes a run of a and the elements of b below the next run's first element.
template <class T>
void parallel_merge(std::span<const Point2<T>> a, std::span<const Point2<T>> b, Point2<T>* out,
                    std::size_t pieces) {
  std::vector<std::size_t> a_cut(pieces + 1), b_cut(pieces + 1);
  for (std::size_t i = 0; i <= pieces; ++i) {
    a_cut[i] = a.size() * i / pieces;
    if (i == 0) {
      b_cut[i] = 0;
    } else if (a_cut[i] == a.size()) {
      b_cut[i] = b.size();
    } else {
      const auto cut = std::lower_bound(b.begin(), b.end(), a[a_cut[i]], lex_less<T>);
      b_cut[i] = static_cast<std::size_t>(cut - b.begin());
    }
  }
  detail::run_slices(pieces, pieces, [&](std::size_t t, std::size_t, std::size_t) {
    std::merge(a.begin() + static_cast<std::ptrdiff_t>(a_cut[t]),
               a.begin() + static_cast<std::ptrdiff_t>(a_cut[t + 1]),
               b.begin() + static_cast<std::ptrdiff_t>(b_cut[t]),
               b.begin() + static_cast<std::ptrdiff_t>(b_cut[t + 1]), out + a_cut[t] + b_cut[t], lex_less<T>);
  });
}

/// Lower and upper chain of sorted points: when there are many, each thread chains a slice and the
/// slices' hoods are merged in place by their bridges (when the filter removes nothing, these chains
/// run over every input point).
template <class T>
std::vector<Point2<T>> hull_of_sorted_parallel(std::span<const Point2<T>> sorted, std::size_t threads) {
  if (threads < 2 || sorted.size() < kMinPointsPerThread) return hull_of_sorted<T>(sorted);
  return hull_of_sorted_threads<T>(sorted, threads);
}

/// The hull on one or two threads when the filter keeps every point (a hull-like input such as a
/// circle, or the filter turned off): the line from the smallest to the largest point splits the
/// points once, as the GPU path does; the points on or above it hold every upper-chain vertex, those
/// below it (with the two ends) every lower-chain vertex. Each side is sorted and chained in place on
/// its own thread, so no merge joins the two halves and each chain steps over its own side only.
/// (Sorting every point and running both chains over all of them, through four fresh buffers of n
/// points, took 0.22-0.30 s for a 10^6 circle on 2 cores, a third of it page faults.) On more
/// threads the sorted slices' merges and the chains' bridges use them all: the 2^28 circle on 16
/// cores took 7.75 s that way, 8.8-9.8 s with the sides split among the threads (bench/NOTES.md).
template <class T>
std::vector<Point2<T>> hull_by_sides(std::span<const Point2<T>> points, std::size_t threads,
                                     std::int64_t* survivors) {
  const std::size_t n = points.size();
  const std::size_t slices = detail::slice_count(n, threads, kMinPointsPerThread);
  // Pass 1: each slice's smallest and largest point and first non-finite point.
  struct Ends {
    Point2<T> lo{}, hi{};
    bool any = false;
    std::int64_t first_non_finite = -1;
  };
  std::vector<Ends> ends(slices);
  detail::run_slices(n, slices, [&](std::size_t t, std::size_t begin, std::size_t end) {
    Ends e;
    for (std::size_t i = begin; i < end; ++i) {
      const Point2<T>& p = points[i];
      if (!is_finite(p)) {
        e.first_non_finite = static_cast<std::int64_t>(i);
        break;
      }
      if (!e.any || lex_less(p, e.lo)) e.lo = p;
      if (!e.any || lex_less(e.hi, p)) e.hi = p;
      e.any = true;
    }
    ends[t] = e;
  });
  Ends all;
  for (const Ends& e : ends) {
    if (e.first_non_finite >= 0)
      throw input_error("point " + std::to_string(e.first_non_finite) + " is not finite");
    if (!e.any) continue;
    if (!all.any || lex_less(e.lo, all.lo)) all.lo = e.lo;
    if (!all.any || lex_less(all.hi, e.hi)) all.hi = e.hi;
    all.any = true;
  }
  if (survivors) *survivors = static_cast<std::int64_t>(n);
  if (same_point(all.lo, all.hi)) return {all.lo};
  const Point2<T> lo = all.lo, hi = all.hi;
  const auto upper_side = [&](const Point2<T>& p) { return orient2d(lo, hi, p) >= 0; };
  // Pass 2: how many of each slice's points go up; pass 3: every point to its side, in input order.
  std::vector<std::size_t> up(slices + 1, 0);
  detail::run_slices(n, slices, [&](std::size_t t, std::size_t begin, std::size_t end) {
    std::size_t count = 0;
    for (std::size_t i = begin; i < end; ++i) count += upper_side(points[i]);
    up[t + 1] = count;
  });
  for (std::size_t t = 0; t < slices; ++t) up[t + 1] += up[t];
  const std::size_t u = up[slices], l = n - u + 2;  // the lower side also holds the two ends
  auto sides = detail::huge_page_array<Point2<T>>(u + l);
  Point2<T>* upper = sides.get();
  Point2<T>* lower = upper + u;
  detail::run_slices(n, slices, [&](std::size_t t, std::size_t begin, std::size_t end) {
    Point2<T>* to_upper = upper + up[t];
    Point2<T>* to_lower = lower + (begin - up[t]);
    for (std::size_t i = begin; i < end; ++i) {
      const Point2<T>& p = points[i];
      if (upper_side(p)) {
        *to_upper++ = p;
      } else {
        *to_lower++ = p;
      }
    }
  });
  lower[l - 2] = lo;
  lower[l - 1] = hi;
  // Each side on its own thread, sorted and chained in place.
  std::span<const Point2<T>> chains[2];
  const auto run_side = [&](std::size_t side) {
    Point2<T>* first = side == 0 ? upper : lower;
    const std::size_t count = side == 0 ? u : l;
    std::sort(first, first + count, [](const Point2<T>& a, const Point2<T>& b) { return lex_less(a, b); });
    const auto c = static_cast<index_t>(count);
    const index_t size =
        side == 0 ? core::strip_chain<-1>(first, c, first) : core::strip_chain<+1>(first, c, first);
    chains[side] = {first, static_cast<std::size_t>(size)};
  };
  if (threads > 1) {
    detail::run_slices(2, 2, [&](std::size_t side, std::size_t, std::size_t) { run_side(side); });
  } else {
    run_side(0);
    run_side(1);
  }
  return core::join_chains<T>(chains[1], chains[0]);
}

/// After the filter region: the hull from the slices' survivors (`merged`, their hulls' merge in the
/// region, where every slice hulled its own, else every slice's sorted survivors merged and chained).
/// Throws for a slice's first non-finite point; `survivors` as in convex_hull_parallel.
template <class T>
std::vector<Point2<T>> join_slices(std::vector<Kept<T>>& kept, bool filtered, std::size_t threads,
                                   const std::span<const Point2<double>>* merged, std::int64_t* survivors) {
  std::size_t total = 0;
  bool few = filtered;
  for (const auto& k : kept) {
    if (k.first_non_finite >= 0) {
      throw input_error("point " + std::to_string(k.first_non_finite) + " is not finite");
    }
    total += k.size;
    few = few && k.hulled;
  }
  if (survivors) *survivors = static_cast<std::int64_t>(total);
  if (few && merged != nullptr) {
    // The hull of the slices' hulls: input points, so every vertex is exact in T.
    std::vector<Point2<T>> hull;
    hull.reserve(merged->size());
    for (const Point2<double>& v : *merged) hull.push_back({static_cast<T>(v.x), static_cast<T>(v.y)});
    return hull;
  }
  // Some slices sorted theirs and some hulled them (many survivors in all): a hulled slice keeps
  // only its hull's vertices (the hull of the union is the hull of the slices' hulls) and sorts them.
  detail::run_slices(kept.size(), kept.size(), [&](std::size_t t, std::size_t, std::size_t) {
    Kept<T>& k = kept[t];
    if (k.sorted) return;
    k.size = k.hull.size();
    for (std::size_t i = 0; i < k.size; ++i)
      k.buffer[i] = {static_cast<T>(k.hull[i].x), static_cast<T>(k.hull[i].y)};
    sort_kept(k);
  });

  // Merge the sorted slices pairwise; a round with fewer pairs than threads splits each merge.
  while (kept.size() > 1) {
    std::vector<Kept<T>> next((kept.size() + 1) / 2);
    const std::size_t pairs = kept.size() / 2;
    const std::size_t pieces = std::max<std::size_t>(1, threads / pairs);
    detail::run_slices(next.size(), next.size(), [&](std::size_t t, std::size_t, std::size_t) {
      if (2 * t + 1 < kept.size()) {
        const std::size_t size = kept[2 * t].size + kept[2 * t + 1].size;
        next[t].buffer = detail::huge_page_array<Point2<T>>(size);
        next[t].size = size;
        next[t].sorted = true;
        parallel_merge<T>(kept[2 * t].span(), kept[2 * t + 1].span(), next[t].buffer.get(),
                          size >= kMinPointsPerThread ? pieces : 1);
      } else {
        next[t] = std::move(kept[2 * t]);
      }
    });
    kept.swap(next);
  }
  return hull_of_sorted_parallel<T>(kept[0].span(), threads);
}

/// The filter's inner polygon for `points` on `threads` threads, where `use` asks for one (none, not
/// enabled, below kMinPointsToFilter points unless forced); *beyond_double as sample_polygon's.
template <class T>
InnerPolygon filter_polygon(std::span<const Point2<T>> points, std::size_t threads, FilterUse use,
                            bool* beyond_double = nullptr) {
  const std::size_t n = points.size();
  if (use == FilterUse::never || (use == FilterUse::automatic && n < kMinPointsToFilter)) return {};
  // Forced, a small input is its own sample: the polygon is then its exact hull, whose boundary
  // points the tests must never certify inside.
  const bool forced = use == FilterUse::always;
  const std::size_t sample_size =
      std::max(kSampleSize, std::min(threads * kSamplePerThread, n / kMaxSampleShare));
  return sample_polygon(points, std::max(forced ? 1 : kMinSampleStride, n / sample_size), forced, threads,
                        beyond_double);
}

/// For 64-bit points beyond 2^53, which the inner polygon cannot take (its corners must be exact in
/// double): the points that the octagon of all of their extremes does not certify inside
/// (OctagonFilter, on exact differences to a corner: 64 bits, or 128 across a box over 2^62), in
/// input order, found on `threads` threads; nothing where the octagon cannot be built (fewer than
/// three distinct corners). A disk keeps about a tenth of its points, a square almost none.
std::optional<std::vector<Point2<std::int64_t>>> outside_octagon(std::span<const Point2<std::int64_t>> points,
                                                                 std::size_t threads) {
  using P = Point2<std::int64_t>;
  // find_extremes and octagon_survivors take a group's indices in 32 bits: the slices go in blocks.
  constexpr std::size_t kBlock = std::size_t{1} << 16;
  const std::size_t n = points.size();
  // Each slice's eight corners: the extremes of x, x + y, y, y - x as find_extremes keys them, least
  // then greatest, and their keys.
  struct Corners {
    P corner[8];
    double key[8];
    bool any = false;
  };
  const auto keys_of = [](const P& p, double(&key)[4]) {
    const auto x = static_cast<double>(p.x), y = static_cast<double>(p.y);
    key[0] = x, key[1] = x + y, key[2] = y, key[3] = y - x;
  };
  const auto add = [&](Corners& c, const P& p) {
    double key[4];
    keys_of(p, key);
    for (int k = 0; k < 4; ++k) {
      if (!c.any || key[k] < c.key[k]) c.key[k] = key[k], c.corner[k] = p;
      if (!c.any || key[k] > c.key[k + 4]) c.key[k + 4] = key[k], c.corner[k + 4] = p;
    }
    c.any = true;
  };
  std::vector<Corners> slices(threads);
  detail::run_slices(n, threads, [&](std::size_t t, std::size_t begin, std::size_t end) {
    Corners c;
    for (std::size_t at = begin; at < end; at += kBlock) {
      const auto len = static_cast<std::uint32_t>(std::min(kBlock, end - at));
      const GroupExtremes e = find_extremes(points.data() + at, len);
      for (int k = 0; k < 8; ++k) add(c, points[at + e.corner[k]]);
    }
    slices[t] = c;
  });
  Corners all;
  for (const Corners& c : slices) {
    for (int k = 0; c.any && k < 8; ++k) add(all, c.corner[k]);
  }
  // The extremes of the keys are among the corners: the octagon's group is the eight of them, and its
  // box that of their rounded coordinates (the extremes of x and y are corners 0, 4, 2 and 6).
  GroupExtremes extremes;
  for (int k = 0; k < 8; ++k) extremes.corner[k] = static_cast<std::uint32_t>(k);
  extremes.x_min = all.key[0], extremes.x_max = all.key[4], extremes.y_min = all.key[2],
  extremes.y_max = all.key[6];
  OctagonFilter octagon;
  if (!all.any || !octagon.build(all.corner, extremes)) return std::nullopt;
  std::vector<std::vector<P>> kept(threads);
  detail::run_slices(n, threads, [&](std::size_t t, std::size_t begin, std::size_t end) {
    std::vector<std::uint32_t> survivors(kBlock);
    for (std::size_t at = begin; at < end; at += kBlock) {
      const auto len = static_cast<std::uint32_t>(std::min(kBlock, end - at));
      const std::uint32_t m = octagon_survivors(octagon, points.data() + at, len, survivors.data());
      for (std::uint32_t j = 0; j < m; ++j) kept[t].push_back(points[at + survivors[j]]);
    }
  });
  std::vector<P> out;
  std::size_t total = 0;
  for (const auto& k : kept) total += k.size();
  out.reserve(total);
  for (const auto& k : kept) out.insert(out.end(), k.begin(), k.end());
  return out;
}

}  // namespace

template <class T>
std::vector<Point2<T>> convex_hull_parallel(std::span<const Point2<T>> points, std::int64_t* survivors) {
  return convex_hull_parallel(points, survivors, FilterPolicy{});
}

template <class T>
std::vector<Point2<T>> convex_hull_parallel(std::span<const Point2<T>> points, std::int64_t* survivors,
                                            const FilterPolicy& policy) {
  const std::size_t n = points.size();
  if (n == 0) return {};
  const std::size_t threads = thread_count(n, policy.threads);
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::time_point from) {
    return std::chrono::duration<double>(Clock::now() - from).count();
  };
  const Clock::time_point start = Clock::now();

  bool beyond_double = false;
  const InnerPolygon inner = filter_polygon(points, threads, policy.use, &beyond_double);

  if constexpr (std::is_same_v<T, std::int64_t>) {
    // Beyond 2^53 the sample has few or no points for the inner polygon, and every point would be
    // sorted in 64 bits: the octagon of the extremes drops most first, and its survivors are hulled
    // without a filter (10^7 disk points times 2^58 on 2 cores: 0.56 s -> 50 ms; bench/NOTES.md, "The
    // CPU's single hull of 64-bit integers beyond 2^53").
    if (beyond_double) {
      if (auto kept = outside_octagon(points, threads)) {
        FilterPolicy unfiltered = policy;
        unfiltered.use = FilterUse::never;
        return convex_hull_parallel<T>(std::span<const Point2<T>>(*kept), survivors, unfiltered);
      }
    }
  }
  if (!inner.enabled() && threads <= 2) return hull_by_sides(points, threads, survivors);
  FilterPhases phases;
  phases.sample = seconds(start);
  const Clock::time_point pass_start = Clock::now();
  std::vector<double> pass_seconds(threads, 0.0), survivors_seconds(threads, 0.0);

  // Survivors hulled by a second filter, each thread its own: a sub-sample's hull certifies most of
  // a ring of survivors inside, so only a few are sorted, and the slices' hulls are merged as sorted
  // runs. More survivors than the bound are sorted on every thread, merged pairwise and chained on
  // all cores. At 10^8 random points on 2 cores (about 300k survivors on a disk, 360k in-circle)
  // the hulls took 60-70 ms for the whole call, the sorts and merges 90-140 ms (bench/NOTES.md),
  // hence 2^20 on one or two threads. On more threads the bound is 2^17 a thread: at 2^18 in all, 16
  // threads at 10^8 points (19-23k survivors a thread) took the sorted path, whose join was 10-12
  // ms of a 34-43 ms call. Survivors that no sub-sample certifies (a dense circle among random
  // points) are sorted within each thread's hull, and merge_hulls then merges their hulls.
  const std::size_t serial_survivors = policy.serial_survivors != FilterPolicy::automatic
                                           ? policy.serial_survivors
                                       : threads <= 2 ? std::size_t{1} << 20
                                                      : (std::size_t{1} << 17) * threads;

  // One pass: each slice's points that the polygon does not certify inside go to the slice's buffer.
  // A point with a NaN or infinite coordinate is never certified inside, so checking the survivors
  // finds every one.
  std::vector<Kept<T>> kept(threads);
  const auto filter_slice = [&](std::size_t t, std::size_t begin, std::size_t end) {
    Kept<T>& k = kept[t];
    const Clock::time_point slice_start = Clock::now();
    if (inner.enabled()) {
      const InnerPolygonView view = inner.view();
      k.make_room(std::max(kFirstKept, (end - begin) / kFirstKeptFraction));
      for (std::size_t run = begin; run < end;) {
        if (k.capacity - k.size < std::min(kMinFilterRun, end - run)) k.make_room(kMinFilterRun);
        const std::size_t len = std::min(k.capacity - k.size, end - run);
        k.size += keep_uncertified(view, points.data() + run, len, k.buffer.get() + k.size, policy.kernel,
                                   end - begin);
        run += len;
      }
    } else {
      k.make_room(end - begin);
      std::copy(points.begin() + static_cast<std::ptrdiff_t>(begin),
                points.begin() + static_cast<std::ptrdiff_t>(end), k.buffer.get());
      k.size = end - begin;
    }
    pass_seconds[t] = seconds(slice_start);
    const Clock::time_point survivors_start = Clock::now();
    Point2<T>* out = k.buffer.get();
    const std::size_t m = k.size;
    bool finite = true;
    for (std::size_t i = 0; i < m; ++i) finite &= is_finite(out[i]);
    if (!finite) {
      // Rare: name the slice's first non-finite point, as a full scan would.
      for (std::size_t i = begin; i < end; ++i) {
        if (!is_finite(points[i])) {
          k.first_non_finite = static_cast<std::int64_t>(i);
          return;
        }
      }
    }
    if (inner.enabled() && m <= serial_survivors / threads && all_convert_exactly(out, m)) {
      // Few survivors (serial_survivors in all) lie near the hull (a thin ring on a disk): a
      // sub-sample's hull certifies most of them inside, and only the rest are sorted, where sorting
      // and chaining all of them cost more than the filter pass (10^7 disk points: 30k survivors,
      // about 3 ms of one thread). Each thread hulls its own, so the serial step is only the hull of
      // these hulls' vertices (10^6 disk points: 0.2 ms serially for 3,400 survivors before).
      if constexpr (std::is_same_v<T, double>) {
        k.hull = hull_by_filter(std::span<const Point2<double>>(out, m));  // no copy to widen into
      } else {
        std::vector<Point2<double>> as_double(m);
        for (std::size_t i = 0; i < m; ++i)
          as_double[i] = {static_cast<double>(out[i].x), static_cast<double>(out[i].y)};
        k.hull = hull_by_filter(as_double);
      }
      k.hulled = true;
      survivors_seconds[t] = seconds(survivors_start);
      return;
    }
    sort_kept(k);
    survivors_seconds[t] = seconds(survivors_start);
  };
  // Each slice that hulled its survivors merges its hull up the tree as soon as it has it.
  HullTree tree(threads);
  detail::run_slices(n, threads, [&](std::size_t t, std::size_t begin, std::size_t end) {
    filter_slice(t, begin, end);
    tree.finish(t, kept[t].hull, !kept[t].hulled);
  });
  phases.pass = seconds(pass_start);
  phases.slowest_pass = *std::max_element(pass_seconds.begin(), pass_seconds.end());
  phases.slowest_survivors = *std::max_element(survivors_seconds.begin(), survivors_seconds.end());
  const Clock::time_point join_start = Clock::now();
  std::vector<Point2<T>> hull = join_slices(kept, inner.enabled(), threads, tree.root(), survivors);
  if (policy.phases != nullptr) {
    phases.join = seconds(join_start);
    *policy.phases = phases;
  }
  return hull;
}

template <class T>
std::vector<Point2<T>> upper_chain_filtered(std::span<const Point2<T>> sorted, std::int64_t* survivors,
                                            PresortedCheck* check) {
  return upper_chain_filtered(sorted, survivors, FilterPolicy{}, check);
}

// A thread checking the presorted promise as it filters takes its slice in steps of this many points:
// each step's check reads it from memory, and the filter then reads it from the L2 cache.
constexpr std::size_t kCheckedStep = std::size_t{1} << 13;

template <class T>
std::vector<Point2<T>> upper_chain_filtered(std::span<const Point2<T>> sorted, std::int64_t* survivors,
                                            const FilterPolicy& policy, PresortedCheck* check) {
  const std::size_t n = sorted.size();
  if (survivors) *survivors = static_cast<std::int64_t>(n);
  if (check) *check = {};
  if (n == 0) return {};
  const std::size_t threads = thread_count(n, policy.threads);
  // The full hull's polygon: the points it certifies inside are none of the hull's vertices, so none
  // of the upper chain's. A thread's slice is a stretch of x, but the polygon is the whole input's:
  // one a slice would cost a sample each for little. (On unchecked points: it samples only finite
  // ones, and certifies no non-finite one; an unsorted input's polygon is still its points' hull's.)
  const InnerPolygon inner = filter_polygon(sorted, threads, policy.use);
  // Unfiltered (few points, or a hull-like input whose sample the polygon would not thin): on one or
  // two threads the serial chain, which writes each kept point once; the strips' chains write every
  // point into a fresh buffer and the hood into another, and on 2 cores the page faults of those
  // made a sorted 10^7-point parabola 0.60 s against the serial chain's 0.10 (bench/NOTES.md). On
  // more threads each chains its strip, as the full hull's unfiltered path does. The promise is
  // checked first here: the chains' time is the points', not the read's.
  if (!inner.enabled()) {
    if (check) {
      *check = check_presorted(sorted);
      if (check->non_finite >= 0 || check->unsorted >= 0) return {};
    }
    if (threads <= 2) return upper_chain<T>(sorted);
    return upper_chain_parallel<T>(sorted, threads);
  }
  const InnerPolygonView view = inner.view();
  std::atomic<std::size_t> kept{0};
  // What the slices that gave up found, by where they begin.
  std::mutex problems_lock;
  std::vector<std::pair<std::size_t, PresortedCheck>> problems;
  const SliceKeep<T> keep = [&](std::size_t begin, std::size_t end,
                                Point2<T>* out) -> std::optional<std::size_t> {
    std::size_t m = 0;
    if (check == nullptr) {
      m = keep_uncertified(view, sorted.data() + begin, end - begin, out, policy.kernel, end - begin);
    } else {
      // Each step checked, then filtered from the cache: one read of memory for both. A step that
      // breaks the promise ends the filter; the rest of the slice is only scanned for a non-finite
      // point, which is named before any point out of order.
      PresortedCheck found;
      for (std::size_t step = begin; step < end; step += kCheckedStep) {
        const std::size_t stop = std::min(end, step + kCheckedStep);
        if (!check_presorted_range(sorted, step, stop, found)) {
          if (found.non_finite < 0) check_presorted_range(sorted, stop, end, found);
          const std::lock_guard<std::mutex> lock(problems_lock);
          problems.emplace_back(begin, found);
          return std::nullopt;
        }
        m += keep_uncertified(view, sorted.data() + step, stop - step, out + m, policy.kernel, stop - step);
      }
    }
    kept.fetch_add(m, std::memory_order_relaxed);
    return m;
  };
  auto chain = upper_chain_parallel<T>(sorted, threads, keep);
  if (!problems.empty()) {
    std::sort(problems.begin(), problems.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<PresortedCheck> in_order;
    for (const auto& [begin, found] : problems) in_order.push_back(found);
    *check = first_presorted_problem(in_order);
    return {};
  }
  if (survivors) *survivors = static_cast<std::int64_t>(kept.load());
  return chain;
}

#define WAGENER_INSTANTIATE(T)                                                                     \
  template std::vector<Point2<T>> convex_hull_parallel(std::span<const Point2<T>>, std::int64_t*); \
  template std::vector<Point2<T>> convex_hull_parallel(std::span<const Point2<T>>, std::int64_t*,  \
                                                       const FilterPolicy&);                       \
  template std::vector<Point2<T>> upper_chain_filtered(std::span<const Point2<T>>, std::int64_t*,  \
                                                       PresortedCheck*);                           \
  template std::vector<Point2<T>> upper_chain_filtered(std::span<const Point2<T>>, std::int64_t*,  \
                                                       const FilterPolicy&, PresortedCheck*);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cpu
