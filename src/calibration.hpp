// The pieces of the calibration (wagener/calibration.hpp) that tests drive directly.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "wagener/calibration.hpp"

namespace wagener::detail {

/// The synthetic inputs the measurement hulls (points). The defaults keep it at about 0.2-1 s on 2
/// to 32 cores while the large inputs still stream from memory, not from the caches.
struct CalibrationSizes {
  std::size_t disk = std::size_t{1} << 24;        ///< stream and copy rates (256 MB of doubles)
  std::size_t tiny = std::size_t{1} << 16;        ///< fixed costs
  std::size_t cpu_circle = 0;                     ///< survivors on the CPU; 0: 2^16 per thread, 2^18..2^22
  std::size_t sorted = std::size_t{1} << 22;      ///< the presorted upper chain's scan
  std::size_t gpu_circle = std::size_t{1} << 22;  ///< survivors on the device
};

/// Replaces the sizes (tests measure small inputs) and forgets the rates this process holds, so that
/// the next machine_rates() reads the cache file again.
void set_calibration_sizes(const CalibrationSizes& sizes);

/// The identity the rates belong to: host name, processor, hardware threads, the library's binary.
std::string machine_identity();

/// The cache file's text for `rates`, and its reading: nullopt unless the text is whole, of this
/// format, for `machine`, with every CPU rate finite and positive. The GPU rates are kept only when
/// they are whole too (and name a device); otherwise they read as unmeasured.
std::string format_rates(const MachineRates& rates);
std::optional<MachineRates> parse_rates(std::string_view text, std::string_view machine);

/// Writes `text` to `path` through a temporary file in the same folder renamed into place, creating
/// the folder; false (and no file) where it cannot.
bool write_whole_file(const std::string& path, std::string_view text);

}  // namespace wagener::detail
