// The messages of the point reader (read_points.cpp and the layers under it): each names the file
// and the line (text, csv) or byte offset (binary) to fix, in one line whatever bytes the file holds.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "wagener/point.hpp"

namespace wagener::reading {

template <class T>
constexpr std::string_view type_name = std::is_same_v<T, float>          ? "float"
                                       : std::is_same_v<T, double>       ? "double"
                                       : std::is_same_v<T, std::int32_t> ? "int32"
                                                                         : "int64";

/// The name messages give a path: "<stdin>" for "-".
std::string display_name(std::string_view path);

[[noreturn]] void fail_at_line(std::string_view name, index_t line, std::string_view message);
[[noreturn]] void fail_at_byte(std::string_view name, std::uint64_t offset, std::string_view message);
[[noreturn]] void fail_system(std::string_view name, std::string_view what, int error);

/// A token in double quotes, cut short and escaped so that the message stays one readable line
/// whatever bytes the file holds.
std::string quote(std::string_view token);

template <class V>
std::string shortest(V value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

template <class T>
std::string unsorted_message(const Point2<T>& previous, const Point2<T>& current) {
  return "points not sorted: (" + shortest(current.x) + ", " + shortest(current.y) + ") comes after (" +
         shortest(previous.x) + ", " + shortest(previous.y) + ") (--presorted promises lexicographic order)";
}

}  // namespace wagener::reading
