// Hull files: every textual format is one Layout (what comes before, between, around and after the
// items), so that the formats differ in data, not in code, and all of them are formatted in parallel the
// same way: threads format blocks of items into buffers of their own, and the blocks are appended to
// the file (or the string) in order. An item's text depends on nothing but the item and whether it is
// the first, so the bytes are the same for any number of threads.
#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/parallel_slices.hpp"
#include "io/decimal.hpp"
#include "io/ordered_blocks.hpp"
#include "io/output_file.hpp"
#include "io/path_suffix.hpp"
#include "wagener/output.hpp"

namespace wagener {
namespace {

static_assert(std::endian::native == std::endian::little, "binary hull files are little-endian");

// Below this many items per thread, starting a thread costs more than formatting them.
constexpr std::size_t kMinItemsPerThread = std::size_t{1} << 15;

constexpr OutputFormat kOutputFormats[] = {OutputFormat::text,    OutputFormat::csv, OutputFormat::json,
                                           OutputFormat::geojson, OutputFormat::wkt, OutputFormat::f32,
                                           OutputFormat::f64,     OutputFormat::i32, OutputFormat::i64};

// How a textual format lays out its items: head, then the items with `between` between consecutive
// ones, each written as open + x + middle + y + close (open + index + close for an index), then tail.
struct Layout {
  std::string head;
  std::string_view open, middle, close, between;
  std::string tail;
  // A closed ring repeats its first vertex at the end (GeoJSON and WKT polygons).
  bool repeats_first = false;
};

// What a hull is in the formats that name a geometry (GeoJSON, WKT).
enum class Geometry { none, point, line_string, polygon };

Geometry geometry_of(std::size_t vertices, bool closed) {
  if (vertices == 0) return Geometry::none;
  if (vertices == 1) return Geometry::point;
  if (vertices == 2 || !closed) return Geometry::line_string;
  return Geometry::polygon;
}

Layout geojson_layout(std::size_t vertices, bool closed) {
  constexpr std::string_view kFeature = R"({"type":"Feature","geometry":)";
  const std::string properties = R"("properties":{"vertices":)" + std::to_string(vertices) + "}}\n";
  const auto geometry = [&](std::string_view type, std::string_view open_coordinates,
                            std::string_view close_coordinates) {
    return Layout{std::string(kFeature) + R"({"type":")" + std::string(type) + R"(","coordinates":)" +
                      std::string(open_coordinates),
                  "[",
                  ",",
                  "]",
                  ",",
                  std::string(close_coordinates) + "}," + properties};
  };
  switch (geometry_of(vertices, closed)) {
    case Geometry::none: return Layout{std::string(kFeature) + "null," + properties, "", "", "", "", ""};
    case Geometry::point: return geometry("Point", "", "");
    case Geometry::line_string: return geometry("LineString", "[", "]");
    case Geometry::polygon: {
      Layout layout = geometry("Polygon", "[[", "]]");
      layout.repeats_first = true;
      return layout;
    }
  }
  return {};
}

Layout wkt_layout(std::size_t vertices, bool closed) {
  const auto geometry = [](std::string_view head, std::string_view tail) {
    return Layout{std::string(head), "", " ", "", ", ", std::string(tail)};
  };
  switch (geometry_of(vertices, closed)) {
    case Geometry::none: return geometry("GEOMETRYCOLLECTION EMPTY\n", "");
    case Geometry::point: return geometry("POINT (", ")\n");
    case Geometry::line_string: return geometry("LINESTRING (", ")\n");
    case Geometry::polygon: {
      Layout layout = geometry("POLYGON ((", "))\n");
      layout.repeats_first = true;
      return layout;
    }
  }
  return {};
}

Layout vertex_layout(OutputFormat format, std::size_t vertices, bool closed) {
  switch (format) {
    case OutputFormat::text: return {"", "", " ", "\n", "", ""};
    case OutputFormat::csv: return {"x,y\n", "", ",", "\n", "", ""};
    case OutputFormat::json: return {"[", "[", ",", "]", ",", "]\n"};
    case OutputFormat::geojson: return geojson_layout(vertices, closed);
    case OutputFormat::wkt: return wkt_layout(vertices, closed);
    case OutputFormat::f32:
    case OutputFormat::f64:
    case OutputFormat::i32:
    case OutputFormat::i64: break;
  }
  throw std::logic_error("vertex_layout: not a textual format");
}

Layout index_layout(OutputFormat format) {
  switch (format) {
    case OutputFormat::text: return {"", "", "", "\n", "", ""};
    case OutputFormat::csv: return {"index\n", "", "", "\n", "", ""};
    case OutputFormat::json: return {"[", "", "", "", ",", "]\n"};
    case OutputFormat::geojson:
    case OutputFormat::wkt:
    case OutputFormat::f32:
    case OutputFormat::f64:
    case OutputFormat::i32:
    case OutputFormat::i64: break;
  }
  throw std::invalid_argument("indices cannot be written as " + std::string(output_format_name(format)) +
                              ": that format holds coordinates (use text, csv or json)");
}

char* put(char* p, std::string_view text) {
  return std::copy(text.begin(), text.end(), p);
}

// Items are formatted in blocks of this many: a block's text (under a MiB) stays in cache on its way
// to the output.
constexpr std::size_t kItemsPerBlock = std::size_t{1} << 14;

// Asks for transparent huge pages for a large buffer about to be filled: one fault per 2 MiB instead of
// one per 4 KiB. Fresh memory is first touched as it is filled, and on virtual machines each fault can
// cost several microseconds, more than formatting the 4 KiB it brings. Only a hint: ignored where
// unsupported.
void advise_huge_pages(char* begin, std::size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  if (size < 2 * kHugePage) return;
  const auto first = (reinterpret_cast<std::uintptr_t>(begin) + kHugePage - 1) / kHugePage * kHugePage;
  const auto last = (reinterpret_cast<std::uintptr_t>(begin) + size) / kHugePage * kHugePage;
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)begin;
  (void)size;
#endif
}

// Where the bytes go. sink.reserve(bytes) announces an upper bound on what follows; sink.append(bytes)
// takes the next bytes.
class StringSink {
 public:
  explicit StringSink(std::string& out) : out_(out) {}
  void reserve(std::size_t bytes) {
    out_.reserve(out_.size() + bytes);
    advise_huge_pages(out_.data(), out_.capacity());
  }
  void append(std::string_view bytes) { out_.append(bytes); }
  char* map(std::size_t) { return nullptr; }  // appended to, in order
  void finish_mapped(std::size_t) {}

 private:
  std::string& out_;
};

// The file is created at the first bytes, so that a request refused before any (indices as f64, say)
// leaves no trace; an exception after them leaves the old file, as OutputFile does.
class FileSink {
 public:
  explicit FileSink(const std::string& path) : path_(path) {}
  void reserve(std::size_t) {}
  void append(std::string_view bytes) { file().append(bytes); }
  char* map(std::size_t max_bytes) { return file().map_for_writing(max_bytes); }
  void finish_mapped(std::size_t bytes) { file().finish_mapped(bytes); }
  void commit() { file().commit(); }

 private:
  detail::OutputFile& file() {
    if (!file_) file_.emplace(path_);
    return *file_;
  }
  const std::string& path_;
  std::optional<detail::OutputFile> file_;
};

// Items [begin, end) at p, each but the first after layout.between; returns the end.
template <class WriteItem>
char* write_items(char* p, const Layout& layout, std::size_t begin, std::size_t end,
                  const WriteItem& write_item) {
  for (std::size_t k = begin; k < end; ++k) {
    if (k != 0) p = put(p, layout.between);
    p = write_item(p, k);
  }
  return p;
}

// A round of the mapped output formats this many blocks a thread, then copies them into place.
constexpr std::size_t kMappedBlocksPerThread = 2;

// emit_items into `out`, a mapping of the output file of at least the items' maximal size: rounds of
// blocks formatted on all threads into buffers of their own, placed by the prefix sums of their sizes
// and copied into the file by all threads at once. A write() of the blocks in order was the output's
// bottleneck on many cores (bench/NOTES.md, "Output on many cores"). Returns the bytes written.
template <class WriteItem>
std::size_t emit_items_mapped(char* out, const Layout& layout, std::size_t count, std::size_t max_chars,
                              std::size_t slices, const WriteItem& write_item) {
  char* p = put(out, layout.head);
  const std::size_t blocks = (count + kItemsPerBlock - 1) / kItemsPerBlock;
  const std::size_t per_round = std::min(blocks, slices * kMappedBlocksPerThread);
  std::vector<std::string> text(per_round);
  std::vector<std::size_t> size(per_round), offset(per_round);
  for (std::size_t first = 0; first < blocks; first += per_round) {
    const std::size_t round = std::min(per_round, blocks - first);
    detail::run_slices(round, std::min(slices, round), [&](std::size_t, std::size_t begin, std::size_t end) {
      for (std::size_t b = begin; b < end; ++b) {
        const std::size_t item = (first + b) * kItemsPerBlock;
        const std::size_t last = std::min(count, item + kItemsPerBlock);
        text[b].resize((last - item) * max_chars);
        size[b] = static_cast<std::size_t>(write_items(text[b].data(), layout, item, last, write_item) -
                                           text[b].data());
      }
    });
    std::size_t at = 0;
    for (std::size_t b = 0; b < round; ++b) offset[b] = std::exchange(at, at + size[b]);
    detail::run_slices(round, std::min(slices, round), [&](std::size_t, std::size_t begin, std::size_t end) {
      for (std::size_t b = begin; b < end; ++b) std::memcpy(p + offset[b], text[b].data(), size[b]);
    });
    p += at;
  }
  p = put(p, layout.tail);
  return static_cast<std::size_t>(p - out);
}

// The layout's head, items [0, count) and tail into sink. write_item(p, k) writes item k at p, at most
// max_item_chars characters, and returns the end. Threads format blocks of items, each into its own
// buffer, and the blocks reach the sink in order (or, into a mapped file, its place): whatever the
// number of threads, the same bytes.
template <class WriteItem, class Sink>
void emit_items(const Layout& layout, std::size_t count, std::size_t max_item_chars, unsigned threads,
                const WriteItem& write_item, Sink& sink) {
  const std::size_t max_chars = layout.between.size() + max_item_chars;
  const std::size_t max_bytes = layout.head.size() + count * max_chars + layout.tail.size();
  const std::size_t slices = detail::slice_count(count, detail::resolve_threads(threads), kMinItemsPerThread);
  if (slices > 1) {
    if (char* out = sink.map(max_bytes)) {
      sink.finish_mapped(emit_items_mapped(out, layout, count, max_chars, slices, write_item));
      return;
    }
  }
  sink.reserve(max_bytes);
  sink.append(layout.head);
  const auto make_formatter = [&] {
    return [&, text = std::string(std::min(count, kItemsPerBlock) * max_chars, '\0')](
               std::uint64_t block) mutable {
      const std::size_t begin = static_cast<std::size_t>(block) * kItemsPerBlock;
      const std::size_t end = std::min(count, begin + kItemsPerBlock);
      const char* p = write_items(text.data(), layout, begin, end, write_item);
      return std::string_view(text.data(), static_cast<std::size_t>(p - text.data()));
    };
  };
  detail::produce_blocks((count + kItemsPerBlock - 1) / kItemsPerBlock, slices, /*ordered=*/true,
                         make_formatter, [&](std::uint64_t, std::string_view bytes) { sink.append(bytes); });
  sink.append(layout.tail);
}

template <class Point>
std::string_view bytes_of(std::span<const Point> points) {
  return {reinterpret_cast<const char*>(points.data()), points.size_bytes()};
}

template <class F>
constexpr std::string_view binary_name() {
  if constexpr (std::is_same_v<F, float>) return "f32";
  if constexpr (std::is_same_v<F, double>) return "f64";
  if constexpr (std::is_same_v<F, std::int32_t>) return "i32";
  return "i64";
}

// Whether value converts to F exactly (a conversion that involves an integer type must not round).
template <class F, class T>
bool converts_exactly_to(T value) {
  if constexpr (std::is_integral_v<F> && std::is_integral_v<T>) {
    return value >= std::numeric_limits<F>::min() && value <= std::numeric_limits<F>::max();
  } else if constexpr (std::is_integral_v<F>) {
    // [-2^(bits-1), 2^(bits-1)): both ends are exact in T; NaN and infinity fail the comparisons.
    constexpr T lo = static_cast<T>(std::numeric_limits<F>::min());
    return value >= lo && value < -lo && static_cast<T>(static_cast<F>(value)) == value;
  } else {
    // An integer to float or double: the round trip gives it back (T's range holds every F).
    const F converted = static_cast<F>(value);
    constexpr F hi = -static_cast<F>(std::numeric_limits<T>::min());
    return converted < hi && static_cast<T>(converted) == value;
  }
}

template <class T>
[[noreturn]] void refuse_vertex(std::size_t vertex, T value, std::string_view why) {
  char digits[detail::kMaxDecimalChars<T>];
  const std::string_view text(digits,
                              static_cast<std::size_t>(detail::write_decimal(digits, value) - digits));
  throw std::invalid_argument("vertex " + std::to_string(vertex) + ": " + std::string(text) +
                              std::string(why));
}

// value as an F. From double to float rounded to nearest, and a double beyond float's range, which
// would become an infinity that no reader accepts back, refused; any conversion that involves an
// integer type exact or refused. A refusal names the vertex, and nothing is written.
template <class F, class T>
F narrow(T value, std::size_t vertex) {
  if constexpr (std::is_floating_point_v<F> && std::is_floating_point_v<T>) {
    const F narrowed = static_cast<F>(value);
    if (std::isinf(narrowed) && !std::isinf(value)) refuse_vertex(vertex, value, " is out of range for f32");
    return narrowed;
  } else {
    if (!converts_exactly_to<F>(value))
      refuse_vertex(vertex, value, " has no exact value in " + std::string(binary_name<F>()));
    return static_cast<F>(value);
  }
}

// Vertices as little-endian F pairs: the vertices' own bytes when F is T, else each coordinate
// converted (rounded to nearest from double to float, exact otherwise: narrow), block by block.
template <class F, class T, class Sink>
void emit_binary(std::span<const Point2<T>> vertices, Sink& sink) {
  sink.reserve(vertices.size() * sizeof(Point2<F>));
  if constexpr (std::is_same_v<F, T>) {
    sink.append(bytes_of(vertices));
  } else {
    std::vector<Point2<F>> converted(std::min(vertices.size(), kItemsPerBlock));
    for (std::size_t begin = 0; begin < vertices.size(); begin += kItemsPerBlock) {
      const std::size_t end = std::min(vertices.size(), begin + kItemsPerBlock);
      for (std::size_t k = begin; k < end; ++k) {
        converted[k - begin] = {narrow<F>(vertices[k].x, k), narrow<F>(vertices[k].y, k)};
      }
      sink.append(bytes_of(std::span<const Point2<F>>(converted).first(end - begin)));
    }
  }
}

template <class T, class Sink>
void emit_hull(std::span<const Point2<T>> vertices, const OutputOptions& options, Sink& sink) {
  if (options.format == OutputFormat::f32) return emit_binary<float>(vertices, sink);
  if (options.format == OutputFormat::f64) return emit_binary<double>(vertices, sink);
  if (options.format == OutputFormat::i32) return emit_binary<std::int32_t>(vertices, sink);
  if (options.format == OutputFormat::i64) return emit_binary<std::int64_t>(vertices, sink);
  const Layout layout = vertex_layout(options.format, vertices.size(), options.closed);
  const std::size_t n = vertices.size();
  const std::size_t items = layout.repeats_first ? n + 1 : n;
  const std::size_t max_item_chars =
      layout.open.size() + layout.middle.size() + layout.close.size() + 2 * detail::kMaxDecimalChars<T>;
  const auto write_vertex = [&](char* p, std::size_t k) {
    const Point2<T>& vertex = vertices[k < n ? k : 0];  // item n closes the ring
    p = put(p, layout.open);
    p = detail::write_decimal(p, vertex.x);
    p = put(p, layout.middle);
    p = detail::write_decimal(p, vertex.y);
    return put(p, layout.close);
  };
  emit_items(layout, items, max_item_chars, options.threads, write_vertex, sink);
}

template <class Sink>
void emit_indices(std::span<const std::int64_t> indices, const OutputOptions& options, Sink& sink) {
  const Layout layout = index_layout(options.format);
  const std::size_t max_item_chars =
      layout.open.size() + layout.close.size() + detail::kMaxDecimalChars<std::int64_t>;
  const auto write_index = [&](char* p, std::size_t k) {
    p = put(p, layout.open);
    p = detail::write_decimal(p, indices[k]);
    return put(p, layout.close);
  };
  emit_items(layout, indices.size(), max_item_chars, options.threads, write_index, sink);
}

}  // namespace

OutputFormat parse_output_format(std::string_view name) {
  for (const OutputFormat format : kOutputFormats) {
    if (name == output_format_name(format)) return format;
  }
  throw std::invalid_argument("unknown output format \"" + std::string(name) +
                              "\" (expected text, csv, json, geojson, wkt, f32, f64, i32 or i64)");
}

std::string_view output_format_name(OutputFormat format) {
  switch (format) {
    case OutputFormat::text: return "text";
    case OutputFormat::csv: return "csv";
    case OutputFormat::json: return "json";
    case OutputFormat::geojson: return "geojson";
    case OutputFormat::wkt: return "wkt";
    case OutputFormat::f32: return "f32";
    case OutputFormat::f64: return "f64";
    case OutputFormat::i32: return "i32";
    case OutputFormat::i64: return "i64";
  }
  return "unknown";
}

OutputFormat guess_output_format(std::string_view path) {
  for (const OutputFormat format : kOutputFormats) {
    if (format == OutputFormat::text) continue;
    const std::string_view extension = output_format_name(format);
    if (path.size() > extension.size() && path[path.size() - extension.size() - 1] == '.' &&
        detail::ends_with_ignoring_case(path, extension)) {
      return format;
    }
  }
  return OutputFormat::text;
}

template <class T>
std::string format_hull(std::span<const Point2<T>> vertices, const OutputOptions& options) {
  std::string out;
  StringSink sink(out);
  emit_hull<T>(vertices, options, sink);
  return out;
}

std::string format_indices(std::span<const std::int64_t> indices, const OutputOptions& options) {
  std::string out;
  StringSink sink(out);
  emit_indices(indices, options, sink);
  return out;
}

template <class T>
void write_hull(const std::string& path, std::span<const Point2<T>> vertices, const OutputOptions& options) {
  FileSink sink(path);
  emit_hull<T>(vertices, options, sink);
  sink.commit();
}

void write_indices(const std::string& path, std::span<const std::int64_t> indices,
                   const OutputOptions& options) {
  FileSink sink(path);
  emit_indices(indices, options, sink);
  sink.commit();
}

#define WAGENER_INSTANTIATE(T)                                                           \
  template std::string format_hull<T>(std::span<const Point2<T>>, const OutputOptions&); \
  template void write_hull<T>(const std::string&, std::span<const Point2<T>>, const OutputOptions&);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener
