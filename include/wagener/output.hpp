// Hull files out: the hull's vertices (or their indices in the input) as text, CSV, JSON, GeoJSON,
// WKT or raw binary.
//
// Coordinates are written in the shortest decimal that reads back to the same float or double (and
// integers as integers), so text and csv output read back with read_points gives the very same bits. Large
// outputs are formatted on several threads; the bytes never depend on how many.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wagener/point.hpp"

namespace wagener {

/// Layouts of a hull file (docs/formats.md):
///   text     one "x y" line per vertex (what format_points writes)
///   csv      a header line "x,y", then one "x,y" line per vertex
///   json     [[x,y],[x,y],...]
///   geojson  a Feature: a Polygon (a closed ring, counter-clockwise as RFC 7946 asks of exterior
///            rings) for a full hull of 3 or more vertices, a LineString for 2 vertices or for an upper
///            hull, a Point for 1, "geometry":null for none; "properties":{"vertices":N}
///   wkt      POLYGON ((...)), LINESTRING (...), POINT (...) by the same rules, or GEOMETRYCOLLECTION EMPTY
///   f32/f64  raw little-endian x,y pairs, as read_points reads them; f32 of double vertices rounds
///            each coordinate to the nearest float, which can lose precision (and throws
///            std::invalid_argument for a coordinate beyond float's range)
///   i32/i64  raw little-endian int32 or int64 x,y pairs
/// A coordinate is converted to another binary type only exactly where an integer type is involved:
/// integer vertices as f32 or f64 only where float or double holds them (up to 2^24, 2^53), float
/// vertices as i32 or i64 only where they are integers in range; otherwise std::invalid_argument
/// naming the vertex, and nothing is written.
enum class OutputFormat { text, csv, json, geojson, wkt, f32, f64, i32, i64 };

/// Parses "text", "csv", "json", "geojson", "wkt", "f32", "f64", "i32", "i64"; throws
/// std::invalid_argument, listing the choices, otherwise.
OutputFormat parse_output_format(std::string_view name);
std::string_view output_format_name(OutputFormat format);

/// The format a path asks for by its extension (.csv .json .geojson .wkt .f32 .f64 .i32 .i64, in any case);
/// text for anything else, and for "-" (standard output).
OutputFormat guess_output_format(std::string_view path);

struct OutputOptions {
  OutputFormat format = OutputFormat::text;
  /// A full hull, written as a polygon (geojson, wkt); false: an upper hull, an open chain from left to
  /// right. Text, csv, json and binary list the vertices the same either way.
  bool closed = true;
  /// Threads to format with; 0: one per hardware thread. Small outputs use one whatever is asked.
  unsigned threads = 0;
};

/// The hull file's bytes. The vertices are written in the order given: as convex_hull returns them
/// (counter-clockwise), or as upper_hull does (left to right) with closed = false.
template <class T>
std::string format_hull(std::span<const Point2<T>> vertices, const OutputOptions& options = {});

/// Indices of the hull's vertices in the input, one per vertex (what scipy's ConvexHull.vertices
/// holds): text one per line, csv a header "index" then one per line, json [i,j,...]. Binary formats
/// hold coordinates, and a geojson or wkt geometry needs them too, so the binary formats, geojson and wkt
/// throw std::invalid_argument: an f64 file of integers would read back as garbage without a complaint.
std::string format_indices(std::span<const std::int64_t> indices, const OutputOptions& options = {});

/// Grouped hulls with their groups' ids (wagener hull --group-by), as format_grouped_hulls takes them.
template <class T>
struct GroupedOutput {
  std::span<const std::string> ids;       ///< per group, its id's text
  std::string_view id_header;             ///< csv: the id column's name ("id" when empty)
  std::span<const std::int64_t> offsets;  ///< groups + 1 entries: group g is [offsets[g], offsets[g + 1])
  std::span<const Point2<T>> vertices;
  std::span<const std::int64_t> indices;  ///< with_indices: per vertex, its input index
  bool with_indices = false;
};

/// A grouped hull file: every vertex with its group's id, group after group, each group's vertices
/// in the order given (docs/formats.md):
///   csv   a header "ID,x,y" (ID: id_header), then "id,x,y" rows; an id is quoted when it holds a
///         comma, a quote or '#', or is empty, and ID also when it starts with a byte-order mark's
///         bytes (which a reader would take for the mark)
///   text  "id x y" lines; an id that is empty or holds a blank or '#' throws std::invalid_argument
///   json  an object from id to the group's [[x,y],...], keys in group order
/// with_indices writes each vertex's input index in place of x and y ("ID,index", "id index",
/// {"id":[i,...]}). Other formats throw std::invalid_argument: they cannot hold ids.
template <class T>
std::string format_grouped_hulls(const GroupedOutput<T>& hulls, const OutputOptions& options);

/// Writes format_grouped_hulls(hulls, options) to path ("-": standard output), atomically, as
/// write_hull does, without first joining it into one string. Throws std::invalid_argument as
/// format_grouped_hulls does, before the file is touched, and input_error when it cannot be written.
template <class T>
void write_grouped_hulls(const std::string& path, const GroupedOutput<T>& hulls,
                         const OutputOptions& options);

/// Writes format_hull(vertices, options) to path ("-": standard output), atomically (a temporary file
/// renamed into place, as write_file_atomically does), without first joining it into one string.
/// Throws input_error when the file cannot be written.
template <class T>
void write_hull(const std::string& path, std::span<const Point2<T>> vertices,
                const OutputOptions& options = {});

/// Writes format_indices(indices, options) to path, the same way.
void write_indices(const std::string& path, std::span<const std::int64_t> indices,
                   const OutputOptions& options = {});

}  // namespace wagener
