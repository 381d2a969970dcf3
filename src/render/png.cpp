// A minimal PNG writer for the density raster embedded in SVG: 8-bit grey, one IDAT of stored
// (uncompressed) deflate blocks. A raster of a few hundred bins a side stays around 100 KB, which
// is not worth a zlib dependency.
#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "render/canvas.hpp"

namespace wagener::draw {
namespace {

std::uint32_t crc32(std::string_view bytes) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xffffffffu;
  for (const char ch : bytes) c = table[(c ^ static_cast<std::uint8_t>(ch)) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

void put32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
}

void chunk(std::string& out, std::string_view type, std::string_view data) {
  put32(out, static_cast<std::uint32_t>(data.size()));
  std::string body(type);
  body += data;
  out += body;
  put32(out, crc32(body));
}

}  // namespace

std::string encode_grey_png(int columns, int rows, std::span<const std::uint8_t> grey) {
  if (columns <= 0 || rows <= 0 || grey.size() != static_cast<std::size_t>(columns) * rows) {
    throw std::invalid_argument("encode_grey_png: size mismatch");
  }
  // Scanlines, each led by filter type 0 (none).
  std::string raw;
  raw.reserve(static_cast<std::size_t>(columns + 1) * rows);
  for (int y = 0; y < rows; ++y) {
    raw += '\0';
    raw.append(reinterpret_cast<const char*>(grey.data()) + static_cast<std::size_t>(y) * columns,
               static_cast<std::size_t>(columns));
  }
  std::string z = "\x78\x01";  // zlib header: deflate, 32K window, no dictionary, check bits valid
  constexpr std::size_t kMaxStored = 65535;
  for (std::size_t at = 0; at < raw.size(); at += kMaxStored) {
    const std::size_t len = std::min(kMaxStored, raw.size() - at);
    z += static_cast<char>(at + len >= raw.size() ? 1 : 0);  // BFINAL on the last block, BTYPE 00
    z += static_cast<char>(len & 0xff);
    z += static_cast<char>(len >> 8);
    z += static_cast<char>(~len & 0xff);
    z += static_cast<char>((~len >> 8) & 0xff);
    z.append(raw, at, len);
  }
  std::uint32_t a = 1, b = 0;  // Adler-32 of the uncompressed data
  for (const char ch : raw) {
    a = (a + static_cast<std::uint8_t>(ch)) % 65521;
    b = (b + a) % 65521;
  }
  put32(z, (b << 16) | a);

  std::string png = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  put32(ihdr, static_cast<std::uint32_t>(columns));
  put32(ihdr, static_cast<std::uint32_t>(rows));
  ihdr += std::string("\x08\x00\x00\x00\x00", 5);  // 8-bit, greyscale, deflate, no filter, no interlace
  chunk(png, "IHDR", ihdr);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", "");
  return png;
}

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v = static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i])) << 16 |
                            static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i + 1])) << 8 |
                            static_cast<std::uint8_t>(bytes[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i < bytes.size()) {
    std::uint32_t v = static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i + 1])) << 8;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace wagener::draw
