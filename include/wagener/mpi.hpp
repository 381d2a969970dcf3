// Hulls over MPI ranks: every rank holds a part of the points; the hull of the union comes from each
// rank's local hull and a log K tree reduction of the hulls with merge_hulls(), exact like every
// other door. Built when Open MPI (or another MPI) is found: link wagener::mpi.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "wagener/hull.hpp"
#include "wagener/io.hpp"
#include "wagener/point.hpp"

namespace wagener::mpi {

/// Where a distributed hull spent its time (filled on the root when asked).
struct ReductionStats {
  int ranks = 0;
  double local_milliseconds = 0;    ///< the slowest rank's local hull
  double wait_milliseconds = 0;     ///< the root waiting for its partners' hulls to be sent
  double receive_milliseconds = 0;  ///< the root receiving its partners' hulls, once they are sent
  double merge_milliseconds = 0;    ///< the root merging hulls (merge_hulls, and the indices)
  std::int64_t local_vertices = 0;  ///< the local hulls' vertices, summed over the ranks
};

/// The hull of the union of every rank's `local` points, on rank 0 of `comm`; collective: every rank
/// calls it with its part (any size, empty included) and the same options.
/// Pre: points are finite (input_error naming the rank's point otherwise, on every rank: a failure
///      on one rank is thrown on all, so that no rank waits for a partner that gave up).
/// Post (rank 0): what compute_hull() returns for the concatenation of the parts in rank order,
///      vertices and (options.indices) indices into that concatenation; other ranks get an empty
///      result. options.stats (rank 0) describes the whole hull: all points, the final vertices, the
///      call's time, and rank 0's local backend. Each rank hulls its part with options.backend; with
///      the cuda backend (or auto choosing it) ranks on one host use device (local rank mod count).
///      options.trace is refused (std::invalid_argument): the rounds are those of K hulls.
template <class T>
HullResult<T> convex_hull(MPI_Comm comm, std::span<const Point2<T>> local, const HullOptions& options = {},
                          ReductionStats* reduction = nullptr);

/// The same, with the result on every rank (one broadcast of the hull after the reduction).
template <class T>
HullResult<T> convex_hull_on_all(MPI_Comm comm, std::span<const Point2<T>> local,
                                 const HullOptions& options = {}, ReductionStats* reduction = nullptr);

/// A rank's part of a point file, split among the ranks of `comm`; collective.
template <class T>
struct LocalPoints {
  PointSet<T> points;
  std::int64_t first_index = 0;  ///< the index of points()[0] in the whole file
  std::int64_t total = 0;        ///< points in the whole file
};

/// Reads this rank's part of `path` (not standard input): binary by byte ranges aligned to points,
/// text and csv by lines (each rank takes a byte range and moves its ends to line starts; a csv
/// header is read by every rank; the seed's count is checked against the total, and as its values
/// may be laid out in any way, a part may end after the first value of the next line when that
/// value completes its last point). With options.require_sorted the order is also checked where
/// one part meets the next. Parts are
/// in file order on rank order and may be empty. An error on any rank is thrown on every rank, as
/// the reader words it, naming the file and the line (or byte offset) in the whole file.
template <class T>
LocalPoints<T> read_local_points(MPI_Comm comm, const std::string& path, const ReadOptions& options = {});

/// Runs `step` on every rank of `comm` and agrees on its outcome: when it throws on any rank, every
/// rank throws the same type (input_error, std::invalid_argument, unsupported_error, cuda_error, else
/// std::runtime_error) with the message of the lowest failing rank. Collective. The entry points
/// above use it for each of their steps.
void all_or_none(MPI_Comm comm, const std::function<void()>& step);

}  // namespace wagener::mpi
