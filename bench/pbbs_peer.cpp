// The PBBS side of pbbs_peer.hpp: the one file that includes PBBS's headers (C++17, PBBS's own
// `using namespace std`), compiled apart from the benchmark and without our warning flags.
#include "pbbs_peer.hpp"

#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

// PBBS's benchmarks/convexHull/bench/hull.h: point = point2d<double>, indexT = unsigned int and
// the entry point `parlay::sequence<indexT> hull(parlay::sequence<point> const&)`, defined in
// quickHull/hull.C (compiled into the same library).
#include "hull.h"
#include "parlay/parallel.h"

namespace bench {

unsigned pbbs_start_workers(unsigned threads) {
  if (threads > 0 && std::getenv("PARLAY_NUM_THREADS") == nullptr) {
    setenv("PARLAY_NUM_THREADS", std::to_string(threads).c_str(), 0);
  }
  return static_cast<unsigned>(parlay::num_workers());
}

struct PbbsQuickhull::State {
  parlay::sequence<point> points;
  parlay::sequence<indexT> hull;
};

PbbsQuickhull::PbbsQuickhull(const wagener::Point2<double>* points, std::size_t n)
    : state_(std::make_unique<State>()) {
  if (n > std::numeric_limits<indexT>::max()) {
    throw std::invalid_argument("PBBS's quickhull indexes points with unsigned int: too many points");
  }
  state_->points = parlay::tabulate(n, [&](std::size_t i) { return point(points[i].x, points[i].y); });
}

PbbsQuickhull::~PbbsQuickhull() = default;

std::size_t PbbsQuickhull::run() {
  state_->hull = hull(state_->points);
  return state_->hull.size();
}

std::vector<wagener::Point2<double>> PbbsQuickhull::vertices() const {
  std::vector<wagener::Point2<double>> out;
  out.reserve(state_->hull.size());
  for (const indexT i : state_->hull) out.push_back({state_->points[i].x, state_->points[i].y});
  return out;
}

}  // namespace bench
