// The device list of HullOptions (--devices): its syntax, and the requests it cannot serve. Runs
// without a GPU; tests/cuda/test_multi_device.cpp hulls on the devices.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "wagener/hull.hpp"

namespace wagener {
namespace {

TEST(ParseDevices, AllIsEveryDevice) {
  EXPECT_EQ(parse_devices("all"), std::vector<int>{all_devices});
}

TEST(ParseDevices, ListsKeepTheirOrder) {
  EXPECT_EQ(parse_devices("0"), std::vector<int>{0});
  EXPECT_EQ(parse_devices("1,0"), (std::vector<int>{1, 0}));
  EXPECT_EQ(parse_devices("0,1,2,3"), (std::vector<int>{0, 1, 2, 3}));
}

TEST(ParseDevices, RejectsWhatIsNotAList) {
  for (const char* bad :
       {"", ",", "0,", ",1", "a", "0,b", "-1", "1.5", "0 ,1", "ALL", "0,0", "99999999999"}) {
    EXPECT_THROW(parse_devices(bad), std::invalid_argument) << '"' << bad << '"';
  }
}

TEST(Devices, NeedTheCudaOrAutoBackend) {
  const std::vector<Point2<double>> points = {{0, 0}, {1, 0}, {0, 1}};
  for (const Backend backend : {Backend::cpu, Backend::pram}) {
    HullOptions options;
    options.backend = backend;
    options.devices = {0};
    EXPECT_THROW(compute_hull<double>(points, options), std::invalid_argument) << backend_name(backend);
  }
}

TEST(Devices, AutoOnTheCpuIgnoresThem) {
  // Small inputs stay on the CPU under auto, so the list is not used and the hull is the CPU's.
  const std::vector<Point2<double>> points = {{0, 0}, {2, 0}, {1, 1}, {2, 2}, {0, 2}};
  HullOptions options;
  options.devices = {all_devices};
  HullStats stats;
  options.stats = &stats;
  const auto hull = compute_hull<double>(points, options).vertices;
  EXPECT_EQ(stats.backend, Backend::cpu);
  EXPECT_EQ(hull, convex_hull<double>(points, {Backend::cpu, nullptr}));
}

TEST(Devices, TakeNoTrace) {
  struct Sink : TraceSink {
    void on_round(const TraceRound<double>&) override {}
    void on_round(const TraceRound<float>&) override {}
  } sink;
  const std::vector<Point2<double>> points = {{0, 0}, {1, 0}, {0, 1}};
  HullOptions options;
  options.trace = &sink;
  options.devices = {0};
  EXPECT_THROW(compute_hull<double>(points, options), std::invalid_argument);
}

}  // namespace
}  // namespace wagener
