// Grouped hulls on the CPU: chunks of consecutive groups taken by the cores in turn, their hulls
// appended in chunk order; in each group the octagon filter, the survivors split by the line through
// their extremes, each half sorted (by counted ranks, cpu/lex_ranks.hpp) and chained, all in scratch
// buffers reused from group to group.
#include "cpu/grouped_hulls.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/huge_pages.hpp"
#include "core/parallel_slices.hpp"
#include "core/small_hull.hpp"
#include "cpu/lex_ranks.hpp"
#include "cpu/octagon_filter.hpp"
#include "wagener/error.hpp"

namespace wagener::cpu {
namespace {

// Below this many points per thread, starting a thread costs more than it saves.
constexpr std::size_t kMinPointsPerThread = std::size_t{1} << 14;
// The points of a chunk of groups: a chunk's hulls (about a fifth of its points) stay in L2 until
// they are appended, and the chunks are many enough to balance the cores.
constexpr std::size_t kChunkPoints = std::size_t{1} << 15;
// Below this many points the filter's extra pass costs more than the sort it saves.
constexpr std::size_t kMinPointsToFilter = 16;
// The most points of the next group fetched ahead: a few KiB, well inside L1.
constexpr std::int64_t kPrefetchPoints = 256;

/// A point with its index within its group: sorting by (x, y, index) puts the first of equal points
/// first, which the chain keeps, so the kept copy carries the smallest index.
template <class T>
struct Keyed {
  Point2<T> p;
  std::uint32_t index;
};

template <class T>
const Point2<T>& point_of(const Point2<T>& p) {
  return p;
}
template <class T>
const Point2<T>& point_of(const Keyed<T>& e) {
  return e.p;
}
template <class T>
Point2<T> make_element(const Point2<T>& p, std::uint32_t, std::type_identity<Point2<T>>) {
  return p;
}
template <class T>
Keyed<T> make_element(const Point2<T>& p, std::uint32_t index, std::type_identity<Keyed<T>>) {
  return {p, index};
}

// lex_less() and its keyed form without short-circuits: the search for the smallest and largest
// survivors compiled them to branches on unpredictable comparisons (about five mispredictions a group
// in valgrind's branch simulation).
template <class T>
bool element_less(const Point2<T>& a, const Point2<T>& b) {
  return (a.x < b.x) | ((a.x == b.x) & (a.y < b.y));
}
template <class T>
bool element_less(const Keyed<T>& a, const Keyed<T>& b) {
  return (a.p.x < b.p.x) | ((a.p.x == b.p.x) & ((a.p.y < b.p.y) | ((a.p.y == b.p.y) & (a.index < b.index))));
}

// Up to this many survivors an insertion sort beats std::sort's set-up (a 100-point disk leaves
// about 30).
constexpr std::uint32_t kMaxInsertionSort = 48;

template <class Element>
void sort_elements(Element* first, std::uint32_t m) {
  const auto less = [](const Element& a, const Element& b) { return element_less(a, b); };
  if (m > kMaxInsertionSort) return std::sort(first, first + m, less);
  for (std::uint32_t i = 1; i < m; ++i) {
    const Element e = first[i];
    std::uint32_t j = i;
    for (; j > 0 && less(e, first[j - 1]); --j) first[j] = first[j - 1];
    first[j] = e;
  }
}

/// orient2d(p, q, r), with orient2d_certified()'s filter (the same bound, the same operations) taken
/// without a branch on the sign: which side of the line a survivor lies on is unpredictable, whether
/// the filter is certain is not. `on_line` says r is known to lie on the line (it is p or q): 0
/// without orient2d's exact fallback, which the filter would otherwise take, and without a branch.
[[gnu::always_inline]] inline int side_of_line(double px, double py, double qx, double qy, double rx,
                                               double ry, bool on_line = false) {
  constexpr double kErrBound = (3.0 + 16.0 * 0x1p-53) * 0x1p-53, kMinSafe = 0x1p-900;
  const double left = (px - rx) * (qy - ry), right = (py - ry) * (qx - rx);
  const double det = left - right, sum = std::fabs(left) + std::fabs(right), bound = kErrBound * sum;
  const int side = (det > bound) - (-det > bound);
  // One comparison of integers, so that the compiler makes one branch (taken only where orient2d must
  // decide), not a first one on side == 0, mispredicted at p and q.
  if (static_cast<int>((side == 0) | !(sum >= kMinSafe)) > static_cast<int>(on_line)) [[unlikely]]
    return orient2d(px, py, qx, qy, rx, ry);
  return side & -static_cast<int>(!on_line);  // 0 on the line; a mask, as `on_line ? 0 : side` branched
}

/// Scratch for hull_by_halves(), each array of at least m elements (doubles and ranks: m).
template <class Element>
struct Halves {
  Element* unsorted[2] = {};  ///< the survivors below and above, in the order of `elements`
  double* x[2] = {};          ///< their coordinates, for lex_ranks()
  double* y[2] = {};
  Element* sorted[2] = {};  ///< the same, sorted by (x, y, index)
  std::uint32_t* rank = {};
  /// Sort by lex_ranks() with this vector kernel; scalar: by insertion (or std::sort) instead.
  FilterKernel rank_kernel = FilterKernel::scalar;
};

/// unsorted[0, n) sorted into sorted[0, n). lex_ranks()' stable order is element_less()'s because
/// the elements keep their group order (indices ascending), so equal points are ordered by index.
template <class Element>
void sort_half(const Halves<Element>& h, int side, std::uint32_t n) {
  const Element* unsorted = h.unsorted[side];
  Element* sorted = h.sorted[side];
  if (h.rank_kernel != FilterKernel::scalar && n <= kMaxLexRanks) {
    lex_ranks(h.x[side], h.y[side], n, h.rank, h.rank_kernel);
    for (std::uint32_t i = 0; i < n; ++i) sorted[h.rank[i]] = unsorted[i];
    return;
  }
  std::copy(unsorted, unsorted + n, sorted);
  sort_elements(sorted, n);
}

/// The positions of the smallest and the largest of elements[0, m) (m >= 1) in (x, y) order. Which
/// copy of a repeated point either names does not matter: the partition tests the others exactly.
struct LexExtremes {
  std::uint32_t lo = 0, hi = 0;
};

/// LexExtremes by element_less(), for any elements.
template <class Element>
LexExtremes lex_extremes(const Element* elements, std::uint32_t m) {
  LexExtremes e;
  for (std::uint32_t i = 1; i < m; ++i) {
    // Selects by masks: GCC turned `less ? i : lo` into an unpredictable branch.
    e.lo ^= (e.lo ^ i) & -static_cast<std::uint32_t>(element_less(elements[i], elements[e.lo]));
    e.hi ^= (e.hi ^ i) & -static_cast<std::uint32_t>(element_less(elements[e.hi], elements[i]));
  }
  return e;
}

/// LexExtremes when x_min and x_max are the elements' least and greatest x (exact): only points with
/// those x compete, by y. Such points are rare (about two of a group's ~30 survivors), so a branch
/// skips the rest: lex_extremes()' selects form a chain of dependent loads and comparisons through
/// the whole loop (a tenth of the grouped hulls' time). Equal points keep the first, as
/// element_less() orders them (the elements are in group order).
template <class Element, class PointOf>
LexExtremes lex_extremes(const Element* elements, std::uint32_t m, double x_min, double x_max,
                         PointOf point) {
  LexExtremes e;
  double lo_y = INFINITY, hi_y = -INFINITY;
  for (std::uint32_t i = 0; i < m; ++i) {
    const auto x = static_cast<double>(point(elements[i]).x);
    if (static_cast<int>(x == x_min) | static_cast<int>(x == x_max)) [[unlikely]] {
      const auto y = static_cast<double>(point(elements[i]).y);
      if (x == x_min && y < lo_y) lo_y = y, e.lo = i;
      if (x == x_max && y > hi_y) hi_y = y, e.hi = i;
    }
  }
  return e;
}

/// orient2d(p, q, r) for the points r of a group, p and q among them: where the group's bounding box
/// allows, with one error margin for the whole group, as OctagonFilter's edges take it (a product,
/// a difference and two comparisons a point, against side_of_line()'s per-point bound).
///
/// Why the margin holds. With Ex = qx - px, Ey = qy - py, U = rx - px, V = ry - py (exact) and W, H
/// the box's exact width and height, |U| <= W and |V| <= H. The computed f = fl(fl(ex v) - fl(ey u))
/// (ex, ey, u, v the rounded differences) is within 4.001 eps (|Ex| H + |Ey| W) =: 4.001 eps S* of the
/// exact orientation D = Ex V - Ey U (three roundings in each product, one in the difference), plus at
/// most 2^-1074 per underflowed product. The computed S = fl(fl(|ex| fl(H)) + fl(|ey| fl(W))) is at
/// least S* / (1 + 6 eps), so where f > 2^-48 S (32 eps S), D > 32 eps S - 4.01 eps S - 2^-1073 > 0
/// when S >= 2^-900, and the same holds below -2^-48 S. With S <= 2^1000 nothing overflows. Outside
/// that range, and between the margins, orient2d decides (exactly).
struct BaselineSide {
  Point2<double> p, q;
  double ex = 0, ey = 0, margin = -1;  // margin < 0: side_of_line() for every point

  BaselineSide(Point2<double> from, Point2<double> to, const GroupExtremes* box)
      : p(from), q(to), ex(to.x - from.x), ey(to.y - from.y) {
    if (box == nullptr) return;
    const double scale =
        std::fabs(ex) * (box->y_max - box->y_min) + std::fabs(ey) * (box->x_max - box->x_min);
    if (scale >= 0x1p-900 && scale <= 0x1p1000) margin = scale * 0x1p-48;
  }

  /// The sign of orient2d(p, q, r); 0 without a test where `on_line` says r is p or q.
  int operator()(double rx, double ry, bool on_line) const {
    // P and Q lie on their own line: no filter can certify a zero, and orient2d's exact fallback
    // would be the dearest step of the partition.
    if (margin < 0) return side_of_line(p.x, p.y, q.x, q.y, rx, ry, on_line);
    const double f = ex * (ry - p.y) - ey * (rx - p.x);
    const int side = (f > margin) - (f < -margin);
    // One branch, taken only where orient2d must decide (as in side_of_line()).
    if (static_cast<int>(side == 0) > static_cast<int>(on_line)) [[unlikely]]
      return orient2d(p.x, p.y, q.x, q.y, rx, ry);
    return side & -static_cast<int>(!on_line);
  }
};

/// The sign of orient2d(a, b, c) for three points of a group, with one error bound for the whole group
/// where its bounding box allows: the chains' turns, without side_of_line()'s bound per turn (two
/// absolute values, a sum and a product on the way to each branch).
///
/// Why the bound holds. side_of_line() certifies a determinant beyond kErrBound (|l| + |r|), l and r
/// the two computed products of differences (Shewchuk's ccwerrboundA, no underflow). A difference of
/// two x in the box is at most the exact width, so its rounding is at most fl(W) (rounding is
/// monotone), and likewise for y: |l|, |r| <= A = fl(fl(W) fl(H)), so 2 kErrBound A bounds that filter's
/// bound, and the margin below exceeds it by the factor 1 + 2^-10 less three roundings. Where
/// A >= 2^-900 that excess (beyond 2^-960) also covers the at most 2^-1073 that underflowed products
/// can add; where A <= 2^1000 nothing overflows. Otherwise, and between the margins, orient2d decides.
struct ChainTurn {
  double margin = -1;  // < 0: side_of_line() for every turn

  explicit ChainTurn(const GroupExtremes* box) {
    if (box == nullptr) return;
    constexpr double kErrBound = (3.0 + 16.0 * 0x1p-53) * 0x1p-53;
    const double area = (box->x_max - box->x_min) * (box->y_max - box->y_min);
    if (area >= 0x1p-900 && area <= 0x1p1000) margin = 2 * kErrBound * area * (1 + 0x1p-10);
  }

  template <class P>
  int operator()(const P& a, const P& b, const P& c) const {
    const auto px = static_cast<double>(a.x), py = static_cast<double>(a.y), qx = static_cast<double>(b.x),
               qy = static_cast<double>(b.y), rx = static_cast<double>(c.x), ry = static_cast<double>(c.y);
    if (margin < 0) return side_of_line(px, py, qx, qy, rx, ry);
    const double det = (px - rx) * (qy - ry) - (py - ry) * (qx - rx);
    const int side = (det > margin) - (det < -margin);
    if (side == 0) [[unlikely]]
      return orient2d(px, py, qx, qy, rx, ry);
    return side;
  }
};

/// The hull of elements[0, m), in group order (indices ascending), as core::chain_sorted() gives it
/// for them sorted, but with each chain sorting and walking only its own half: every lower-hull vertex
/// lies on or below the line from the smallest point P to the largest Q, every upper-hull vertex on or
/// above it, so the lower chain of the points on or below (all copies of P and Q among them) is the
/// lower chain of all, and the same holds above. That halves the sorting and the chains' steps for the
/// ~20 survivors of a 100-point disk. out holds m + 1 elements; elements is left as it was. `box`, if
/// given, is the elements' exact bounding box, with points of its least and greatest x among them.
template <class Element, class PointOf>
int hull_by_halves(const Element* elements, std::uint32_t m, const Halves<Element>& h, Element* out,
                   HullPart part, PointOf point, const GroupExtremes* box = nullptr) {
  if (m == 0) return 0;
  const ChainTurn turn(box);
  const auto [lo, hi] =
      box ? lex_extremes(elements, m, box->x_min, box->x_max, point) : lex_extremes(elements, m);
  const Point2<double> p{static_cast<double>(point(elements[lo]).x),
                         static_cast<double>(point(elements[lo]).y)},
      q{static_cast<double>(point(elements[hi]).x), static_cast<double>(point(elements[hi]).y)};
  const BaselineSide baseline(p, q, box);
  std::uint32_t n_below = 0, n_above = 0;
  for (std::uint32_t i = 0; i < m; ++i) {
    const auto& r = point(elements[i]);
    const auto rx = static_cast<double>(r.x), ry = static_cast<double>(r.y);
    const int side = baseline(rx, ry, (i == lo) | (i == hi));
    h.unsorted[0][n_below] = elements[i];
    h.x[0][n_below] = rx;
    h.y[0][n_below] = ry;
    h.unsorted[1][n_above] = elements[i];
    h.x[1][n_above] = rx;
    h.y[1][n_above] = ry;
    n_below += side <= 0;
    n_above += side >= 0;
  }
  const Element* above = h.sorted[1];
  sort_half(h, 1, n_above);
  if (part == HullPart::upper) return core::chain_sorted(above, static_cast<int>(n_above), out, part, point);
  const Element* below = h.sorted[0];
  sort_half(h, 0, n_below);
  // chain_sorted()'s two passes, the lower over `below`, the upper back over `above`. As in
  // core::chain_pass(), the chain's top two points stay in registers (`under`, then `top`): reading
  // them back from `out` made each turn wait on the store just made.
  using P = Point2<double>;
  const auto at = [&](int i) {
    return P{static_cast<double>(point(out[i]).x), static_cast<double>(point(out[i]).y)};
  };
  P under{}, top{};
  int k = 0;
  for (std::uint32_t i = 0; i < n_below; ++i) {
    const P r{static_cast<double>(point(below[i]).x), static_cast<double>(point(below[i]).y)};
    if (k > 0 && same_point(top, r)) continue;
    while (k >= 2 && turn(under, top, r) <= 0) {
      --k;
      top = under;
      if (k >= 2) under = at(k - 2);
    }
    out[k++] = below[i];
    under = top;
    top = r;
  }
  if (k == 1) return k;  // a single distinct point
  const int lower = k;
  for (std::uint32_t i = n_above; i-- > 0;) {
    const P r{static_cast<double>(point(above[i]).x), static_cast<double>(point(above[i]).y)};
    // Backwards, the first of equal points comes last: it replaces the copy on top.
    if (same_point(top, r)) {
      out[k - 1] = above[i];
      continue;
    }
    while (k > lower && turn(under, top, r) <= 0) {
      --k;
      top = under;
      under = at(k - 2);  // k >= lower >= 2
    }
    out[k++] = above[i];
    under = top;
    top = r;
  }
  return k - 1;  // the last is the smallest point again
}

/// The hull of elements[0, m) (in group order) in T's own arithmetic: sorted by element_less() and
/// chained by core::chain_sorted() with orient2d() for T, into out (m + 1 elements); the elements are
/// left sorted. For groups of 64-bit integer points that double does not hold exactly, which the
/// double arithmetic of hull_by_halves() would round.
template <class Element, class PointOf>
int hull_in_own_type(Element* elements, std::uint32_t m, Element* out, HullPart part, PointOf point) {
  sort_elements(elements, m);
  return core::chain_sorted(elements, static_cast<int>(m), out, part, point);
}

[[noreturn, gnu::cold]] void not_finite(std::int64_t index) {
  throw input_error("point " + std::to_string(index) + " is not finite");
}

/// A chunk's hulls: its groups' vertices (and global indices) in group order, the first `count` of
/// each array, and the large groups it left. Reused from chunk to chunk: the arrays keep their size,
/// so that a group's chain is written straight into them.
template <class T>
struct ChunkHulls {
  std::size_t first_group = 0, last_group = 0;
  std::size_t count = 0;
  std::vector<Point2<T>> vertices;
  std::vector<std::int64_t> indices;
  std::vector<std::int64_t> large_groups;

  /// Room for `more` vertices after the first `count`.
  void make_room(std::size_t more, bool with_indices) {
    const std::size_t need = count + more;
    if (vertices.size() < need) vertices.resize(std::max(need, 2 * vertices.size()));
    if (with_indices && indices.size() < need) indices.resize(vertices.size());
  }
};

/// One thread's scratch for hull_groups(), reused from group to group and chunk to chunk.
template <class Element>
struct GroupScratch {
  std::vector<Element> kept, chain;
  // The survivors on either side of the line through the extremes: in group order, their
  // coordinates, sorted.
  std::vector<Element> unsorted_below, unsorted_above, below, above;
  std::vector<double> below_x, below_y, above_x, above_y;
  std::vector<std::uint32_t> rank;
  std::vector<std::uint32_t> survivors;  // indices into the group

  void fit(std::uint32_t n) {
    if (kept.size() >= n) return;
    kept.resize(n);
    chain.resize(n + 1);
    survivors.resize(n);
    for (auto* v : {&unsorted_below, &unsorted_above, &below, &above}) v->resize(n);
    for (auto* v : {&below_x, &below_y, &above_x, &above_y}) v->resize(n);
    rank.resize(n);
  }
};

/// Groups [out.first_group, out.last_group): each group's vertex count in counts[g], its vertices
/// appended to `out`.
template <class T, class Element>
void hull_groups(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets, HullPart part,
                 FilterKernel rank_kernel, std::int64_t* counts, GroupScratch<Element>& scratch,
                 ChunkHulls<T>& out) {
  constexpr bool kIndices = std::is_same_v<Element, Keyed<T>>;
  const auto point = [](const Element& e) -> const Point2<T>& { return point_of(e); };
  const std::size_t last = out.last_group;
  for (std::size_t g = out.first_group; g < last; ++g) {
    const std::int64_t begin = offsets[g];
    const std::int64_t size = offsets[g + 1] - begin;
    counts[g] = 0;
    if (size == 0) continue;
    if (size > kLargeGroupPoints) {
      out.large_groups.push_back(static_cast<std::int64_t>(g));
      continue;
    }
    const Point2<T>* group = points.data() + begin;
    const auto n = static_cast<std::uint32_t>(size);
    {
      // Ask for the next group's points now, so that they arrive while this one is sorted and chained
      // (the hardware prefetcher pauses while the stream is not read).
      const auto next = reinterpret_cast<const char*>(points.data() + offsets[g + 1]);
      const auto bytes = static_cast<std::size_t>(
          std::min<std::int64_t>(offsets[std::min(g + 2, offsets.size() - 1)] - offsets[g + 1],
                                 kPrefetchPoints) *
          static_cast<std::int64_t>(sizeof(Point2<T>)));
      for (std::size_t b = 0; b < bytes; b += 64) __builtin_prefetch(next + b);
    }
    scratch.fit(n);
    Element* const kept = scratch.kept.data();
    std::uint32_t m = 0;
    bool finite = true;
    // Whether every point of the group is exact in double, as the filters and hull_by_halves() take
    // them (always, unless T is a 64-bit integer); a group that is not is hulled in T.
    bool exact = true;
    GroupExtremes extremes;
    if (n < kMinPointsToFilter) {
      for (std::uint32_t i = 0; i < n; ++i) {
        finite &= static_cast<int>(is_finite(group[i])) != 0;
        exact &= converts_exactly(group[i]);
        kept[m++] = make_element(group[i], i, std::type_identity<Element>{});
      }
    } else {
      extremes = find_extremes(group, n);
      finite = extremes.finite;
      // The box holds every point's rounding to double, and bounds the points exact (rounded_exactly).
      if constexpr (!exact_in_double_v<T>) {
        exact = rounded_exactly(extremes.x_min) && rounded_exactly(extremes.x_max) &&
                rounded_exactly(extremes.y_min) && rounded_exactly(extremes.y_max);
      }
      // 64-bit integers beyond 2^53 too: the octagon takes their differences to a corner exactly, in
      // 64 bits or across a box over 2^62 in 128 (OctagonFilter); the survivors are hulled in T below.
      OctagonFilter filter;
      if (finite && filter.build(group, extremes)) {
        const std::uint32_t* survivors = scratch.survivors.data();
        m = octagon_survivors(filter, group, n, scratch.survivors.data());
        for (std::uint32_t j = 0; j < m; ++j)
          kept[j] = make_element(group[survivors[j]], survivors[j], std::type_identity<Element>{});
      } else if (finite) {
        // Where the octagon is not built (coordinates beyond its margin argument, near 1e+-300, or
        // fewer than three distinct corners): orient2d's own filter.
        core::ExtremePolygon<T> polygon;
        polygon.start(group[0]);
        for (std::uint32_t i = 0; i < n; ++i) polygon.add(group[i]);
        polygon.finish();
        for (std::uint32_t i = 0; i < n; ++i) {
          kept[m] = make_element(group[i], i, std::type_identity<Element>{});
          m += !polygon.strictly_inside(group[i]);
        }
      }
    }
    if (!finite) {
      for (std::uint32_t i = 0; i < n; ++i) {
        if (!is_finite(group[i])) not_finite(begin + i);
      }
    }
    const Halves<Element> halves{{scratch.unsorted_below.data(), scratch.unsorted_above.data()},
                                 {scratch.below_x.data(), scratch.above_x.data()},
                                 {scratch.below_y.data(), scratch.above_y.data()},
                                 {scratch.below.data(), scratch.above.data()},
                                 scratch.rank.data(),
                                 rank_kernel};
    // Either filter keeps every point of the group's least and greatest x (on its bounding box, so
    // never strictly inside a polygon of its points): the group's box serves its survivors.
    //
    // hull_by_halves() writes up to m + 1 elements: for points alone, straight into the chunk's array.
    out.make_room(m + 1, kIndices);
    const GroupExtremes* box = n < kMinPointsToFilter ? nullptr : &extremes;
    const auto hull = [&](Element* to) {
      if (!exact) return hull_in_own_type(kept, m, to, part, point);
      return hull_by_halves(kept, m, halves, to, part, point, box);
    };
    if constexpr (kIndices) {
      const int k = hull(scratch.chain.data());
      counts[g] = k;
      for (int v = 0; v < k; ++v) {
        const Element& e = scratch.chain[static_cast<std::size_t>(v)];
        out.vertices[out.count + static_cast<std::size_t>(v)] = e.p;
        out.indices[out.count + static_cast<std::size_t>(v)] = begin + e.index;
      }
      out.count += static_cast<std::size_t>(k);
    } else {
      const int k = hull(out.vertices.data() + out.count);
      counts[g] = k;
      out.count += static_cast<std::size_t>(k);
    }
  }
}

/// Chunks' hulls appended to the result in chunk order by whichever thread finishes the chunk that
/// is due: a chunk finished early is left ready, and the thread appending takes every ready chunk
/// behind its own. No thread waits for another, and the copies (with the result's page faults) run
/// beside the other threads' hulls instead of after them.
template <class T>
class InOrderAppender {
 public:
  InOrderAppender(std::size_t chunks, std::size_t vertices_per_chunk, GroupedHulls<T>& out,
                  std::vector<std::int64_t>& large_groups)
      : ready_(chunks), vertices_per_chunk_(vertices_per_chunk), out_(out), large_groups_(large_groups) {}

  /// An empty chunk buffer, one already appended where there is one.
  ChunkHulls<T> buffer() {
    {
      const std::lock_guard lock(mutex_);
      if (!spare_.empty()) {
        ChunkHulls<T> hulls = std::move(spare_.back());
        spare_.pop_back();
        return hulls;
      }
    }
    ChunkHulls<T> hulls;
    hulls.vertices.resize(vertices_per_chunk_);
    return hulls;
  }

  /// Chunk `chunk`'s hulls, appended now if every chunk before it has been.
  void deliver(std::size_t chunk, ChunkHulls<T>&& hulls) {
    std::unique_lock lock(mutex_);
    ready_[chunk] = std::move(hulls);
    if (appending_) return;  // that thread will find this chunk when it comes to it
    appending_ = true;
    while (next_ < ready_.size() && ready_[next_]) {
      ChunkHulls<T> due = std::move(*ready_[next_]);
      ready_[next_].reset();
      ++next_;
      lock.unlock();
      try {
        append(due);
      } catch (...) {
        lock.lock();
        appending_ = false;
        throw;
      }
      due.count = 0;
      due.large_groups.clear();
      lock.lock();
      spare_.push_back(std::move(due));
    }
    appending_ = false;
  }

 private:
  // Only one thread at a time (appending_): the result's vectors, and the offsets of the chunk's
  // groups, whose counts are complete and whose predecessors' offsets are final.
  void append(const ChunkHulls<T>& hulls) {
    const auto count = static_cast<std::ptrdiff_t>(hulls.count);
    out_.vertices.insert(out_.vertices.end(), hulls.vertices.begin(), hulls.vertices.begin() + count);
    if (!hulls.indices.empty())
      out_.indices.insert(out_.indices.end(), hulls.indices.begin(), hulls.indices.begin() + count);
    large_groups_.insert(large_groups_.end(), hulls.large_groups.begin(), hulls.large_groups.end());
    std::int64_t* offsets = out_.offsets.data();
    for (std::size_t g = hulls.first_group; g < hulls.last_group; ++g) offsets[g + 1] += offsets[g];
  }

  std::mutex mutex_;
  std::vector<std::optional<ChunkHulls<T>>> ready_;  // finished chunks not yet appended
  std::vector<ChunkHulls<T>> spare_;                 // appended chunks' buffers, emptied
  std::size_t next_ = 0;                             // the chunk due
  bool appending_ = false;                           // a thread is appending
  const std::size_t vertices_per_chunk_;
  GroupedHulls<T>& out_;
  std::vector<std::int64_t>& large_groups_;
};

}  // namespace

template <class T>
GroupedHulls<T> small_group_hulls(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets,
                                  HullPart part, bool with_indices, std::vector<std::int64_t>& large_groups,
                                  FilterKernel sort_kernel) {
  if (!filter_kernel_supported(sort_kernel)) throw std::invalid_argument("sort kernel not supported here");
  const FilterKernel rank_kernel = sort_kernel == FilterKernel::widest ? widest_filter_kernel() : sort_kernel;
  const std::size_t groups = offsets.size() - 1;
  const std::size_t n = points.size();
  const std::size_t threads =
      std::min(std::max<std::size_t>(groups, 1),
               detail::slice_count(n, detail::resolve_threads(0), kMinPointsPerThread));
  // The threads take chunks of about kChunkPoints points in turn (a chunk: the groups that start in
  // its share of the points), so that a core slowed down by other work takes fewer.
  const std::size_t chunks = std::max(threads, (n + kChunkPoints - 1) / kChunkPoints);
  std::vector<std::size_t> first_group(chunks + 1, groups);
  first_group[0] = 0;
  for (std::size_t c = 1; c < chunks; ++c) {
    const auto start = static_cast<std::int64_t>(detail::slice_begin(n, chunks, c));
    first_group[c] = static_cast<std::size_t>(std::lower_bound(offsets.begin(), offsets.end() - 1, start) -
                                              offsets.begin());
  }
  // Group g's vertex count goes to out.offsets[g + 1], which the appender's prefix sum turns into
  // offsets.
  GroupedHulls<T> out;
  out.offsets.assign(groups + 1, 0);
  std::int64_t* counts = out.offsets.data() + 1;
  // About a fifth of a random group's points are vertices; the vectors grow past that if need be.
  // Only the pages written are touched.
  const std::size_t expected = n / 4 + 16;
  out.vertices.reserve(expected);
  detail::want_huge_pages(out.vertices);
  if (with_indices) {
    out.indices.reserve(expected);
    detail::want_huge_pages(out.indices);
  }
  const auto hull_all = [&]<class Element>(std::type_identity<Element>) {
    InOrderAppender<T> appender(chunks, n / chunks / 4 + 16, out, large_groups);
    std::atomic<std::size_t> next_chunk{0};
    std::atomic<bool> failed{false};
    detail::run_slices(threads, threads, [&](std::size_t, std::size_t, std::size_t) {
      GroupScratch<Element> scratch;
      while (!failed.load(std::memory_order_relaxed)) {
        const std::size_t c = next_chunk.fetch_add(1, std::memory_order_relaxed);
        if (c >= chunks) return;
        ChunkHulls<T> hulls = appender.buffer();
        hulls.first_group = first_group[c];
        hulls.last_group = first_group[c + 1];
        try {
          hull_groups<T, Element>(points, offsets, part, rank_kernel, counts, scratch, hulls);
          appender.deliver(c, std::move(hulls));
        } catch (...) {
          // Whatever failed fails the call: the other threads stop at their next chunk.
          failed.store(true, std::memory_order_relaxed);
          throw;
        }
      }
    });
  };
  if (with_indices)
    hull_all(std::type_identity<Keyed<T>>{});
  else
    hull_all(std::type_identity<Point2<T>>{});
  return out;
}

#define WAGENER_INSTANTIATE(T)                                                                          \
  template GroupedHulls<T> small_group_hulls(std::span<const Point2<T>>, std::span<const std::int64_t>, \
                                             HullPart, bool, std::vector<std::int64_t>&, FilterKernel);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cpu
