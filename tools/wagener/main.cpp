// The wagener command line: argument parsing and calls into the library, no algorithm.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
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
};

void print_stats(const wagener::HullStats& s, const std::string& precision) {
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
}

template <class T>
int run_hull(const HullCommand& cmd) {
  wagener::ReadOptions read;
  read.format = wagener::parse_format(cmd.format);
  read.require_sorted = cmd.presorted;
  const auto points = wagener::read_points<T>(cmd.input, read);
  wagener::HullStats stats;
  const wagener::HullOptions options{wagener::parse_backend(cmd.backend), &stats};
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
  wagener::write_points<T>(cmd.output, hull);
  if (cmd.stats) print_stats(stats, cmd.precision);
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
      "Exit codes: 0 success, 2 bad input or usage (one message on stderr naming the file and line),\n"
      "            1 any other failure. No hull is printed after an error.");

  HullCommand hull;
  auto* hull_cmd = app.add_subcommand("hull", "Compute the convex hull (or upper hull) of a point file");
  hull_cmd->add_option("FILE", hull.input, "Input file, '-' for standard input")->capture_default_str();
  hull_cmd->add_flag("--upper", hull.upper, "Print only the upper hull (the seed's hood)");
  hull_cmd->add_flag(
      "--presorted", hull.presorted,
      "Promise input sorted by x, then y; checked while reading (a violation is an input error)");
  hull_cmd->add_option("--backend", hull.backend, "auto picks cuda when a device is present, else cpu")
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
    if (*demo_cmd) return run_demo(demo);
    if (*gen_cmd) return run_generate(gen);
  } catch (const wagener::input_error& e) {
    std::fprintf(stderr, "wagener: %s\n", e.what());
    return kExitInputError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wagener: %s\n", e.what());
    return kExitFailure;
  }
  return kExitFailure;
}
