// Fuzz target: the grouped csv reader (parse_grouped_points, behind wagener hull --group-by) and the
// grouped hulls of what it reads. Byte 0 picks the group column (by header name or 0-based index,
// matching, missing, blank, or the x or y column), the x/y column selection and the precision;
// byte 1 the hull's part and indices, and how many chunks the rows are also read in (each on a
// thread of its own: the same result, or the same message, as one thread); the rest is the file. A
// read either throws input_error naming the file (std::invalid_argument only for a blank group
// column) or returns
//  * finite points, one group number per point, the groups numbered 0, 1, 2, ... in the order of
//    their first rows, so every group holds a point and the groups' counts sum to the rows read;
//  * distinct group ids and a group column name, without blanks around them;
//  * the points that parse_points reads from the same file with the same columns, bit for bit;
// and convex_hulls_by_id (cpu) of them lists the groups in that order, each hull equal (as points:
// -0.0 equals 0.0) to compute_hull of its group's points in input order, with each index the
// smallest in the whole input holding its vertex in its group; and those hulls, written as
// `wagener hull --group-by` writes csv, read back as the same ids and vertices.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "fuzz_common.hpp"
#include "io/read_grouped.hpp"
#include "wagener/error.hpp"
#include "wagener/grouped.hpp"
#include "wagener/hull.hpp"
#include "wagener/io.hpp"
#include "wagener/output.hpp"

namespace {

using wagener::fuzz::require;

// Group columns as --group-by takes them: header names (one with blanks and other case), indices,
// the x and y columns (refused), names no seed has, a quoted name (names are matched unquoted), blank.
const std::string_view kGroupColumns[] = {"id",   "group",  "g", "0", "1", "2",    "3",     "10",
                                          " Id ", "\"id\"", "x", "Y", " ", "name", "label", "#"};
const wagener::ColumnSelection kSelections[] = {{},         {},         {"x", "y"}, {"0", "1"},
                                                {"1", "2"}, {"2", "0"}, {"b", "a"}, {"X", "id"}};

constexpr bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

bool trimmed(std::string_view s) {
  return s.empty() || (!is_blank(s.front()) && !is_blank(s.back()));
}

// The hulls as `wagener hull --group-by` writes them (csv "ID,x,y"), read back by the grouped reader
// (the id column by index, as its header may be named x or y): the same ids in the same order, the
// same id column name and the vertices bit for bit.
template <class T>
void check_written(const wagener::GroupedPoints<T>& read, const wagener::GroupedHulls<T>& hulls) {
  wagener::GroupedOutput<T> output;
  output.ids = read.group_names;
  output.id_header = read.group_column;
  output.offsets = hulls.offsets;
  output.vertices = hulls.vertices;
  wagener::OutputOptions csv;
  csv.format = wagener::OutputFormat::csv;
  const std::string written = wagener::format_grouped_hulls<T>(output, csv);
  wagener::ReadOptions by_index;
  by_index.columns = {"1", "2"};
  wagener::GroupedPoints<T> again;
  try {
    again = wagener::parse_grouped_points<T>(written, "written.csv", "0", by_index);
  } catch (const wagener::input_error& e) {
    wagener::fuzz::fail(std::string("the grouped csv written does not read back: ") + e.what());
  }
  require(again.group_names == read.group_names, "the ids written read back as others, or in another order");
  require(again.group_column == (read.group_column.empty() ? "id" : read.group_column),
          "the id column's name written reads back as another");
  require(wagener::fuzz::same_bits<T>(again.points, hulls.vertices),
          "the vertices written read back as others");
  std::size_t g = 0;
  for (std::size_t v = 0; v < again.group_ids.size(); ++v) {
    while (static_cast<std::int64_t>(v) >= hulls.offsets[g + 1]) ++g;
    require(again.group_ids[v] == static_cast<std::int64_t>(g),
            "a vertex written reads back in another group");
  }
}

template <class T>
void check_hulls(const wagener::GroupedPoints<T>& read, wagener::HullPart part, bool indices) {
  wagener::HullOptions options;
  options.backend = wagener::Backend::cpu;
  options.part = part;
  options.indices = indices;
  const auto hulls = wagener::convex_hulls_by_id<T>(read.points, read.group_ids, options);
  const std::size_t groups = read.group_names.size();
  require(hulls.groups() == groups, "convex_hulls_by_id: " + std::to_string(hulls.groups()) + " hulls for " +
                                        std::to_string(groups) + " groups read");
  require(hulls.group_ids.size() == groups, "convex_hulls_by_id: one id per group");
  for (std::size_t g = 0; g < groups; ++g)
    require(hulls.group_ids[g] == static_cast<std::int64_t>(g),
            "convex_hulls_by_id lists the groups out of first-appearance order");
  require(indices ? hulls.indices.size() == hulls.vertices.size() : hulls.indices.empty(),
          "convex_hulls_by_id: indices not as asked");
  check_written<T>(read, hulls);

  // Each group's points in input order, and where each came from.
  std::vector<std::vector<wagener::Point2<T>>> members(groups);
  std::vector<std::vector<std::int64_t>> where(groups);
  for (std::size_t i = 0; i < read.points.size(); ++i) {
    const auto g = static_cast<std::size_t>(read.group_ids[i]);
    members[g].push_back(read.points[i]);
    where[g].push_back(static_cast<std::int64_t>(i));
  }
  for (std::size_t g = 0; g < groups; ++g) {
    const auto expected = wagener::compute_hull<T>(members[g], options);
    const auto hull = hulls.hull(g);
    // Equal as points (-0.0 equals 0.0): of duplicates that differ only in a zero's sign, which one
    // stands for the vertex is not specified, and the two paths may pick different ones.
    require(std::ranges::equal(hull, expected.vertices),
            std::string(part == wagener::HullPart::upper ? "upper" : "full") + " hull of group " +
                std::to_string(g) + " (" + std::to_string(members[g].size()) +
                " points) differs from compute_hull of its points");
    if (!indices) continue;
    const auto first = static_cast<std::size_t>(hulls.offsets[g]);
    for (std::size_t k = 0; k < hull.size(); ++k) {
      const auto local = static_cast<std::size_t>(expected.indices[k]);
      require(hulls.indices[first + k] == where[g][local],
              "group " + std::to_string(g) + ": index of vertex " + std::to_string(k) +
                  " is not the smallest input index holding it in its group");
    }
  }
}

// The same file read with its rows in `chunks` chunks: what one thread reads, or its message.
template <class T>
void check_chunks(std::string_view file, std::string_view group_column, const wagener::ReadOptions& options,
                  std::size_t chunks, const wagener::GroupedPoints<T>* read, const std::string& message) {
  wagener::GroupedPoints<T> chunked;
  try {
    chunked =
        wagener::detail::parse_grouped_points_in_chunks<T>(file, "fuzz.csv", group_column, options, chunks);
  } catch (const wagener::input_error& e) {
    require(read == nullptr && message == e.what(),
            "read in " + std::to_string(chunks) + " chunks: " + e.what() + ", in one: " + message);
    return;
  }
  require(read != nullptr, "read in " + std::to_string(chunks) + " chunks, refused in one: " + message);
  require(wagener::fuzz::same_bits<T>(chunked.points, read->points), "chunks read other points");
  require(chunked.group_ids == read->group_ids, "chunks numbered the groups otherwise");
  require(chunked.group_names == read->group_names, "chunks read other ids");
  require(chunked.group_column == read->group_column, "chunks read another group column name");
}

template <class T>
void check_read(std::string_view file, std::string_view group_column, const wagener::ReadOptions& options,
                wagener::HullPart part, bool indices, std::size_t chunks) {
  const bool blank_column = group_column.find_first_not_of(" \t") == std::string_view::npos;
  wagener::GroupedPoints<T> read;
  try {
    read = wagener::parse_grouped_points<T>(file, "fuzz.csv", group_column, options);
  } catch (const wagener::input_error& e) {
    require(std::string_view(e.what()).starts_with("fuzz.csv"), "an input error that does not name the file");
    require(!blank_column, "a blank group column was refused as bad input, not as a bad argument");
    check_chunks<T>(file, group_column, options, chunks, nullptr, e.what());
    return;
  } catch (const std::invalid_argument&) {
    require(blank_column, "std::invalid_argument for the group column " + std::string(group_column));
    return;
  }
  require(!blank_column, "a blank group column was accepted");
  check_chunks<T>(file, group_column, options, chunks, &read, {});

  require(read.group_ids.size() == read.points.size(), "not one group number per point");
  for (const auto& p : read.points)
    require(std::isfinite(p.x) && std::isfinite(p.y), "a non-finite point was accepted");
  // First-appearance order: each number is an earlier one or the next new one; so each group holds
  // a point, and the groups' counts sum to the rows read.
  std::int64_t next = 0;
  for (const std::int64_t g : read.group_ids) {
    require(g >= 0 && g <= next, "group number " + std::to_string(g) + " out of first-appearance order");
    if (g == next) ++next;
  }
  require(static_cast<std::size_t>(next) == read.group_names.size(),
          "a group without points, or points of a group without an id");
  std::unordered_set<std::string_view> names;
  for (const std::string& name : read.group_names) {
    require(names.insert(name).second, "the id " + name + " names two groups");
    require(trimmed(name), "an id with blanks around it");
  }
  require(trimmed(read.group_column), "a group column name with blanks around it");

  // The same file read without grouping: the same points.
  wagener::ReadOptions plain = options;
  plain.format = wagener::Format::csv;
  wagener::PointSet<T> ungrouped;
  try {
    ungrouped = wagener::parse_points<T>(file, "fuzz.csv", plain);
  } catch (const wagener::input_error& e) {
    wagener::fuzz::fail(std::string("read with a group column, refused without: ") + e.what());
  }
  require(wagener::fuzz::same_bits<T>(read.points, ungrouped.points()),
          "the points read with a group column differ from those read without (" +
              std::to_string(read.points.size()) + " and " + std::to_string(ungrouped.size()) + ")");

  check_hulls<T>(read, part, indices);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  if (size < 2) return 0;
  const std::uint8_t reading = bytes[0];
  const std::uint8_t hulling = bytes[1];
  const std::string_view file(reinterpret_cast<const char*>(bytes + 2), size - 2);
  const std::string_view group_column = kGroupColumns[reading & 15];
  wagener::ReadOptions options;
  options.columns = kSelections[(reading >> 4) & 7];
  // Ignored by the grouped reader (sortedness belongs to each group); the plain read must not use it.
  options.require_sorted = false;
  const auto part = (hulling & 1) != 0 ? wagener::HullPart::upper : wagener::HullPart::full;
  const bool indices = (hulling & 2) != 0;
  const std::size_t chunks = 2 + ((hulling >> 2) & 15);
  if (reading & 128)
    check_read<float>(file, group_column, options, part, indices, chunks);
  else
    check_read<double>(file, group_column, options, part, indices, chunks);
  return 0;
}
