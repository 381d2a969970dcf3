// An output file that is either complete or not there: the bytes go to a temporary file beside the
// target, renamed over it only by commit(), so that a failure (disk full, a killed process, an
// exception half-way through a stream of blocks) never leaves a partial file where a complete one was
// expected.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace wagener::detail {

class OutputFile {
 public:
  /// "-" is standard output. A device or a pipe (/dev/null, a FIFO) is written in place: renaming a
  /// file over it would replace the node itself. Anything else is written to a temporary file.
  /// Throws input_error ("PATH: cannot write: reason") when the file cannot be created.
  explicit OutputFile(const std::string& path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  /// Without commit(), removes the temporary file: the target stays as it was.
  ~OutputFile();

  /// Appends bytes (one caller at a time).
  void append(std::string_view bytes);

  /// Whether write_at may be used: the bytes go to a regular temporary file.
  bool positional() const { return kind_ == Kind::temporary; }
  /// Writes bytes at a byte offset; several threads may call it at once. Only when positional(), and
  /// not mixed with append(), whose position it does not move.
  void write_at(std::uint64_t offset, std::string_view bytes);

  /// A regular temporary file's first `max_bytes`, mapped for writing by several threads at once (a
  /// write() or pwrite() into one file is serialised by the file system); null where that cannot be
  /// (standard output, a device, a file system that cannot reserve the space: then append()). The
  /// space is reserved first, so that a full disk is an error here, never a fault while writing.
  /// Not mixed with append() or write_at().
  char* map_for_writing(std::uint64_t max_bytes);
  /// After map_for_writing(): unmaps, and cuts the file to the `size` bytes written.
  void finish_mapped(std::uint64_t size);

  /// Flushes and closes; a temporary file is renamed over the target.
  void commit();

 private:
  enum class Kind { standard_output, in_place, temporary };

  std::string path_;
  std::string temp_path_;  // empty once renamed, or when there is none
  int fd_ = -1;
  Kind kind_ = Kind::temporary;
  char* mapped_ = nullptr;
  std::uint64_t mapped_bytes_ = 0;
};

}  // namespace wagener::detail
