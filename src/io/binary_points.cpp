// Binary records (binary_points.hpp), and the pieces of a binary file read in pieces
// (point_pieces.hpp's decode_binary_piece).
#include "io/binary_points.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/huge_pages.hpp"
#include "core/parallel_slices.hpp"
#include "core/point_checks.hpp"
#include "io/input_bytes.hpp"
#include "io/point_pieces.hpp"
#include "io/read_errors.hpp"
#include "io/run_chunks.hpp"

namespace wagener {
namespace reading {

using detail::advise;
using detail::want_huge_pages;

template <class F>
void check_whole_records(std::size_t size, std::string_view name) {
  if (size % kRecordBytes<F> != 0) {
    fail_at_byte(name, size - size % kRecordBytes<F>,
                 "truncated binary: " + std::to_string(size) + " bytes is not a whole number of points (" +
                     std::to_string(kRecordBytes<F>) + " bytes each)");
  }
}

namespace {

template <class V>
using Bits = std::conditional_t<sizeof(V) == 4, std::uint32_t, std::uint64_t>;

// All exponent bits set: infinity or NaN. Testing bits keeps the hot loop free of calls and branches.
// Infinity is exactly the exponent bits.
template <class V>
constexpr Bits<V> kExponentMask = std::bit_cast<Bits<V>>(std::numeric_limits<V>::infinity());

template <class V>
constexpr bool non_finite_bits(V value) {
  return (std::bit_cast<Bits<V>>(value) & kExponentMask<V>) == kExponentMask<V>;
}

// Magnitudes (|value| as bits, which order like the values) of the doubles that round to a finite,
// nonzero float, with ties to even. FLT_MAX = (2 - 2^-23) * 2^127 has an odd significand and an ulp
// of 2^104, so FLT_MAX + 2^103 already rounds up to infinity; the float below the smallest
// subnormal, 2^-149, is 0, so 2^-150 rounds down to 0 and anything above it does not.
constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;
constexpr std::uint64_t kLargestToFloat =
    std::bit_cast<std::uint64_t>(static_cast<double>(std::numeric_limits<float>::max()) + 0x1p103) - 1;
constexpr std::uint64_t kSmallestToFloat =
    std::bit_cast<std::uint64_t>(static_cast<double>(std::numeric_limits<float>::denorm_min()) / 2) + 1;

// Whether a file value converts to T: between floating-point types without becoming infinite or
// losing a nonzero value to zero (the rule std::from_chars applies to text); false for NaN and
// infinity too. Integer compares only, so that the scan vectorizes. Any conversion that involves an
// integer type must be exact: integers in T's range; a float or double that is an integer in range,
// for integer T; an integer that float or double holds exactly, for floating T (never rounded).
template <class T, class F>
constexpr bool fits(F value) {
  if constexpr (std::is_floating_point_v<T> && std::is_floating_point_v<F>) {
    if constexpr (sizeof(T) >= sizeof(F)) {
      return !non_finite_bits(value);  // widening is exact
    } else {
      static_assert(std::is_same_v<T, float> && std::is_same_v<F, double>);
      const std::uint64_t magnitude = std::bit_cast<std::uint64_t>(value) & ~kSignBit;
      return (magnitude == 0) | ((magnitude >= kSmallestToFloat) & (magnitude <= kLargestToFloat));
    }
  } else if constexpr (std::is_integral_v<T> && std::is_integral_v<F>) {
    if constexpr (sizeof(T) >= sizeof(F)) {
      return true;
    } else {
      constexpr T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
      return (value >= lo) & (value <= hi);
    }
  } else if constexpr (std::is_integral_v<T>) {
    // [-2^(bits-1), 2^(bits-1)), both ends exact in F; NaN fails the comparisons.
    constexpr F lo = static_cast<F>(std::numeric_limits<T>::min()), hi = -lo;
    const bool in_range = (value >= lo) & (value < hi);
    return in_range & (static_cast<F>(static_cast<T>(in_range ? value : F(0))) == value);
  } else if constexpr (std::numeric_limits<F>::digits <= std::numeric_limits<T>::digits) {
    return true;  // int32 to double
  } else {
    // A magnitude of at most 2^digits converts exactly; beyond it, only multiples of a power of two
    // do: exactly those the round trip through T returns unchanged (T's range holds every F).
    const T converted = static_cast<T>(value);
    constexpr T hi = -static_cast<T>(std::numeric_limits<F>::min());
    return (converted < hi) & (static_cast<F>(converted < hi ? converted : T(0)) == value);
  }
}

// value as a T, where fits<T>(value) says `fits`. A float or double that does not fit an integer
// type becomes 0 (its conversion would be undefined); the block is flagged and the value named.
template <class T, class F>
constexpr T converted(F value, bool fits) {
  if constexpr (std::is_integral_v<T> && std::is_floating_point_v<F>) {
    return fits ? static_cast<T>(value) : T(0);
  } else {
    return static_cast<T>(value);
  }
}

// The message for a value that does not fit T (fits() is false).
template <class T, class F>
std::string misfit_message(F value) {
  if constexpr (std::is_integral_v<T> && std::is_floating_point_v<F>) {
    if (value == std::trunc(value))
      return "value " + shortest(value) + " is out of range for " + std::string(type_name<T>);
    return "value " + shortest(value) + " is not an integer (" + std::string(type_name<T>) + " points)";
  } else if constexpr (std::is_floating_point_v<T> && std::is_integral_v<F>) {
    return "value " + shortest(value) + " has no exact " + std::string(type_name<T>) +
           " (integers are never rounded: read them as int64)";
  } else {
    return "value " + shortest(value) + " is out of range for " + std::string(type_name<T>);
  }
}

// Whether a file value is NaN or infinite (never, for integers).
template <class F>
constexpr bool non_finite_value(F value) {
  if constexpr (std::is_floating_point_v<F>) {
    return non_finite_bits(value);
  } else {
    return false;
  }
}

using core::out_of_order;

// Names the first problem among points [begin, end) in file order (x, then y, then order), reading
// the values as the file holds them from `bytes`. Called only for a block the fast scan flagged.
template <class T, class F>
[[noreturn, gnu::cold, gnu::noinline]] void fail_in_block(const char* bytes,
                                                          std::span<const Point2<T>> points,
                                                          std::size_t begin, std::size_t end,
                                                          bool require_sorted, std::string_view name,
                                                          std::uint64_t base = 0) {
  for (std::size_t i = begin; i < end; ++i) {
    const std::uint64_t record = base + i * kRecordBytes<F>;
    for (const std::uint64_t offset : {record, record + sizeof(F)}) {
      F value;
      std::memcpy(&value, bytes + (offset - base), sizeof value);
      if (non_finite_value(value)) fail_at_byte(name, offset, "non-finite value " + shortest(value));
      if (!fits<T>(value)) fail_at_byte(name, offset, misfit_message<T>(value));
    }
    if (require_sorted && i > 0 && lex_less(points[i], points[i - 1])) {
      fail_at_byte(name, record, unsorted_message(points[i - 1], points[i]));
    }
  }
  throw std::logic_error("binary point validation flagged a block without a problem");
}

// Blocks small enough for the rescan to hit L1, large enough to amortize the per-block test.
constexpr std::size_t kValidationBlock = 1024;

// What a scan returns when it found nothing.
constexpr std::size_t kNoProblem = std::numeric_limits<std::size_t>::max();

// Flags the first block of points [begin, end) with a non-finite value or, if require_sorted, a point
// before its predecessor; kNoProblem if none. The pair that straddles `begin` is the caller's.
// Branch-free accumulation per block, which the compiler vectorizes. `points` are `bytes`.
template <class T>
std::size_t first_flagged_block(const char* bytes, const Point2<T>* points, std::size_t begin,
                                std::size_t end, bool require_sorted) {
  for (std::size_t block = begin; block < end; block += kValidationBlock) {
    const std::size_t stop = std::min(end, block + kValidationBlock);
    bool bad = false;
    if constexpr (std::is_floating_point_v<T>) {  // integers are all finite
      bad = core::any_non_finite_value<T>(bytes + 2 * block * sizeof(T), 2 * (stop - block));
    }
    if (require_sorted) bad |= core::any_out_of_order(points, std::max(block, begin + 1), stop);
    if (bad) [[unlikely]]
      return block;
  }
  return kNoProblem;
}

// The same for F records at `bytes` (any alignment), converted into points [begin, end) on the way.
template <class T, class F>
std::size_t convert_and_flag(const char* bytes, Point2<T>* points, std::size_t begin, std::size_t end,
                             bool require_sorted) {
  for (std::size_t block = begin; block < end; block += kValidationBlock) {
    const std::size_t stop = std::min(end, block + kValidationBlock);
    unsigned bad = 0;
    for (std::size_t i = block; i < stop; ++i) {
      F raw[2];
      std::memcpy(raw, bytes + i * kRecordBytes<F>, sizeof raw);
      const bool x_fits = fits<T>(raw[0]), y_fits = fits<T>(raw[1]);
      bad |= !x_fits;
      bad |= !y_fits;
      points[i] = {converted<T>(raw[0], x_fits), converted<T>(raw[1], y_fits)};
    }
    // Rounding is monotone, so the order checked after conversion is the order the hull will see.
    if (require_sorted) bad |= core::any_out_of_order<T>(points, std::max(block, begin + 1), stop);
    if (bad) [[unlikely]]
      return block;
  }
  return kNoProblem;
}

// Binary input is scanned in contiguous slices on all cores, each at least this big: a thread costs
// tens of microseconds to start, and one core validates 2 MiB in 50-150.
constexpr std::size_t kMinSliceBytes = std::size_t{2} << 20;

}  // namespace
}  // namespace reading

namespace detail {

using namespace reading;

// Where the slices of n binary points (`bytes` bytes in the file) start, then n: one slice below
// 2 * kMinSliceBytes, else up to one per core. Starts are whole validation blocks, so that a block
// never straddles two threads. Not in the anonymous namespace: test_io.cpp declares it, to place
// problems at the boundaries and to see that large files are split.
std::vector<std::size_t> binary_slice_bounds(std::size_t n, std::size_t bytes);

std::vector<std::size_t> binary_slice_bounds(std::size_t n, std::size_t bytes) {
  const std::size_t slices = std::max<std::size_t>(
      1, std::min<std::size_t>({detail::hardware_threads(), kMaxChunks, bytes / kMinSliceBytes}));
  std::vector<std::size_t> bounds;
  for (std::size_t s = 0; s < slices; ++s) {
    const std::size_t start = n / slices * s + n % slices * s / slices;  // n * s / slices, without overflow
    bounds.push_back(start / kValidationBlock * kValidationBlock);
  }
  bounds.push_back(n);
  return bounds;
}

}  // namespace detail

namespace reading {
namespace {

// Runs scan(begin, end) over every slice, each on its own thread, and returns the first block any of
// them flagged, or where two slices meet out of order (a pair no slice checks: it would read what
// another thread is writing). Each slice stops at its own first problem; the smallest is the first
// problem of the file, since blocks and pairs are attributed to the later point's index.
template <class T, class Scan>
std::size_t first_flagged_in_slices(const std::vector<std::size_t>& bounds, const Point2<T>* points,
                                    bool require_sorted, const Scan& scan) {
  const std::size_t slices = bounds.size() - 1;
  std::vector<std::size_t> flagged(slices, kNoProblem);
  if (!run_chunks(slices, [&](std::size_t s) { flagged[s] = scan(bounds[s], bounds[s + 1]); })) {
    throw std::logic_error("binary point validation failed to scan a slice");
  }
  if (require_sorted) {
    for (std::size_t s = 1; s < slices; ++s) {
      if (out_of_order(points[bounds[s] - 1], points[bounds[s]]))
        flagged[s] = std::min(flagged[s], bounds[s]);
    }
  }
  return *std::min_element(flagged.begin(), flagged.end());
}

}  // namespace

// Only a flagged block is rescanned, on this thread, to name the offset.
template <class T>
void validate_binary(std::span<const Point2<T>> points, bool require_sorted, std::string_view name) {
  const std::size_t n = points.size();
  const auto bounds = detail::binary_slice_bounds(n, n * sizeof(Point2<T>));
  const std::size_t flagged =
      first_flagged_in_slices(bounds, points.data(), require_sorted, [&](std::size_t begin, std::size_t end) {
        return first_flagged_block(reinterpret_cast<const char*>(points.data()), points.data(), begin, end,
                                   require_sorted);
      });
  if (flagged != kNoProblem) [[unlikely]] {
    fail_in_block<T, T>(reinterpret_cast<const char*>(points.data()), points, flagged,
                        std::min(n, flagged + kValidationBlock), require_sorted, name);
  }
}

namespace {

// The vector that binary points are decoded into: points [0, n) for slices `bounds` (n last), zeroed,
// as std::vector has no other way. Faulting its pages in is what costs; on a 2-core KVM guest, 10^7
// double points (160 MB) took 500 ms in 4 KiB pages (40k faults, no faster from two threads) and
// 25 ms in 2 MiB pages, zeroing included. So the storage is asked for transparent huge pages, and
// for a large vector the kernel faults them in (and clears them) one slice per thread before the
// zeroing, which then runs over present pages. Where THP is off, or MADV_POPULATE_WRITE unknown
// (Linux before 5.14), the zeroing faults pages in as it goes, as before.
template <class T>
std::vector<Point2<T>> zeroed_points(const std::vector<std::size_t>& bounds) {
  const std::size_t n = bounds.back();
  std::vector<Point2<T>> points;
  points.reserve(n);
  const auto address = [first = reinterpret_cast<std::uintptr_t>(points.data())](std::size_t i) {
    return first + i * sizeof(Point2<T>);
  };
  want_huge_pages(points);
  if (bounds.size() > 2) {
    const std::uintptr_t page = page_size();
    run_chunks(bounds.size() - 1, [&](std::size_t s) {
      // Slices meet at page boundaries (rounded up), so that every page is one thread's.
      const std::uintptr_t end =
          s + 2 == bounds.size() ? address(n) : (address(bounds[s + 1]) + page - 1) / page * page;
      advise(s == 0 ? address(0) : (address(bounds[s]) + page - 1) / page * page, end, page,
             MADV_POPULATE_WRITE);
    });
  }
  points.resize(n);
  return points;
}

}  // namespace

// Slice by slice on all cores: each thread converts (or copies) and validates its own slice while it
// is in cache.
template <class T, class F>
std::vector<Point2<T>> decode_binary(std::string_view data, bool require_sorted, std::string_view name) {
  check_whole_records<F>(data.size(), name);
  const std::size_t n = data.size() / kRecordBytes<F>;
  const auto bounds = detail::binary_slice_bounds(n, data.size());
  std::vector<Point2<T>> points = zeroed_points<T>(bounds);
  const std::size_t flagged =
      first_flagged_in_slices(bounds, points.data(), require_sorted, [&](std::size_t begin, std::size_t end) {
        if constexpr (std::is_same_v<T, F>) {
          if (end > begin) {  // memcpy takes no null pointer, which an empty vector's data() may be
            std::memcpy(points.data() + begin, data.data() + begin * kRecordBytes<F>,
                        (end - begin) * kRecordBytes<F>);
          }
          return first_flagged_block(reinterpret_cast<const char*>(points.data()), points.data(), begin, end,
                                     require_sorted);
        } else {
          return convert_and_flag<T, F>(data.data(), points.data(), begin, end, require_sorted);
        }
      });
  if (flagged != kNoProblem) [[unlikely]] {
    fail_in_block<T, F>(data.data(), points, flagged, std::min(n, flagged + kValidationBlock), require_sorted,
                        name);
  }
  return points;
}

#define WAGENER_INSTANTIATE_DECODE(T)                                                                       \
  template std::vector<Point2<T>> decode_binary<T, float>(std::string_view, bool, std::string_view);        \
  template std::vector<Point2<T>> decode_binary<T, double>(std::string_view, bool, std::string_view);       \
  template std::vector<Point2<T>> decode_binary<T, std::int32_t>(std::string_view, bool, std::string_view); \
  template std::vector<Point2<T>> decode_binary<T, std::int64_t>(std::string_view, bool, std::string_view);
#define WAGENER_INSTANTIATE(T)                                                          \
  template void check_whole_records<T>(std::size_t, std::string_view);                  \
  template void validate_binary<T>(std::span<const Point2<T>>, bool, std::string_view); \
  WAGENER_INSTANTIATE_DECODE(T)
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE
#undef WAGENER_INSTANTIATE_DECODE

}  // namespace reading

namespace detail {

using namespace reading;

template <class T>
void decode_binary_piece(std::string_view bytes, Format format, std::uint64_t base, std::string_view name,
                         std::vector<Point2<T>>& points) {
  const auto decode = [&]<class F>(F) {
    const std::size_t n = bytes.size() / kRecordBytes<F>;
    points.resize(n);
    const std::size_t flagged = convert_and_flag<T, F>(bytes.data(), points.data(), 0, n, false);
    if (flagged != kNoProblem) [[unlikely]] {
      fail_in_block<T, F>(bytes.data(), points, flagged, std::min(n, flagged + kValidationBlock), false, name,
                          base);
    }
  };
  switch (format) {
    case Format::f32: return decode(float{});
    case Format::f64: return decode(double{});
    case Format::i32: return decode(std::int32_t{});
    case Format::i64: return decode(std::int64_t{});
    default: break;
  }
  throw std::invalid_argument("decode_binary_piece reads f32, f64, i32 or i64, not " +
                              std::string(format_name(format)));
}

#define WAGENER_INSTANTIATE(T)                                                                    \
  template void decode_binary_piece<T>(std::string_view, Format, std::uint64_t, std::string_view, \
                                       std::vector<Point2<T>>&);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace detail
}  // namespace wagener
