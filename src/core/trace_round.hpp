// Building one trace round from padded hoods: shared by every backend that reports rounds.
#pragma once

#include <utility>
#include <vector>

#include "wagener/trace.hpp"

namespace wagener::core {

/// The round's hoods compacted from blocks of `width` slots (hood k at k * width, size[k] corners),
/// with the bridges of its merges.
template <class T>
TraceRound<T> make_trace_round(int round, index_t width, const std::vector<Point2<T>>& hood,
                               const std::vector<index_t>& size, std::vector<Bridge<T>>&& bridges) {
  TraceRound<T> r;
  r.round = round;
  r.block_width = width;
  r.hood_sizes = size;
  for (std::size_t k = 0; k < size.size(); ++k) {
    const auto* first = hood.data() + static_cast<index_t>(k) * width;
    r.corners.insert(r.corners.end(), first, first + size[k]);
  }
  r.bridges = std::move(bridges);
  return r;
}

}  // namespace wagener::core
