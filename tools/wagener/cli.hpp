// The wagener command line as a library: its options, the pieces of a hull run and the mapping of
// errors to exit codes, shared by the wagener executable, wagener-mpi and the command-line fuzzer.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "wagener/hull.hpp"
#include "wagener/io.hpp"
#include "wagener/output.hpp"

// CLI11 is declared only: the executable's main() and other callers that never build options do
// not compile it (it is header-only; in main.cpp alone it took 10 s of a 2-core machine's build).
namespace CLI {
class App;
}

namespace wagener::cli {

inline constexpr int kExitInputError = 2;  ///< bad input or usage
inline constexpr int kExitFailure = 1;     ///< any other failure

/// The options of `wagener hull` (and of `wagener render`, which sets render).
struct HullCommand {
  std::string input = "-";
  std::string output = "-";
  std::string backend = "auto";
  std::string pram_merge = "seed";
  std::string precision = "double";
  std::string format = "auto";
  std::string columns;   // --columns X,Y ; "" = the default columns
  std::string group_by;  // --group-by COLUMN ; "" = one hull of all the points
  std::string output_format = "auto";
  bool indices = false;
  bool quiet = false;
  bool progress = false;
  bool upper = false;
  bool presorted = false;
  bool stats = false;
  std::string trace;  // --trace FILE (hull) ; "" = none
  std::string trace_format = "auto";
  std::string svg, ps;       // --svg FILE, --ps FILE (hull)
  std::string devices;       // --devices all|LIST ; "" = the current device alone
  std::string memory_limit;  // --memory-limit SIZE ; "" = no limit
  // render only
  bool render = false;
  bool render_trace = false;  // draw the rounds as small multiples
  std::string image_format = "auto";
  int width = 800;
  std::int64_t max_dots = 20000;
};

/// A usage error found after parsing (an option combination): exit code 2, like a parse error.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Adds the options of `wagener hull` to `command`, storing into `hull`.
void add_hull_options(CLI::App& command, HullCommand& hull);

/// The library options a hull command asks for. output_options throws usage_error for --indices
/// with a format that cannot hold them (before any work is done).
wagener::OutputOptions output_options(const HullCommand& cmd);
wagener::ReadOptions read_options(const HullCommand& cmd);
wagener::HullOptions hull_options(const HullCommand& cmd, wagener::HullStats* stats,
                                  wagener::TraceSink* trace);

/// Writes the vertices, or with --indices their input indices, to cmd.output (atomically).
template <class T>
void write_result(const HullCommand& cmd, const wagener::HullResult<T>& result,
                  const wagener::OutputOptions& output);

/// --stats: the backend, the sizes and the times, on stderr.
void print_stats(const wagener::HullStats& stats, const std::string& precision, bool upper);

/// Runs a hull (or render) command in this process: read, hull, write.
int run_hull_command(const HullCommand& cmd);

/// Calls run(T{}) for the coordinate type --precision names: float, double, int32 (std::int32_t) or
/// int64 (std::int64_t), and returns what it returns.
template <class Run>
auto with_precision(const std::string& precision, Run&& run) {
  if (precision == "float") return run(float{});
  if (precision == "int32") return run(std::int32_t{});
  if (precision == "int64") return run(std::int64_t{});
  return run(double{});
}

/// The choices of --precision, --format (input) and --output-format, for the option checks.
inline const std::vector<std::string> kPrecisions = {"double", "float", "int32", "int64"};
inline const std::vector<std::string> kInputFormats = {"auto", "text", "csv", "f32", "f64", "i32", "i64"};

/// Runs body and maps its exceptions to an exit code, printing one line "wagener: MESSAGE" on
/// stderr: input_error, usage_error and std::invalid_argument give kExitInputError, other
/// exceptions kExitFailure.
int run_reporting_errors(const std::function<int()>& body);

/// The whole command line of the wagener executable (its main() is this call).
int run(int argc, char** argv);

}  // namespace wagener::cli
