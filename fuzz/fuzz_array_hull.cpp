// Fuzz target: the C++ behind the Python module's hull() (python/src/array_hull.hpp): an array of
// float, double, int32 or int64, of any shape, at any byte offset (numpy views need not be aligned),
// with any of the module's options.
// The call must throw std::invalid_argument for a shape other than (n, 2), input_error for a
// non-finite point or (presorted) unsorted input, and otherwise return the serial reference's hull,
// with each index the smallest holding its vertex.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "array_hull.hpp"
#include "cpu/monotone_chain.hpp"
#include "fuzz_common.hpp"
#include "wagener/error.hpp"

namespace {

using wagener::fuzz::require;

template <class T>
void check_array(FuzzedDataProvider& data) {
  wagener::python::ArrayHullRequest request;
  request.upper = data.ConsumeBool();
  request.presorted = data.ConsumeBool();
  request.indices = data.ConsumeBool();
  const char* const backends[] = {"auto", "cpu", "pram"};
  request.backend = backends[data.ConsumeIntegralInRange<int>(0, 2)];
  const bool bad_shape = data.ConsumeIntegralInRange<int>(0, 15) == 0;
  const std::size_t offset = data.ConsumeIntegralInRange<std::size_t>(0, 2) * sizeof(T);
  const bool raw = data.ConsumeIntegralInRange<int>(0, 7) == 0;  // any bytes: NaN and infinity too

  std::vector<wagener::Point2<T>> points;
  if (raw) {
    const auto bytes = data.ConsumeRemainingBytes<std::uint8_t>();
    points.resize(bytes.size() / sizeof(wagener::Point2<T>));
    if (!points.empty()) std::memcpy(points.data(), bytes.data(), points.size() * sizeof(wagener::Point2<T>));
  } else {
    points = wagener::fuzz::fuzz_points<T>(data, 512);
  }
  if (request.presorted && data.ConsumeBool()) std::sort(points.begin(), points.end(), wagener::lex_less<T>);

  // The array's memory: `offset` bytes into a buffer, as a view into a larger numpy array would be.
  std::vector<std::uint8_t> buffer(offset + points.size() * sizeof(wagener::Point2<T>) + 1);
  if (!points.empty())
    std::memcpy(buffer.data() + offset, points.data(), points.size() * sizeof(wagener::Point2<T>));
  const T* array = reinterpret_cast<const T*>(buffer.data() + offset);
  std::vector<std::int64_t> shape{static_cast<std::int64_t>(points.size()), 2};
  if (bad_shape)
    shape = data.ConsumeBool() ? std::vector<std::int64_t>{2 * shape[0]}
                               : std::vector<std::int64_t>{shape[0], 1, 2};

  const bool finite =
      std::all_of(points.begin(), points.end(), [](const auto& p) { return wagener::is_finite(p); });
  const bool sorted = std::is_sorted(points.begin(), points.end(), wagener::lex_less<T>);
  wagener::HullResult<T> result;
  try {
    result = wagener::python::hull_of_array<T>(array, shape, request);
  } catch (const std::invalid_argument&) {
    require(bad_shape, "a (n, 2) array was refused as a bad shape");
    return;
  } catch (const wagener::input_error&) {
    require(!bad_shape, "a bad shape was not refused as one");
    require(!finite || (request.presorted && !sorted), "valid points were refused: input_error");
    return;
  }
  require(!bad_shape, "a bad shape was accepted");
  require(finite && (!request.presorted || sorted),
          "non-finite or unsorted (presorted) points were accepted");

  std::vector<wagener::Point2<T>> expected;
  if (request.upper) {
    auto copy = points;
    std::sort(copy.begin(), copy.end(), wagener::lex_less<T>);
    expected = wagener::cpu::upper_chain<T>(copy);
  } else {
    expected = wagener::cpu::convex_hull_serial<T>(points);
  }
  require(result.vertices == expected, "backend " + request.backend + (request.upper ? " upper" : " full") +
                                           " hull differs from the serial reference (" +
                                           std::to_string(points.size()) + " points)");
  if (!request.indices) {
    require(result.indices.empty(), "indices returned without being asked for");
    return;
  }
  require(result.indices.size() == result.vertices.size(), "one index per vertex");
  for (std::size_t i = 0; i < result.indices.size(); ++i) {
    const auto j = result.indices[i];
    require(j >= 0 && static_cast<std::size_t>(j) < points.size() && points[j] == result.vertices[i],
            "index " + std::to_string(i) + " does not hold its vertex");
    for (std::int64_t k = 0; k < j; ++k)
      require(!(points[k] == result.vertices[i]), "index " + std::to_string(i) + " is not the smallest");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  FuzzedDataProvider data(bytes, size);
  switch (data.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: check_array<double>(data); break;
    case 1: check_array<float>(data); break;
    case 2: check_array<std::int32_t>(data); break;
    default: check_array<std::int64_t>(data);
  }
  return 0;
}
