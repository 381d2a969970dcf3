// hull_of_file's way with a binary file the page cache does not hold (wagener/stream.hpp): many
// reads in flight (io/read_ahead.hpp), each block filtered against the hull so far as it arrives,
// so that the whole takes about as long as reading the file.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "wagener/hull.hpp"
#include "wagener/io.hpp"

namespace wagener::detail {

/// The hull (options.part) of the binary points (`format` f32, f64, i32 or i64) in the file at
/// `path`, read `readers` blocks of `block_bytes` at once (a multiple of 16 bytes). Values convert to T
/// as read_points() converts them (integers exactly or not at all), and input_error names the file
/// and the byte offset of a truncated record or a bad value, as read_points() does.
/// Pre: options as hull_of_chunks() takes them.
template <class T>
HullResult<T> hull_of_binary_read_ahead(const std::string& path, Format format, const HullOptions& options,
                                        std::size_t block_bytes, unsigned readers);

/// hull_of_binary_read_ahead() with the default blocks and readers where `path` is a regular file
/// whose pages the page cache mostly does not hold; nullopt (nothing read) otherwise.
template <class T>
std::optional<HullResult<T>> hull_of_file_if_cold(const std::string& path, Format format, const HullOptions& options);

}  // namespace wagener::detail
