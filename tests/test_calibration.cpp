// auto's measured rates and their cache file (wagener/calibration.hpp): a missing, corrupt or stale
// cache is measured afresh and replaced, a good one is used as it is, concurrent writers leave one
// whole file, and no cache folder is no error. The measurement runs on small inputs here.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "calibration.hpp"
#include "generators.hpp"

namespace wagener {
namespace {

namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// Each test gets a cache folder of its own and small synthetic inputs; the process forgets the rates
// it held, as a new process would.
class Calibration : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "wagener_calibration_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    folder_ = pattern;
    saved_xdg_ = getenv_or_empty("XDG_CACHE_HOME");
    saved_home_ = getenv_or_empty("HOME");
    ::setenv("XDG_CACHE_HOME", folder_.c_str(), 1);
    new_process();
  }
  void TearDown() override {
    restore("XDG_CACHE_HOME", saved_xdg_);
    restore("HOME", saved_home_);
    detail::set_calibration_sizes({});
    std::error_code ignored;
    fs::remove_all(folder_, ignored);
  }
  static std::string getenv_or_empty(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
  }
  static void restore(const char* name, const std::string& value) {
    if (value.empty())
      ::unsetenv(name);
    else
      ::setenv(name, value.c_str(), 1);
  }
  // As a new process: the rates are read from the cache file again.
  static void new_process() {
    detail::CalibrationSizes small;
    small.disk = 1 << 17;
    small.tiny = 1 << 10;
    small.cpu_circle = 1 << 12;
    small.sorted = 1 << 14;
    small.gpu_circle = 1 << 14;
    detail::set_calibration_sizes(small);
  }

  std::string folder_, saved_xdg_, saved_home_;
};

void expect_plausible(const CpuRates& cpu) {
  EXPECT_TRUE(cpu.measured());
  EXPECT_GT(cpu.fixed_ms, 0);
  EXPECT_LT(cpu.fixed_ms, 1e4);
  for (const double rate : {cpu.stream_gbs, cpu.sorted_upper_gbs}) {
    EXPECT_GT(rate, 1e-3);
    EXPECT_LT(rate, 1e4);
  }
  EXPECT_GT(cpu.ns_per_survivor, 0);
  EXPECT_LT(cpu.ns_per_survivor, 1e7);
}

TEST_F(Calibration, AMissingCacheIsMeasuredWrittenAndThenUsed) {
  const std::string path = calibration_cache_path();
  ASSERT_EQ(path.rfind(folder_ + "/wagener/rates-", 0), 0u) << path;
  ASSERT_FALSE(fs::exists(path));
  const MachineRates first = machine_rates(/*with_gpu=*/false);
  EXPECT_GT(first.measuring_ms, 0);
  expect_plausible(first.cpu);
  EXPECT_EQ(first.cache_path, path);
  EXPECT_EQ(first.machine, detail::machine_identity());
  ASSERT_TRUE(fs::exists(path));

  new_process();
  const MachineRates again = machine_rates(false);
  EXPECT_EQ(again.measuring_ms, 0) << "a good cache is used as it is";
  EXPECT_EQ(again.measured_at, first.measured_at);
  EXPECT_NEAR(again.cpu.stream_gbs, first.cpu.stream_gbs, first.cpu.stream_gbs * 1e-5);
  EXPECT_NEAR(again.cpu.ns_per_survivor, first.cpu.ns_per_survivor, first.cpu.ns_per_survivor * 1e-5);

  new_process();
  EXPECT_GT(machine_rates(false, /*remeasure=*/true).measuring_ms, 0) << "remeasure ignores the cache";
}

TEST_F(Calibration, ACorruptCacheIsIgnoredAndReplaced) {
  const std::string path = calibration_cache_path();
  new_process();
  const std::string good = detail::format_rates(machine_rates(false));
  std::mt19937_64 rng(testing::fresh_seed());
  std::string junk(200, '\0');
  for (char& c : junk) c = static_cast<char>(rng());
  const std::string corrupt[] = {
      "",
      good.substr(0, good.size() / 2),                                       // cut off while written
      "wagener-rates 999\n" + good.substr(good.find('\n') + 1),              // a future format
      std::string(good).replace(good.find("cpu_stream_gbs ") + 15, 1, "x"),  // not a number
      std::string(good).replace(good.find("cpu_stream_gbs ") + 15, 0, "-"),  // negative
      std::string(good).replace(good.find("cpu_ns_per_survivor ") + 20, 0, "nan"),
      junk,
  };
  for (const std::string& text : corrupt) {
    write_file(path, text);
    new_process();
    const MachineRates rates = machine_rates(false);
    EXPECT_GT(rates.measuring_ms, 0) << "cache: " << text.substr(0, 60);
    expect_plausible(rates.cpu);
    EXPECT_TRUE(detail::parse_rates(read_file(path), detail::machine_identity())) << "the file was replaced";
  }
}

TEST_F(Calibration, RatesOfAnotherMachineOrBuildAreStale) {
  const std::string path = calibration_cache_path();
  new_process();
  MachineRates other = machine_rates(false);
  const std::string identity = detail::machine_identity();
  for (const std::string& machine :
       {identity + " ", "host elsewhere; " + identity.substr(identity.find(';') + 2),
        identity.substr(0, identity.rfind("build ")) + "build an older one"}) {
    other.machine = machine;
    other.cpu.stream_gbs = 12345;  // a rate this test could not have measured
    write_file(path, detail::format_rates(other));
    EXPECT_FALSE(detail::parse_rates(read_file(path), identity));
    new_process();
    const MachineRates rates = machine_rates(false);
    EXPECT_GT(rates.measuring_ms, 0) << machine;
    EXPECT_NE(rates.cpu.stream_gbs, 12345);
  }
}

TEST_F(Calibration, TheGpuPartIsKeptOnlyWhole) {
  MachineRates rates;
  rates.machine = "m";
  rates.measured_at = "2026-11-28T00:00:00Z";
  rates.cpu = {0.5, 10, 4, 100};
  rates.gpu = {300, 60, 2, 20, 30, 2};
  rates.device = "a device";
  const std::string text = detail::format_rates(rates);
  const auto back = detail::parse_rates(text, "m");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->device, "a device");
  EXPECT_DOUBLE_EQ(back->gpu.copy_gbs, 20);
  EXPECT_DOUBLE_EQ(back->gpu.ns_per_survivor_float, 2);
  EXPECT_DOUBLE_EQ(back->cpu.ns_per_survivor, 100);
  // A device line without its rates, or rates without a device: the CPU part stands alone.
  const std::string cut = text.substr(0, text.find("gpu_copy_gbs"));
  const auto partial = detail::parse_rates(cut, "m");
  ASSERT_TRUE(partial);
  EXPECT_FALSE(partial->gpu.measured());
  EXPECT_TRUE(partial->device.empty());
  EXPECT_DOUBLE_EQ(partial->cpu.stream_gbs, 10);
  std::string no_device = text;
  no_device.erase(no_device.find("device "),
                  no_device.find('\n', no_device.find("device ")) - no_device.find("device ") + 1);
  EXPECT_FALSE(detail::parse_rates(no_device, "m")->gpu.measured());
}

// Writers replace the file by renaming a whole temporary one: a reader at any moment finds no file
// or a whole one, and no temporary is left behind.
TEST_F(Calibration, ConcurrentWritersLeaveOneWholeFile) {
  const std::string path = folder_ + "/wagener/rates-concurrent.txt";
  std::atomic<bool> done{false};
  std::atomic<int> torn{0}, whole{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&, w] {
      MachineRates rates;
      rates.machine = "m";
      rates.measured_at = std::string(static_cast<std::size_t>(w) * 5000 + 1, static_cast<char>('a' + w));
      rates.cpu = {0.5, 10.0 + w, 4, 100};
      const std::string text = detail::format_rates(rates);  // files of different sizes
      for (int i = 0; i < 200; ++i) ASSERT_TRUE(detail::write_whole_file(path, text));
    });
  }
  std::thread reader([&] {
    while (!done) {
      std::ifstream in(path, std::ios::binary);
      if (!in) continue;
      std::ostringstream text;
      text << in.rdbuf();
      (detail::parse_rates(text.str(), "m") ? whole : torn)++;
    }
  });
  for (auto& t : writers) t.join();
  done = true;
  reader.join();
  EXPECT_EQ(torn, 0);
  EXPECT_GT(whole, 0);
  const auto last = detail::parse_rates(read_file(path), "m");
  ASSERT_TRUE(last);
  for (const auto& entry : fs::directory_iterator(fs::path(path).parent_path())) {
    EXPECT_EQ(entry.path(), fs::path(path)) << "a temporary file was left behind";
  }
}

TEST_F(Calibration, NoCacheFolderIsNoError) {
  ::unsetenv("XDG_CACHE_HOME");
  ::unsetenv("HOME");
  EXPECT_EQ(calibration_cache_path(), "");
  new_process();
  const MachineRates rates = machine_rates(false);
  expect_plausible(rates.cpu);
  EXPECT_EQ(rates.cache_path, "");
}

TEST_F(Calibration, AnUnwritableCacheFolderIsNoError) {
  const std::string blocker = folder_ + "/not-a-folder";
  write_file(blocker, "a file where the cache folder would go");
  ::setenv("XDG_CACHE_HOME", blocker.c_str(), 1);
  new_process();
  const MachineRates rates = machine_rates(false);
  expect_plausible(rates.cpu);
  EXPECT_EQ(rates.cache_path, "") << "nothing could be written there";
}

}  // namespace
}  // namespace wagener
