// CGAL's convex_hull_2 as a peer: the kernel and algorithm a CGAL user gets by default.
#pragma once

#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/convex_hull_2.h>

#include <iterator>
#include <vector>

namespace bench {

// Epick: exact predicates on doubles, the same guarantee wagener gives, so the vertex sets must agree.
using CgalKernel = CGAL::Exact_predicates_inexact_constructions_kernel;
using CgalPoint = CgalKernel::Point_2;

/// convex_hull_2 with no algorithm tag picks Akl-Toussaint; extreme points only, counter-clockwise.
template <class Iterator>
std::vector<CgalPoint> cgal_hull(Iterator first, Iterator last) {
  std::vector<CgalPoint> hull;
  CGAL::convex_hull_2(first, last, std::back_inserter(hull));
  return hull;
}

}  // namespace bench
