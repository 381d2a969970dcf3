#include "pram/pram_hull.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/bridge.hpp"
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

template std::vector<Point2<float>> upper_hull(std::span<const Point2<float>>, Counters*,
                                               const std::function<void(TraceRound<float>&&)>&);
template std::vector<Point2<double>> upper_hull(std::span<const Point2<double>>, Counters*,
                                                const std::function<void(TraceRound<double>&&)>&);

}  // namespace wagener::pram
