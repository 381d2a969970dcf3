// Fuzz target: merge_hulls, the hull of hulls, of float, double, int32 and int64 points. One to three
// point sets from the fuzz data, each given as its hull, as its upper chain, or as the raw points
// (merge_hulls takes any point set); the merge must equal the serial reference's hull of the union.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cpu/monotone_chain.hpp"
#include "fuzz_common.hpp"
#include "wagener/hull.hpp"

namespace {

template <class T>
void check_merge(FuzzedDataProvider& data) {
  const int parts = data.ConsumeIntegralInRange<int>(1, 3);
  std::vector<std::vector<wagener::Point2<T>>> given;
  std::vector<wagener::Point2<T>> all;
  std::string how;
  for (int k = 0; k < parts; ++k) {
    auto points = wagener::fuzz::fuzz_points<T>(data, 256);
    all.insert(all.end(), points.begin(), points.end());
    switch (data.ConsumeIntegralInRange<int>(0, 2)) {
      case 0:
        given.push_back(wagener::cpu::convex_hull_serial<T>(points));
        how += " hull";
        break;
      case 1: {
        auto sorted = points;
        std::sort(sorted.begin(), sorted.end(), wagener::lex_less<T>);
        given.push_back(wagener::cpu::upper_chain<T>(sorted));
        // The upper chain stands for its own points only: the union's hull is then of those.
        all.resize(all.size() - points.size());
        all.insert(all.end(), given.back().begin(), given.back().end());
        how += " upper-chain";
        break;
      }
      default:
        given.push_back(std::move(points));
        how += " points";
        break;
    }
  }
  std::vector<std::span<const wagener::Point2<T>>> spans(given.begin(), given.end());
  const auto merged = wagener::merge_hulls<T>(spans);
  const auto expected = wagener::cpu::convex_hull_serial<T>(all);
  wagener::fuzz::require(merged == expected, "merge_hulls of" + how + " (" + std::to_string(all.size()) +
                                                 " points) differs from the hull of the union");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  FuzzedDataProvider data(bytes, size);
  switch (data.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: check_merge<double>(data); break;
    case 1: check_merge<float>(data); break;
    case 2: check_merge<std::int32_t>(data); break;
    default: check_merge<std::int64_t>(data);
  }
  return 0;
}
