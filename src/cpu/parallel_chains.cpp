#include "cpu/parallel_chains.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>

#include "core/chains.hpp"
#include "core/huge_pages.hpp"
#include "core/nested_bridge.hpp"
#include "core/parallel_slices.hpp"

namespace wagener::cpu {
namespace {

// Each bridge is found serially by the nested search with at most this many samples per bracket:
// depth * (depth + 1) * g^2 classifications, about 3k for a hood of 2^26 points with g = 4, a few
// microseconds, against milliseconds for the slices' chains.
constexpr index_t kBridgeSamples = 4;

// Fresh memory costs its page faults more than anything the chains do with it: on a 2-core KVM
// guest, touching 16 MB took 500-970 ms in 4 KiB pages (while other processes kept the cores busy)
// and 1-30 ms in 2 MiB pages (bench/NOTES.md). The chains' buffers ask for transparent huge pages.

/// A vector of `count` points (zeroed, as std::vector must), its storage advised first.
template <class T>
std::vector<Point2<T>> huge_page_vector(std::size_t count) {
  std::vector<Point2<T>> v;
  v.reserve(count);
  detail::want_huge_pages(v);
  v.resize(count);
  return v;
}

/// The upper hood of a sorted sequence of n points, at(i) being point i, kept in place as strips
/// (one per slice) of a padded buffer: the strips' chains are computed in parallel, then merged
/// pairwise by their bridges; nothing moves until the caller copies the live runs out.
template <class T>
class InPlaceChain {
 public:
  template <class Source>
  InPlaceChain(index_t n, std::size_t slices, Source&& at)
      : InPlaceChain(n, slices, at, [&](index_t begin, index_t end, Point2<T>* strip) {
          for (index_t i = begin; i < end; ++i) strip[i - begin] = at(i);
          return end - begin;
        }) {}

  /// `fill(begin, end, strip)` writes to strip, in order, the points of [begin, end) that may be hood
  /// vertices (a filter leaves out points strictly inside the hull) and returns how many; or returns
  /// a negative count to give up (its caller found the input wanting): every run is then empty, and
  /// nothing is merged.
  template <class Source, class Fill>
  InPlaceChain(index_t n, std::size_t slices, Source&& at, Fill&& fill) {
    stride_ = (n + static_cast<index_t>(slices) - 1) / static_cast<index_t>(slices);
    strips_ = (n + stride_ - 1) / stride_;
    // Pages a filter leaves unwritten are never touched.
    base_ = detail::huge_page_array<Point2<T>>(static_cast<std::size_t>(strips_ * stride_));
    lo_.assign(static_cast<std::size_t>(strips_), 0);
    hi_.assign(static_cast<std::size_t>(strips_), 0);
    const auto count = static_cast<std::size_t>(strips_);
    std::vector<char> given_up(count, 0);
    detail::run_slices(count, count, [&](std::size_t s, std::size_t, std::size_t) {
      const auto t = static_cast<index_t>(s);
      const index_t begin = t * stride_, end = std::min(n, begin + stride_);
      Point2<T>* strip = base_.get() + begin;
      const index_t kept = fill(begin, end, strip);
      if (kept < 0) {
        given_up[s] = 1;
        return;
      }
      hi_[s] = core::strip_upper_chain(strip, kept, strip);
      // The strip before ends with the point before this strip: a copy of it here is left out, so
      // that no two hoods share a point (nested_bridge.hpp's precondition). Behind a filter too: a
      // point it leaves out is strictly inside, so are its copies, so where this strip's first kept
      // point equals point begin - 1, that point is the strip before's last kept one.
      lo_[s] = kept > 0 && begin > 0 && same_point(strip[0], at(begin - 1)) ? 1 : 0;
    });
    if (std::find(given_up.begin(), given_up.end(), 1) != given_up.end()) {
      std::fill(hi_.begin(), hi_.end(), 0);
      std::fill(lo_.begin(), lo_.end(), 0);
      return;
    }
    prev_.resize(count);
    next_.resize(count);
    for (index_t t = 0; t < strips_; ++t) prev_[t] = live(t) ? t : (t > 0 ? prev_[t - 1] : -1);
    for (index_t t = strips_; t-- > 0;) next_[t] = live(t) ? t : (t + 1 < strips_ ? next_[t + 1] : strips_);
    merge_all();
  }

  index_t strips() const { return strips_; }
  /// Strip t's live run.
  std::span<const Point2<T>> run(index_t t) const {
    return {base_.get() + t * stride_ + lo_[t], static_cast<std::size_t>(hi_[t] - lo_[t])};
  }

 private:
  bool live(index_t t) const { return lo_[t] < hi_[t]; }
  core::StripRanges ranges() { return {lo_.data(), hi_.data(), prev_.data(), next_.data(), stride_}; }

  void merge_all() {
    std::vector<core::Bracket> cells(static_cast<std::size_t>(kBridgeSamples));
    for (index_t w = 1; w < strips_; w *= 2) {
      for (index_t p0 = 0; p0 + w < strips_; p0 += 2 * w) {
        const index_t q0 = p0 + w, q1 = std::min(strips_, q0 + w);
        const index_t pf = next_[p0], qf = next_[q0];
        if (pf >= q0 || qf >= q1) continue;  // a side without a vertex
        const core::InPlaceHood<T> p{base_.get(), ranges(), pf, prev_[q0 - 1]};
        const core::InPlaceHood<T> q{base_.get(), ranges(), qf, prev_[q1 - 1]};
        core::HoodSlot a, b;
        if (core::seam_bridge(p, q, &a, &b)) continue;  // both hoods whole: nothing to trim
        // A bridge a few vertices from the seam is walked to; one farther is searched for.
        if (!core::walk_bridge(p, q, core::kWalkSteps, &a, &b)) {
          const index_t most = std::max(p.positions(), q.positions());
          int depth = 1;
          for (index_t reach = kBridgeSamples; reach < most; reach *= kBridgeSamples) ++depth;
          core::nested_bridge_serial(core::NestedMerge<T>(p, q, depth), cells.data(), &a, &b);
        }
        const core::StripRanges r = ranges();
        for (index_t t = a.strip; t <= b.strip; ++t) {
          const core::StripUpdate u = core::strip_after_merge(r, t, a, b);
          lo_[t] = u.lo, hi_[t] = u.hi, prev_[t] = u.prev_live, next_[t] = u.next_live;
        }
      }
    }
  }

  index_t stride_ = 1, strips_ = 0;
  std::unique_ptr<Point2<T>[], detail::FreeDeleter> base_;
  std::vector<index_t> lo_, hi_, prev_, next_;
};

/// Where each strip's run starts in the concatenated hood, and the hood's size.
template <class T>
std::vector<index_t> run_offsets(const InPlaceChain<T>& chain, index_t* total) {
  std::vector<index_t> offset(static_cast<std::size_t>(chain.strips()));
  index_t sum = 0;
  for (index_t t = 0; t < chain.strips(); ++t) {
    offset[t] = sum;
    sum += static_cast<index_t>(chain.run(t).size());
  }
  *total = sum;
  return offset;
}

/// The strips' live runs, concatenated: the hood.
template <class T>
std::vector<Point2<T>> concatenated_hood(const InPlaceChain<T>& chain) {
  index_t total = 0;
  const auto offset = run_offsets(chain, &total);
  auto hood = huge_page_vector<T>(static_cast<std::size_t>(total));
  const auto strips = static_cast<std::size_t>(chain.strips());
  detail::run_slices(strips, strips, [&](std::size_t t, std::size_t, std::size_t) {
    std::copy(chain.run(t).begin(), chain.run(t).end(), hood.begin() + offset[t]);
  });
  return hood;
}

}  // namespace

template <class T>
std::vector<Point2<T>> upper_chain_parallel(std::span<const Point2<T>> sorted, std::size_t threads) {
  if (sorted.empty()) return {};
  const auto at = [&](index_t i) { return sorted[i]; };
  return concatenated_hood(
      InPlaceChain<T>(static_cast<index_t>(sorted.size()), std::max<std::size_t>(threads, 1), at));
}

template <class T>
std::vector<Point2<T>> upper_chain_parallel(std::span<const Point2<T>> sorted, std::size_t threads,
                                            const SliceKeep<T>& keep) {
  if (sorted.empty()) return {};
  const auto at = [&](index_t i) { return sorted[i]; };
  const auto fill = [&](index_t begin, index_t end, Point2<T>* strip) -> index_t {
    const std::optional<std::size_t> kept =
        keep(static_cast<std::size_t>(begin), static_cast<std::size_t>(end), strip);
    return kept ? static_cast<index_t>(*kept) : -1;
  };
  return concatenated_hood(
      InPlaceChain<T>(static_cast<index_t>(sorted.size()), std::max<std::size_t>(threads, 1), at, fill));
}

template <class T>
std::vector<Point2<T>> hull_of_sorted_threads(std::span<const Point2<T>> sorted, std::size_t threads) {
  const auto n = static_cast<index_t>(sorted.size());
  if (n == 0) return {};
  const std::size_t slices = std::max<std::size_t>(threads, 1);
  // The lower chain is the upper chain of the points reflected (core::reflected), in reverse order.
  const InPlaceChain<T> upper(n, slices, [&](index_t i) { return sorted[i]; });
  const InPlaceChain<T> lower(n, slices, [&](index_t i) { return core::reflected(sorted[n - 1 - i]); });
  index_t upper_size = 0, lower_size = 0;
  const auto upper_offset = run_offsets(upper, &upper_size);
  const auto lower_offset = run_offsets(lower, &lower_size);
  // As core::join_chains: the lower chain from the smallest point, then the upper chain backwards
  // without its two ends (shared with the lower chain).
  const index_t inner_upper = upper_size > 2 ? upper_size - 2 : 0;
  auto hull = huge_page_vector<T>(static_cast<std::size_t>(lower_size + inner_upper));
  const auto strips = static_cast<std::size_t>(std::max(upper.strips(), lower.strips()));
  detail::run_slices(strips, strips, [&](std::size_t s, std::size_t, std::size_t) {
    const auto t = static_cast<index_t>(s);
    if (t < lower.strips()) {
      // Lower-hood vertex k (of the reflected points) is hull vertex lower_size - 1 - k.
      const auto run = lower.run(t);
      for (std::size_t i = 0; i < run.size(); ++i) {
        hull[static_cast<std::size_t>(lower_size - 1 - (lower_offset[t] + static_cast<index_t>(i)))] =
            core::reflected(run[i]);
      }
    }
    if (t < upper.strips()) {
      // Upper-hood vertex k, 0 < k < upper_size - 1, is hull vertex lower_size + upper_size - 2 - k.
      const auto run = upper.run(t);
      for (std::size_t i = 0; i < run.size(); ++i) {
        const index_t k = upper_offset[t] + static_cast<index_t>(i);
        if (k > 0 && k < upper_size - 1)
          hull[static_cast<std::size_t>(lower_size + upper_size - 2 - k)] = run[i];
      }
    }
  });
  return hull;
}

#define WAGENER_INSTANTIATE(T)                                                                   \
  template std::vector<Point2<T>> upper_chain_parallel(std::span<const Point2<T>>, std::size_t); \
  template std::vector<Point2<T>> upper_chain_parallel(std::span<const Point2<T>>, std::size_t,  \
                                                       const SliceKeep<T>&);                     \
  template std::vector<Point2<T>> hull_of_sorted_threads(std::span<const Point2<T>>, std::size_t);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cpu
