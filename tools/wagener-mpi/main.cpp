// wagener-mpi: `wagener hull` over MPI ranks. Every rank reads its part of the file
// (wagener::mpi::read_local_points), hulls it, and the hulls are merged in a tree to rank 0, which
// writes the result with the wagener command line's own writers. Options and output are those of
// `wagener hull` (the same add_hull_options), apart from the drawings and the trace, which need
// every point or every round in one process and are refused.
#include <mpi.h>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>

#include "cli.hpp"
#include "wagener/mpi.hpp"
#include "wagener/wagener.hpp"

namespace {

using Clock = std::chrono::steady_clock;
namespace cli = wagener::cli;

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

template <class T>
int run_hull(const cli::HullCommand& cmd, MPI_Comm comm) {
  const auto start = Clock::now();
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (!cmd.trace.empty() || !cmd.svg.empty() || !cmd.ps.empty()) {
    throw cli::usage_error(
        "--trace, --svg and --ps are not available in wagener-mpi: they need every point "
        "(or every round) in one process; use wagener hull");
  }
  if (!cmd.memory_limit.empty()) {
    throw cli::usage_error(
        "--memory-limit is not available in wagener-mpi: each rank maps its part of the "
        "file whole; more ranks make the parts smaller");
  }
  const wagener::OutputOptions output = cli::output_options(cmd);
  wagener::ReadOptions read = cli::read_options(cmd);
  read.check_values = false;  // binary: the hull's pass checks the values; a second read names the byte

  const auto local = wagener::mpi::read_local_points<T>(comm, cmd.input, read);
  const double read_ms = milliseconds_since(start);
  double slowest_read_ms = 0;
  MPI_Reduce(&read_ms, &slowest_read_ms, 1, MPI_DOUBLE, MPI_MAX, 0, comm);

  wagener::HullStats stats;
  wagener::mpi::ReductionStats reduction;
  const wagener::HullOptions options = cli::hull_options(cmd, &stats, nullptr);
  wagener::HullResult<T> result;
  try {
    result = wagener::mpi::convex_hull<T>(comm, local.points.points(), options, &reduction);
  } catch (const wagener::input_error&) {
    // A non-finite value in unchecked binary input (every rank threw): read again, checking, so
    // that the message names the file and byte offset.
    read.check_values = true;
    wagener::mpi::read_local_points<T>(comm, cmd.input, read);
    throw;
  }
  // Only rank 0 holds the hull; one agreed outcome of the write keeps every exit code alike.
  const auto write_start = Clock::now();
  wagener::mpi::all_or_none(comm, [&] {
    if (rank == 0) cli::write_result<T>(cmd, result, output);
  });
  const double output_ms = milliseconds_since(write_start);
  if (rank == 0 && cmd.stats) {
    cli::print_stats(stats, cmd.precision, cmd.upper);
    std::fprintf(stderr,
                 "ranks           %d\n"
                 "read (slowest)  %.3f ms\n"
                 "local hulls     %.3f ms (slowest rank), %lld vertices in all\n"
                 "merge wait      %.3f ms (rank 0 waiting for its partners' hulls)\n"
                 "merge receive   %.3f ms\n"
                 "merge           %.3f ms (merge_hulls on rank 0)\n"
                 "output          %.3f ms\n"
                 "total           %.3f ms\n",
                 reduction.ranks, slowest_read_ms, reduction.local_milliseconds,
                 static_cast<long long>(reduction.local_vertices), reduction.wait_milliseconds,
                 reduction.receive_milliseconds, reduction.merge_milliseconds, output_ms,
                 milliseconds_since(start));
  }
  return 0;
}

/// The exit code run_reporting_errors gives an exception, without its message: ranks other than
/// 0 exit alike but silently, so that a failure is reported once.
int silent_exit_code(const std::function<int()>& body) {
  try {
    return body();
  } catch (const wagener::input_error&) {
    return cli::kExitInputError;
  } catch (const cli::usage_error&) {
    return cli::kExitInputError;
  } catch (const std::invalid_argument&) {
    return cli::kExitInputError;
  } catch (const std::exception&) {
    return cli::kExitFailure;
  }
}

int run(int argc, char** argv, int rank) {
  CLI::App app{"wagener-mpi: exact 2D convex hulls over MPI ranks (mpirun -np K wagener-mpi hull FILE)"};
  app.require_subcommand(1);
  app.footer(
      "Each rank reads its part of FILE (binary: a range of points; text and csv: a range of lines),\n"
      "hulls it with --backend (GPU ranks on one host use device local-rank mod count), and the hulls\n"
      "are merged in a tree to rank 0, which writes the hull exactly as `wagener hull` does.\n"
      "Not available: standard input, --trace, --svg, --ps, --memory-limit (exit 2).\n"
      "Exit codes, the same on every rank: 0 success, 2 bad input or usage (one message, from rank 0,\n"
      "naming the file and line or byte), 1 any other failure. No output file is left after an error.");
  cli::HullCommand hull;
  hull.quiet = true;
  auto* hull_cmd = app.add_subcommand("hull", "Compute the convex hull (or upper hull) of a point file");
  cli::add_hull_options(*hull_cmd, hull);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (rank != 0) return e.get_exit_code() == 0 ? 0 : cli::kExitInputError;
    const int code = app.exit(e);
    return code == 0 ? 0 : cli::kExitInputError;
  }
  const auto body = [&] {
    return cli::with_precision(hull.precision, [&]<class T>(T) { return run_hull<T>(hull, MPI_COMM_WORLD); });
  };
  return rank == 0 ? cli::run_reporting_errors(body) : silent_exit_code(body);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int code = run(argc, argv, rank);
  MPI_Finalize();
  return code;
}
