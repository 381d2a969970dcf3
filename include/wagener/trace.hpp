// The round-by-round trace of Wagener's algorithm: the hoods after every round and each merge's
// bridge, in the seed's block arrangement, so that it is a function of the input alone.
//
// Round r holds the hoods of consecutive blocks of 2^r sorted input points (the last block may be
// shorter): round 0 is the input itself (one single-point hood per point), and the last round holds
// one hood, the upper hull of all points. A backend that merges in another tile arrangement must
// still report these rounds; the trace does not depend on how the merges were scheduled.
//
// The lower chain is computed as the upper chain of the points reflected through the origin (see
// docs/algorithm.md); its rounds are reported mapped back to the input's coordinates, hoods and
// corners left to right. Because the reflected order is reversed, its blocks are counted from the
// right end: for n not a power of two the short block is the leftmost one.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wagener/config.hpp"
#include "wagener/point.hpp"

namespace wagener {

enum class Chain { upper, lower };
std::string_view chain_name(Chain chain);

/// The common tangent by which one merge joined its two hoods: `a` is the leftmost vertex on it from
/// the left hood, `b` the rightmost from the right hood. The merged hood is the left hood up to `a`
/// followed by the right hood from `b`. For the lower chain, `a` and `b` are the tangent's ends on
/// the lower hoods (still a left of b).
template <class T>
struct Bridge {
  index_t hood = 0;  ///< the index, within its round, of the hood this merge produced
  Point2<T> a{};
  Point2<T> b{};
  friend bool operator==(const Bridge&, const Bridge&) = default;
};

/// The hoods after one round.
template <class T>
struct TraceRound {
  Chain chain = Chain::upper;
  int round = 0;            ///< 0: single points; r: hoods of blocks of 2^r points
  index_t block_width = 1;  ///< 2^round
  /// Corners of every hood, hood after hood, each hood's left to right (lower chain: along the bottom).
  std::vector<Point2<T>> corners;
  std::vector<index_t> hood_sizes;  ///< one per hood, left to right; they sum to corners.size()
  /// One per merge of this round whose right hood added a vertex (a right hood made only of a
  /// duplicate of the left hood's last corner has no bridge), in hood order. Empty in round 0.
  std::vector<Bridge<T>> bridges;
  friend bool operator==(const TraceRound&, const TraceRound&) = default;

  /// The corners of hood k.
  std::span<const Point2<T>> hood(std::size_t k) const;
};

/// Receives the rounds as a backend produces them (HullOptions::trace). Upper-chain rounds come
/// first, in order, then (full hulls) the lower chain's. A sink overrides the coordinate type it
/// expects; the default for the others throws std::logic_error.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void on_round(const TraceRound<float>& round);
  virtual void on_round(const TraceRound<double>& round);
  virtual void on_round(const TraceRound<std::int32_t>& round);
  virtual void on_round(const TraceRound<std::int64_t>& round);
};

/// A sink that keeps every round in memory.
template <class T>
class TraceLog final : public TraceSink {
 public:
  using TraceSink::on_round;
  void on_round(const TraceRound<T>& round) override { rounds_.push_back(round); }
  const std::vector<TraceRound<T>>& rounds() const { return rounds_; }

 private:
  std::vector<TraceRound<T>> rounds_;
};

/// The trace as text, close to the seed's show_current_hoods stream (docs/formats.md, "Trace"):
/// per round a "# chain C round R width W" comment, the number of hoods, then per hood its size and
/// its corners "x y" in shortest round-trip decimal, "# bridge K ax ay bx by" comments, a blank
/// line; a final "0" line ends the trace, as in the seed.
template <class T>
std::string format_trace_text(std::span<const TraceRound<T>> rounds, index_t points);

/// The same trace as one JSON document (docs/formats.md).
template <class T>
std::string format_trace_json(std::span<const TraceRound<T>> rounds, index_t points);

/// The layouts a trace file can have: the seed's text stream, JSON, or a page to watch the rounds in
/// a browser (render_rounds_page in wagener/render.hpp).
enum class TraceFormat { text, json, html };

/// Parses "text", "json", "html"; throws std::invalid_argument otherwise.
TraceFormat parse_trace_format(std::string_view name);
/// By extension: .json is JSON, .html and .htm a page, anything else text.
TraceFormat guess_trace_format(std::string_view path);

}  // namespace wagener
