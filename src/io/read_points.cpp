// Reading point files. Every byte of input is validated before a point reaches a hull: malformed,
// non-finite or out-of-range values and broken promises (--presorted) fail with one line naming the
// file and the line (text, csv) or byte offset (binary) to fix.
//
// Speed matters more here than anywhere else outside the hull itself: a file of 10^9 points is read
// once, so regular files are memory-mapped (standard input too, when it is redirected from one),
// streams are read once into memory that grows without copying, binary files of the requested
// precision are returned as a zero-copy view of those bytes, and text is parsed in place with
// std::from_chars, in chunks on all cores when it is large.
//
// Numbers: decimal only, with an optional leading '+'. Hexadecimal floats ("0x1p3") are rejected,
// as are NaN and infinity in any spelling, and literals that overflow T or underflow to zero in T
// (std::from_chars reports both as out of range; subnormal results are accepted).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/huge_pages.hpp"
#include "core/id_table.hpp"
#include "core/parallel_slices.hpp"
#include "io/path_suffix.hpp"
#include "io/point_pieces.hpp"
#include "io/read_grouped.hpp"
#include "wagener/error.hpp"
#include "wagener/io.hpp"

namespace wagener {

// Binary files are reinterpreted in place, so the host must share their layout.
static_assert(std::endian::native == std::endian::little, "binary point files are little-endian");
static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559);
static_assert(sizeof(Point2<float>) == 2 * sizeof(float) && sizeof(Point2<double>) == 2 * sizeof(double));

namespace {

// ---------------------------------------------------------------------------------------------
// Messages

template <class T>
constexpr std::string_view type_name = std::is_same_v<T, float> ? "float" : "double";

std::string display_name(std::string_view path) {
  return path == "-" ? "<stdin>" : std::string(path);
}

[[noreturn]] void fail_at_line(std::string_view name, index_t line, std::string_view message) {
  throw input_error(std::string(name) + ":" + std::to_string(line) + ": " + std::string(message));
}

[[noreturn]] void fail_at_byte(std::string_view name, std::uint64_t offset, std::string_view message) {
  throw input_error(std::string(name) + ": byte " + std::to_string(offset) + ": " + std::string(message));
}

[[noreturn]] void fail_system(std::string_view name, std::string_view what, int error) {
  throw input_error(std::string(name) + ": " + std::string(what) + ": " + std::strerror(error));
}

// A token in double quotes, cut short and escaped so that the message stays one readable line
// whatever bytes the file holds.
std::string quote(std::string_view token) {
  constexpr std::size_t kMaxShown = 40;
  std::string out = "\"";
  for (std::size_t i = 0; i < token.size() && i < kMaxShown; ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (token.size() > kMaxShown) out += "...";
  out += '"';
  return out;
}

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

// ---------------------------------------------------------------------------------------------
// Getting the bytes

class UniqueFd {
 public:
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// The whole content of an input, read-only, in memory that `owner` keeps alive: a mapping of a regular
// file, or an anonymous mapping that a stream was read into. Either way it starts on a page boundary
// (unless a redirected standard input had been read from part way), so binary points of the requested
// precision can be handed out as a view of it without a copy.
struct InputBytes {
  std::shared_ptr<const void> owner;  // null for empty input
  std::string_view bytes;
};

std::size_t page_size() {
  static const auto size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

std::size_t round_up_to_pages(std::size_t bytes) {
  return (bytes + page_size() - 1) / page_size() * page_size();
}

// Maps bytes [offset, offset + size) of a regular file; nullopt where the file system cannot map.
std::optional<InputBytes> map_file(int fd, std::uint64_t offset, std::size_t size) {
  const std::uint64_t start = offset / page_size() * page_size();  // mmap's offset must be page-aligned
  const auto length = static_cast<std::size_t>(offset - start) + size;
  // Every byte is about to be validated, so fault the whole file in now rather than page by page.
  // This runs on one thread, before the validation's; leaving the faults to those threads was no
  // faster (2-core KVM guest, file in the page cache: `wagener hull FILE.f64 --backend cpu` median
  // 54 ms for 10^7 points either way, 218 against 220 ms for 10^8): populating 1.6 GB of cached
  // file took 0.5 ms, the page cache holding it in large folios.
  void* address =
      ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, static_cast<off_t>(start));
  if (address == MAP_FAILED) return std::nullopt;
  // Under memory pressure, read ahead aggressively and drop pages behind the parser.
  ::madvise(address, length, MADV_SEQUENTIAL);
  InputBytes input;
  input.owner = std::shared_ptr<const void>(
      address, [length](const void* p) { ::munmap(const_cast<void*>(p), length); });
  input.bytes = {static_cast<const char*>(address) + (offset - start), size};
  return input;
}

// A stream (pipe, terminal, socket, a file that cannot be mapped) read to its end into an anonymous
// mapping that doubles as it fills. mremap moves the pages rather than their bytes, so growing copies
// nothing, and the input is held once: text is parsed in place and binary points are a view of it.
class StreamBuffer {
 public:
  StreamBuffer() = default;
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
  ~StreamBuffer() {
    if (data_ != nullptr) ::munmap(data_, capacity_);
  }

  // `expected_size` (what fstat says, when anything) saves the doublings up to it.
  InputBytes read_all(int fd, std::string_view name, std::size_t expected_size = 0) && {
    constexpr std::size_t kInitialCapacity = std::size_t{1} << 20;
    // One byte beyond the expected size, so that end of file is seen without growing.
    reserve(std::max(kInitialCapacity, expected_size + 1), name);
    for (;;) {
      if (size_ == capacity_) reserve(2 * capacity_, name);
      const ssize_t got = ::read(fd, data_ + size_, capacity_ - size_);
      if (got < 0) {
        if (errno == EINTR) continue;
        fail_system(name, "cannot read", errno);
      }
      if (got == 0) break;
      size_ += static_cast<std::size_t>(got);
    }
    return release();
  }

 private:
  void reserve(std::size_t capacity, std::string_view name) {
    capacity = round_up_to_pages(capacity);
    void* address = data_ == nullptr ? ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE,
                                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                                     : ::mremap(data_, capacity_, capacity, MREMAP_MAYMOVE);
    if (address == MAP_FAILED) fail_system(name, "cannot read", errno);
    data_ = static_cast<char*>(address);
    capacity_ = capacity;
  }

  InputBytes release() {
    if (size_ == 0) return {};
    // Give back the unused tail (shrinking never moves), and make the rest read-only: from here on
    // it is input, and perhaps the points themselves.
    if (const std::size_t needed = round_up_to_pages(size_); needed < capacity_) {
      if (::mremap(data_, capacity_, needed, 0) != MAP_FAILED) capacity_ = needed;
    }
    ::mprotect(data_, capacity_, PROT_READ);
    InputBytes input;
    input.owner = std::shared_ptr<const void>(
        data_, [length = capacity_](const void* p) { ::munmap(const_cast<void*>(p), length); });
    input.bytes = {data_, size_};
    data_ = nullptr;
    return input;
  }

  char* data_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t size_ = 0;
};

// Standard input is read from file descriptor 0, not through stdio: nothing else in a process that
// reads points should have consumed part of it. Redirected from a regular file (`< points.f64`) it is
// mapped like a named file, from where its offset stands, and the offset is then moved to the end,
// as reading would have.
InputBytes read_stdin() {
  constexpr std::string_view kName = "<stdin>";
  constexpr int kStdin = 0;
  struct stat info {};
  if (::fstat(kStdin, &info) != 0) fail_system(kName, "cannot read", errno);
  if (S_ISDIR(info.st_mode)) fail_system(kName, "cannot read", EISDIR);
  if (S_ISREG(info.st_mode) && info.st_size > 0) {
    const off_t offset = ::lseek(kStdin, 0, SEEK_CUR);
    if (offset >= 0) {
      const auto size = static_cast<std::size_t>(std::max<off_t>(info.st_size - offset, 0));
      if (size == 0) return {};
      if (auto input = map_file(kStdin, static_cast<std::uint64_t>(offset), size)) {
        ::lseek(kStdin, info.st_size, SEEK_SET);
        return std::move(*input);
      }
    }
  }
  return StreamBuffer().read_all(kStdin, kName);
}

InputBytes read_file(const std::string& path) {
  if (path == "-") return read_stdin();
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) fail_system(path, "cannot open", errno);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) fail_system(path, "cannot open", errno);
  if (S_ISDIR(info.st_mode)) fail_system(path, "cannot open", EISDIR);

  std::size_t expected_size = 0;
  if (S_ISREG(info.st_mode) && info.st_size > 0) {
    expected_size = static_cast<std::size_t>(info.st_size);
    if (auto input = map_file(fd.get(), 0, expected_size)) return std::move(*input);
    // Some file systems cannot map; reading works everywhere.
  }
  // Pipes, devices, and procfs files that report size 0.
  return StreamBuffer().read_all(fd.get(), path, expected_size);
}

using detail::advise;
using detail::want_huge_pages;

// ---------------------------------------------------------------------------------------------
// Text and CSV

// U+FEFF in UTF-8: allowed as the first bytes of text, an error anywhere else.
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

constexpr bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}
constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

const char* skip_blanks(const char* p, const char* end) {
  while (p != end && is_blank(*p)) ++p;
  return p;
}

// End of a whitespace-separated token ('#' also ends it: a comment may follow a value directly).
const char* token_end(const char* p, const char* end) {
  while (p != end && !is_blank(*p) && *p != '#') ++p;
  return p;
}

// Values on a line from p, up to a comment.
index_t count_tokens(const char* p, const char* end) {
  index_t count = 0;
  for (p = skip_blanks(p, end); p != end && *p != '#'; p = skip_blanks(token_end(p, end), end)) ++count;
  return count;
}

std::string_view trim(std::string_view s) {
  std::size_t first = 0;
  while (first < s.size() && is_blank(s[first])) ++first;
  std::size_t last = s.size();
  while (last > first && is_blank(s[last - 1])) --last;
  return s.substr(first, last - first);
}

// from_chars takes no '+': one is skipped, unless a '-' follows ("+-1" is not a number).
const char* skip_plus(const char* p, const char* end) {
  return p != end && *p == '+' && !(p + 1 != end && p[1] == '-') ? p + 1 : p;
}

// Whether a csv field is a number in the sense of the parser (finite or not, in range or not):
// what tells a header line from a data line.
template <class T>
bool looks_like_number(std::string_view field) {
  const char* end = field.data() + field.size();
  T value{};
  const auto [ptr, ec] = std::from_chars(skip_plus(field.data(), end), end, value);
  return ec != std::errc::invalid_argument && ptr == end;
}

// ASCII letters compared without case: column names.
bool same_name(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [&](char u, char v) { return lower(u) == lower(v); });
}

// The 0-based column index a selection spells, if it spells one: decimal digits only.
std::optional<index_t> column_index(std::string_view spec) {
  if (spec.empty() || !std::all_of(spec.begin(), spec.end(), is_digit)) return std::nullopt;
  index_t index = 0;
  if (std::from_chars(spec.data(), spec.data() + spec.size(), index).ec != std::errc()) return std::nullopt;
  return index;
}

// The columns of a header for a message, with the indices that select them: 0 "id", 1 "lon", ...
std::string describe_columns(const std::vector<std::string>& names) {
  constexpr std::size_t kMaxShown = 32;
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kMaxShown; ++i) {
    if (i != 0) out += ", ";
    out += std::to_string(i) + " " + quote(names[i]);
  }
  if (names.size() > kMaxShown) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

// Which fields of a row hold the point, and how many fields every row has.
struct RowLayout {
  // False: the plain two-column layout ("x,y", "x y"), which has a fast path. True: x and y were
  // selected, by the caller or by a header that names them among other columns.
  bool selected = false;
  index_t x = 0;
  index_t y = 1;
  index_t width = 2;
  index_t width_line = 0;  // the line the width was taken from (when selected), for messages
  bool width_from_header = false;
};

// What precedes the points of a text or csv file: comments, blank lines, and the seed's count or a
// csv header. The body, from `body` on, holds the points, laid out as `layout` says.
struct Preamble {
  const char* body = nullptr;
  bool counted = false;  // the seed's format: `count` points, values laid out in any way
  std::uint64_t count = 0;
  RowLayout layout;
};

// An estimate of the lines in [begin, end), for reserving up front (which saves the copies of a
// growing vector): counting them all would cost a pass over the file, so a sample is counted
// instead, and the vector grows as usual where the estimate falls short.
std::size_t estimated_lines(const char* begin, const char* end) {
  constexpr std::ptrdiff_t kSampleBytes = 1 << 16;
  constexpr double kHeadroom = 1.125;          // a file a little denser than its sample still fits
  constexpr std::ptrdiff_t kMinLineBytes = 4;  // "0 0\n"
  const std::ptrdiff_t size = end - begin;
  const std::ptrdiff_t sample = std::min(size, kSampleBytes);
  if (sample == 0) return 0;
  const auto lines_in_sample = static_cast<double>(std::count(begin, begin + sample, '\n') + 1);
  const double estimate =
      lines_in_sample * static_cast<double>(size) / static_cast<double>(sample) * kHeadroom;
  return static_cast<std::size_t>(std::min(estimate, static_cast<double>(size / kMinLineBytes + 1)));
}

// The text of a quoted csv field with each "" read as one quote.
std::string unescape_quotes(std::string_view quoted) {
  std::string text(quoted);
  for (std::size_t at = text.find("\"\""); at != std::string::npos; at = text.find("\"\"", at + 1))
    text.erase(at, 1);
  return text;
}

// The header of csv with a group column: where the rows start, how x and y are laid out in them,
// and which field holds the group's id.
struct GroupedPreamble {
  const char* body = nullptr;
  RowLayout layout;
  index_t group_column = -1;  // -1: no header, so no rows
  std::string group_column_name;
};

// Numbers ids in the order of their first appearance. Each new id is kept in a copy of its own, and
// the table keys on the copies: a long id's compare reads those few compact bytes, not the id's
// first place in the file, a cache miss a row when the rows come shuffled (a short id is held in the
// table itself). An id equal to the previous row's, as ids usually come in runs, is numbered without
// hashing; the previous id is kept in a string of its own, in the cache (a view of its copy cost a
// miss a row, 15 % of a shuffled file's processor time, in the compare that was to save the hash).
class IdNumbering {
 public:
  std::int64_t number(std::string_view id) {
    if (last_number_ >= 0 && id == last_id_) return last_number_;
    last_number_ = static_cast<std::int64_t>(table_.intern(
        id, [this](std::string_view fresh) { return std::string_view(copies_.emplace_back(fresh)); }));
    last_id_.assign(id);
    return last_number_;
  }

  // The ids in the order of their numbers.
  const std::vector<std::string_view>& ids() const { return table_.ids(); }

 private:
  detail::IdTable table_;
  std::deque<std::string> copies_;  // a deque never moves its elements, which the views point into
  std::string last_id_;
  std::int64_t last_number_ = -1;
};

// The rows of grouped csv, or of one chunk of them: each row's point and group number, the groups
// numbered in the order of their first rows in these rows (numbering.ids()[g] is group g's id).
template <class T>
struct GroupedRows {
  std::vector<Point2<T>> points;
  std::vector<std::int64_t> group_ids;
  IdNumbering numbering;
};

// A csv field's text, without the blanks around it and without its quotes if it had any ("" inside
// quotes is left doubled: only names are unescaped, a number holds no quotes).
struct CsvField {
  std::string_view text;
  bool quoted = false;
};

// Parses text and csv from memory. One object parses one run of lines in order; the parallel driver
// runs one per chunk.
template <class T>
class TextParser {
 public:
  // `lines_before`: how many lines of the file precede `data` (a piece of a file read in pieces).
  TextParser(std::string_view data, std::string_view name, bool require_sorted, index_t lines_before = 0)
      : next_(data.data()),
        end_(data.data() + data.size()),
        name_(name),
        require_sorted_(require_sorted),
        line_(lines_before) {}

  // The last line read so far, and the line of the seed's count (0 if none was read).
  index_t line() const { return line_; }
  index_t count_line() const { return count_line_; }

  // The first line with a value decides between the seed's format (a count alone on its line) and
  // plain lines of values; with a selection, it also sets how many values every line has.
  Preamble text_preamble(const ColumnSelection& selection) {
    const char* p = nullptr;
    const char* e = nullptr;
    while (next_line(p, e)) {
      const char* first = skip_blanks(p, e);
      if (first == e || *first == '#') continue;
      const char* first_end = token_end(first, e);
      const index_t values = 1 + count_tokens(first_end, e);
      if (values == 1 && std::all_of(first, first_end, is_digit)) {
        if (!selection.empty()) {
          fail_at_line(name_, line_,
                       "a column selection needs lines of values, but this is the seed's format (a count "
                       "alone on its line, then the values)");
        }
        count_line_ = line_;
        return {next_, true, parse_count(std::string_view(first, first_end - first)), {}};
      }
      const RowLayout layout = first_row_layout(values, selection, false);
      rewind(p);  // the first point
      return {next_, false, 0, layout};
    }
    return {next_, false, 0, {}};
  }

  // A first line in which no field is a number is a header; a line with a number in it is data, so
  // that a typo in the first point ("1,2o") is reported rather than taken for a header.
  Preamble csv_preamble(const ColumnSelection& selection) {
    const char* p = nullptr;
    const char* e = nullptr;
    while (next_line(p, e)) {
      const char* first = skip_blanks(p, e);
      if (first == e || *first == '#') continue;
      const std::vector<CsvField> fields = csv_fields(first, e);
      const bool header = std::none_of(fields.begin(), fields.end(), [](const CsvField& field) {
        return looks_like_number<T>(field.text);
      });
      if (header) return {next_, false, 0, header_layout(fields, selection)};
      const RowLayout layout = first_row_layout(static_cast<index_t>(fields.size()), selection, true);
      rewind(p);  // the first point
      return {next_, false, 0, layout};
    }
    return {next_, false, 0, {}};
  }

  // Plain format: exactly two values on every line that has any.
  std::vector<Point2<T>> parse_pairs() {
    reserve_for_lines();
    const char* p = nullptr;
    const char* e = nullptr;
    while (next_line(p, e)) {
      p = skip_blanks(p, e);
      if (p == e || *p == '#') continue;
      const char* line_start = p;
      const T x = parse_number<false>(p, e);
      p = skip_blanks(p, e);
      if (p == e || *p == '#') [[unlikely]] {
        fail_value_count(line_start, e);
      }
      const T y = parse_number<false>(p, e);
      p = skip_blanks(p, e);
      if (p != e && *p != '#') [[unlikely]] {
        fail_value_count(line_start, e);
      }
      push({x, y}, line_);
    }
    return std::move(points_);
  }

  // Lines of values with selected columns; the plain layout goes the fast way.
  std::vector<Point2<T>> parse_text_rows(const RowLayout& layout) {
    if (!layout.selected) return parse_pairs();
    reserve_for_lines();
    const char* p = nullptr;
    const char* e = nullptr;
    while (next_line(p, e)) {
      p = skip_blanks(p, e);
      if (p == e || *p == '#') continue;
      parse_text_row(p, e, layout);
    }
    return std::move(points_);
  }

  std::vector<Point2<T>> parse_csv_rows(const RowLayout& layout) {
    reserve_for_lines();
    const char* p = nullptr;
    const char* e = nullptr;
    while (next_line(p, e)) {
      const char* first = skip_blanks(p, e);
      if (first == e || *first == '#') continue;
      Point2<T> point;
      if (!layout.selected && try_csv_pair(first, e, point)) [[likely]] {
        push(point, line_);
      } else {
        parse_csv_row(first, e, layout);
      }
    }
    return std::move(points_);
  }

  // The seed's format after the count: exactly 2 * count values laid out in any way.
  std::vector<Point2<T>> parse_counted(std::uint64_t count) {
    // Each point takes at least 4 bytes ("0 0" and a separator): a huge count cannot over-allocate.
    points_.reserve(std::min<std::uint64_t>(count, static_cast<std::uint64_t>(end_ - next_) / 4 + 1));
    CountedProgress progress;
    std::vector<Point2<T>> points = parse_counted_values(count, progress);
    finish_counted(count, count_line_, progress);
    return points;
  }

  // How far the values of the seed's format have come, across the pieces of a file read in pieces.
  struct CountedProgress {
    index_t values = 0;  // values read, up to 2 * count
    T x{};               // the pending x of a pair split between pieces
    index_t x_line = 0;
    index_t excess_line = 0;  // the line of the first value beyond 2 * count (0: none yet)
    index_t excess = 0;       // values beyond 2 * count
  };

  // The values of this piece, paired into points; values beyond 2 * count are only counted.
  std::vector<Point2<T>> parse_counted_values(std::uint64_t count, CountedProgress& progress) {
    const auto expected = static_cast<index_t>(2 * count);
    const char* p = nullptr;
    const char* e = nullptr;
    while (next_line(p, e)) {
      for (p = skip_blanks(p, e); p != e && *p != '#'; p = skip_blanks(p, e)) {
        if (progress.values == expected) [[unlikely]] {
          // Name the line of the first value too many, and say how many there are in all.
          if (progress.excess_line == 0) progress.excess_line = line_;
          progress.excess += count_tokens(p, e);
          break;
        }
        const T value = parse_number<false>(p, e);
        if (progress.values % 2 == 0) {
          progress.x = value;
          progress.x_line = line_;
        } else {
          push({progress.x, value}, progress.x_line);
        }
        ++progress.values;
      }
    }
    return std::move(points_);
  }

  // After the last piece: too many values name the first one too many; too few (the data ended early
  // or the count is wrong) the count's line, where the claim is.
  void finish_counted(std::uint64_t count, index_t count_line, const CountedProgress& progress) const {
    if (progress.excess_line != 0) {
      fail_at_line(name_, progress.excess_line, count_mismatch(count, progress.values + progress.excess));
    }
    if (progress.values != static_cast<index_t>(2 * count)) {
      fail_at_line(name_, count_line, count_mismatch(count, progress.values));
    }
  }

  // Every value, unpaired: a chunk of the seed's format, whose pairing depends on what came before.
  std::vector<T> parse_values() {
    std::vector<T> values;
    values.reserve(2 * estimated_lines());
    want_huge_pages(values);
    const char* p = nullptr;
    const char* e = nullptr;
    while (next_line(p, e)) {
      for (p = skip_blanks(p, e); p != e && *p != '#'; p = skip_blanks(p, e)) {
        values.push_back(parse_number<false>(p, e));
      }
    }
    return values;
  }

  std::vector<Point2<T>> parse_text(const ColumnSelection& selection) {
    const Preamble preamble = text_preamble(selection);
    return preamble.counted ? parse_counted(preamble.count) : parse_text_rows(preamble.layout);
  }

  std::vector<Point2<T>> parse_csv(const ColumnSelection& selection) {
    return parse_csv_rows(csv_preamble(selection).layout);
  }

  // The header of csv with a group column: the layout of x and y, and the group column.
  GroupedPreamble grouped_preamble(const ColumnSelection& selection, std::string_view group_spec) {
    const char* p = nullptr;
    const char* e = nullptr;
    while (next_line(p, e)) {
      const char* first = skip_blanks(p, e);
      if (first == e || *first == '#') continue;
      const std::vector<CsvField> fields = csv_fields(first, e);
      const bool header = std::none_of(fields.begin(), fields.end(), [](const CsvField& field) {
        return looks_like_number<T>(field.text);
      });
      if (!header) {
        fail_at_line(name_, line_,
                     "grouping needs a header line naming the columns, but this first line is data");
      }
      const std::vector<std::string> names = column_names(fields);
      GroupedPreamble preamble;
      preamble.layout = header_layout(fields, selection);
      if (!preamble.layout.selected) {  // two columns: nothing left to group by, which header_column says
        preamble.layout = {.selected = true, .width = 2, .width_line = line_, .width_from_header = true};
      }
      const index_t group_column = header_column(group_spec, names);
      if (group_column == preamble.layout.x || group_column == preamble.layout.y) {
        fail_at_line(name_, line_,
                     "the group column " + quote(trim(group_spec)) + " is also the " +
                         (group_column == preamble.layout.x ? "x" : "y") +
                         " column: " + describe_columns(names));
      }
      preamble.body = next_;
      preamble.group_column = group_column;
      preamble.group_column_name = names[static_cast<std::size_t>(group_column)];
      return preamble;
    }
    return {};  // no header, no rows
  }

  // The rows from here on, laid out as `preamble` says: each row's point and group, the groups
  // numbered in the order of their first rows among these rows. `expected_rows` is reserved.
  GroupedRows<T> parse_grouped_rows(const GroupedPreamble& preamble, std::size_t expected_rows) {
    const RowLayout& layout = preamble.layout;
    GroupedRows<T> rows;
    points_.reserve(expected_rows);
    want_huge_pages(points_);
    rows.group_ids.reserve(expected_rows);
    want_huge_pages(rows.group_ids);
    const char* p = nullptr;
    const char* e = nullptr;
    while (next_line(p, e)) {
      const char* first = skip_blanks(p, e);
      if (first == e || *first == '#') continue;
      Point2<T> point;
      std::string_view id;
      if (try_grouped_row(first, e, layout, preamble.group_column, point, id)) [[likely]] {
        push(point, line_);
        rows.group_ids.push_back(rows.numbering.number(id));
      } else {
        parse_grouped_row(first, e, preamble, rows);
      }
    }
    rows.points = std::move(points_);
    return rows;
  }

 private:
  // The next line (without its '\n') in [p, e); false at end of data.
  bool next_line(const char*& p, const char*& e) {
    if (next_ == end_) return false;
    p = next_;
    const void* newline = std::memchr(p, '\n', end_ - p);
    e = newline != nullptr ? static_cast<const char*>(newline) : end_;
    next_ = newline != nullptr ? e + 1 : end_;
    ++line_;
    return true;
  }

  // Makes the line starting at p, the last one next_line gave, the next one again.
  void rewind(const char* p) {
    next_ = p;
    --line_;
  }

  // The csv field at p, on a line that ends at e; p moves past the field and its comma. Returns
  // false for the line's last field (at the line's end, or where a comment starts). A field in
  // double quotes may hold commas, '#' and doubled quotes (RFC 4180) but no line break: a line is
  // always one row, which is what lets the parallel parser cut the file at any newline.
  bool next_csv_field(const char*& p, const char* e, CsvField& field) const {
    p = skip_blanks(p, e);
    if (p != e && *p == '"') [[unlikely]] {
      const char* open = p++;
      for (;;) {
        const void* close = std::memchr(p, '"', static_cast<std::size_t>(e - p));
        if (close == nullptr) {
          fail_at_line(
              name_, line_,
              "quoted field " + quote(std::string_view(open, e - open)) + " does not end on its line");
        }
        p = static_cast<const char*>(close) + 1;
        if (p == e || *p != '"') break;
        ++p;  // "" stands for one quote
      }
      field = {trim(std::string_view(open + 1, p - 1 - (open + 1))), true};
      const char* after = skip_blanks(p, e);
      if (after != e && *after != ',' && *after != '#') {
        fail_at_line(name_, line_,
                     "text after the quoted field " + quote(std::string_view(open, p - open)) + ": " +
                         quote(std::string_view(after, e - after)));
      }
      p = after;
    } else {
      const char* start = p;
      while (p != e && *p != ',' && *p != '#') ++p;
      field = {trim(std::string_view(start, p - start)), false};
    }
    if (p != e && *p == ',') {
      ++p;
      return true;
    }
    return false;
  }

  // Every field of a line with values (the header, or the first row).
  std::vector<CsvField> csv_fields(const char* p, const char* e) const {
    std::vector<CsvField> fields;
    CsvField field;
    for (bool more = true; more;) {
      more = next_csv_field(p, e, field);
      fields.push_back(field);
    }
    return fields;
  }

  // A header's column names: quotes removed, "" read as one quote.
  std::vector<std::string> column_names(const std::vector<CsvField>& fields) const {
    std::vector<std::string> names;
    for (const CsvField& field : fields) {
      if (field.text.find(kUtf8Bom) != std::string_view::npos) {
        fail_at_line(name_, line_, "byte-order mark in the header: one may only begin the file");
      }
      names.push_back(field.quoted ? unescape_quotes(field.text) : std::string(field.text));
    }
    return names;
  }

  // The layout a header sets: the selected columns, or by default its only two, or those named x and
  // y among more. Every row must then have as many fields as the header names.
  RowLayout header_layout(const std::vector<CsvField>& fields, const ColumnSelection& selection) const {
    const std::vector<std::string> names = column_names(fields);
    const auto width = static_cast<index_t>(names.size());
    RowLayout layout{.selected = true, .width = width, .width_line = line_, .width_from_header = true};
    if (!selection.empty()) {
      layout.x = header_column(selection.x, names);
      layout.y = header_column(selection.y, names);
      return layout;
    }
    if (width == 2) return {};  // whatever the names: first x, then y
    if (width < 2) {
      fail_at_line(name_, line_, "header must name 2 columns (x,y), found " + std::to_string(width));
    }
    const std::vector<index_t> x = columns_named("x", names);
    const std::vector<index_t> y = columns_named("y", names);
    if (x.size() != 1 || y.size() != 1) {
      fail_at_line(name_, line_,
                   "header names " + std::to_string(width) + " columns, not one x and one y among them: " +
                       describe_columns(names) + "; --columns X,Y picks two (by name or 0-based index)");
    }
    layout.x = x.front();
    layout.y = y.front();
    return layout;
  }

  static std::vector<index_t> columns_named(std::string_view wanted, const std::vector<std::string>& names) {
    std::vector<index_t> matches;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (same_name(trim(names[i]), wanted)) matches.push_back(static_cast<index_t>(i));
    }
    return matches;
  }

  // A selected column in a file with a header: a name that matches exactly one column wins; a spec
  // that matches none and is all digits is an index.
  index_t header_column(std::string_view spec, const std::vector<std::string>& names) const {
    spec = trim(spec);
    const std::vector<index_t> matches = columns_named(spec, names);
    if (matches.size() == 1) return matches.front();
    if (matches.size() > 1) {
      fail_at_line(name_, line_,
                   std::to_string(matches.size()) + " columns of the header are named " + quote(spec) + ": " +
                       describe_columns(names) + "; select one by its 0-based index");
    }
    if (const std::optional<index_t> index = column_index(spec)) {
      if (*index < static_cast<index_t>(names.size())) return *index;
      fail_at_line(name_, line_,
                   "column " + std::string(spec) + " is out of range: the header has " +
                       std::to_string(names.size()) + " columns: " + describe_columns(names));
    }
    fail_at_line(name_, line_,
                 "no column named " + quote(spec) + " in the header: " + describe_columns(names));
  }

  // The layout the first row sets when there is no header: with a selection (of indices), every row
  // must have as many fields as this one; without, it must have two.
  RowLayout first_row_layout(index_t width, const ColumnSelection& selection, bool csv) const {
    if (selection.empty()) {
      if (width > 2) {
        fail_at_line(name_, line_,
                     std::string(csv ? "expected 2 fields (x,y)" : "expected 2 values (x y)") + ", found " +
                         std::to_string(width) + "; --columns X,Y picks two of them");
      }
      return {};
    }
    return {.selected = true,
            .x = row_column(selection.x, width, csv),
            .y = row_column(selection.y, width, csv),
            .width = width,
            .width_line = line_,
            .width_from_header = false};
  }

  index_t row_column(std::string_view spec, index_t width, bool csv) const {
    spec = trim(spec);
    const std::optional<index_t> index = column_index(spec);
    if (!index) {
      fail_at_line(name_, line_,
                   "column " + quote(spec) +
                       " is not a 0-based index, and there is no header to find the name in (this first "
                       "line is data)");
    }
    if (*index >= width) {
      fail_at_line(name_, line_,
                   "column " + std::string(spec) + " is out of range: the line has " + std::to_string(width) +
                       (csv ? " fields" : " values") + " (0-based indices 0 to " + std::to_string(width - 1) +
                       ")");
    }
    return *index;
  }

  std::uint64_t parse_count(std::string_view token) const {
    // Twice the count must fit in index_t, as must the count of values found.
    constexpr std::uint64_t kMaxCount = std::numeric_limits<index_t>::max() / 2;
    std::uint64_t count = 0;
    const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), count);
    if (ec != std::errc() || count > kMaxCount) {
      fail_at_line(name_, line_, "point count " + quote(token) + " is too large");
    }
    return count;
  }

  static std::string count_mismatch(std::uint64_t count, index_t found) {
    return "count says " + std::to_string(count) + (count == 1 ? " point" : " points") +
           " but the file holds " + std::to_string(found) + (found == 1 ? " value" : " values");
  }

  std::size_t estimated_lines() const { return wagener::estimated_lines(next_, end_); }

  // A line holds at most one point.
  void reserve_for_lines() {
    points_.reserve(estimated_lines());
    want_huge_pages(points_);
  }

  // Parses the number at p, which must end at the token's end (kCsv: at `end`, the field's end);
  // advances p past it.
  template <bool kCsv>
  T parse_number(const char*& p, const char* end) {
    T value{};
    const auto [ptr, ec] = std::from_chars(skip_plus(p, end), end, value);
    const bool whole_token = ptr == end || (!kCsv && (is_blank(*ptr) || *ptr == '#'));
    if (ec != std::errc() || !whole_token || !std::isfinite(value)) [[unlikely]] {
      fail_number<kCsv>(p, ptr, end, ec, whole_token);
    }
    p = ptr;
    return value;
  }

  // A csv value ending at a blank, ',', '#' or the end of the line; false for anything else.
  static bool try_csv_number(const char*& p, const char* end, T& value) {
    const auto [ptr, ec] = std::from_chars(skip_plus(p, end), end, value);
    if (ec != std::errc() || !std::isfinite(value)) return false;
    if (ptr != end && !is_blank(*ptr) && *ptr != ',' && *ptr != '#') return false;
    p = ptr;
    return true;
  }

  // The common line, "x,y" with optional blanks and comment, in one pass; false for anything else,
  // which parse_csv_line then takes apart.
  static bool try_csv_pair(const char* p, const char* e, Point2<T>& point) {
    if (!try_csv_number(p, e, point.x)) return false;
    p = skip_blanks(p, e);
    if (p == e || *p != ',') return false;
    p = skip_blanks(p + 1, e);
    if (!try_csv_number(p, e, point.y)) return false;
    p = skip_blanks(p, e);
    return p == e || *p == '#';
  }

  // A grouped row of unquoted fields, in one pass: x and y parsed where they stand, the group's id
  // picked out; false for anything else (quotes, a bad number, a ragged row), which
  // parse_grouped_row then takes apart field by field.
  static bool try_grouped_row(const char* p, const char* e, const RowLayout& layout, index_t group_column,
                              Point2<T>& point, std::string_view& id) {
    for (index_t field = 0;; ++field) {
      p = skip_blanks(p, e);
      if (field == layout.x || field == layout.y) {
        if (!try_csv_number(p, e, field == layout.x ? point.x : point.y)) return false;
        p = skip_blanks(p, e);
      } else {
        if (p != e && *p == '"') return false;
        const char* start = p;
        while (p != e && *p != ',' && *p != '#') ++p;
        if (field == group_column) id = trim(std::string_view(start, p - start));
      }
      if (p == e || *p == '#') return field + 1 == layout.width;
      if (*p != ',' || field + 1 == layout.width) return false;
      ++p;
    }
  }

  // A grouped row field by field, as parse_csv_row: quoted ids, and exact about what is wrong.
  void parse_grouped_row(const char* p, const char* e, const GroupedPreamble& preamble,
                         GroupedRows<T>& rows) {
    const CsvField group_field = parse_csv_row(p, e, preamble.layout, preamble.group_column);
    // Inside quotes, "" stands for one quote.
    const bool escaped = group_field.quoted && group_field.text.find("\"\"") != std::string_view::npos;
    rows.group_ids.push_back(escaped ? rows.numbering.number(unescape_quotes(group_field.text))
                                     : rows.numbering.number(group_field.text));
  }

  // A csv row field by field: any number of fields, quotes, and exact about what is wrong. The
  // width is checked before the values, so that a ragged row is reported as one. Returns the field
  // of column `other` (a grouped row's id; empty when there is no such column).
  CsvField parse_csv_row(const char* p, const char* e, const RowLayout& layout, index_t other = -1) {
    CsvField field;
    CsvField x_field;
    CsvField y_field;
    CsvField other_field;
    index_t fields = 0;
    for (bool more = true; more; ++fields) {
      more = next_csv_field(p, e, field);
      if (fields == layout.x) x_field = field;
      if (fields == layout.y) y_field = field;
      if (fields == other) other_field = field;
    }
    if (fields != layout.width) [[unlikely]] {
      fail_width(layout, fields, true);
    }
    const T x = parse_field(x_field.text);
    const T y = parse_field(y_field.text);
    push({x, y}, line_);
    return other_field;
  }

  // A line of values with selected columns, from its first value; unselected values may be anything.
  void parse_text_row(const char* p, const char* e, const RowLayout& layout) {
    const char* x_token = nullptr;
    const char* y_token = nullptr;
    index_t values = 0;
    for (; p != e && *p != '#'; p = skip_blanks(token_end(p, e), e), ++values) {
      if (values == layout.x) x_token = p;
      if (values == layout.y) y_token = p;
    }
    if (values != layout.width) [[unlikely]] {
      fail_width(layout, values, false);
    }
    const T x = parse_number<false>(x_token, e);
    const T y = parse_number<false>(y_token, e);
    push({x, y}, line_);
  }

  T parse_field(std::string_view field) {
    const char* p = field.data();
    return parse_number<true>(p, p + field.size());
  }

  void push(const Point2<T>& point, index_t line) {
    if (require_sorted_ && !points_.empty() && lex_less(point, points_.back())) [[unlikely]] {
      fail_unsorted(point, line);
    }
    points_.push_back(point);
  }

  // The messages live out of line so that the parsing loops stay small.
  template <bool kCsv>
  [[noreturn, gnu::cold, gnu::noinline]] void fail_number(const char* start, const char* ptr, const char* end,
                                                          std::errc ec, bool whole_token) const {
    if (ec == std::errc::invalid_argument || !whole_token) {
      const std::string_view token(start, (kCsv ? end : token_end(start, end)) - start);
      fail_at_line(
          name_, line_,
          "not a number: " + quote(token) +
              (token.find(kUtf8Bom) != std::string_view::npos ? " (a byte-order mark may only begin the file)"
                                                              : ""));
    }
    const std::string_view token(start, ptr - start);
    if (ec == std::errc::result_out_of_range) {
      fail_at_line(name_, line_,
                   "value " + quote(token) + " is out of range for " + std::string(type_name<T>));
    }
    fail_at_line(name_, line_, "non-finite value " + quote(token));
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail_width(const RowLayout& layout, index_t found,
                                                         bool csv) const {
    if (!layout.selected) {
      fail_at_line(name_, line_,
                   std::string(csv ? "expected 2 fields (x,y)" : "expected 2 values (x y)") + ", found " +
                       std::to_string(found));
    }
    fail_at_line(name_, line_,
                 "expected " + std::to_string(layout.width) + (csv ? " fields" : " values") +
                     " (as many as " + (layout.width_from_header ? "the header on line " : "line ") +
                     std::to_string(layout.width_line) + "), found " + std::to_string(found));
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail_value_count(const char* line_start, const char* e) const {
    fail_at_line(name_, line_,
                 "expected 2 values (x y), found " + std::to_string(count_tokens(line_start, e)));
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail_unsorted(const Point2<T>& point, index_t line) const {
    fail_at_line(name_, line, unsorted_message(points_.back(), point));
  }

  const char* next_;
  const char* end_;
  std::string_view name_;
  bool require_sorted_;
  index_t line_ = 0;
  index_t count_line_ = 0;
  std::vector<Point2<T>> points_;
};

// Spreadsheets start their UTF-8 exports with a byte-order mark. It is skipped before anything else
// looks at the text, so the sequential parser and the parallel one (whose chunks start after the
// preamble) both see it at most once, and line numbers are unchanged: the mark is part of line 1.
// UTF-16 text would fail on its second byte with a message about a number; it is named instead.
std::string_view skip_byte_order_mark(std::string_view data, std::string_view name) {
  if (data.starts_with(kUtf8Bom)) return data.substr(kUtf8Bom.size());
  if (data.starts_with("\xFF\xFE") || data.starts_with("\xFE\xFF")) {
    fail_at_line(name, 1,
                 "UTF-16 text (byte-order mark " + std::string(data[0] == '\xFF' ? "FF FE" : "FE FF") +
                     ") is not supported: save the file as UTF-8");
  }
  return data;
}

// Text is parsed in chunks on all cores when it is large. The parallel pass only has to be right
// about valid input: at the first sign of trouble (a bad value, a count that disagrees, points out of
// order, even between chunks) it gives up, and the sequential parser reads the file again to name
// the first problem with its line. Errors cost a second pass; valid files, which are the ones that
// get big, parse in a fraction of the time.
constexpr std::size_t kMinChunkBytes = std::size_t{1} << 20;  // keeps thread start-up negligible
constexpr unsigned kMaxChunks = 256;

// How many chunks the parallel parsers cut `bytes` of text into: one a core, none smaller than
// kMinChunkBytes. Fewer than 2: the sequential parser reads it.
std::size_t text_chunks(std::size_t bytes) {
  return std::min<std::size_t>({detail::hardware_threads(), kMaxChunks, bytes / kMinChunkBytes});
}

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

// Runs work(i) for i in [0, n), each on a thread of its own when n > 1; false if any call threw.
// This thread only waits: when it took a share, Linux often queued a new thread behind it on its
// own core for milliseconds (on a 2-core KVM guest, 2 slices of a 10 ms scan took 5 or 9 ms, at
// random; with this thread waiting, 5 every time).
template <class Work>
bool run_chunks(std::size_t n, const Work& work) {
  std::vector<char> failed(n, 0);
  const auto run = [&](std::size_t i) {
    try {
      work(i);
    } catch (...) {
      failed[i] = 1;
    }
  };
  if (n == 1) {
    run(0);
  } else {
    std::vector<std::jthread> threads;
    std::size_t launched = 0;
    try {
      for (; launched < n; ++launched) threads.emplace_back(run, launched);
    } catch (const std::system_error&) {
      // No more threads to be had: this one runs what is left.
    }
    for (std::size_t i = launched; i < n; ++i) run(i);
  }  // joins
  return std::find(failed.begin(), failed.end(), 1) == failed.end();
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

template <class T>
std::vector<Point2<T>> parse_text_points(std::string_view data, std::string_view name, bool csv,
                                         const ReadOptions& options) {
  data = skip_byte_order_mark(data, name);
  if (!csv) {
    // Text has no header line: its columns have no names.
    for (const std::string& spec : {options.columns.x, options.columns.y}) {
      if (!spec.empty() && !column_index(trim(spec))) {
        throw input_error(std::string(name) + ": text input has no header to find column " +
                          quote(trim(spec)) + " in: select its columns by 0-based index");
      }
    }
  }
  if (auto points = parse_text_in_parallel<T>(data, csv, options)) return std::move(*points);
  TextParser<T> parser(data, name, options.require_sorted);
  return csv ? parser.parse_csv(options.columns) : parser.parse_text(options.columns);
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

// ---------------------------------------------------------------------------------------------
// Binary

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

template <class F>
constexpr std::uint64_t kRecordBytes = 2 * sizeof(F);

template <class F>
void check_whole_records(std::size_t size, std::string_view name) {
  if (size % kRecordBytes<F> != 0) {
    fail_at_byte(name, size - size % kRecordBytes<F>,
                 "truncated binary: " + std::to_string(size) + " bytes is not a whole number of points (" +
                     std::to_string(kRecordBytes<F>) + " bytes each)");
  }
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

// Whether a file value converts to T without becoming infinite or losing a nonzero value to zero
// (the rule std::from_chars applies to text); false for NaN and infinity too. Integer compares only,
// so that the scan vectorizes.
template <class T, class F>
constexpr bool fits(F value) {
  if constexpr (sizeof(T) >= sizeof(F)) {
    return !non_finite_bits(value);  // widening is exact
  } else {
    static_assert(std::is_same_v<T, float> && std::is_same_v<F, double>);
    const std::uint64_t magnitude = std::bit_cast<std::uint64_t>(value) & ~kSignBit;
    return (magnitude == 0) | ((magnitude >= kSmallestToFloat) & (magnitude <= kLargestToFloat));
  }
}

// Whether b comes before a; branch-free so that block scans vectorize.
template <class T>
constexpr bool out_of_order(const Point2<T>& a, const Point2<T>& b) {
  return (b.x < a.x) | ((b.x == a.x) & (b.y < a.y));
}

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
      if (non_finite_bits(value)) fail_at_byte(name, offset, "non-finite value " + shortest(value));
      if (!fits<T>(value)) {
        fail_at_byte(name, offset,
                     "value " + shortest(value) + " is out of range for " + std::string(type_name<T>));
      }
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

// The 32 bits of a value that hold its exponent: all of a float, the high half of a double. The fast
// scan tests these rather than whole doubles because SSE2, the x86-64 baseline, compares 32-bit
// lanes but not 64-bit ones: tested whole, doubles were scanned one at a time (10^8 points: 83 ms on
// one core), by their high halves four at a time (44 ms).
template <class V>
constexpr std::uint32_t kExponentWordMask = static_cast<std::uint32_t>(kExponentMask<V> >>
                                                                       (8 * sizeof(V) - 32));

template <class V>
std::uint32_t exponent_word(const char* value) {
  std::uint32_t word;
  std::memcpy(&word, value + sizeof(V) - sizeof word, sizeof word);
  return word;
}

// Whether any point of [first, stop) comes before its predecessor; branch-free, so that it vectorizes.
template <class T>
unsigned block_out_of_order(const Point2<T>* points, std::size_t first, std::size_t stop) {
  unsigned bad = 0;
  for (std::size_t i = first; i < stop; ++i) bad |= out_of_order(points[i - 1], points[i]);
  return bad;
}

// Flags the first block of points [begin, end) with a non-finite value or, if require_sorted, a point
// before its predecessor; kNoProblem if none. The pair that straddles `begin` is the caller's.
// Branch-free accumulation per block, which the compiler vectorizes. `points` are `bytes`.
template <class T>
std::size_t first_flagged_block(const char* bytes, const Point2<T>* points, std::size_t begin,
                                std::size_t end, bool require_sorted) {
  for (std::size_t block = begin; block < end; block += kValidationBlock) {
    const std::size_t stop = std::min(end, block + kValidationBlock);
    unsigned bad = 0;
    for (std::size_t value = 2 * block; value < 2 * stop; ++value) {
      bad |= (exponent_word<T>(bytes + value * sizeof(T)) & kExponentWordMask<T>) == kExponentWordMask<T>;
    }
    if (require_sorted) bad |= block_out_of_order(points, std::max(block, begin + 1), stop);
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
      bad |= !fits<T>(raw[0]);
      bad |= !fits<T>(raw[1]);
      points[i] = {static_cast<T>(raw[0]), static_cast<T>(raw[1])};
    }
    // Rounding is monotone, so the order checked after conversion is the order the hull will see.
    if (require_sorted) bad |= block_out_of_order<T>(points, std::max(block, begin + 1), stop);
    if (bad) [[unlikely]]
      return block;
  }
  return kNoProblem;
}

// Binary input is scanned in contiguous slices on all cores, each at least this big: a thread costs
// tens of microseconds to start, and one core validates 2 MiB in 50-150.
constexpr std::size_t kMinSliceBytes = std::size_t{2} << 20;

}  // namespace

namespace detail {

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

// Validates points already in T = file precision: the zero-copy view of a mapping. Only a flagged
// block is rescanned, on this thread, to name the offset.
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

// Decodes binary F records from (possibly unaligned) bytes into T points, slice by slice on all
// cores: each thread converts (or copies) and validates its own slice while it is in cache.
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

template <class T>
PointSet<T> parse_resolved(std::string_view data, Format format, std::string_view name,
                           const ReadOptions& options) {
  const bool require_sorted = options.require_sorted;
  switch (format) {
    case Format::csv: return PointSet<T>(parse_text_points<T>(data, name, true, options));
    case Format::f32: return PointSet<T>(decode_binary<T, float>(data, require_sorted, name));
    case Format::f64: return PointSet<T>(decode_binary<T, double>(data, require_sorted, name));
    case Format::automatic:
    case Format::text: break;
  }
  return PointSet<T>(parse_text_points<T>(data, name, false, options));
}

// A selection names both columns or neither, and applies to text and csv only.
void check_selection(const ColumnSelection& columns, Format format, std::string_view name) {
  if (columns.x.empty() != columns.y.empty()) {
    throw std::invalid_argument("a column selection needs both the x and the y column");
  }
  if (!columns.empty() && (format == Format::f32 || format == Format::f64)) {
    throw input_error(std::string(name) +
                      ": a column selection (--columns) applies to text and csv, not to binary " +
                      std::string(format_name(format)) + " input");
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Pieces of a file (src/io/point_pieces.hpp)

namespace detail {

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
  if (format == Format::f32) return decode(float{});
  if (format == Format::f64) return decode(double{});
  throw std::invalid_argument("decode_binary_piece reads f32 or f64, not " +
                              std::string(format_name(format)));
}

template <class T>
struct TextPieceParser<T>::State {
  std::string name;
  bool csv = false;
  ColumnSelection columns;
  bool first_piece = true;
  bool preamble_read = false;
  Preamble preamble;
  index_t lines = 0;  // lines of the pieces read so far
  index_t count_line = 0;
  typename TextParser<T>::CountedProgress counted;
};

template <class T>
TextPieceParser<T>::TextPieceParser(std::string name, bool csv, ColumnSelection columns)
    : state_(std::make_unique<State>()) {
  state_->name = display_name(name);
  state_->csv = csv;
  state_->columns = std::move(columns);
  check_selection(state_->columns, csv ? Format::csv : Format::text, state_->name);
}

template <class T>
TextPieceParser<T>::~TextPieceParser() = default;

// Whether a piece has a line with something besides blanks and a comment: the preamble ends there.
bool has_content_line(std::string_view piece) {
  const char* p = piece.data();
  const char* const end = p + piece.size();
  while (p != end) {
    const void* newline = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    const char* e = newline != nullptr ? static_cast<const char*>(newline) : end;
    const char* first = skip_blanks(p, e);
    if (first != e && *first != '#') return true;
    p = e == end ? end : e + 1;
  }
  return false;
}

template <class T>
std::vector<Point2<T>> TextPieceParser<T>::parse(std::string_view piece) {
  State& st = *state_;
  if (st.first_piece) {
    st.first_piece = false;
    piece = skip_byte_order_mark(piece, st.name);
    if (!st.csv) {
      // As parse_text_points: text has no header, so its columns are selected by index only.
      for (const std::string& spec : {st.columns.x, st.columns.y}) {
        if (!spec.empty() && !column_index(trim(spec))) {
          throw input_error(st.name + ": text input has no header to find column " + quote(trim(spec)) +
                            " in: select its columns by 0-based index");
        }
      }
    }
  }
  TextParser<T> parser(piece, st.name, false, st.lines);
  if (!st.preamble_read) {
    if (!has_content_line(piece)) {  // comments and blank lines only: the preamble goes on
      st.lines += static_cast<index_t>(std::count(piece.begin(), piece.end(), '\n'));
      if (!piece.empty() && piece.back() != '\n') ++st.lines;
      return {};
    }
    st.preamble = st.csv ? parser.csv_preamble(st.columns) : parser.text_preamble(st.columns);
    st.preamble_read = true;
    st.count_line = parser.count_line();
  }
  std::vector<Point2<T>> points;
  if (st.preamble.counted) {
    points = parser.parse_counted_values(st.preamble.count, st.counted);
  } else {
    points = st.csv ? parser.parse_csv_rows(st.preamble.layout) : parser.parse_text_rows(st.preamble.layout);
  }
  st.lines = parser.line();
  return points;
}

template <class T>
void TextPieceParser<T>::finish() {
  State& st = *state_;
  if (!st.preamble.counted) return;
  TextParser<T>(std::string_view(), st.name, false)
      .finish_counted(st.preamble.count, st.count_line, st.counted);
}

template void decode_binary_piece<float>(std::string_view, Format, std::uint64_t, std::string_view,
                                         std::vector<Point2<float>>&);
template void decode_binary_piece<double>(std::string_view, Format, std::uint64_t, std::string_view,
                                          std::vector<Point2<double>>&);
template class TextPieceParser<float>;
template class TextPieceParser<double>;

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Public interface

Format parse_format(std::string_view name) {
  for (const Format format : {Format::automatic, Format::text, Format::csv, Format::f32, Format::f64}) {
    if (name == format_name(format)) return format;
  }
  throw std::invalid_argument("unknown format \"" + std::string(name) +
                              "\" (expected auto, text, csv, f32 or f64)");
}

std::string_view format_name(Format format) {
  switch (format) {
    case Format::automatic: return "auto";
    case Format::text: return "text";
    case Format::csv: return "csv";
    case Format::f32: return "f32";
    case Format::f64: return "f64";
  }
  return "unknown";
}

Format guess_format(std::string_view path) {
  if (detail::ends_with_ignoring_case(path, ".f32")) return Format::f32;
  if (detail::ends_with_ignoring_case(path, ".f64")) return Format::f64;
  if (detail::ends_with_ignoring_case(path, ".csv")) return Format::csv;
  return Format::text;
}

ColumnSelection parse_column_selection(std::string_view spec) {
  const std::size_t comma = spec.find(',');
  ColumnSelection columns;
  if (comma != std::string_view::npos && spec.find(',', comma + 1) == std::string_view::npos) {
    columns.x = trim(spec.substr(0, comma));
    columns.y = trim(spec.substr(comma + 1));
  }
  if (columns.x.empty() || columns.y.empty()) {
    throw std::invalid_argument("expected two columns X,Y (each a header name or a 0-based index), got \"" +
                                std::string(spec) + "\"");
  }
  return columns;
}

template <class T>
PointSet<T>::PointSet(std::vector<Point2<T>> owned) : owned_(std::move(owned)), view_(owned_) {}

template <class T>
PointSet<T>::PointSet(std::shared_ptr<const void> mapping, std::span<const Point2<T>> view)
    : mapping_(std::move(mapping)), view_(view) {}

template <class T>
PointSet<T> read_points(const std::string& path, const ReadOptions& options) {
  const std::string name = display_name(path);
  const Format format = options.format == Format::automatic ? guess_format(path) : options.format;
  check_selection(options.columns, format, name);
  InputBytes input = read_file(path);
  constexpr Format kNative = std::is_same_v<T, float> ? Format::f32 : Format::f64;
  const bool aligned = reinterpret_cast<std::uintptr_t>(input.bytes.data()) % alignof(Point2<T>) == 0;
  if (format == kNative && input.owner && aligned) {
    // Zero copy: the points are a view of the input's memory, which they keep alive.
    check_whole_records<T>(input.bytes.size(), name);
    const std::span<const Point2<T>> view(reinterpret_cast<const Point2<T>*>(input.bytes.data()),
                                          input.bytes.size() / kRecordBytes<T>);
    if (options.check_values || options.require_sorted)
      validate_binary<T>(view, options.require_sorted, name);
    return PointSet<T>(std::move(input.owner), view);
  }
  return parse_resolved<T>(input.bytes, format, name, options);
}

template <class T>
PointSet<T> parse_points(std::string_view data, std::string_view name, const ReadOptions& options) {
  const Format format = options.format == Format::automatic ? guess_format(name) : options.format;
  check_selection(options.columns, format, display_name(name));
  return parse_resolved<T>(data, format, display_name(name), options);
}

namespace detail {

template <class T>
GroupedPoints<T> parse_grouped_points_in_chunks(std::string_view data, std::string_view name,
                                                std::string_view group_column, const ReadOptions& options,
                                                std::size_t chunks) {
  const std::string shown = display_name(name);
  const Format format = options.format == Format::automatic ? Format::csv : options.format;
  if (format != Format::csv) {
    throw input_error(shown + ": grouping reads csv with a header, not " + std::string(format_name(format)));
  }
  if (trim(group_column).empty()) throw std::invalid_argument("the group column is empty");
  data = skip_byte_order_mark(data, shown);
  // Sortedness is a property of each group here, which the hull checks (convex_hulls, presorted).
  if (auto grouped = parse_grouped_in_parallel<T>(data, options.columns, group_column, chunks))
    return std::move(*grouped);
  return parse_grouped_csv<T>(data, shown, options.columns, group_column);
}

template GroupedPoints<float> parse_grouped_points_in_chunks<float>(std::string_view, std::string_view,
                                                                    std::string_view, const ReadOptions&,
                                                                    std::size_t);
template GroupedPoints<double> parse_grouped_points_in_chunks<double>(std::string_view, std::string_view,
                                                                      std::string_view, const ReadOptions&,
                                                                      std::size_t);

}  // namespace detail

template <class T>
GroupedPoints<T> parse_grouped_points(std::string_view data, std::string_view name,
                                      std::string_view group_column, const ReadOptions& options) {
  return detail::parse_grouped_points_in_chunks<T>(data, name, group_column, options,
                                                   text_chunks(data.size()));
}

template <class T>
GroupedPoints<T> read_grouped_points(const std::string& path, std::string_view group_column,
                                     const ReadOptions& options) {
  const InputBytes input = read_file(path);
  return parse_grouped_points<T>(input.bytes, path, group_column, options);
}

template GroupedPoints<float> parse_grouped_points<float>(std::string_view, std::string_view,
                                                          std::string_view, const ReadOptions&);
template GroupedPoints<double> parse_grouped_points<double>(std::string_view, std::string_view,
                                                            std::string_view, const ReadOptions&);
template GroupedPoints<float> read_grouped_points<float>(const std::string&, std::string_view,
                                                         const ReadOptions&);
template GroupedPoints<double> read_grouped_points<double>(const std::string&, std::string_view,
                                                           const ReadOptions&);
template class PointSet<float>;
template class PointSet<double>;
template PointSet<float> read_points<float>(const std::string&, const ReadOptions&);
template PointSet<double> read_points<double>(const std::string&, const ReadOptions&);
template PointSet<float> parse_points<float>(std::string_view, std::string_view, const ReadOptions&);
template PointSet<double> parse_points<double>(std::string_view, std::string_view, const ReadOptions&);

}  // namespace wagener
