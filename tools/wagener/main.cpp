// The wagener command line: argument parsing and calls into the library, no algorithm.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
#include <span>
#include <stdexcept>
#include <string>

#include "wagener/wagener.hpp"

namespace {

constexpr int kExitInputError = 2;
constexpr int kExitFailure = 1;

struct HullCommand {
  std::string input = "-";
  std::string output = "-";
  std::string backend = "auto";
  std::string precision = "double";
  std::string format = "auto";
  bool upper = false;
  bool presorted = false;
  bool stats = false;
  std::string trace;  // --trace FILE (hull) ; "" = none
  std::string trace_format = "auto";
  std::string svg, ps;  // --svg FILE, --ps FILE (hull)
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

bool wants_json(const HullCommand& cmd) {
  if (cmd.trace_format != "auto") return cmd.trace_format == "json";
  return cmd.trace.size() >= 5 && cmd.trace.compare(cmd.trace.size() - 5, 5, ".json") == 0;
}

template <class T>
std::string caption(const wagener::HullStats& s, bool upper) {
  char buffer[200];
  std::snprintf(buffer, sizeof buffer, "%lld points (%s), %s of %lld vertices, %s backend, %.3g ms",
                static_cast<long long>(s.points), sizeof(T) == sizeof(float) ? "float" : "double",
                upper ? "upper hull" : "hull", static_cast<long long>(s.hull_vertices),
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
  if (s.survivors > 0) std::fprintf(stderr, "filter kept     %lld\n", static_cast<long long>(s.survivors));
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

template <class T>
int run_hull(const HullCommand& cmd) {
  wagener::ReadOptions read;
  read.format = wagener::parse_format(cmd.format);
  read.require_sorted = cmd.presorted;
  const auto points = wagener::read_points<T>(cmd.input, read);
  const bool tracing = !cmd.trace.empty() || cmd.render_trace;
  if (tracing && cmd.backend == "cpu") {
    throw usage_error("a trace needs --backend pram, cuda or auto; the cpu backend does not report rounds");
  }
  const bool draws_rounds = cmd.render_trace || (!cmd.trace.empty() && (!cmd.svg.empty() || !cmd.ps.empty()));
  if (draws_rounds &&
      static_cast<wagener::index_t>(points.size()) > wagener::RenderOptions::kMaxTracePoints) {
    throw usage_error("rounds are drawn for at most " +
                      std::to_string(wagener::RenderOptions::kMaxTracePoints) + " points; this input has " +
                      std::to_string(points.size()));
  }
  wagener::HullStats stats;
  wagener::TraceLog<T> trace;
  const wagener::HullOptions options{wagener::parse_backend(cmd.backend), &stats, tracing ? &trace : nullptr};
  std::vector<wagener::Point2<T>> hull;
  if (cmd.upper && !cmd.presorted) {
    // upper_hull() takes sorted input; without the promise, sort a copy first.
    std::vector<wagener::Point2<T>> sorted(points.points().begin(), points.points().end());
    std::sort(sorted.begin(), sorted.end(), wagener::lex_less<T>);
    hull = wagener::upper_hull<T>(sorted, options);
  } else {
    hull = cmd.upper ? wagener::upper_hull<T>(points.points(), options)
                     : wagener::convex_hull<T>(points.points(), options);
  }
  const auto start = std::chrono::steady_clock::now();
  const auto rounds = draws_rounds ? std::span<const wagener::TraceRound<T>>(trace.rounds())
                                   : std::span<const wagener::TraceRound<T>>();
  if (cmd.render) {
    const auto format = cmd.image_format == "auto" ? wagener::guess_image_format(cmd.output)
                                                   : wagener::parse_image_format(cmd.image_format);
    write_picture<T>(cmd.output, format, points.points(), hull, rounds, stats, cmd);
  } else {
    wagener::write_points<T>(cmd.output, hull);
    if (!cmd.svg.empty())
      write_picture<T>(cmd.svg, wagener::ImageFormat::svg, points.points(), hull, rounds, stats, cmd);
    if (!cmd.ps.empty()) {
      write_picture<T>(cmd.ps, wagener::ImageFormat::postscript, points.points(), hull, rounds, stats, cmd);
    }
  }
  if (!cmd.trace.empty()) {
    const auto n = static_cast<wagener::index_t>(points.size());
    wagener::write_file_atomically(cmd.trace, wants_json(cmd)
                                                  ? wagener::format_trace_json<T>(trace.rounds(), n)
                                                  : wagener::format_trace_text<T>(trace.rounds(), n));
  }
  const double output_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (cmd.stats) {
    print_stats(stats, cmd.precision, cmd.upper);
    std::fprintf(stderr, "output          %.3f ms\n", output_ms);
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
  std::mt19937_64 rng(cmd.seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<wagener::Point2<double>> pts;
  pts.reserve(static_cast<std::size_t>(cmd.points));
  while (static_cast<std::int64_t>(pts.size()) < cmd.points) {
    const double x = u(rng), y = u(rng);
    if (x * x + y * y <= 1.0) pts.push_back({x, y});
  }
  wagener::HullStats stats;
  const auto hull = wagener::convex_hull<double>(pts, {wagener::parse_backend(cmd.backend), &stats});
  wagener::write_points<double>(cmd.output, hull);
  std::printf("%lld points in a unit disk (seed %llu): hull of %zu vertices in %.3f ms on the %s backend\n",
              static_cast<long long>(cmd.points), static_cast<unsigned long long>(cmd.seed), hull.size(),
              stats.milliseconds, std::string(wagener::backend_name(stats.backend)).c_str());
  std::printf("hull written to %s\n", cmd.output.c_str());
  return 0;
}

struct GenerateCommand {
  std::string distribution = "disk";
  std::int64_t points = 1'000'000;
  std::uint64_t seed = 1;
  std::string output = "-";
  std::string format = "text";
};

/// Writes a test set: disk, square, gaussian, circle or parabola, as text or raw binary.
int run_generate(const GenerateCommand& cmd) {
  std::mt19937_64 rng(cmd.seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::normal_distribution<double> g(0.0, 1.0);
  const std::size_t n = static_cast<std::size_t>(cmd.points);
  std::vector<wagener::Point2<double>> pts;
  pts.reserve(n);
  while (pts.size() < n) {
    const double x = u(rng), y = u(rng);
    if (cmd.distribution == "disk") {
      if (x * x + y * y <= 1.0) pts.push_back({x, y});
    } else if (cmd.distribution == "square") {
      pts.push_back({x, y});
    } else if (cmd.distribution == "gaussian") {
      pts.push_back({g(rng), g(rng)});
    } else if (cmd.distribution == "circle") {
      const double a = M_PI * x;
      pts.push_back({std::cos(a), std::sin(a)});
    } else {  // parabola: sorted, every point on the upper hull
      const double t = static_cast<double>(pts.size()) / static_cast<double>(n) * 2.0 - 1.0;
      pts.push_back({t, -t * t});
    }
  }
  if (cmd.format == "text") {
    wagener::write_points<double>(cmd.output, pts);
  } else if (cmd.format == "f64") {
    wagener::write_file_atomically(
        cmd.output, std::string_view(reinterpret_cast<const char*>(pts.data()), pts.size() * sizeof(pts[0])));
  } else {
    std::vector<wagener::Point2<float>> f(pts.size());
    for (std::size_t i = 0; i < pts.size(); ++i)
      f[i] = {static_cast<float>(pts[i].x), static_cast<float>(pts[i].y)};
    wagener::write_file_atomically(
        cmd.output, std::string_view(reinterpret_cast<const char*>(f.data()), f.size() * sizeof(f[0])));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"wagener: exact 2D convex hulls, built around Wagener's PRAM algorithm"};
  app.set_version_flag("--version", std::string("wagener ") + WAGENER_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Output: one vertex per line, \"x y\" in shortest round-trip decimal.\n"
      "  full hull: strict vertices (no duplicates, no collinear points), counter-clockwise, starting at\n"
      "             the lexicographically smallest (x, then y) vertex;\n"
      "  --upper:   the seed's hood: from the lexicographically smallest to the largest point,\n"
      "             clockwise over the top (left to right).\n"
      "Pictures: `wagener render FILE -o hull.svg` (or .ps); `wagener hull FILE --trace rounds.txt` writes\n"
      "  the hoods after every round (docs/formats.md).\n"
      "Exit codes: 0 success, 2 bad input or usage (one message on stderr naming the file and line),\n"
      "            1 any other failure. No hull is printed after an error.");

  HullCommand hull;
  auto* hull_cmd = app.add_subcommand("hull", "Compute the convex hull (or upper hull) of a point file");
  hull_cmd->add_option("FILE", hull.input, "Input file, '-' for standard input")->capture_default_str();
  hull_cmd->add_flag("--upper", hull.upper, "Print only the upper hull (the seed's hood)");
  hull_cmd->add_flag(
      "--presorted", hull.presorted,
      "Promise input sorted by x, then y; checked while reading (a violation is an input error)");
  hull_cmd
      ->add_option("--backend", hull.backend,
                   "auto: cuda when a device is present and there are at least 65536 points, else cpu")
      ->check(CLI::IsMember({"auto", "cpu", "pram", "cuda"}))
      ->capture_default_str();
  hull_cmd->add_option("--precision", hull.precision, "Coordinate type")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  hull_cmd
      ->add_option(
          "--format", hull.format,
          "Input format: text (the seed's count + pairs, or x y lines), csv, f32/f64 (raw little-endian "
          "x,y pairs); auto decides by extension (.csv .f32 .f64, else text)")
      ->check(CLI::IsMember({"auto", "text", "csv", "f32", "f64"}))
      ->capture_default_str();
  hull_cmd->add_option("-o,--output", hull.output,
                       "Write the hull here (atomically) instead of standard output");
  hull_cmd->add_flag(
      "--stats", hull.stats,
      "Print backend, sizes and time to stderr; with pram also rounds, parallel steps and work");
  hull_cmd->add_option(
      "--trace", hull.trace,
      "Write Wagener's rounds here: after each round the hoods (size, then corners) and each "
      "merge's bridge (docs/formats.md); needs the pram (auto) or cuda backend");
  hull_cmd
      ->add_option("--trace-format", hull.trace_format,
                   "text (the seed's layout) or json; auto: json for .json")
      ->check(CLI::IsMember({"auto", "text", "json"}))
      ->capture_default_str();
  hull_cmd->add_option("--svg", hull.svg,
                       "Also draw the points and the hull as SVG here (with --trace: the rounds too)");
  hull_cmd->add_option("--ps", hull.ps, "Also draw them as PostScript here");

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
  render_cmd->add_option("--precision", render.precision, "Coordinate type")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  render_cmd->add_option("--format", render.format, "Input format: auto, text, csv, f32, f64")
      ->check(CLI::IsMember({"auto", "text", "csv", "f32", "f64"}))
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
  gen_cmd->add_option("--format", gen.format, "text, f32 or f64")
      ->check(CLI::IsMember({"text", "f32", "f64"}))
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

  try {
    if (*hull_cmd) return hull.precision == "float" ? run_hull<float>(hull) : run_hull<double>(hull);
    if (*render_cmd) return render.precision == "float" ? run_hull<float>(render) : run_hull<double>(render);
    if (*demo_cmd) return run_demo(demo);
    if (*gen_cmd) return run_generate(gen);
  } catch (const wagener::input_error& e) {
    std::fprintf(stderr, "wagener: %s\n", e.what());
    return kExitInputError;
  } catch (const usage_error& e) {
    std::fprintf(stderr, "wagener: %s\n", e.what());
    return kExitInputError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wagener: %s\n", e.what());
    return kExitFailure;
  }
  return kExitFailure;
}
