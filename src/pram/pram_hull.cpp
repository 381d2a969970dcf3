#include "pram/pram_hull.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/bridge.hpp"
#include "core/nested_bridge.hpp"
#include "core/trace_round.hpp"

namespace wagener::pram {
namespace {

// Phases per round: seam check, mam 1, 2, 3, 4, 5, 6.
constexpr std::int64_t kStepsPerRound = 7;

[[noreturn]] void invariant_violated(const char* phase, std::int64_t round, index_t merge, index_t m,
                                     index_t n, index_t cell, int writers) {
  std::ostringstream msg;
  msg << "PRAM invariant violated in " << phase << " (round " << round << ", merge " << merge
      << ", |P| = " << m << ", |Q| = " << n << ", cell " << cell << "): " << writers
      << " writers, expected exactly 1";
  throw std::logic_error(msg.str());
}

/// One merge, phase by phase; each phase runs all s*s processors and then checks its cells.
/// Returns the merged size written at out; `bridge_out` gets the bridge's ends (a in p, b in q as
/// given, seam duplicate included), or -1 when q added nothing.
template <class T>
index_t merge_hoods(const Point2<T>* p, index_t m, const Point2<T>* q, index_t n, Point2<T>* out,
                    std::int64_t round, index_t merge, std::int64_t* step_work, index_t* bridge_out) {
  // Seam: a duplicate of P's last vertex at the front of Q is dropped (one processor).
  step_work[0] += 1;
  const index_t dup = core::seam_duplicates(p, m, q, n);
  q += dup;
  n -= dup;
  bridge_out[0] = bridge_out[1] = -1;
  if (n == 0) {
    std::copy(p, p + m, out);
    step_work[6] += m;
    return m;
  }

  const core::MergeView<T> v(p, m, q, n);
  const index_t s = v.s;
  std::vector<index_t> tangent_block(s, -1), tangent(s, -1), candidate_block(s, -1);
  index_t k0 = -1, bridge[2] = {-1, -1};
  const core::BridgeCells cells{tangent_block.data(), tangent.data(), &k0, candidate_block.data(), bridge};
  std::vector<int> writers(s);
  const index_t p_samples = (m + s - 1) / s;

  auto run_grid = [&](int step, auto&& body) {
    for (index_t y = 0; y < s; ++y) {
      for (index_t x = 0; x < s; ++x) body(x, y);
    }
    step_work[step] += s * s;
  };
  auto check_cells = [&](const char* phase, index_t count) {
    for (index_t c = 0; c < count; ++c) {
      if (writers[c] != 1) invariant_violated(phase, round, merge, m, n, c, writers[c]);
    }
    std::fill(writers.begin(), writers.end(), 0);
  };

  index_t value = 0;
  run_grid(1, [&](index_t x, index_t y) {
    if (core::mam1_tangent_block(v, x, y, &value)) tangent_block[x] = value, ++writers[x];
  });
  check_cells("mam 1 (tangent block of each P sample)", p_samples);

  run_grid(2, [&](index_t x, index_t y) {
    if (core::mam2_tangent(v, cells, x, y, &value)) tangent[x] = value, ++writers[x];
  });
  check_cells("mam 2 (tangent of each P sample)", p_samples);

  run_grid(3, [&](index_t x, index_t y) {
    if (core::mam3_last_sample_left_of_bridge(v, cells, x, y, &value)) k0 = value, ++writers[0];
  });
  check_cells("mam 3 (last P sample left of the bridge)", 1);

  const index_t candidates = std::min(s, m - k0);
  run_grid(4, [&](index_t x, index_t y) {
    if (core::mam4_candidate_block(v, cells, x, y, &value)) candidate_block[y] = value, ++writers[y];
  });
  check_cells("mam 4 (tangent block of each candidate)", candidates);

  run_grid(5, [&](index_t x, index_t y) {
    index_t a = 0, b = 0;
    if (core::mam5_bridge(v, cells, x, y, &a, &b)) bridge[0] = a, bridge[1] = b, ++writers[0];
  });
  check_cells("mam 5 (the bridge)", 1);

  // mam 6: one processor per vertex of P ++ Q copies it to its place in the merged hood.
  for (index_t k = 0; k < m + n; ++k) {
    const index_t dst = core::mam6_destination(k, m, bridge[0], bridge[1]);
    if (dst >= 0) out[dst] = k < m ? p[k] : q[k - m];
  }
  step_work[6] += m + n;
  bridge_out[0] = bridge[0];
  bridge_out[1] = bridge[1] + dup;
  return core::merged_size(n, bridge[0], bridge[1]);
}

}  // namespace

template <class T>
std::vector<Point2<T>> upper_hull(std::span<const Point2<T>> sorted, Counters* counters,
                                  const std::function<void(TraceRound<T>&&)>& observer) {
  Counters stats;
  const index_t n = static_cast<index_t>(sorted.size());
  // Hoods live in blocks of width w: block k at [k w, k w + size[k]), padded (as in the seed).
  std::vector<Point2<T>> hood(sorted.begin(), sorted.end()), next(sorted.size());
  std::vector<index_t> size(static_cast<std::size_t>(n), 1), next_size;
  if (observer && n > 0) observer(core::make_trace_round<T>(0, 1, hood, size, {}));
  for (index_t w = 1; w < n; w *= 2) {
    const index_t blocks = (n + w - 1) / w;
    const index_t pairs = (blocks + 1) / 2;
    next_size.assign(static_cast<std::size_t>(pairs), 0);
    std::int64_t step_work[kStepsPerRound] = {};
    std::vector<Bridge<T>> bridges;
    for (index_t k = 0; k < pairs; ++k) {
      const Point2<T>* p = hood.data() + 2 * k * w;
      Point2<T>* out = next.data() + 2 * k * w;
      const index_t m = size[2 * k];
      if (2 * k + 1 < blocks) {
        const Point2<T>* q = hood.data() + (2 * k + 1) * w;
        index_t ends[2];
        next_size[k] = merge_hoods(p, m, q, size[2 * k + 1], out, stats.rounds, k, step_work, ends);
        if (observer && ends[0] >= 0) bridges.push_back({k, p[ends[0]], q[ends[1]]});
      } else {
        std::copy(p, p + m, out);  // no partner this round
        step_work[6] += m;
        next_size[k] = m;
      }
    }
    for (std::int64_t work : step_work) {
      stats.work += work;
      stats.max_processors = std::max(stats.max_processors, work);
    }
    stats.parallel_steps += kStepsPerRound;
    ++stats.rounds;
    hood.swap(next);
    size.swap(next_size);
    if (observer)
      observer(
          core::make_trace_round<T>(static_cast<int>(stats.rounds), 2 * w, hood, size, std::move(bridges)));
  }
  if (n > 0) hood.resize(static_cast<std::size_t>(size[0]));
  if (counters) *counters = stats;
  return hood;
}

namespace {

/// Steps of a parallel prefix computation over `count` cells (up-sweep and down-sweep).
std::int64_t scan_steps(index_t count) {
  std::int64_t levels = 0;
  for (index_t c = 1; c < count; c *= 2) ++levels;
  return 2 * levels;
}

/// One merge of hoods in place by nested sampling, step by step with the exactly-one-writer check.
/// step_work[s] gets the processors of step s (plan step excluded); returns the bridge's ends.
template <class T>
void nested_merge(const core::NestedMerge<T>& mg, std::int64_t round, index_t merge, std::int64_t* step_work,
                  core::HoodSlot* a, core::HoodSlot* b) {
  const index_t g = mg.g;
  std::vector<core::Bracket> tangent(static_cast<std::size_t>(g)), written(static_cast<std::size_t>(g));
  std::vector<int> writers(static_cast<std::size_t>(g));
  core::Bracket outer = mg.whole_p();
  index_t bridge[2] = {-1, -1};
  const core::NestedCells cells{&outer, tangent.data(), bridge};
  auto fail = [&](const char* phase, index_t cell, int count) {
    std::ostringstream msg;
    msg << "PRAM invariant violated in " << phase << " (round " << round << ", merge " << merge
        << ", U_P = " << mg.p.positions() << ", U_Q = " << mg.q.positions() << ", cell " << cell
        << "): " << count << " writers, expected exactly 1";
    throw std::logic_error(msg.str());
  };
  int step = 0;
  for (int level = 0; level < mg.depth; ++level) {
    // The P samples of this level (x with x * spacing < len): each must get exactly one tangent.
    const index_t spacing = core::spacing_of(outer, g);
    const index_t samples = (outer.len + spacing - 1) / spacing;
    for (int inner = 0; inner < mg.depth; ++inner, ++step) {
      std::fill(writers.begin(), writers.end(), 0);
      for (index_t x = 0; x < g; ++x) {
        for (index_t y = 0; y < g; ++y) {
          core::Bracket value{};
          if (core::nested_tangent_step(mg, cells, inner, x, y, &value)) written[x] = value, ++writers[x];
        }
      }
      step_work[step] += g * g;
      for (index_t x = 0; x < samples; ++x) {
        if (writers[x] != 1) fail("a nested tangent step", x, writers[x]);
      }
      for (index_t x = 0; x < samples; ++x) tangent[x] = written[x];  // writes after every read
    }
    int outer_writers = 0;
    core::Bracket next{};
    index_t ea = -1, eb = -1;
    for (index_t x = 0; x < g; ++x) {
      core::Bracket value{};
      index_t va = 0, vb = 0;
      if (core::nested_outer_step(mg, cells, x, &value, &va, &vb))
        next = value, ea = va, eb = vb, ++outer_writers;
    }
    step_work[step++] += g;
    if (outer_writers != 1) fail("a nested outer step", 0, outer_writers);
    outer = next;
    bridge[0] = ea;
    bridge[1] = eb;
  }
  if (outer.len != 1) fail("the nested search (bracket not closed)", 0, 0);
  *a = mg.p.rep(bridge[0]);
  *b = mg.q.rep(bridge[1]);
}

}  // namespace

template <class T>
std::vector<Point2<T>> upper_hull_optimal(std::span<const Point2<T>> sorted, Counters* counters,
                                          index_t strip_width, int depth) {
  Counters stats;
  const index_t n = static_cast<index_t>(sorted.size());
  if (n == 0) {
    if (counters) *counters = stats;
    return {};
  }
  index_t width = strip_width;
  if (width <= 0) {
    width = 1;
    while ((index_t{1} << width) < n) ++width;  // ceil(log2 n), at least 1
  }
  const index_t strips = (n + width - 1) / width;
  auto account = [&](std::int64_t steps, std::int64_t processors_per_step) {
    stats.parallel_steps += steps;
    stats.work += steps * processors_per_step;
    stats.max_processors = std::max(stats.max_processors, processors_per_step);
  };

  // Strips: processor t chains strip t serially. A strip's leading points equal to the point before
  // it are left out (the strip before holds that point as its last vertex), so no two hoods share a
  // point and no merge meets a duplicate at its seam; a strip of such points alone is dead.
  std::vector<Point2<T>> base(sorted.begin(), sorted.end());
  std::vector<index_t> lo(strips), hi(strips), prev_live(strips), next_live(strips);
  std::int64_t longest = 0;
  for (index_t t = 0; t < strips; ++t) {
    const index_t begin = t * width, end = std::min(n, begin + width);
    index_t skip = begin;
    while (begin > 0 && skip < end && same_point(base[skip], sorted[begin - 1])) ++skip;
    index_t ops = 0;
    const index_t h = core::strip_upper_chain(base.data() + skip, end - skip, base.data() + begin, &ops);
    lo[t] = 0;
    hi[t] = h;
    stats.work += ops + (skip - begin);
    longest = std::max<std::int64_t>(longest, ops + (skip - begin));
  }
  stats.parallel_steps += longest;
  stats.max_processors = std::max<std::int64_t>(stats.max_processors, strips);
  // Links of the dead strips: a prefix maximum and a suffix minimum.
  for (index_t t = 0; t < strips; ++t) prev_live[t] = lo[t] < hi[t] ? t : (t > 0 ? prev_live[t - 1] : -1);
  for (index_t t = strips; t-- > 0;)
    next_live[t] = lo[t] < hi[t] ? t : (t + 1 < strips ? next_live[t + 1] : strips);
  account(2 * scan_steps(strips), strips);

  const core::StripRanges ranges{lo.data(), hi.data(), prev_live.data(), next_live.data(), width};
  std::vector<core::StripUpdate> update(strips);
  const std::int64_t bridge_steps = depth * (depth + 1);
  for (index_t w = 1; w < strips; w *= 2) {
    const index_t merges = (strips + 2 * w - 1) / (2 * w);
    std::vector<std::int64_t> step_work(static_cast<std::size_t>(bridge_steps), 0);
    std::vector<core::HoodSlot> ends(2 * merges);
    std::vector<char> merged(merges, 0);
    for (index_t k = 0; k < merges; ++k) {
      // Plan (one processor a merge): each side's first and last live strip, if any.
      const index_t p0 = 2 * k * w, q0 = std::min(strips, p0 + w), q1 = std::min(strips, q0 + w);
      if (q0 >= q1) continue;
      const index_t pf = next_live[p0], pl = prev_live[q0 - 1], qf = next_live[q0], ql = prev_live[q1 - 1];
      if (pf >= q0 || qf >= q1) continue;  // one side has no vertex: nothing to merge
      const core::InPlaceHood<T> p{base.data(), ranges, pf, pl}, q{base.data(), ranges, qf, ql};
      nested_merge(core::NestedMerge<T>(p, q, depth), stats.rounds, k, step_work.data(), &ends[2 * k],
                   &ends[2 * k + 1]);
      merged[k] = 1;
    }
    account(1, merges);
    for (std::int64_t work : step_work) {
      stats.work += work;
      stats.max_processors = std::max(stats.max_processors, work);
    }
    stats.parallel_steps += bridge_steps;
    // Trim (one processor a strip): the strips between the bridge's ends die, the two ends are cut.
    for (index_t t = 0; t < strips; ++t) {
      const index_t k = t / (2 * w);
      update[t] = merged[k] ? core::strip_after_merge(ranges, t, ends[2 * k], ends[2 * k + 1])
                            : core::StripUpdate{lo[t], hi[t], prev_live[t], next_live[t]};
    }
    for (index_t t = 0; t < strips; ++t) {
      lo[t] = update[t].lo, hi[t] = update[t].hi, prev_live[t] = update[t].prev_live;
      next_live[t] = update[t].next_live;
    }
    account(1, strips);
    ++stats.rounds;
  }

  // Compaction: a prefix sum of the live sizes, then one processor a strip copies its live run.
  std::vector<Point2<T>> hood;
  for (index_t t = 0; t < strips; ++t) {
    for (index_t s = lo[t]; s < hi[t]; ++s) hood.push_back(base[t * width + s]);
  }
  account(scan_steps(strips), strips);
  account(width, strips);  // one processor a strip copies its live run
  if (counters) *counters = stats;
  return hood;
}

#define WAGENER_INSTANTIATE(T)                                                              \
  template std::vector<Point2<T>> upper_hull(std::span<const Point2<T>>, Counters*,         \
                                             const std::function<void(TraceRound<T> &&)>&); \
  template std::vector<Point2<T>> upper_hull_optimal(std::span<const Point2<T>>, Counters*, index_t, int);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::pram
