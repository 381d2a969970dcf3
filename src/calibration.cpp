// Auto's rates, measured on the machine where it runs (wagener/calibration.hpp): synthetic hulls on
// the CPU backend and, where a device is usable, on the CUDA backend; kept in a cache file per
// machine and build.
#include "calibration.hpp"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <span>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#include "core/parallel_slices.hpp"
#include "cpu/monotone_chain.hpp"
#include "cuda/cuda_backend.hpp"
#include "io/output_file.hpp"
#include "wagener/generate.hpp"

namespace wagener {
namespace detail {
namespace {

constexpr std::string_view kFormatLine = "wagener-rates 1";

std::mutex rates_mutex;  // guards the three below
CalibrationSizes sizes;
std::optional<MachineRates> process_rates;  // what this process measured or read

std::string processor_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0 || line.rfind("Processor", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        const auto first = line.find_first_not_of(" \t", colon + 1);
        return first == std::string::npos ? std::string() : line.substr(first);
      }
    }
  }
  return "unknown processor";
}

// The binary that holds this code: the Python module's shared object, or the program the library is
// linked into. Its path, size and modification time change with every build.
std::string build_identity() {
  Dl_info info{};
  std::string path;
  if (::dladdr(reinterpret_cast<void*>(&build_identity), &info) != 0 && info.dli_fname != nullptr &&
      std::string_view(info.dli_fname).find(".so") != std::string_view::npos) {
    path = info.dli_fname;
  } else {
    std::error_code error;
    path = std::filesystem::read_symlink("/proc/self/exe", error).string();
  }
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return "unknown build";
  return path + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown host";
  return name;
}

// FNV-1a: the cache file's name from the identity; the file repeats the identity, which is checked.
std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3;
  }
  return hash;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// The rates as the file names them.
struct CpuField {
  std::string_view key;
  double CpuRates::*value;
};
struct GpuField {
  std::string_view key;
  double GpuRates::*value;
};
constexpr CpuField kCpuFields[] = {{"cpu_fixed_ms", &CpuRates::fixed_ms},
                                   {"cpu_stream_gbs", &CpuRates::stream_gbs},
                                   {"cpu_sorted_upper_gbs", &CpuRates::sorted_upper_gbs},
                                   {"cpu_ns_per_survivor", &CpuRates::ns_per_survivor}};
constexpr GpuField kGpuFields[] = {{"gpu_startup_ms", &GpuRates::startup_ms},
                                   {"gpu_first_call_ms", &GpuRates::first_call_ms},
                                   {"gpu_fixed_ms", &GpuRates::fixed_ms},
                                   {"gpu_copy_gbs", &GpuRates::copy_gbs},
                                   {"gpu_ns_per_survivor_double", &GpuRates::ns_per_survivor_double},
                                   {"gpu_ns_per_survivor_float", &GpuRates::ns_per_survivor_float}};

std::optional<double> parse_rate(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || !std::isfinite(value) || value < 0) {
    return std::nullopt;
  }
  return value;
}

// Wall time of the fastest of `runs` calls of f, in ms.
template <class F>
double fastest_ms(int runs, F&& f) {
  double best = HUGE_VAL;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    best = std::min(
        best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

template <class T>
std::vector<Point2<T>> generated(Distribution distribution, std::size_t n) {
  std::vector<Point2<T>> points(n);
  GenerateOptions options;
  options.distribution = distribution;
  options.count = n;
  options.seed = 20261128;
  generate_points<T>(points, 0, options);
  return points;
}

// Rates from timings: what is left after the fixed cost, never below a tenth of the whole (a noisy
// small-input timing must not make a rate absurd).
double rate_gbs(double bytes, double total_ms, double fixed_ms) {
  return bytes / 1e6 / std::max(total_ms - fixed_ms, total_ms / 10);
}
double ns_each(double count, double total_ms, double explained_ms) {
  return std::max(total_ms - explained_ms, total_ms / 10) * 1e6 / count;
}

CpuRates measure_cpu(const CalibrationSizes& s, std::span<const Point2<double>> disk) {
  CpuRates r;
  const auto hull = [](std::span<const Point2<double>> points) {
    return [points] { (void)cpu::convex_hull_parallel<double>(points); };
  };
  r.fixed_ms = fastest_ms(3, hull(disk.first(std::min(s.tiny, disk.size()))));
  const double disk_ms = fastest_ms(2, hull(disk));
  r.stream_gbs = rate_gbs(static_cast<double>(disk.size_bytes()), disk_ms, r.fixed_ms);
  const std::size_t circle_points =
      s.cpu_circle != 0
          ? s.cpu_circle
          : std::clamp<std::size_t>(std::size_t{1} << 16 << std::bit_width(hardware_threads() - 1),
                                    std::size_t{1} << 18, std::size_t{1} << 22);
  const auto circle = generated<double>(Distribution::circle, circle_points);
  const double circle_ms = fastest_ms(2, hull(circle));
  const double n = static_cast<double>(circle.size());
  r.ns_per_survivor = ns_each(n, circle_ms, r.fixed_ms + n * 16 / 1e6 / r.stream_gbs);
  // Sorted by x, y scattered: a presorted input whose hood, like most, is small.
  std::vector<Point2<double>> sorted(s.sorted);
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    sorted[i] = {static_cast<double>(i), static_cast<double>((i * 0x9e3779b97f4a7c15) >> 11) * 0x1p-53};
  }
  const double sorted_ms = fastest_ms(2, [&] { (void)cpu::upper_chain_filtered<double>(sorted); });
  r.sorted_upper_gbs =
      rate_gbs(static_cast<double>(sorted.size() * sizeof(Point2<double>)), sorted_ms, r.fixed_ms);
  return r;
}

GpuRates measure_gpu(const CalibrationSizes& s, std::span<const Point2<double>> disk) {
  GpuRates r;
  r.startup_ms = std::max(1.0, cuda::device_startup().startup_milliseconds);
  HullStats stats;
  const auto hull = [&stats](auto points) {
    return [points, &stats] { (void)cuda::convex_hull(points, &stats); };
  };
  // The first call pins the staging buffers and allocates the workspaces, as a fresh process does.
  const double first_ms = fastest_ms(1, hull(disk));
  const double disk_ms = fastest_ms(2, hull(disk));
  r.first_call_ms = std::max(0.0, first_ms - disk_ms);
  r.fixed_ms = fastest_ms(3, hull(disk.first(std::min(s.tiny, disk.size()))));
  r.copy_gbs = rate_gbs(static_cast<double>(disk.size_bytes()), disk_ms, r.fixed_ms);
  const auto per_survivor = [&](auto circle) {
    (void)cuda::convex_hull(std::span(std::as_const(circle)), &stats);  // the type's own workspaces
    const double ms = fastest_ms(2, hull(std::span(std::as_const(circle))));
    const double n = static_cast<double>(circle.size());
    return ns_each(n, ms, r.fixed_ms + n * sizeof(circle[0]) / 1e6 / r.copy_gbs);
  };
  r.ns_per_survivor_double = per_survivor(generated<double>(Distribution::circle, s.gpu_circle));
  r.ns_per_survivor_float = per_survivor(generated<float>(Distribution::circle, s.gpu_circle));
  return r;
}

std::string cache_path_for(std::string_view identity) {
  std::string folder;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    folder = xdg;
  } else if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') {
    folder = std::string(home) + "/.cache";
  } else {
    return {};
  }
  char name[40];
  std::snprintf(name, sizeof name, "rates-%016llx.txt", static_cast<unsigned long long>(fnv1a(identity)));
  return folder + "/wagener/" + name;
}

std::optional<MachineRates> read_cache(const std::string& path, const std::string& identity) {
  if (path.empty()) return std::nullopt;
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  auto rates = parse_rates(text.str(), identity);
  if (rates) rates->cache_path = path;
  return rates;
}

}  // namespace

void set_calibration_sizes(const CalibrationSizes& new_sizes) {
  const std::lock_guard<std::mutex> lock(rates_mutex);
  sizes = new_sizes;
  process_rates.reset();
}

std::string machine_identity() {
  static const std::string identity = "host " + host_name() + "; processor " + processor_model() +
                                      "; threads " + std::to_string(hardware_threads()) + "; build " +
                                      build_identity();
  return identity;
}

std::string format_rates(const MachineRates& rates) {
  std::string text =
      std::string(kFormatLine) + "\nmachine " + rates.machine + "\nmeasured " + rates.measured_at + "\n";
  char line[96];
  for (const auto& [key, value] : kCpuFields) {
    std::snprintf(line, sizeof line, "%.*s %.6g\n", static_cast<int>(key.size()), key.data(),
                  rates.cpu.*value);
    text += line;
  }
  if (rates.gpu.measured() && !rates.device.empty()) {
    text += "device " + rates.device + "\n";
    for (const auto& [key, value] : kGpuFields) {
      std::snprintf(line, sizeof line, "%.*s %.6g\n", static_cast<int>(key.size()), key.data(),
                    rates.gpu.*value);
      text += line;
    }
  }
  return text;
}

std::optional<MachineRates> parse_rates(std::string_view text, std::string_view machine) {
  MachineRates rates;
  bool format_seen = false, machine_seen = false;
  int cpu_seen = 0, gpu_seen = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (!format_seen) {
      if (line != kFormatLine) return std::nullopt;
      format_seen = true;
      continue;
    }
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    const std::string_view key = line.substr(0, space), value = line.substr(space + 1);
    if (key == "machine") {
      if (value != machine) return std::nullopt;  // another host or build: stale
      rates.machine = value;
      machine_seen = true;
    } else if (key == "measured") {
      rates.measured_at = value;
    } else if (key == "device") {
      rates.device = value;
    } else {
      const auto rate = parse_rate(value);
      bool known = false;
      for (const auto& [name, field] : kCpuFields) {
        if (name == key) {
          if (!rate) return std::nullopt;
          rates.cpu.*field = *rate;
          ++cpu_seen;
          known = true;
        }
      }
      for (const auto& [name, field] : kGpuFields) {
        if (name == key && rate) {
          rates.gpu.*field = *rate;
          ++gpu_seen;
          known = true;
        }
      }
      if (!known && !(key.starts_with("gpu_"))) return std::nullopt;
    }
  }
  if (!format_seen || !machine_seen || cpu_seen != std::ssize(kCpuFields) || !rates.cpu.measured()) {
    return std::nullopt;
  }
  if (gpu_seen != std::ssize(kGpuFields) || rates.device.empty() || !rates.gpu.measured()) {
    rates.gpu = {};
    rates.device.clear();
  }
  return rates;
}

bool write_whole_file(const std::string& path, std::string_view text) {
  try {
    std::error_code error;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
    detail::OutputFile file(path);
    file.append(text);
    file.commit();
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace detail

std::string calibration_cache_path() {
  return detail::cache_path_for(detail::machine_identity());
}

MachineRates machine_rates(bool with_gpu, bool remeasure) {
  using namespace detail;
  const std::lock_guard<std::mutex> lock(rates_mutex);
  const std::string identity = machine_identity();
  const std::string path = cache_path_for(identity);
  if (remeasure) process_rates.reset();
  if (!process_rates && !remeasure) process_rates = read_cache(path, identity);
  const bool need_cpu = !process_rates || !process_rates->cpu.measured();
  // Cached GPU rates are used without starting the device (its start-up is what auto weighs); it is
  // started, and waited for, only to measure rates that are missing.
  const bool gpu_missing = with_gpu && (!process_rates || !process_rates->gpu.measured());
  const bool need_gpu = gpu_missing && cuda::device_available();
  if (!need_cpu && !need_gpu) return *process_rates;
  const std::string device = need_gpu ? cuda::device_description() : std::string();

  const auto start = std::chrono::steady_clock::now();
  MachineRates rates = process_rates.value_or(MachineRates{});
  rates.machine = identity;
  rates.cache_path = path;
  const auto disk = generated<double>(Distribution::disk, sizes.disk);
  if (need_cpu) rates.cpu = measure_cpu(sizes, disk);
  if (need_gpu) {
    rates.gpu = measure_gpu(sizes, disk);
    rates.device = device;
  }
  rates.measured_at = utc_now();
  rates.measuring_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!path.empty() && !write_whole_file(path, format_rates(rates))) rates.cache_path.clear();
  process_rates = rates;
  return rates;
}

}  // namespace wagener
