// The hull of a square with a point inside and one on an edge, through the installed headers and
// library: prints the vertices, one "x y" a line.
#include <iostream>
#include <vector>

#include "wagener/wagener.hpp"

int main() {
  const std::vector<wagener::Point2<double>> points = {{0, 0}, {4, 0}, {4, 3}, {1, 1}, {0, 3}, {2, 0}};
  for (const auto& p : wagener::convex_hull<double>(points)) std::cout << p.x << ' ' << p.y << '\n';
}
