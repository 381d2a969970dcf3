// The rounds page: one self-contained HTML document that steps through Wagener's rounds in a browser.
//
// The page's look and behaviour live in rounds_page.html, .css and .js (embedded at build time into
// rounds_page_assets.hpp, so that they stay readable and lintable as files of their own); this file
// writes the data they draw: one JSON object in a <script type="application/json"> element. Every
// coordinate is stored as a float32 fraction of the view (0 at its left or bottom edge, 1 at the
// right or top), little-endian and base64-encoded: drawing needs no more, and it keeps the page small
// and the coordinates near 1e±300 within range.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/json_text.hpp"
#include "io/read_errors.hpp"
#include "render/canvas.hpp"
#include "render/layout.hpp"
#include "render/rounds_page_assets.hpp"
#include "wagener/render.hpp"

namespace wagener {
namespace {

using draw::Box;

/// Little-endian bytes of 32-bit values, for a typed array on the page.
class Bytes {
 public:
  void add(float v) { add(std::bit_cast<std::uint32_t>(v)); }
  void add(std::uint32_t v) {
    for (int shift = 0; shift < 32; shift += 8) bytes_ += static_cast<char>((v >> shift) & 0xff);
  }
  std::string base64() const { return draw::base64(bytes_); }

 private:
  std::string bytes_;
};

template <class T>
void add_point(Bytes& out, const Box& view, const Point2<T>& p) {
  out.add(static_cast<float>(draw::view_u(view, p)));
  out.add(static_cast<float>(draw::view_v(view, p)));
}

template <class T>
std::string points_base64(const Box& view, std::span<const Point2<T>> points) {
  Bytes out;
  for (const auto& p : points) add_point(out, view, p);
  return out.base64();
}

void append_number(std::string& out, double v) {
  char buffer[32];
  out.append(buffer, std::to_chars(buffer, buffer + sizeof buffer, v).ptr);
}

void append_int(std::string& out, long long v) {
  out += std::to_string(v);
}

void key(std::string& out, std::string_view name) {
  out += ",\"";
  out += name;
  out += "\":";
}

/// Which hoods of the round before were merged into hood k: the upper chain pairs blocks from the
/// left, the lower chain from the right (its blocks are counted from the right end, trace.hpp).
/// Returns false for a block carried over without a partner.
bool merged_pair(Chain chain, std::size_t k, std::size_t hoods, std::size_t hoods_before, std::size_t& left) {
  if (chain == Chain::upper) {
    left = 2 * k;
    return left + 1 < hoods_before;
  }
  const std::size_t right = hoods_before - 1 - 2 * (hoods - 1 - k);
  left = right - 1;
  return right >= 1 && right < hoods_before;
}

/// Round r's blocks as pairs being merged: per hood the u of the left block's last point and of the
/// right block's first (NaN, NaN for a block carried over), from the hoods of round r - 1.
template <class T>
std::string merged_blocks_base64(const Box& view, const TraceRound<T>& round, const TraceRound<T>& before) {
  std::vector<index_t> starts(before.hood_sizes.size() + 1, 0);
  std::partial_sum(before.hood_sizes.begin(), before.hood_sizes.end(), starts.begin() + 1);
  Bytes out;
  const float none = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t k = 0; k < round.hood_sizes.size(); ++k) {
    std::size_t left = 0;
    if (merged_pair(round.chain, k, round.hood_sizes.size(), before.hood_sizes.size(), left)) {
      out.add(static_cast<float>(draw::view_u(view, before.corners[starts[left + 1] - 1])));
      out.add(static_cast<float>(draw::view_u(view, before.corners[starts[left + 1]])));
    } else {
      out.add(none);
      out.add(none);
    }
  }
  return out.base64();
}

/// Which rounds are drawn as lines: round 0 never (its hoods are the points, drawn as such); of the
/// others, those with the fewest corners first while the budget lasts (later rounds are the small
/// ones, and the ones a reader can see).
template <class T>
std::vector<bool> rounds_drawn(std::span<const TraceRound<T>> rounds, index_t budget) {
  std::vector<std::size_t> order(rounds.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return rounds[a].corners.size() < rounds[b].corners.size();
  });
  std::vector<bool> drawn(rounds.size(), false);
  for (const std::size_t k : order) {
    const auto corners = static_cast<index_t>(rounds[k].corners.size());
    if (rounds[k].round == 0) continue;
    if (corners > budget) break;
    budget -= corners;
    drawn[k] = true;
  }
  return drawn;
}

template <class T>
void append_round(std::string& out, const Box& view, std::span<const TraceRound<T>> rounds, std::size_t k,
                  bool drawn) {
  const TraceRound<T>& r = rounds[k];
  const bool sizes_fit =
      std::all_of(r.hood_sizes.begin(), r.hood_sizes.end(), [](index_t s) { return s > 0; }) &&
      static_cast<std::size_t>(std::accumulate(r.hood_sizes.begin(), r.hood_sizes.end(), index_t{0})) ==
          r.corners.size();
  if (!sizes_fit) {
    throw std::invalid_argument(
        "render_rounds_page: a round's hood sizes must be positive and sum to its corners");
  }
  out += "{\"chain\":\"";
  out += chain_name(r.chain);
  out += '"';
  key(out, "round");
  append_int(out, r.round);
  key(out, "width");
  append_int(out, r.block_width);
  key(out, "hoods");
  append_int(out, static_cast<long long>(r.hood_sizes.size()));
  key(out, "corners");
  append_int(out, static_cast<long long>(r.corners.size()));
  key(out, "bridges");
  append_int(out, static_cast<long long>(r.bridges.size()));
  key(out, "drawn");
  out += r.round == 0 ? "\"points\"" : drawn ? "\"hoods\"" : "\"counts\"";
  if (drawn) {
    key(out, "xy");
    out += '"' + points_base64<T>(view, r.corners) + '"';
    Bytes sizes, bridges, bridge_hoods;
    for (const index_t s : r.hood_sizes) sizes.add(static_cast<std::uint32_t>(s));
    for (const auto& b : r.bridges) {
      add_point(bridges, view, b.a);
      add_point(bridges, view, b.b);
      bridge_hoods.add(static_cast<std::uint32_t>(b.hood));
    }
    key(out, "sizes");
    out += '"' + sizes.base64() + '"';
    key(out, "bridgeXy");
    out += '"' + bridges.base64() + '"';
    key(out, "bridgeHood");
    out += '"' + bridge_hoods.base64() + '"';
    const bool follows = k > 0 && rounds[k - 1].chain == r.chain && rounds[k - 1].round + 1 == r.round;
    if (follows) {
      key(out, "merged");
      out += '"' + merged_blocks_base64<T>(view, r, rounds[k - 1]) + '"';
    }
  }
  out += '}';
}

/// The template with each marker replaced by its text. The markers are found in the template alone,
/// so that text put in (a caption) can never be taken for a marker.
std::string fill_template(std::string_view page,
                          std::vector<std::pair<std::string_view, std::string_view>> parts) {
  std::vector<std::pair<std::size_t, std::size_t>> at;  // (where in page, which part)
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto where = page.find(parts[i].first);
    if (where == std::string_view::npos)
      throw std::logic_error("the rounds page template lacks " + std::string(parts[i].first));
    at.emplace_back(where, i);
  }
  std::sort(at.begin(), at.end());
  std::string out;
  std::size_t from = 0;
  for (const auto& [where, i] : at) {
    out.append(page.substr(from, where - from));
    out.append(parts[i].second);
    from = where + parts[i].first.size();
  }
  out.append(page.substr(from));
  return out;
}

}  // namespace

template <class T>
std::string render_rounds_page(std::span<const Point2<T>> points, std::span<const Point2<T>> hull,
                               std::span<const TraceRound<T>> rounds, const RoundsPageOptions& options) {
  const Box view = draw::padded(draw::data_box(points, hull, options.closed));
  double plot_width = 1, plot_height = 1;
  const bool same_scale = draw::plot_size(view, 1.0, plot_width, plot_height);

  std::string data = "{\"format\":\"wagener-rounds-page\",\"version\":1";
  key(data, "title");
  detail::append_json_string(data, options.title, /*script_safe=*/true);  // the data sits in <script>
  key(data, "caption");
  detail::append_json_string(data, options.caption, /*script_safe=*/true);
  key(data, "points");
  append_int(data, static_cast<long long>(points.size()));
  key(data, "precision");
  data += '"' + std::string(reading::type_name<T>) + '"';  // float, double, int32 or int64
  key(data, "closed");
  data += options.closed ? "true" : "false";
  key(data, "view");
  data += '[';
  for (const double v : {view.x0, view.y0, view.x1, view.y1}) {
    append_number(data, v);
    data += ',';
  }
  data.back() = ']';
  key(data, "aspect");
  append_number(data, plot_height / plot_width);
  key(data, "sameScale");
  data += same_scale ? "true" : "false";
  key(data, "maxDots");
  append_int(data, static_cast<long long>(options.max_dots));
  key(data, "maxCorners");
  append_int(data, static_cast<long long>(options.max_corners));

  if (static_cast<index_t>(points.size()) <= options.max_dots) {
    key(data, "dots");
    data += '"' + points_base64<T>(view, points) + '"';
  } else {
    const auto raster =
        draw::density_raster(points, view, plot_width, plot_height, std::max(1, options.raster_bins));
    key(data, "density");
    data += "{\"columns\":";
    append_int(data, raster.columns);
    data += ",\"rows\":";
    append_int(data, raster.rows);
    data +=
        ",\"png\":\"" + draw::base64(draw::encode_grey_png(raster.columns, raster.rows, raster.grey)) + "\"}";
  }

  index_t budget = std::max<index_t>(0, options.max_corners);
  key(data, "hullVertices");
  append_int(data, static_cast<long long>(hull.size()));
  if (static_cast<index_t>(hull.size()) <= budget) {
    budget -= static_cast<index_t>(hull.size());
    key(data, "hull");
    data += '"' + points_base64<T>(view, hull) + '"';
  }

  key(data, "rounds");
  data += '[';
  const std::vector<bool> drawn = rounds_drawn(rounds, budget);
  for (std::size_t k = 0; k < rounds.size(); ++k) {
    if (k) data += ',';
    data += '\n';
    append_round(data, view, rounds, k, drawn[k]);
  }
  data += "]}";

  std::string title;
  draw::append_markup_escaped(title, options.title);
  return fill_template(page_assets::kHtml, {{"@TITLE@", title},
                                            {"/*@STYLE@*/", page_assets::kCss},
                                            {"@DATA@", data},
                                            {"/*@SCRIPT@*/", page_assets::kJs}});
}

#define WAGENER_INSTANTIATE(T)                                                                       \
  template std::string render_rounds_page<T>(std::span<const Point2<T>>, std::span<const Point2<T>>, \
                                             std::span<const TraceRound<T>>, const RoundsPageOptions&);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener
