// The grouped csv reader (wagener/io.hpp's parse_grouped_points) with the number of chunks its rows
// are parsed in chosen by the caller. parse_grouped_points takes one chunk a core for a file of MiBs
// and reads a smaller one on one thread; tests and fuzzers ask for many chunks of a few lines each,
// so that ids, groups and bad rows fall where chunks meet.
#pragma once

#include <cstddef>
#include <string_view>

#include "wagener/io.hpp"

namespace wagener::detail {

/// parse_grouped_points, its rows cut at line starts into `chunks` pieces (fewer where there are
/// fewer lines), each parsed on a thread of its own; 0 or 1 reads them on this thread. The result
/// and the messages are those of parse_grouped_points.
template <class T>
GroupedPoints<T> parse_grouped_points_in_chunks(std::string_view data, std::string_view name,
                                                std::string_view group_column, const ReadOptions& options,
                                                std::size_t chunks);

}  // namespace wagener::detail
