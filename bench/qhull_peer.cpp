// Qhull through its reentrant C API. Kept in its own file because libqhull_r's macros (FORALL...,
// qh, trace...) would otherwise leak into the C++ that includes CGAL and wagener.
#include "qhull_peer.hpp"

#include <libqhull_r/libqhull_r.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace bench {
namespace {

/// Frees qhull's long and short memory however qhull_hull() leaves.
struct QhullSession {
  qhT qh{};
  QhullSession() { qh_zero(&qh, stderr); }
  QhullSession(const QhullSession&) = delete;
  QhullSession& operator=(const QhullSession&) = delete;
  ~QhullSession() {
    qh_freeqhull(&qh, !qh_ALL);
    int curlong = 0, totlong = 0;
    qh_memfreeshort(&qh, &curlong, &totlong);
  }
};

}  // namespace

std::vector<std::array<double, 2>> qhull_hull(std::span<const double> xy) {
  if (xy.size() % 2 != 0) throw std::invalid_argument("qhull_hull: odd number of coordinates");
  // Qhull needs a full-dimensional start simplex; the benchmark inputs are far from this edge case.
  if (xy.size() < 6) throw std::invalid_argument("qhull_hull: qhull needs at least 3 points");
  // qhT is ~9 KB of state; on the heap rather than on the caller's stack.
  const auto session = std::make_unique<QhullSession>();
  qhT* qh = &session->qh;
  char command[] = "qhull";  // qh_new_qhull wants a mutable string; the defaults are what users get
  // qhull reads the points in place (ismalloc False: it neither frees nor, for these options, scales
  // them), hence the const_cast of an API that predates const.
  const int exitcode = qh_new_qhull(qh, 2, static_cast<int>(xy.size() / 2), const_cast<coordT*>(xy.data()),
                                    False, command, nullptr, stderr);
  if (exitcode != 0) throw std::runtime_error("qhull failed with exit code " + std::to_string(exitcode));

  // In 2-D every facet is an edge with two vertices and two neighbours. Walking the neighbours gives
  // the vertices in order without sorting: a facet's orientation flag says which vertex comes first
  // counter-clockwise and which neighbour is next. bench_cpu_peers checks the resulting order
  // against wagener's counter-clockwise hull.
  std::vector<std::array<double, 2>> hull;
  hull.reserve(static_cast<std::size_t>(qh->num_vertices));
  facetT* const start = qh->facet_list;
  facetT* facet = start;
  for (int steps = 0; facet && steps <= qh->num_facets; ++steps) {
    const bool forward = facet->toporient ^ qh_ORIENTclock;
    const vertexT* first =
        forward ? SETfirstt_(facet->vertices, vertexT) : SETsecondt_(facet->vertices, vertexT);
    hull.push_back({first->point[0], first->point[1]});
    facet = forward ? SETfirstt_(facet->neighbors, facetT) : SETsecondt_(facet->neighbors, facetT);
    if (facet == start) return hull;
  }
  throw std::runtime_error("qhull_hull: the facets of the 2-D hull do not form one cycle");
}

}  // namespace bench
