// A rank's part of a point file. Every rank maps the whole file (the kernel reads only the pages a
// rank touches: its own range, and for text a few lines around its ends and the first lines) and
// hands its piece to the library's own reader, parse_points(), so every rule of the formats holds
// in each part. What a piece cannot know by itself is prepended to it:
//  * csv with a header: the header line, so that names select columns and widths are checked;
//  * text and headerless csv: a row of the type's lowest value, as wide as the file's first row,
//    which is dropped after parsing: it keeps the piece in the lines-of-values format (a piece
//    starting with a lone number would otherwise read as the seed's count), sets the row width, and
//    cannot break the --presorted check, being smallest;
//  * the seed's format: a count of the piece's own points (the file's count is checked against the
//    total instead); its values may be laid out in any way, so the ends move to even value counts.
// The reader's messages name lines and bytes of the piece; relocate() makes them the file's.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mpi/collective.hpp"
#include "wagener/error.hpp"
#include "wagener/io.hpp"
#include "wagener/mpi.hpp"

namespace wagener::mpi {
namespace {

using detail::check_mpi;

// The file, mapped read-only; the mapping lives as long as a PointSet viewing it.
struct MappedFile {
  std::shared_ptr<const void> mapping;
  std::string_view bytes;
};

MappedFile map_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw input_error(path + ": cannot open: " + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || S_ISDIR(info.st_mode)) {
    const int error = S_ISDIR(info.st_mode) ? EISDIR : errno;
    ::close(fd);
    throw input_error(path + ": cannot open: " + std::strerror(error));
  }
  const auto size = static_cast<std::size_t>(info.st_size);
  if (size == 0) {
    ::close(fd);
    return {};
  }
  void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int error = errno;
  ::close(fd);
  if (address == MAP_FAILED) throw input_error(path + ": cannot read: " + std::strerror(error));
  std::shared_ptr<const void> mapping(address,
                                      [size](const void* p) { ::munmap(const_cast<void*>(p), size); });
  return {std::move(mapping), std::string_view(static_cast<const char*>(address), size)};
}

/// The reader names "NAME:LINE: ..." and "NAME: byte OFFSET: ..." in the piece it was given; the
/// same places in the whole file are `line_shift` lines and `byte_shift` bytes further on.
std::string relocate(const std::string& message, const std::string& name, std::int64_t line_shift,
                     std::uint64_t byte_shift) {
  if (message.compare(0, name.size(), name) != 0) return message;
  std::string_view rest = std::string_view(message).substr(name.size());
  const auto shifted = [&](std::string_view prefix, std::int64_t shift) -> std::string {
    if (rest.substr(0, prefix.size()) != prefix) return {};
    const std::string_view digits = rest.substr(prefix.size());
    std::int64_t place = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), place);
    if (ec != std::errc() || end == digits.data() || *end != ':') return {};
    return name + std::string(prefix) + std::to_string(place + shift) +
           std::string(end, static_cast<std::size_t>(digits.data() + digits.size() - end));
  };
  if (auto moved = shifted(":", line_shift); !moved.empty()) return moved;
  if (auto moved = shifted(": byte ", static_cast<std::int64_t>(byte_shift)); !moved.empty()) return moved;
  return message;
}

template <class T>
std::vector<Point2<T>> parse_piece(std::string_view piece, const std::string& name,
                                   const ReadOptions& options, std::int64_t line_shift,
                                   std::uint64_t byte_shift) {
  try {
    auto set = parse_points<T>(piece, name, options);
    const auto points = set.points();
    return std::vector<Point2<T>>(points.begin(), points.end());
  } catch (const input_error& e) {
    throw input_error(relocate(e.what(), name, line_shift, byte_shift));
  }
}

// Text lexing, as the reader's: blanks, '#' comments to the end of the line.
constexpr bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

std::size_t line_end(std::string_view data, std::size_t from) {
  const std::size_t newline = data.find('\n', from);
  return newline == std::string_view::npos ? data.size() : newline;
}

/// The first token of [from, to) on the line, or `to`.
std::size_t first_token(std::string_view data, std::size_t from, std::size_t to) {
  while (from < to && is_blank(data[from])) ++from;
  return from < to && data[from] != '#' ? from : to;
}

std::size_t token_end(std::string_view data, std::size_t from, std::size_t to) {
  while (from < to && !is_blank(data[from]) && data[from] != '#') ++from;
  return from;
}

/// Values in [from, to) (whole lines, or from a value's end).
std::int64_t count_values(std::string_view data, std::size_t from, std::size_t to) {
  std::int64_t count = 0;
  while (from < to) {
    const std::size_t end = std::min(line_end(data, from), to);
    for (std::size_t p = first_token(data, from, end); p < end;
         p = first_token(data, token_end(data, p, end), end))
      ++count;
    from = end + 1;
  }
  return count;
}

/// The end of the first value at or after `from` (a line start or a value's end), or the data's end.
std::size_t after_next_value(std::string_view data, std::size_t from) {
  while (from < data.size()) {
    const std::size_t end = line_end(data, from);
    const std::size_t p = first_token(data, from, end);
    if (p < end) return token_end(data, p, end);
    from = end + 1;
  }
  return data.size();
}

/// The first line at or after `from` that holds a value: [begin, end), or begin == npos.
std::pair<std::size_t, std::size_t> first_value_line(std::string_view data, std::size_t from) {
  while (from < data.size()) {
    const std::size_t end = line_end(data, from);
    if (first_token(data, from, end) < end) return {from, end};
    from = end + 1;
  }
  return {std::string_view::npos, std::string_view::npos};
}

/// The start of the line holding `position`'s byte, or `position` when it starts one.
std::size_t next_line_start(std::string_view data, std::size_t position, std::size_t floor) {
  if (position <= floor || data[position - 1] == '\n') return position;
  const std::size_t end = line_end(data, position);
  return end == data.size() ? end : end + 1;
}

std::int64_t count_newlines(std::string_view data, std::size_t from, std::size_t to) {
  return static_cast<std::int64_t>(std::count(data.begin() + static_cast<std::ptrdiff_t>(from),
                                              data.begin() + static_cast<std::ptrdiff_t>(to), '\n'));
}

std::int64_t exclusive_sum(MPI_Comm comm, std::int64_t value) {
  std::int64_t before = 0;
  check_mpi(MPI_Exscan(&value, &before, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Exscan");
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank == 0 ? 0 : before;
}

std::int64_t total_sum(MPI_Comm comm, std::int64_t value) {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Allreduce");
  return value;
}

template <class T>
std::string lowest_row(std::int64_t width, char separator) {
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, std::numeric_limits<T>::lowest());
  const std::string value(buffer, end);
  std::string row = value;
  for (std::int64_t i = 1; i < width; ++i) row += separator + value;
  return row + "\n";
}

/// What a rank read, and where its first point sits (for the order check across parts).
template <class T>
struct Piece {
  PointSet<T> points;
  std::string first_place;  // "NAME:LINE" or "NAME: byte OFFSET"
};

template <class T, class F>
Piece<T> read_binary_piece(const MappedFile& file, const std::string& name, const ReadOptions& options,
                           int rank, int size) {
  constexpr std::uint64_t record = 2 * sizeof(F);
  const std::uint64_t bytes = file.bytes.size();
  if (bytes % record != 0) {
    throw input_error(name + ": byte " + std::to_string(bytes - bytes % record) +
                      ": truncated binary: " + std::to_string(bytes) +
                      " bytes is not a whole number of points (" + std::to_string(record) + " bytes each)");
  }
  const std::uint64_t n = bytes / record;
  const std::uint64_t first = n * static_cast<std::uint64_t>(rank) / static_cast<std::uint64_t>(size);
  const std::uint64_t last = n * static_cast<std::uint64_t>(rank + 1) / static_cast<std::uint64_t>(size);
  const std::string_view piece = file.bytes.substr(first * record, (last - first) * record);
  Piece<T> out;
  out.first_place = name + ": byte " + std::to_string(first * record);
  if constexpr (std::is_same_v<T, F>) {
    if (!options.check_values && !options.require_sorted) {
      // Zero copy: the hull's own pass checks the values (the CLI reads again to name the byte).
      out.points = PointSet<T>(
          file.mapping,
          std::span<const Point2<T>>(reinterpret_cast<const Point2<T>*>(piece.data()), last - first));
      return out;
    }
  }
  out.points = PointSet<T>(parse_piece<T>(piece, name, options, 0, first * record));
  return out;
}

template <class T>
Piece<T> read_text_piece(const MappedFile& file, const std::string& name, const ReadOptions& options,
                         bool csv, MPI_Comm comm, int rank, int size) {
  const std::string_view data = file.bytes;
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  const std::size_t text_start = data.substr(0, 3) == kBom ? 3 : 0;
  const auto [value_begin, value_end] = first_value_line(data, text_start);
  const bool any_value = value_begin != std::string_view::npos;
  const std::string_view first_line = any_value ? data.substr(value_begin, value_end - value_begin) : "";

  // What the first line with a value is: the seed's count, a csv header, or a row of data.
  bool counted = false, header = false;
  std::uint64_t count = 0;
  std::int64_t width = 0;
  std::int64_t count_line = 0;
  if (any_value) {
    const std::size_t token = first_token(data, value_begin, value_end);
    const std::size_t token_stop = token_end(data, token, value_end);
    const std::string_view first_value = data.substr(token, token_stop - token);
    if (!csv && first_token(data, token_stop, value_end) == value_end &&
        first_value.find_first_not_of("0123456789") == std::string_view::npos) {
      counted = true;
      std::from_chars(first_value.data(), first_value.data() + first_value.size(), count);
      count_line = count_newlines(data, 0, value_begin) + 1;
    } else if (csv) {
      ReadOptions alone = options;
      alone.require_sorted = false;
      header = parse_piece<T>(first_line, name, alone, count_newlines(data, 0, value_begin), 0).empty();
      width = static_cast<std::int64_t>(std::count(first_line.begin(), first_line.end(), ',')) + 1;
    } else {
      width = count_values(data, value_begin, value_end);
    }
  }
  // Rank 0 also reads (and checks) what precedes the body: the count line or the header.
  const std::size_t body = counted || header ? std::min(data.size(), value_end + 1) : text_start;

  // Line-aligned ends: each rank takes an even share of the body's bytes.
  const auto share_start = [&](int r) -> std::size_t {
    if (r == 0) return body;
    if (r == size) return data.size();
    const std::size_t raw =
        body + (data.size() - body) * static_cast<std::size_t>(r) / static_cast<std::size_t>(size);
    return next_line_start(data, raw, body);
  };
  std::size_t begin = share_start(rank), end = share_start(rank + 1);
  if (end < begin) end = begin;

  std::string prefix;
  std::int64_t dropped = 0;
  if (counted) {
    // Values are laid out in any way: an end with an odd number of values before it moves past the
    // next value (the y of the pair it split), which both neighbours compute alike.
    const std::int64_t mine = count_values(data, begin, end);
    const std::int64_t before = exclusive_sum(comm, mine);
    const std::int64_t total = total_sum(comm, mine);
    if (total != 2 * static_cast<std::int64_t>(count)) {
      // As the reader: the line of the first value too many, else (too few) the count's line.
      std::int64_t line = count_line;
      if (total > 2 * static_cast<std::int64_t>(count)) {
        const std::int64_t excess = 2 * static_cast<std::int64_t>(count) - before;  // in this piece
        std::int64_t excess_line = 0;
        const std::int64_t lines_before =
            count_newlines(data, 0, body) + exclusive_sum(comm, count_newlines(data, begin, end));
        if (excess >= 0 && excess < mine) {
          const std::size_t excess_end = [&] {
            std::size_t p = begin;
            for (std::int64_t k = 0; k <= excess; ++k) p = after_next_value(data, p);
            return p;
          }();
          excess_line = lines_before + count_newlines(data, begin, excess_end) + 1;
        }
        check_mpi(MPI_Allreduce(MPI_IN_PLACE, &excess_line, 1, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
        line = excess_line;
      }
      throw input_error(name + ":" + std::to_string(line) + ": count says " + std::to_string(count) +
                        (count == 1 ? " point" : " points") + " but the file holds " + std::to_string(total) +
                        (total == 1 ? " value" : " values"));
    }
    std::int64_t values = mine;
    if (rank > 0 && before % 2 != 0) {
      begin = after_next_value(data, begin);
      --values;
    }
    if (rank + 1 < size && (before + mine) % 2 != 0) {
      end = after_next_value(data, end);
      ++values;
    }
    if (end < begin) end = begin;
    prefix = std::to_string(values / 2) + "\n";
  } else if (rank > 0 && any_value) {
    if (header) {
      prefix = std::string(first_line) + "\n";
    } else {
      prefix = lowest_row<T>(std::max<std::int64_t>(width, 2), csv ? ',' : ' ');
      dropped = 1;
    }
  }
  // Newlines before `begin`: those before the body, then those of the earlier ranks' pieces.
  const std::int64_t lines_before =
      count_newlines(data, 0, body) + exclusive_sum(comm, count_newlines(data, begin, end));

  Piece<T> out;
  std::vector<Point2<T>> points;
  if (rank == 0 && prefix.empty()) {
    points = parse_piece<T>(data.substr(0, end), name, options, 0, 0);
  } else {
    std::string piece = prefix;
    piece.append(data.substr(begin, end - begin));
    // The piece's line 2 is the file's line holding `begin`.
    points = parse_piece<T>(piece, name, options, lines_before - 1, 0);
  }
  if (dropped > 0 && !points.empty()) points.erase(points.begin());
  const auto [first_begin, first_end] = first_value_line(data, rank == 0 ? body : begin);
  (void)first_end;
  const std::int64_t first_line_number =
      first_begin == std::string_view::npos ? 0 : lines_before + count_newlines(data, begin, first_begin) + 1;
  out.first_place = name + ":" + std::to_string(first_line_number);
  out.points = PointSet<T>(std::move(points));
  return out;
}

/// --presorted across parts: each part's first point is no smaller than the last point before it.
template <class T>
void check_order_across_parts(MPI_Comm comm, const Piece<T>& piece, int rank, int size) {
  struct Ends {
    Point2<T> first{}, last{};
    int nonempty = 0;
  };
  const auto points = piece.points.points();
  Ends mine{};
  if (!points.empty()) mine = {points.front(), points.back(), 1};
  std::vector<Ends> all(static_cast<std::size_t>(size));
  check_mpi(MPI_Allgather(&mine, sizeof(Ends), MPI_BYTE, all.data(), sizeof(Ends), MPI_BYTE, comm),
            "MPI_Allgather");
  if (!mine.nonempty) return;
  for (int r = rank - 1; r >= 0; --r) {
    if (!all[static_cast<std::size_t>(r)].nonempty) continue;
    const Point2<T>& previous = all[static_cast<std::size_t>(r)].last;
    if (lex_less<T>(mine.first, previous)) {
      // Shortest round-trip decimal, as the reader writes values: integers as they are.
      const auto text = [](T v) {
        char buffer[64];
        return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, v).ptr);
      };
      throw input_error(piece.first_place + ": points not sorted: (" + text(mine.first.x) + ", " +
                        text(mine.first.y) + ") comes after (" + text(previous.x) + ", " + text(previous.y) +
                        ")");
    }
    return;
  }
}

}  // namespace

template <class T>
LocalPoints<T> read_local_points(MPI_Comm comm, const std::string& path, const ReadOptions& options) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const Format format = options.format == Format::automatic ? guess_format(path) : options.format;
  LocalPoints<T> out;
  Piece<T> piece;
  detail::all_or_none(comm, [&] {
    if (path == "-") {
      throw std::invalid_argument("standard input cannot be split among MPI ranks: name a file");
    }
    if (!options.columns.empty() && is_binary_format(format)) {
      throw input_error(path + ": a column selection (--columns) applies to text and csv, not to binary " +
                        std::string(format_name(format)) + " input");
    }
  });
  MappedFile file;
  detail::all_or_none(comm, [&] { file = map_file(path); });
  // A text piece's step holds collectives (value and line counts); every rank reaches them, as
  // what can fail before them (the first line, the count) fails alike on every rank.
  if (is_binary_format(format)) {
    detail::all_or_none(comm, [&] {
      switch (format) {
        case Format::f32: piece = read_binary_piece<T, float>(file, path, options, rank, size); break;
        case Format::f64: piece = read_binary_piece<T, double>(file, path, options, rank, size); break;
        case Format::i32: piece = read_binary_piece<T, std::int32_t>(file, path, options, rank, size); break;
        default: piece = read_binary_piece<T, std::int64_t>(file, path, options, rank, size);
      }
    });
  } else {
    detail::all_or_none(comm, [&] {
      piece = read_text_piece<T>(file, path, options, format == Format::csv, comm, rank, size);
    });
  }
  if (options.require_sorted)
    detail::all_or_none(comm, [&] { check_order_across_parts<T>(comm, piece, rank, size); });
  out.points = std::move(piece.points);
  const auto count = static_cast<std::int64_t>(out.points.size());
  out.first_index = exclusive_sum(comm, count);
  out.total = total_sum(comm, count);
  return out;
}

template LocalPoints<float> read_local_points(MPI_Comm, const std::string&, const ReadOptions&);
template LocalPoints<double> read_local_points(MPI_Comm, const std::string&, const ReadOptions&);
template LocalPoints<std::int32_t> read_local_points(MPI_Comm, const std::string&, const ReadOptions&);
template LocalPoints<std::int64_t> read_local_points(MPI_Comm, const std::string&, const ReadOptions&);

}  // namespace wagener::mpi
