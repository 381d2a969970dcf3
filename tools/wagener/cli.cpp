// The wagener command line: argument parsing and calls into the library, no algorithm.
#include "cli.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "progress_line.hpp"
#include "wagener/wagener.hpp"

namespace wagener::cli {
namespace {

wagener::TraceFormat trace_format(const HullCommand& cmd) {
  return cmd.trace_format == "auto" ? wagener::guess_trace_format(cmd.trace)
                                    : wagener::parse_trace_format(cmd.trace_format);
}

template <class T>
constexpr const char* precision_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, double>) return "double";
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  return "int64";
}

template <class T>
std::string caption(const wagener::HullStats& s, bool upper) {
  char buffer[200];
  std::snprintf(buffer, sizeof buffer, "%lld points (%s), %s of %lld vertices, %s backend, %.3g ms",
                static_cast<long long>(s.points), precision_name<T>(), upper ? "upper hull" : "hull",
                static_cast<long long>(s.hull_vertices),
                std::string(wagener::backend_name(s.backend)).c_str(), s.milliseconds);
  return buffer;
}

template <class T>
void write_picture(const std::string& path, wagener::ImageFormat format,
                   std::span<const wagener::Point2<T>> points, std::span<const wagener::Point2<T>> hull,
                   std::span<const wagener::TraceRound<T>> rounds, const wagener::HullStats& stats,
                   const HullCommand& cmd) {
  wagener::RenderOptions options;
  options.format = format;
  options.width = cmd.width;
  options.max_dots = cmd.max_dots;
  options.closed = !cmd.upper;
  options.caption = caption<T>(stats, cmd.upper);
  wagener::write_file_atomically(path, wagener::render<T>(points, hull, rounds, options));
}

}  // namespace

void print_stats(const wagener::HullStats& s, const std::string& precision, bool upper) {
  std::fprintf(stderr,
               "backend         %s (%s)\n"
               "points          %lld\n"
               "hull vertices   %lld\n"
               "time            %.3f ms\n",
               std::string(wagener::backend_name(s.backend)).c_str(), precision.c_str(),
               static_cast<long long>(s.points), static_cast<long long>(s.hull_vertices), s.milliseconds);
  if (s.backend == wagener::Backend::pram) {
    std::fprintf(stderr,
                 "pram rounds     %lld\n"
                 "parallel steps  %lld\n"
                 "total work      %lld processor-steps\n"
                 "max processors  %lld\n",
                 static_cast<long long>(s.rounds), static_cast<long long>(s.parallel_steps),
                 static_cast<long long>(s.work), static_cast<long long>(s.max_processors));
  }
  if (!s.reading.empty()) std::fprintf(stderr, "reading         %s\n", s.reading.c_str());
  if (s.survivors > 0) std::fprintf(stderr, "filter kept     %lld\n", static_cast<long long>(s.survivors));
  if (s.predicted_cpu_milliseconds > 0) {
    std::fprintf(stderr, "auto predicted  cpu %.1f ms, cuda %.1f ms\nauto because    %s\n",
                 s.predicted_cpu_milliseconds, s.predicted_cuda_milliseconds, s.prediction_basis.c_str());
  }
  if (s.backend == wagener::Backend::cuda && s.device_milliseconds > 0) {
    if (upper) {
      std::fprintf(stderr, "copy to device  %.3f ms\ndevice time     %.3f ms\n", s.transfer_milliseconds,
                   s.device_milliseconds);
    } else {  // the chunks are filtered as they land
      std::fprintf(stderr, "copy + filter   %.3f ms\nsort + chains   %.3f ms\n", s.transfer_milliseconds,
                   s.device_milliseconds);
    }
  }
}

wagener::OutputOptions output_options(const HullCommand& cmd) {
  wagener::OutputOptions output;
  output.format = cmd.output_format == "auto" ? wagener::guess_output_format(cmd.output)
                                              : wagener::parse_output_format(cmd.output_format);
  output.closed = !cmd.upper;
  if (cmd.indices) {
    try {
      wagener::format_indices({}, output);  // refuses a format that cannot hold indices, before any work
    } catch (const std::invalid_argument& e) {
      throw usage_error(e.what());
    }
  }
  return output;
}

wagener::ReadOptions read_options(const HullCommand& cmd) {
  wagener::ReadOptions read;
  read.format = wagener::parse_format(cmd.format);
  read.require_sorted = cmd.presorted;
  if (!cmd.columns.empty()) read.columns = wagener::parse_column_selection(cmd.columns);
  // A binary file is checked for NaN and infinity by the hull's own pass, not by a pass of its own:
  // one read of memory instead of two; hull_of_file reads a named file again to name the byte at
  // fault. Where every point is kept (pictures, a trace, indices), the reader checks them.
  read.check_values = cmd.input == "-" || cmd.render || !cmd.svg.empty() || !cmd.ps.empty() ||
                      !cmd.trace.empty() || cmd.render_trace || cmd.indices;
  return read;
}

wagener::HullOptions hull_options(const HullCommand& cmd, wagener::HullStats* stats,
                                  wagener::TraceSink* trace) {
  wagener::HullOptions options{wagener::parse_backend(cmd.backend), stats, trace};
  options.part = cmd.upper ? wagener::HullPart::upper : wagener::HullPart::full;
  options.presorted = cmd.presorted;  // checked by the hull's own pass (hull_of_file, compute_hull)
  options.indices = cmd.indices;
  options.pram_merge = wagener::parse_pram_merge(cmd.pram_merge);
  if (!cmd.devices.empty()) options.devices = wagener::parse_devices(cmd.devices);
  return options;
}

template <class T>
void write_result(const HullCommand& cmd, const wagener::HullResult<T>& result,
                  const wagener::OutputOptions& output) {
  if (cmd.indices) {
    wagener::write_indices(cmd.output, result.indices, output);
  } else {
    wagener::write_hull<T>(cmd.output, result.vertices, output);
  }
}
template void write_result<float>(const HullCommand&, const wagener::HullResult<float>&,
                                  const wagener::OutputOptions&);
template void write_result<double>(const HullCommand&, const wagener::HullResult<double>&,
                                   const wagener::OutputOptions&);
template void write_result<std::int32_t>(const HullCommand&, const wagener::HullResult<std::int32_t>&,
                                         const wagener::OutputOptions&);
template void write_result<std::int64_t>(const HullCommand&, const wagener::HullResult<std::int64_t>&,
                                         const wagener::OutputOptions&);

namespace {

/// --memory-limit: the file is read and hulled a chunk at a time (wagener/stream.hpp), so nothing
/// that needs every point at once (pictures, a trace, indices, the check of --presorted) applies.
template <class T>
int run_streamed_hull(const HullCommand& cmd, const wagener::OutputOptions& output, ProgressLine& progress) {
  const auto refuse = [](const char* what) {
    throw usage_error(std::string(what) + " needs every point at once: it takes no --memory-limit");
  };
  if (cmd.render || !cmd.svg.empty() || !cmd.ps.empty()) refuse("a picture");
  if (!cmd.trace.empty()) refuse("a trace");
  if (cmd.indices) refuse("--indices");
  if (cmd.presorted) refuse("--presorted (checked over the whole input)");
  wagener::HullStats stats;
  wagener::HullOptions options = hull_options(cmd, &stats, nullptr);
  options.presorted = false;
  options.memory_limit = wagener::parse_memory_size(cmd.memory_limit);
  wagener::ReadOptions read = read_options(cmd);
  read.require_sorted = false;
  progress.phase("hulling " + (cmd.input == "-" ? std::string("standard input") : cmd.input) + " in chunks");
  const auto result = wagener::hull_of_file<T>(cmd.input, read, options);
  progress.phase("writing " + (cmd.output == "-" ? std::string("the hull") : cmd.output));
  const auto start = std::chrono::steady_clock::now();
  write_result<T>(cmd, result, output);
  const double output_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  progress.finish();
  if (cmd.stats) {
    print_stats(stats, cmd.precision, cmd.upper);
    std::fprintf(stderr, "memory limit    %s (%zu bytes)\n", cmd.memory_limit.c_str(), options.memory_limit);
    std::fprintf(stderr, "output          %.3f ms\n", output_ms);
  }
  return 0;
}

/// Whether a double-precision run may hull the input's floats where they lie and widen only the
/// vertices: the input is float records (.f32) and nothing but the hull is asked for (no trace, no
/// picture, no bounded memory). Read as doubles, a mapped file of 10^7 floats was widened into a
/// fresh 160 MB array, 85 % of a 40 ms process spent clearing its pages (bench/NOTES.md). Widening
/// a float is exact and the predicates are exact, so the vertices, their indices and every output
/// byte are the same either way.
bool hulls_floats_widened(const HullCommand& cmd) {
  const wagener::Format format =
      cmd.format == "auto" ? wagener::guess_format(cmd.input) : wagener::parse_format(cmd.format);
  return cmd.precision == "double" && format == wagener::Format::f32 && cmd.memory_limit.empty() &&
         cmd.trace.empty() && !cmd.render && !cmd.render_trace && cmd.svg.empty() && cmd.ps.empty();
}

/// The hull in T, written in Out (T, or double for floats: hulls_floats_widened).
template <class T, class Out = T>
int run_hull(const HullCommand& cmd) {
  const bool tracing = !cmd.trace.empty() || cmd.render_trace;
  if (tracing && cmd.backend == "cpu") {
    throw usage_error("a trace needs --backend pram, cuda or auto; the cpu backend does not report rounds");
  }
  if (tracing && cmd.pram_merge == "optimal") {
    throw usage_error("a trace shows the seed's rounds: --pram-merge optimal has other rounds");
  }
  const wagener::OutputOptions output = output_options(cmd);
  // The device is not started while the input is read: its start-up slowed the reading and the
  // CPU's hull by 40-130 ms on the H100 machine (bench/NOTES.md, "Starting the device early"), and
  // auto picks the CPU for most inputs. auto starts it once the cost model has chosen it.

  ProgressLine progress(!cmd.quiet && (cmd.progress || ::isatty(STDERR_FILENO) == 1));
  if (!cmd.memory_limit.empty()) return run_streamed_hull<T>(cmd, output, progress);
  const std::string input_name = cmd.input == "-" ? std::string("standard input") : cmd.input;
  const wagener::ReadOptions read = read_options(cmd);
  wagener::HullStats stats;
  wagener::TraceLog<T> trace;
  const wagener::HullOptions options = hull_options(cmd, &stats, tracing ? &trace : nullptr);
  const bool draws_rounds = cmd.render_trace || (!cmd.trace.empty() && (!cmd.svg.empty() || !cmd.ps.empty()));
  // Only pictures, a trace and indices need every point here; the hull alone comes from
  // hull_of_file, which reads the file as suits it (mapped where the page cache holds it, else
  // filtered block by block as many reads in flight bring it in; whole, with --presorted, whose
  // promise the hull's pass checks).
  const bool hull_only = !tracing && !cmd.render && cmd.svg.empty() && cmd.ps.empty() && !cmd.indices;
  wagener::PointSet<T> points;
  wagener::HullResult<T> result;
  if (hull_only) {
    progress.phase("reading and hulling " + input_name);
    result = wagener::hull_of_file<T>(cmd.input, read, options);
  } else {
    progress.phase("reading " + input_name);
    points = wagener::read_points<T>(cmd.input, read);
    if (draws_rounds &&
        static_cast<wagener::index_t>(points.size()) > wagener::RenderOptions::kMaxTracePoints) {
      throw usage_error("rounds are drawn for at most " +
                        std::to_string(wagener::RenderOptions::kMaxTracePoints) + " points; this input has " +
                        std::to_string(points.size()));
    }
    progress.phase("hulling " + std::to_string(points.size()) + " points");
    result = wagener::compute_hull<T>(points.points(), options);  // values checked while reading
  }
  const auto& hull = result.vertices;

  progress.phase("writing " + (cmd.output == "-" ? std::string("the hull") : cmd.output));
  const auto start = std::chrono::steady_clock::now();
  const auto rounds = draws_rounds ? std::span<const wagener::TraceRound<T>>(trace.rounds())
                                   : std::span<const wagener::TraceRound<T>>();
  if (cmd.render) {
    const auto format = cmd.image_format == "auto" ? wagener::guess_image_format(cmd.output)
                                                   : wagener::parse_image_format(cmd.image_format);
    write_picture<T>(cmd.output, format, points.points(), hull, rounds, stats, cmd);
  } else {
    if constexpr (std::is_same_v<T, Out>) {
      write_result<T>(cmd, result, output);
    } else {
      wagener::HullResult<Out> widened{{}, result.indices};
      widened.vertices.reserve(hull.size());
      for (const auto& v : hull) widened.vertices.push_back({static_cast<Out>(v.x), static_cast<Out>(v.y)});
      write_result<Out>(cmd, widened, output);
    }
    if (!cmd.svg.empty())
      write_picture<T>(cmd.svg, wagener::ImageFormat::svg, points.points(), hull, rounds, stats, cmd);
    if (!cmd.ps.empty()) {
      write_picture<T>(cmd.ps, wagener::ImageFormat::postscript, points.points(), hull, rounds, stats, cmd);
    }
  }
  if (!cmd.trace.empty()) {
    const auto n = static_cast<wagener::index_t>(points.size());
    const auto format = trace_format(cmd);
    wagener::RoundsPageOptions page;
    page.closed = !cmd.upper;
    page.title = "Wagener's rounds: " + (cmd.input == "-" ? std::string("standard input") : cmd.input);
    page.caption = caption<T>(stats, cmd.upper);
    wagener::write_file_atomically(
        cmd.trace, format == wagener::TraceFormat::html
                       ? wagener::render_rounds_page<T>(points.points(), hull, trace.rounds(), page)
                   : format == wagener::TraceFormat::json ? wagener::format_trace_json<T>(trace.rounds(), n)
                                                          : wagener::format_trace_text<T>(trace.rounds(), n));
  }
  const double output_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  progress.finish();
  if (cmd.stats) {
    print_stats(stats, cmd.precision, cmd.upper);
    std::fprintf(stderr, "output          %.3f ms\n", output_ms);
  }
  return 0;
}

/// The output format of grouped hulls: csv unless asked (or named by the extension of -o) otherwise.
wagener::OutputOptions grouped_output_options(const HullCommand& cmd) {
  wagener::OutputOptions output;
  if (cmd.output_format != "auto") {
    output.format = wagener::parse_output_format(cmd.output_format);
  } else {
    const wagener::OutputFormat guessed = wagener::guess_output_format(cmd.output);
    const bool by_extension = guessed != wagener::OutputFormat::text || cmd.output.ends_with(".txt");
    output.format = by_extension ? guessed : wagener::OutputFormat::csv;
  }
  using F = wagener::OutputFormat;
  if (output.format != F::csv && output.format != F::text && output.format != F::json) {
    throw usage_error("--group-by writes csv, text or json: --output-format " +
                      std::string(wagener::output_format_name(output.format)) + " cannot hold group ids");
  }
  return output;
}

/// wagener hull FILE.csv --group-by COLUMN: one hull per group, the groups in the order of their
/// first rows, each with its id.
template <class T>
int run_grouped(const HullCommand& cmd) {
  if (cmd.render || !cmd.trace.empty() || !cmd.svg.empty() || !cmd.ps.empty()) {
    throw usage_error(
        "--group-by writes the groups' hulls only: --trace, --svg, --ps and render take one hull");
  }
  if (cmd.presorted)
    throw usage_error("--presorted promises one sorted sequence; --group-by takes any order");
  const wagener::OutputOptions output = grouped_output_options(cmd);
  ProgressLine progress(!cmd.quiet && (cmd.progress || ::isatty(STDERR_FILENO) == 1));
  progress.phase("reading " + (cmd.input == "-" ? std::string("standard input") : cmd.input));
  const auto input = wagener::read_grouped_points<T>(cmd.input, cmd.group_by, read_options(cmd));
  wagener::HullStats stats;
  const wagener::HullOptions options = hull_options(cmd, &stats, nullptr);
  progress.phase("hulling " + std::to_string(input.group_names.size()) + " groups");
  const auto hulls = wagener::convex_hulls_by_id<T>(input.points, input.group_ids, options);
  progress.phase("writing " + (cmd.output == "-" ? std::string("the hulls") : cmd.output));
  // The reader numbers the groups in the order of their first rows, as convex_hulls_by_id orders
  // them: group g's id is group_names[hulls.group_ids[g]].
  std::vector<std::string> ids;
  ids.reserve(hulls.group_ids.size());
  for (const std::int64_t g : hulls.group_ids) ids.push_back(input.group_names[static_cast<std::size_t>(g)]);
  wagener::GroupedOutput<T> grouped;
  grouped.ids = ids;
  grouped.id_header = input.group_column;
  grouped.offsets = hulls.offsets;
  grouped.vertices = hulls.vertices;
  grouped.indices = hulls.indices;
  grouped.with_indices = cmd.indices;
  wagener::write_grouped_hulls<T>(cmd.output, grouped, output);
  progress.finish();
  if (cmd.stats) {
    print_stats(stats, cmd.precision, cmd.upper);
    std::fprintf(stderr, "groups          %zu\n", ids.size());
  }
  return 0;
}

struct DemoCommand {
  std::int64_t points = 1'000'000;
  std::uint64_t seed = 1;
  std::string output = "hull.txt";
  std::string backend = "auto";
};

/// The built-in default job: a uniform disk of points, its hull, where it went.
int run_demo(const DemoCommand& cmd) {
  wagener::GenerateOptions generate;
  generate.distribution = wagener::Distribution::disk;
  generate.count = static_cast<std::uint64_t>(cmd.points);
  generate.seed = cmd.seed;
  std::vector<wagener::Point2<double>> pts(static_cast<std::size_t>(cmd.points));
  wagener::generate_points<double>(pts, 0, generate);
  wagener::HullStats stats;
  const auto hull = wagener::convex_hull<double>(pts, {wagener::parse_backend(cmd.backend), &stats});
  wagener::write_points<double>(cmd.output, hull);
  std::printf("%lld points in a unit disk (seed %llu): hull of %zu vertices in %.3f ms on the %s backend\n",
              static_cast<long long>(cmd.points), static_cast<unsigned long long>(cmd.seed), hull.size(),
              stats.milliseconds, std::string(wagener::backend_name(stats.backend)).c_str());
  std::printf("hull written to %s\n", cmd.output.c_str());
  return 0;
}

struct CalibrateCommand {
  bool cpu_only = false;
};

/// Measures auto's rates on this machine now (wagener/calibration.hpp), caches them and prints them.
int run_calibrate(const CalibrateCommand& cmd) {
  const wagener::MachineRates r = wagener::machine_rates(!cmd.cpu_only, /*remeasure=*/true);
  std::printf("machine         %s\n", r.machine.c_str());
  std::printf("measured        %s in %.0f ms\n", r.measured_at.c_str(), r.measuring_ms);
  std::printf("cached in       %s\n",
              r.cache_path.empty() ? "(nowhere: set XDG_CACHE_HOME or HOME)" : r.cache_path.c_str());
  std::printf(
      "cpu             %.3g GB/s filter, %.3g GB/s presorted upper, %.3g ns a survivor, %.3g ms a call\n",
      r.cpu.stream_gbs, r.cpu.sorted_upper_gbs, r.cpu.ns_per_survivor, r.cpu.fixed_ms);
  if (r.gpu.measured()) {
    std::printf("device          %s\n", r.device.c_str());
    std::printf(
        "cuda            start %.0f ms, first call %.0f ms, %.3g GB/s copy + filter, %.3g/%.3g ns a "
        "survivor (double/float), %.3g ms a call\n",
        r.gpu.startup_ms, r.gpu.first_call_ms, r.gpu.copy_gbs, r.gpu.ns_per_survivor_double,
        r.gpu.ns_per_survivor_float, r.gpu.fixed_ms);
  } else {
    std::printf("cuda            %s\n", cmd.cpu_only ? "not measured (--cpu-only)" : "no usable device");
  }
  return 0;
}

struct GenerateCommand {
  std::string distribution = "disk";
  std::int64_t points = 1'000'000;
  std::uint64_t seed = 1;
  std::string output = "-";
  std::string format = "auto";
};

/// Writes a test set: disk, square, gaussian, circle or parabola, as text, csv or raw binary; the
/// same bytes for the same seed whatever the number of threads.
int run_generate(const GenerateCommand& cmd) {
  wagener::GenerateOptions options;
  options.distribution = wagener::parse_distribution(cmd.distribution);
  options.count = static_cast<std::uint64_t>(cmd.points);
  options.seed = cmd.seed;
  wagener::write_generated(cmd.output, options, wagener::parse_format(cmd.format));
  return 0;
}

}  // namespace

void add_hull_options(CLI::App& command, HullCommand& hull) {
  command.add_option("FILE", hull.input, "Input file, '-' for standard input")->capture_default_str();
  command.add_flag("--upper", hull.upper,
                   "Print only the upper hull (the seed's hood); unsorted input goes through the full "
                   "hull's filter, not a sort");
  command.add_flag(
      "--presorted", hull.presorted,
      "Promise input sorted by x, then y; checked (a violation is an input error naming its line or byte)");
  command
      .add_option("--backend", hull.backend,
                  "auto: the backend predicted to finish first (the cpu for small inputs and without a "
                  "device; --stats shows the predictions)")
      ->check(CLI::IsMember({"auto", "cpu", "pram", "cuda"}))
      ->capture_default_str();
  command
      .add_option("--pram-merge", hull.pram_merge,
                  "The merge --backend pram emulates: seed (the seed's rounds, O(n log n) work; the "
                  "one a trace shows) or optimal (strips of log n points, hoods kept in place, bridges "
                  "by nested sampling: O(n) work)")
      ->check(CLI::IsMember({"seed", "optimal"}))
      ->capture_default_str();
  command
      .add_option("--precision", hull.precision,
                  "Coordinate type: double, float, or int32/int64 (decimal integers in text and csv, "
                  "written as integers; hulled exactly over their whole range; a token that is not an "
                  "integer, or out of range, is bad input). An f32 file at double precision is hulled as "
                  "the floats it holds, only the vertices widened: the same output")
      ->check(CLI::IsMember(kPrecisions))
      ->capture_default_str();
  command
      .add_option(
          "--format", hull.format,
          "Input format: text (the seed's count + pairs, or x y lines), csv, f32/f64/i32/i64 (raw "
          "little-endian x,y pairs of float, double, int32, int64); auto decides by extension (.csv .f32 "
          ".f64 .i32 .i64, else text). A value --precision cannot hold exactly is bad input (doubles "
          "read as float are rounded)")
      ->check(CLI::IsMember(kInputFormats))
      ->capture_default_str();
  const auto column_check = [](const std::string& spec) -> std::string {
    try {
      wagener::parse_column_selection(spec);
      return {};
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
  };
  command
      .add_option("--columns", hull.columns,
                  "CSV or text columns holding x and y: header names or 0-based indices, e.g. "
                  "--columns lon,lat or --columns 2,3 (default: the two columns, or those named x "
                  "and y)")
      ->check(column_check);
  command
      .add_option("--group-by", hull.group_by,
                  "One hull per group: the csv column (header name or 0-based index) holding each row's "
                  "group id (any text); prints id,x,y rows (csv, also text or json), group after group in "
                  "the order of each id's first row")
      ->check([](const std::string& spec) -> std::string {
        return spec.find_first_not_of(" \t") == std::string::npos ? "the group column is empty" : "";
      });
  command.add_option("-o,--output", hull.output,
                     "Write the hull here (atomically) instead of standard output");
  command
      .add_option("--output-format", hull.output_format,
                  "text (x y lines), csv, json, geojson, wkt, f32/f64/i32/i64 (raw little-endian x,y "
                  "pairs; an integer vertex f32 or f64 cannot hold exactly, or a float vertex that is "
                  "not an integer in range for i32/i64, is refused); auto decides by the extension of "
                  "-o (.csv .json .geojson .wkt .f32 .f64 .i32 .i64), else text")
      ->check(CLI::IsMember({"auto", "text", "csv", "json", "geojson", "wkt", "f32", "f64", "i32", "i64"}))
      ->capture_default_str();
  command.add_flag("--indices", hull.indices,
                   "Print the 0-based input indices of the vertices instead of their coordinates, in "
                   "the same order (scipy's ConvexHull.vertices); the smallest index of repeated points");
  command.add_flag("-q,--quiet", hull.quiet, "No progress line on stderr");
  command.add_flag("--progress", hull.progress,
                   "Show the progress line also when stderr is not a terminal (it shows on a terminal "
                   "once reading or hulling takes over a second)");
  command.add_flag("--stats", hull.stats,
                   "Print backend, sizes and time to stderr; with pram also rounds, parallel steps and work");
  command.add_option("--trace", hull.trace,
                     "Write Wagener's rounds here: after each round the hoods (size, then corners) and each "
                     "merge's bridge (docs/formats.md), or a page to step through them in a browser; needs "
                     "the pram (auto) or cuda backend");
  command
      .add_option("--trace-format", hull.trace_format,
                  "text (the seed's layout), json, or html (one self-contained page: a slider and the "
                  "arrow keys step through the rounds); auto: json for .json, html for .html and .htm")
      ->check(CLI::IsMember({"auto", "text", "json", "html"}))
      ->capture_default_str();
  command.add_option("--svg", hull.svg,
                     "Also draw the points and the hull as SVG here (with --trace: the rounds too)");
  command.add_option("--ps", hull.ps, "Also draw them as PostScript here");
  command
      .add_option("--devices", hull.devices,
                  "Several GPUs of this machine (cuda or auto backend): all, or device numbers such as "
                  "0,1; the points are split among them and their hulls merged")
      ->check([](const std::string& list) -> std::string {
        try {
          wagener::parse_devices(list);
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      });
  command
      .add_option("--memory-limit", hull.memory_limit,
                  "Hull in bounded memory, e.g. 512M or 2G (at least 1M): the file is read a chunk at a "
                  "time, each chunk filtered against the hull so far and merged into it; hull-like input "
                  "whose hull outgrows an eighth of the limit fails (exit 1). Not with pictures, --trace, "
                  "--indices or --presorted")
      ->check([](const std::string& size) -> std::string {
        try {
          if (wagener::parse_memory_size(size) < wagener::kMinMemoryLimit)
            return "a memory limit must be at least 1M";
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      });
}

int run_hull_command(const HullCommand& cmd) {
  if (!cmd.group_by.empty())
    return with_precision(cmd.precision, [&]<class T>(T) { return run_grouped<T>(cmd); });
  if (hulls_floats_widened(cmd)) return run_hull<float, double>(cmd);
  return with_precision(cmd.precision, [&]<class T>(T) { return run_hull<T>(cmd); });
}

int run_reporting_errors(const std::function<int()>& body) {
  try {
    return body();
  } catch (const wagener::input_error& e) {
    std::fprintf(stderr, "wagener: %s\n", e.what());
    return kExitInputError;
  } catch (const usage_error& e) {
    std::fprintf(stderr, "wagener: %s\n", e.what());
    return kExitInputError;
  } catch (const std::invalid_argument& e) {  // a value the chosen output cannot hold, a bad name
    std::fprintf(stderr, "wagener: %s\n", e.what());
    return kExitInputError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wagener: %s\n", e.what());
    return kExitFailure;
  }
}

int run(int argc, char** argv) {
  CLI::App app{"wagener: exact 2D convex hulls, built around Wagener's PRAM algorithm"};
  app.set_version_flag("--version", std::string("wagener ") + WAGENER_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Output: one vertex per line, \"x y\" in shortest round-trip decimal, integers as integers\n"
      "  (--output-format for csv, json, geojson, wkt, f32, f64, i32, i64; --indices for the vertices'\n"
      "  input indices).\n"
      "  full hull: strict vertices (no duplicates, no collinear points), counter-clockwise, starting at\n"
      "             the lexicographically smallest (x, then y) vertex;\n"
      "  --upper:   the seed's hood: from the lexicographically smallest to the largest point,\n"
      "             clockwise over the top (left to right).\n"
      "Pictures: `wagener render FILE -o hull.svg` (or .ps); `wagener hull FILE --trace rounds.txt` writes\n"
      "  the hoods after every round (docs/formats.md), `--trace rounds.html` a page that steps through "
      "them.\n"
      "Exit codes: 0 success, 2 bad input or usage (one message on stderr naming the file and line),\n"
      "            1 any other failure. No hull is printed after an error.");

  HullCommand hull;
  auto* hull_cmd = app.add_subcommand("hull", "Compute the convex hull (or upper hull) of a point file");
  add_hull_options(*hull_cmd, hull);

  HullCommand render;
  render.render = true;
  auto* render_cmd = app.add_subcommand(
      "render",
      "Draw the points and their hull as SVG or PostScript (dots, or a density raster beyond --max-dots)");
  render_cmd->add_option("FILE", render.input, "Input file, '-' for standard input")->capture_default_str();
  render_cmd
      ->add_option("-o,--output", render.output, "Picture file (written atomically); '-' for standard output")
      ->capture_default_str();
  render_cmd->add_option("--image-format", render.image_format, "svg or ps; auto: ps for .ps/.eps, else svg")
      ->check(CLI::IsMember({"auto", "svg", "ps"}))
      ->capture_default_str();
  render_cmd->add_flag(
      "--trace", render.render_trace,
      "Also draw Wagener's rounds as small multiples, bridges highlighted (pram backend, at most "
      "4096 points)");
  render_cmd->add_flag("--upper", render.upper, "Draw only the upper hull (the seed's hood)");
  render_cmd->add_flag("--presorted", render.presorted, "Promise input sorted by x, then y (checked)");
  render_cmd->add_option("--backend", render.backend, "auto, cpu, pram or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "pram", "cuda"}))
      ->capture_default_str();
  render_cmd->add_option("--precision", render.precision, "Coordinate type: double, float, int32, int64")
      ->check(CLI::IsMember(kPrecisions))
      ->capture_default_str();
  render_cmd->add_option("--format", render.format, "Input format: auto, text, csv, f32, f64, i32, i64")
      ->check(CLI::IsMember(kInputFormats))
      ->capture_default_str();
  render_cmd->add_option("--width", render.width, "Picture width in pixels (SVG) or points (PostScript)")
      ->check(CLI::Range(200, 20000))
      ->capture_default_str();
  render_cmd
      ->add_option("--max-dots", render.max_dots, "Draw every point up to this many, else a density raster")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  render_cmd->add_flag("--stats", render.stats, "Print backend, sizes, hull time and drawing time to stderr");

  DemoCommand demo;
  auto* demo_cmd = app.add_subcommand("demo", "The built-in default job: hull of a generated disk of points");
  demo_cmd->add_option("-n,--points", demo.points, "Number of points")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  demo_cmd->add_option("--seed", demo.seed, "Random seed")->capture_default_str();
  demo_cmd->add_option("-o,--output", demo.output, "Where to write the hull")->capture_default_str();
  demo_cmd->add_option("--backend", demo.backend, "auto, cpu, pram or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "pram", "cuda"}))
      ->capture_default_str();

  CalibrateCommand calibrate;
  auto* calibrate_cmd = app.add_subcommand(
      "calibrate",
      "Measure this machine's rates for --backend auto now (0.2-1 s), cache and print them; auto measures "
      "them by itself when its cache lacks them");
  calibrate_cmd->add_flag("--cpu-only", calibrate.cpu_only, "Measure the CPU backend only, not the device");

  GenerateCommand gen;
  auto* gen_cmd = app.add_subcommand("generate", "Write a random point set (for tests and benchmarks)");
  gen_cmd->add_option("--distribution", gen.distribution, "disk, square, gaussian, circle or parabola")
      ->check(CLI::IsMember({"disk", "square", "gaussian", "circle", "parabola"}))
      ->capture_default_str();
  gen_cmd->add_option("-n,--points", gen.points, "Number of points")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  gen_cmd->add_option("--seed", gen.seed, "Random seed")->capture_default_str();
  gen_cmd->add_option("-o,--output", gen.output, "Output file, '-' for standard output")
      ->capture_default_str();
  gen_cmd
      ->add_option("--format", gen.format, "text, csv, f32 or f64; auto: by the extension of -o, else text")
      ->check(CLI::IsMember({"auto", "text", "csv", "f32", "f64"}))
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitInputError;
  }

  return run_reporting_errors([&] {
    if (*hull_cmd) return run_hull_command(hull);
    if (*render_cmd) return run_hull_command(render);
    if (*demo_cmd) return run_demo(demo);
    if (*gen_cmd) return run_generate(gen);
    if (*calibrate_cmd) return run_calibrate(calibrate);
    return kExitFailure;
  });
}

}  // namespace wagener::cli
