// Text in parallel: text and csv cut into chunks at line starts, parsed on all cores and joined,
// with the sequential parser (text_parser.hpp) to name the first problem of a file that is not valid.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "wagener/io.hpp"
#include "wagener/point.hpp"

namespace wagener::reading {

/// How many chunks the parallel parsers cut `bytes` of text into: one a core, none smaller than a
/// MiB. Fewer than 2: the sequential parser reads it.
std::size_t text_chunks(std::size_t bytes);

/// The points of text (csv: false) or csv (true), a byte-order mark skipped; input_error names the
/// file (`name`) and the line of the first problem.
template <class T>
std::vector<Point2<T>> parse_text_points(std::string_view data, std::string_view name, bool csv,
                                         const ReadOptions& options);

/// The rows of csv with a group column (`group_spec`, a name or a 0-based index), parsed in `chunks`
/// pieces on threads of their own (0 or 1: on this thread), the groups numbered in the order of
/// their first rows; input_error names the file and the line of the first problem.
template <class T>
GroupedPoints<T> parse_grouped_csv_points(std::string_view data, std::string_view name,
                                          const ColumnSelection& selection, std::string_view group_spec,
                                          std::size_t chunks);

}  // namespace wagener::reading
