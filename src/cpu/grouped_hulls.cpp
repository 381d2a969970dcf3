// Grouped hulls on the CPU: contiguous runs of groups, one per core, balanced by points; in each
// group the octagon filter, the survivors split by the line through their extremes, each half sorted
// (by counted ranks, cpu/lex_ranks.hpp) and chained, all in scratch buffers reused from group to group.
#include "cpu/grouped_hulls.hpp"

#include <algorithm>
#include <cmath>
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
  const auto turn = [](const auto& a, const auto& b, const auto& c) {
    return side_of_line(static_cast<double>(a.x), static_cast<double>(a.y), static_cast<double>(b.x),
                        static_cast<double>(b.y), static_cast<double>(c.x), static_cast<double>(c.y));
  };
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

[[noreturn, gnu::cold]] void not_finite(std::int64_t index) {
  throw input_error("point " + std::to_string(index) + " is not finite");
}

/// One core's run of groups: their vertices (and global indices), and the large groups it left.
template <class T>
struct Slice {
  std::vector<Point2<T>> vertices;
  std::vector<std::int64_t> indices;
  std::vector<std::int64_t> large_groups;
};

/// Groups [first, last): each group's vertex count in counts[g], its vertices appended to the slice.
template <class T, class Element>
void hull_groups(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets, std::size_t first,
                 std::size_t last, std::size_t reserve_to, HullPart part, FilterKernel rank_kernel,
                 std::int64_t* counts, Slice<T>& slice) {
  constexpr bool kIndices = std::is_same_v<Element, Keyed<T>>;
  std::vector<Element> kept;
  std::vector<Element> chain;
  // The survivors on either side of the line through the extremes: in group order, their
  // coordinates, sorted.
  std::vector<Element> unsorted_below, unsorted_above, below, above;
  std::vector<double> below_x, below_y, above_x, above_y;
  std::vector<std::uint32_t> rank;
  std::vector<std::uint32_t> survivors;  // indices into the group
  const auto point = [](const Element& e) -> const Point2<T>& { return point_of(e); };
  // About a fifth of a random group's points are vertices; the vectors grow past that if need be.
  // Slice 0's vector becomes the result, so it reserves room for every slice's vertices (only the
  // pages written are touched): the others are appended without moving it.
  const auto expected = static_cast<std::size_t>(offsets[reserve_to] - offsets[first]) / 4 + 16;
  slice.vertices.reserve(expected);
  detail::want_huge_pages(slice.vertices);
  if constexpr (kIndices) {
    slice.indices.reserve(expected);
    detail::want_huge_pages(slice.indices);
  }
  for (std::size_t g = first; g < last; ++g) {
    const std::int64_t begin = offsets[g];
    const std::int64_t size = offsets[g + 1] - begin;
    counts[g] = 0;
    if (size == 0) continue;
    if (size > kLargeGroupPoints) {
      slice.large_groups.push_back(static_cast<std::int64_t>(g));
      continue;
    }
    const Point2<T>* group = points.data() + begin;
    const auto n = static_cast<std::uint32_t>(size);
    {
      // Ask for the next group's points now, so that they arrive while this one is sorted and chained
      // (the hardware prefetcher pauses while the stream is not read).
      const auto next = reinterpret_cast<const char*>(points.data() + offsets[g + 1]);
      const auto bytes = static_cast<std::size_t>(
          std::min<std::int64_t>(offsets[std::min(g + 2, last)] - offsets[g + 1], kPrefetchPoints) *
          static_cast<std::int64_t>(sizeof(Point2<T>)));
      for (std::size_t b = 0; b < bytes; b += 64) __builtin_prefetch(next + b);
    }
    if (kept.size() < n) {
      kept.resize(n);
      chain.resize(n + 1);
      survivors.resize(n);
      for (auto* v : {&unsorted_below, &unsorted_above, &below, &above}) v->resize(n);
      for (auto* v : {&below_x, &below_y, &above_x, &above_y}) v->resize(n);
      rank.resize(n);
    }
    std::uint32_t m = 0;
    bool finite = true;
    GroupExtremes extremes;
    if (n < kMinPointsToFilter) {
      for (std::uint32_t i = 0; i < n; ++i) {
        finite &= std::isfinite(group[i].x) & std::isfinite(group[i].y);
        kept[m++] = make_element(group[i], i, std::type_identity<Element>{});
      }
    } else {
      extremes = find_extremes(group, n);
      finite = extremes.finite;
      OctagonFilter filter;
      if (finite && filter.build(group, extremes)) {
        m = octagon_survivors(filter, group, n, survivors.data());
        for (std::uint32_t j = 0; j < m; ++j)
          kept[j] = make_element(group[survivors[j]], survivors[j], std::type_identity<Element>{});
      } else if (finite) {
        // Coordinates beyond the filter's margin argument (near 1e+-300): orient2d's own filter.
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
        if (!std::isfinite(group[i].x) || !std::isfinite(group[i].y)) not_finite(begin + i);
      }
    }
    const Halves<Element> halves{{unsorted_below.data(), unsorted_above.data()},
                                 {below_x.data(), above_x.data()},
                                 {below_y.data(), above_y.data()},
                                 {below.data(), above.data()},
                                 rank.data(),
                                 rank_kernel};
    // Either filter keeps every point of the group's least and greatest x (on its bounding box, so
    // never strictly inside a polygon of its points): the group's box serves its survivors.
    const int k = hull_by_halves(kept.data(), m, halves, chain.data(), part, point,
                                 n < kMinPointsToFilter ? nullptr : &extremes);
    counts[g] = k;
    for (int v = 0; v < k; ++v) {
      const Element& e = chain[static_cast<std::size_t>(v)];
      slice.vertices.push_back(point_of(e));
      if constexpr (kIndices) slice.indices.push_back(begin + e.index);
    }
  }
}

}  // namespace

template <class T>
GroupedHulls<T> small_group_hulls(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets,
                                  HullPart part, bool with_indices, std::vector<std::int64_t>& large_groups,
                                  FilterKernel sort_kernel) {
  if (!filter_kernel_supported(sort_kernel)) throw std::invalid_argument("sort kernel not supported here");
  const FilterKernel rank_kernel = sort_kernel == FilterKernel::widest ? widest_filter_kernel() : sort_kernel;
  const std::size_t groups = offsets.size() - 1;
  const std::size_t n = points.size();
  const std::size_t slices =
      std::min(std::max<std::size_t>(groups, 1),
               detail::slice_count(n, detail::resolve_threads(0), kMinPointsPerThread));
  // Slice s takes the groups that start in its share of the points, so that each core hulls about
  // n / slices points whatever the sizes of the groups.
  std::vector<std::size_t> first_group(slices + 1, groups);
  for (std::size_t s = 0; s < slices; ++s) {
    const auto start = static_cast<std::int64_t>(detail::slice_begin(n, slices, s));
    first_group[s] = static_cast<std::size_t>(std::lower_bound(offsets.begin(), offsets.end() - 1, start) -
                                              offsets.begin());
  }
  first_group[0] = 0;
  // Group g's vertex count goes to out.offsets[g + 1], which a prefix sum then turns into offsets.
  GroupedHulls<T> out;
  out.offsets.assign(groups + 1, 0);
  std::int64_t* counts = out.offsets.data() + 1;
  std::vector<Slice<T>> parts(slices);
  const auto reserve_to = [&](std::size_t s) { return s == 0 ? groups : first_group[s + 1]; };
  detail::run_slices(slices, slices, [&](std::size_t s, std::size_t, std::size_t) {
    if (with_indices) {
      hull_groups<T, Keyed<T>>(points, offsets, first_group[s], first_group[s + 1], reserve_to(s), part,
                               rank_kernel, counts, parts[s]);
    } else {
      hull_groups<T, Point2<T>>(points, offsets, first_group[s], first_group[s + 1], reserve_to(s), part,
                                rank_kernel, counts, parts[s]);
    }
  });

  for (std::size_t g = 0; g < groups; ++g) out.offsets[g + 1] += out.offsets[g];
  out.vertices = std::move(parts[0].vertices);
  out.indices = std::move(parts[0].indices);
  large_groups = std::move(parts[0].large_groups);
  for (std::size_t s = 1; s < slices; ++s) {
    const Slice<T>& slice = parts[s];
    out.vertices.insert(out.vertices.end(), slice.vertices.begin(), slice.vertices.end());
    out.indices.insert(out.indices.end(), slice.indices.begin(), slice.indices.end());
    large_groups.insert(large_groups.end(), slice.large_groups.begin(), slice.large_groups.end());
  }
  return out;
}

#define WAGENER_INSTANTIATE(T)                                                                          \
  template GroupedHulls<T> small_group_hulls(std::span<const Point2<T>>, std::span<const std::int64_t>, \
                                             HullPart, bool, std::vector<std::int64_t>&, FilterKernel);
WAGENER_INSTANTIATE(float)
WAGENER_INSTANTIATE(double)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cpu
