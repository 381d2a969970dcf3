// The dispatcher: picks a backend and keeps the statistics. The only file that knows them all.
#include "wagener/hull.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "core/chains.hpp"
#include "cpu/monotone_chain.hpp"
#include "cuda/cuda_backend.hpp"
#include "pram/pram_hull.hpp"
#include "wagener/error.hpp"

namespace wagener {
namespace {

Backend resolve(Backend requested) {
  if (requested != Backend::automatic) return requested;
  return cuda::device_available() ? Backend::cuda : Backend::cpu;
}

template <class T>
void require_finite(std::span<const Point2<T>> points) {
  const auto bad = cpu::first_non_finite(points);
  if (bad >= 0) throw input_error("point " + std::to_string(bad) + " is not finite");
}

template <class T>
void require_sorted(std::span<const Point2<T>> points) {
  const auto bad = cpu::first_unsorted(points);
  if (bad >= 0) {
    throw input_error("points are not sorted by (x, y): point " + std::to_string(bad) +
                      " is smaller than point " + std::to_string(bad - 1));
  }
}

void add_pram_counters(HullStats& stats, const pram::Counters& c) {
  stats.rounds += c.rounds;
  stats.parallel_steps += c.parallel_steps;
  stats.work += c.work;
  stats.max_processors = std::max(stats.max_processors, c.max_processors);
}

template <class F>
auto timed(HullStats& stats, F&& f) {
  const auto start = std::chrono::steady_clock::now();
  auto result = f();
  stats.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

Backend parse_backend(std::string_view name) {
  if (name == "auto") return Backend::automatic;
  if (name == "cpu") return Backend::cpu;
  if (name == "pram") return Backend::pram;
  if (name == "cuda") return Backend::cuda;
  throw std::invalid_argument("unknown backend \"" + std::string(name) + "\" (auto, cpu, pram, cuda)");
}

std::string_view backend_name(Backend backend) {
  switch (backend) {
    case Backend::automatic: return "auto";
    case Backend::cpu: return "cpu";
    case Backend::pram: return "pram";
    case Backend::cuda: return "cuda";
  }
  return "?";
}

bool cuda_available() {
  return cuda::device_available();
}

template <class T>
std::vector<Point2<T>> upper_hull(std::span<const Point2<T>> sorted, const HullOptions& options) {
  HullStats stats;
  stats.backend = resolve(options.backend);
  stats.points = static_cast<std::int64_t>(sorted.size());
  require_finite(sorted);
  require_sorted(sorted);
  auto hull = timed(stats, [&] {
    switch (stats.backend) {
      case Backend::pram: {
        pram::Counters counters;
        auto h = pram::upper_hull(sorted, &counters);
        add_pram_counters(stats, counters);
        return h;
      }
      case Backend::cuda: return cuda::upper_hull(sorted, &stats);
      default: return cpu::upper_chain(sorted);
    }
  });
  stats.hull_vertices = static_cast<std::int64_t>(hull.size());
  if (options.stats) *options.stats = stats;
  return hull;
}

template <class T>
std::vector<Point2<T>> convex_hull(std::span<const Point2<T>> points, const HullOptions& options) {
  HullStats stats;
  stats.backend = resolve(options.backend);
  stats.points = static_cast<std::int64_t>(points.size());
  auto hull = timed(stats, [&] {
    switch (stats.backend) {
      case Backend::pram: {
        require_finite(points);
        std::vector<Point2<T>> sorted(points.begin(), points.end());
        std::sort(sorted.begin(), sorted.end(), lex_less<T>);
        auto pram_upper = [&](std::span<const Point2<T>> s) {
          pram::Counters counters;
          auto h = pram::upper_hull(s, &counters);
          add_pram_counters(stats, counters);
          return h;
        };
        const auto upper = pram_upper(sorted);
        const auto lower = core::lower_chain_by_reflection<T>(sorted, pram_upper);
        return core::join_chains<T>(lower, upper);
      }
      case Backend::cuda: return cuda::convex_hull(points, &stats);
      default: return cpu::convex_hull_parallel(points, &stats.survivors);
    }
  });
  stats.hull_vertices = static_cast<std::int64_t>(hull.size());
  if (options.stats) *options.stats = stats;
  return hull;
}

template std::vector<Point2<float>> upper_hull(std::span<const Point2<float>>, const HullOptions&);
template std::vector<Point2<double>> upper_hull(std::span<const Point2<double>>, const HullOptions&);
template std::vector<Point2<float>> convex_hull(std::span<const Point2<float>>, const HullOptions&);
template std::vector<Point2<double>> convex_hull(std::span<const Point2<double>>, const HullOptions&);

}  // namespace wagener
