// The point reader's messages (read_errors.hpp).
#include "io/read_errors.hpp"

#include <cstring>

#include "wagener/error.hpp"

namespace wagener::reading {

std::string display_name(std::string_view path) {
  return path == "-" ? "<stdin>" : std::string(path);
}

void fail_at_line(std::string_view name, index_t line, std::string_view message) {
  throw input_error(std::string(name) + ":" + std::to_string(line) + ": " + std::string(message));
}

void fail_at_byte(std::string_view name, std::uint64_t offset, std::string_view message) {
  throw input_error(std::string(name) + ": byte " + std::to_string(offset) + ": " + std::string(message));
}

void fail_system(std::string_view name, std::string_view what, int error) {
  throw input_error(std::string(name) + ": " + std::string(what) + ": " + std::strerror(error));
}

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

}  // namespace wagener::reading
