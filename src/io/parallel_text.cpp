// Text in parallel (parallel_text.hpp).
//
// Text is parsed in chunks on all cores when it is large. The parallel pass only has to be right
// about valid input: at the first sign of trouble (a bad value, a count that disagrees, points out of
// order, even between chunks) it gives up, and the sequential parser reads the file again to name
// the first problem with its line. Errors cost a second pass; valid files, which are the ones that
// get big, parse in a fraction of the time.
#include "io/parallel_text.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "core/id_table.hpp"
#include "core/parallel_slices.hpp"
#include "io/run_chunks.hpp"
#include "io/text_parser.hpp"
#include "wagener/error.hpp"

namespace wagener::reading {

constexpr std::size_t kMinChunkBytes = std::size_t{1} << 20;  // keeps thread start-up negligible

namespace {

// [begin, end) split after newlines into about `chunks` pieces.
std::vector<std::string_view> split_lines(const char* begin, const char* end, std::size_t chunks) {
  std::vector<std::string_view> pieces;
  const auto size = static_cast<std::size_t>(end - begin);
  const char* start = begin;
  for (std::size_t i = 1; i <= chunks && start != end; ++i) {
    const char* stop = i == chunks ? end : std::max(start, begin + size / chunks * i);
    if (stop != end) {
      const void* newline = std::memchr(stop, '\n', end - stop);
      stop = newline != nullptr ? static_cast<const char*>(newline) + 1 : end;
    }
    pieces.emplace_back(start, stop - start);
    start = stop;
  }
  return pieces;
}

template <class T>
bool sorted(std::span<const Point2<T>> points) {
  return std::adjacent_find(points.begin(), points.end(), [](const Point2<T>& a, const Point2<T>& b) {
           return lex_less(b, a);
         }) == points.end();
}

// Points of a valid text (or csv) file, parsed in parallel; nullopt when the file is small, or when
// anything is wrong with it (the sequential parser then says what).
template <class T>
std::optional<std::vector<Point2<T>>> parse_text_in_parallel(std::string_view data, bool csv,
                                                             const ReadOptions& options) {
  const bool require_sorted = options.require_sorted;
  const std::size_t chunks = text_chunks(data.size());
  if (chunks < 2) return std::nullopt;
  Preamble preamble;
  try {
    TextParser<T> front(data, {}, false);
    preamble = csv ? front.csv_preamble(options.columns) : front.text_preamble(options.columns);
  } catch (const input_error&) {
    return std::nullopt;
  }
  const std::vector<std::string_view> pieces = split_lines(preamble.body, data.data() + data.size(), chunks);
  std::vector<Point2<T>> points;

  if (preamble.counted) {
    std::vector<std::vector<T>> values(pieces.size());
    if (!run_chunks(pieces.size(),
                    [&](std::size_t i) { values[i] = TextParser<T>(pieces[i], {}, false).parse_values(); })) {
      return std::nullopt;
    }
    std::uint64_t total = 0;
    for (const auto& chunk : values) total += chunk.size();
    if (total != 2 * preamble.count) return std::nullopt;
    points.reserve(preamble.count);
    want_huge_pages(points);
    // Values pair up across chunk boundaries.
    bool have_x = false;
    T x{};
    for (auto& chunk : values) {
      for (const T value : chunk) {
        if (have_x) points.push_back({x, value});
        x = value;
        have_x = !have_x;
      }
      std::vector<T>().swap(chunk);  // free as we go: the points need the memory
    }
    if (require_sorted && !sorted<T>(points)) return std::nullopt;
    return points;
  }

  std::vector<std::vector<Point2<T>>> parts(pieces.size());
  if (!run_chunks(pieces.size(), [&](std::size_t i) {
        TextParser<T> parser(pieces[i], {}, require_sorted);
        parts[i] = csv ? parser.parse_csv_rows(preamble.layout) : parser.parse_text_rows(preamble.layout);
      })) {
    return std::nullopt;
  }
  std::size_t total = 0;
  for (const auto& part : parts) total += part.size();
  // One thread gathers the chunks, freeing each as it goes: threads copying into one vector zeroed in
  // advance were no faster on 2 cores, and would hold the chunks and all the points at once.
  points.reserve(total);
  want_huge_pages(points);
  for (auto& part : parts) {
    // Each chunk was checked within itself; what is left is where chunks meet.
    if (require_sorted && !points.empty() && !part.empty() && lex_less(part.front(), points.back())) {
      return std::nullopt;
    }
    points.insert(points.end(), part.begin(), part.end());
    std::vector<Point2<T>>().swap(part);
  }
  return points;
}

// Chunks' rows joined in file order, the groups renumbered in the order of their first rows in the
// whole file. A chunk numbers its groups in the order of their first rows within it, so taking each
// chunk's ids in its own order, new ones numbered as they come, keeps that order over the file: each
// chunk's distinct ids are looked up once, and its rows renumbered through a table. The first
// chunk's rows keep their numbers and their storage, which the later chunks' rows are appended to.
template <class T>
GroupedPoints<T> join_grouped_rows(std::vector<GroupedRows<T>>& chunks, std::string group_column) {
  GroupedPoints<T> out;
  out.group_column = std::move(group_column);
  if (chunks.empty()) return out;
  std::size_t total_rows = 0;
  std::size_t total_ids = 0;
  for (const GroupedRows<T>& chunk : chunks) {
    total_rows += chunk.points.size();
    total_ids += chunk.numbering.ids().size();
  }
  out.points = std::move(chunks.front().points);
  out.group_ids = std::move(chunks.front().group_ids);
  std::vector<std::string_view> ids = chunks.front().numbering.ids();
  if (chunks.size() > 1) {
    out.points.reserve(total_rows);  // a no-op where the first chunk reserved for the whole file
    out.group_ids.reserve(total_rows);
    want_huge_pages(out.points);
    want_huge_pages(out.group_ids);
    detail::IdTable numbers;
    numbers.reserve(total_ids);
    for (const std::string_view id : ids) numbers.intern(id);
    std::vector<std::int64_t> renumbered;
    for (std::size_t c = 1; c < chunks.size(); ++c) {
      GroupedRows<T>& chunk = chunks[c];
      renumbered.clear();
      for (const std::string_view id : chunk.numbering.ids())
        renumbered.push_back(static_cast<std::int64_t>(numbers.intern(id)));
      out.points.insert(out.points.end(), chunk.points.begin(), chunk.points.end());
      for (const std::int64_t g : chunk.group_ids)
        out.group_ids.push_back(renumbered[static_cast<std::size_t>(g)]);
      // Free as we go: the rows gathered need the memory.
      std::vector<Point2<T>>().swap(chunk.points);
      std::vector<std::int64_t>().swap(chunk.group_ids);
    }
    ids = numbers.ids();
  }
  out.group_names.assign(ids.begin(), ids.end());
  return out;
}

// Grouped csv on one thread.
template <class T>
GroupedPoints<T> parse_grouped_csv(std::string_view data, std::string_view name,
                                   const ColumnSelection& selection, std::string_view group_spec) {
  TextParser<T> parser(data, name, false);
  GroupedPreamble preamble = parser.grouped_preamble(selection, group_spec);
  if (preamble.group_column < 0) return {};
  std::vector<GroupedRows<T>> rows(1);
  rows.front() =
      parser.parse_grouped_rows(preamble, estimated_lines(preamble.body, data.data() + data.size()));
  return join_grouped_rows(rows, std::move(preamble.group_column_name));
}

// Grouped csv of a valid file, its rows parsed in `chunks` pieces on threads of their own; nullopt
// when anything is wrong with it (the sequential parser then says what), as parse_text_in_parallel.
// A line is always one row (next_csv_field refuses a quoted field that does not end on its line), so
// the chunks split at any line start.
template <class T>
std::optional<GroupedPoints<T>> parse_grouped_in_parallel(std::string_view data,
                                                          const ColumnSelection& selection,
                                                          std::string_view group_spec, std::size_t chunks) {
  if (chunks < 2) return std::nullopt;
  GroupedPreamble preamble;
  try {
    preamble = TextParser<T>(data, {}, false).grouped_preamble(selection, group_spec);
  } catch (const input_error&) {
    return std::nullopt;
  }
  if (preamble.group_column < 0) return std::nullopt;
  const char* const end = data.data() + data.size();
  const std::vector<std::string_view> pieces = split_lines(preamble.body, end, chunks);
  std::vector<GroupedRows<T>> rows(pieces.size());
  if (!run_chunks(pieces.size(), [&](std::size_t i) {
        // The first chunk reserves for the whole file's rows, which are gathered into its storage.
        const char* const first = pieces[i].data();
        const std::size_t expected = estimated_lines(first, i == 0 ? end : first + pieces[i].size());
        rows[i] = TextParser<T>(pieces[i], {}, false).parse_grouped_rows(preamble, expected);
      })) {
    return std::nullopt;
  }
  return join_grouped_rows(rows, std::move(preamble.group_column_name));
}

}  // namespace

std::size_t text_chunks(std::size_t bytes) {
  return std::min<std::size_t>({detail::hardware_threads(), kMaxChunks, bytes / kMinChunkBytes});
}

template <class T>
std::vector<Point2<T>> parse_text_points(std::string_view data, std::string_view name, bool csv,
                                         const ReadOptions& options) {
  data = skip_byte_order_mark(data, name);
  if (!csv) check_text_columns(options.columns, name);
  if (auto points = parse_text_in_parallel<T>(data, csv, options)) return std::move(*points);
  TextParser<T> parser(data, name, options.require_sorted);
  return csv ? parser.parse_csv(options.columns) : parser.parse_text(options.columns);
}

template <class T>
GroupedPoints<T> parse_grouped_csv_points(std::string_view data, std::string_view name,
                                          const ColumnSelection& selection, std::string_view group_spec,
                                          std::size_t chunks) {
  if (auto grouped = parse_grouped_in_parallel<T>(data, selection, group_spec, chunks))
    return std::move(*grouped);
  return parse_grouped_csv<T>(data, name, selection, group_spec);
}

#define WAGENER_INSTANTIATE(T)                                                                   \
  template std::vector<Point2<T>> parse_text_points<T>(std::string_view, std::string_view, bool, \
                                                       const ReadOptions&);                      \
  template GroupedPoints<T> parse_grouped_csv_points<T>(                                         \
      std::string_view, std::string_view, const ColumnSelection&, std::string_view, std::size_t);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::reading
