// Strings in JSON, escaped once for every writer of JSON (grouped hull files, the rounds page).
#pragma once

#include <string>
#include <string_view>

namespace wagener::detail {

/// Appends text as a JSON string: quotes and backslashes escaped, control characters as \u00XX.
/// script_safe also escapes '<', '>' and '&', so that the JSON may stand inside an HTML <script>
/// element, where "</script>" in a string would otherwise end it.
inline void append_json_string(std::string& out, std::string_view text, bool script_safe = false) {
  constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || (script_safe && (c == '<' || c == '>' || c == '&'))) {
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  out += '"';
}

}  // namespace wagener::detail
