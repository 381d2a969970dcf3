// The distributed hull: a local hull on every rank, then a binomial tree of merges. Round s (s = 1,
// 2, 4, ...) has each rank r with r mod 2s == s send its hull to r - s, which merges it with its own
// by merge_hulls() (the one exact hull-of-hulls merge): ceil(log2 K) rounds, and rank 0 ends with
// the hull of everything. A left partner always holds the smaller input indices, which is what
// keeps the indices right (see merge_parts).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <numeric>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cuda/cuda_backend.hpp"
#include "mpi/collective.hpp"
#include "wagener/hull.hpp"
#include "wagener/mpi.hpp"

namespace wagener::mpi {
namespace {

using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

constexpr int kTagVertices = 1;
constexpr int kTagIndices = 2;

/// The upper chain of a full hull (counter-clockwise from the smallest vertex), indices alongside:
/// the smallest vertex, then from the last vertex back to the largest one.
template <class T>
void keep_upper_chain(HullResult<T>& part) {
  auto& v = part.vertices;
  if (v.size() <= 2) return;
  const auto largest =
      static_cast<std::ptrdiff_t>(std::max_element(v.begin(), v.end(), lex_less<T>) - v.begin());
  v.erase(v.begin() + 1, v.begin() + largest);
  std::reverse(v.begin() + 1, v.end());
  if (!part.indices.empty()) {
    auto& i = part.indices;
    i.erase(i.begin() + 1, i.begin() + largest);
    std::reverse(i.begin() + 1, i.end());
  }
}

/// The index of each merged vertex: the left part's when the left part holds the point, else the
/// right part's. Every index on the left is smaller than every index on the right, and a vertex of
/// the union that lies in a part is a vertex of that part's hull, so the left hull holds the point
/// exactly when the left input does, and its index is then the smallest.
template <class T>
std::vector<std::int64_t> merged_indices(std::span<const Point2<T>> merged, const HullResult<T>& left,
                                         const HullResult<T>& right) {
  const auto sorted_by_point = [](const HullResult<T>& part) {
    std::vector<std::size_t> order(part.vertices.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return lex_less<T>(part.vertices[a], part.vertices[b]); });
    return order;
  };
  const auto left_order = sorted_by_point(left);
  const auto right_order = sorted_by_point(right);
  const auto find = [](const HullResult<T>& part, const std::vector<std::size_t>& order, const Point2<T>& p,
                       std::int64_t& index) {
    const auto it = std::lower_bound(order.begin(), order.end(), p, [&](std::size_t a, const Point2<T>& q) {
      return lex_less<T>(part.vertices[a], q);
    });
    if (it == order.end() || lex_less<T>(p, part.vertices[*it])) return false;
    index = part.indices[*it];
    return true;
  };
  std::vector<std::int64_t> indices(merged.size());
  for (std::size_t k = 0; k < merged.size(); ++k) {
    if (!find(left, left_order, merged[k], indices[k]) && !find(right, right_order, merged[k], indices[k])) {
      throw std::logic_error("merge_hulls returned a vertex that neither hull holds");
    }
  }
  return indices;
}

/// The hull of two parts' points (left: the smaller input indices), in the part the options ask for.
template <class T>
HullResult<T> merge_parts(const HullResult<T>& left, const HullResult<T>& right, const HullOptions& options) {
  const std::array<std::span<const Point2<T>>, 2> hulls{std::span<const Point2<T>>(left.vertices),
                                                        std::span<const Point2<T>>(right.vertices)};
  HullResult<T> merged;
  merged.vertices = merge_hulls<T>(hulls);
  if (options.indices) merged.indices = merged_indices<T>(merged.vertices, left, right);
  // The upper hull of the union is the upper hull of the parts' upper hulls.
  if (options.part == HullPart::upper) keep_upper_chain(merged);
  return merged;
}

int local_rank_on_host(MPI_Comm comm) {
  MPI_Comm host = MPI_COMM_NULL;
  detail::check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host),
                    "MPI_Comm_split_type");
  int rank = 0;
  MPI_Comm_rank(host, &rank);
  MPI_Comm_free(&host);
  return rank;
}

}  // namespace

template <class T>
HullResult<T> convex_hull(MPI_Comm comm, std::span<const Point2<T>> local, const HullOptions& options,
                          ReductionStats* reduction) {
  const auto start = Clock::now();
  if (options.trace) {
    throw std::invalid_argument("a trace of Wagener's rounds is not available for a hull over MPI ranks");
  }
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // Ranks on one host spread over its devices; the choice only matters when a GPU backend starts.
  if (options.backend == Backend::cuda || options.backend == Backend::automatic) {
    cuda::choose_device_for_local_rank(local_rank_on_host(comm));
  }

  std::int64_t first_index = 0;
  std::int64_t local_count = static_cast<std::int64_t>(local.size());
  detail::check_mpi(MPI_Exscan(&local_count, &first_index, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Exscan");
  if (rank == 0) first_index = 0;  // MPI_Exscan leaves rank 0's result undefined

  HullStats local_stats;
  HullOptions local_options = options;
  local_options.stats = &local_stats;
  HullResult<T> part;
  const auto local_start = Clock::now();
  detail::all_or_none(comm, [&] {
    if (!local.empty()) part = compute_hull<T>(local, local_options);
  });
  for (auto& index : part.indices) index += first_index;
  double local_ms = milliseconds_since(local_start);

  double wait_ms = 0, receive_ms = 0, merge_ms = 0;
  std::int64_t vertices = static_cast<std::int64_t>(part.vertices.size());
  for (int step = 1; step < size; step *= 2) {
    if (rank % (2 * step) == step) {
      detail::send_vector(part.vertices, rank - step, kTagVertices, comm);
      if (options.indices) detail::send_vector(part.indices, rank - step, kTagIndices, comm);
      part = {};
      break;
    }
    if (rank % (2 * step) == 0 && rank + step < size) {
      const auto wait_start = Clock::now();
      detail::check_mpi(MPI_Probe(rank + step, kTagVertices, comm, MPI_STATUS_IGNORE), "MPI_Probe");
      wait_ms += milliseconds_since(wait_start);
      const auto receive_start = Clock::now();
      HullResult<T> right;
      right.vertices = detail::receive_vector<Point2<T>>(rank + step, kTagVertices, comm);
      if (options.indices)
        right.indices = detail::receive_vector<std::int64_t>(rank + step, kTagIndices, comm);
      receive_ms += milliseconds_since(receive_start);
      const auto merge_start = Clock::now();
      part = merge_parts(part, right, options);
      merge_ms += milliseconds_since(merge_start);
    }
  }

  std::int64_t total = 0;
  detail::check_mpi(MPI_Reduce(&local_count, &total, 1, MPI_INT64_T, MPI_SUM, 0, comm), "MPI_Reduce");
  std::int64_t local_vertices = 0;
  detail::check_mpi(MPI_Reduce(&vertices, &local_vertices, 1, MPI_INT64_T, MPI_SUM, 0, comm), "MPI_Reduce");
  double slowest_local_ms = 0;
  detail::check_mpi(MPI_Reduce(&local_ms, &slowest_local_ms, 1, MPI_DOUBLE, MPI_MAX, 0, comm), "MPI_Reduce");
  if (rank != 0) return {};
  if (reduction) {
    *reduction = {size, slowest_local_ms, wait_ms, receive_ms, merge_ms, local_vertices};
  }
  if (options.stats) {
    *options.stats = local_stats;
    options.stats->points = total;
    options.stats->hull_vertices = static_cast<std::int64_t>(part.vertices.size());
    options.stats->milliseconds = milliseconds_since(start);
  }
  return part;
}

template <class T>
HullResult<T> convex_hull_on_all(MPI_Comm comm, std::span<const Point2<T>> local, const HullOptions& options,
                                 ReductionStats* reduction) {
  HullResult<T> result = convex_hull<T>(comm, local, options, reduction);
  detail::broadcast_vector(result.vertices, 0, comm);
  if (options.indices) detail::broadcast_vector(result.indices, 0, comm);
  return result;
}

void all_or_none(MPI_Comm comm, const std::function<void()>& step) {
  detail::all_or_none(comm, step);
}

#define WAGENER_INSTANTIATE(T)                                                                        \
  template HullResult<T> convex_hull(MPI_Comm, std::span<const Point2<T>>, const HullOptions&,        \
                                     ReductionStats*);                                                \
  template HullResult<T> convex_hull_on_all(MPI_Comm, std::span<const Point2<T>>, const HullOptions&, \
                                            ReductionStats*);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::mpi
