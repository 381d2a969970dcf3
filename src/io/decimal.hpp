// Numbers as text: every writer prints through here, so that a coordinate reads back to the very same
// bits whichever format or thread wrote it.
#pragma once

#include <charconv>
#include <cstddef>
#include <limits>
#include <type_traits>

namespace wagener::detail {

/// The most characters write_decimal writes for a T. Shortest round-trip decimal of a floating-point
/// value needs at most max_digits10 significant digits plus a sign, a point and an exponent ("e-308");
/// an integer at most digits10 + 1 digits and a sign.
template <class T>
inline constexpr std::size_t kMaxDecimalChars =
    std::is_floating_point_v<T> ? std::size_t{std::numeric_limits<T>::max_digits10} + 8
                                : std::size_t{std::numeric_limits<T>::digits10} + 2;

/// Writes value at p (kMaxDecimalChars<T> characters available): floating-point values in the
/// shortest decimal that reads back to the same value. Returns the end of what it wrote.
template <class T>
char* write_decimal(char* p, T value) {
  return std::to_chars(p, p + kMaxDecimalChars<T>, value).ptr;
}

}  // namespace wagener::detail
