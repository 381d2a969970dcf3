// The progress line of the command-line tools (wagener, wagener-mpi).
#pragma once

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace wagener::cli {

/// The phase a long run is in, on one line of stderr: shown once a phase has lasted about a second,
/// refreshed in place on a terminal (elsewhere, with --progress, a line per phase and every few
/// seconds), cleared before anything else is printed. Off with --quiet, and in pipes unless
/// --progress asks for it.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled), terminal_(::isatty(STDERR_FILENO) == 1) {
    if (enabled_) ticker_ = std::thread([this] { tick(); });
  }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine() { finish(); }

  void phase(std::string what) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    what_ = std::move(what);
    since_ = std::chrono::steady_clock::now();
    printed_ = false;
  }

  /// Stops the ticker and clears the line: call before printing anything else to stderr.
  void finish() {
    if (!ticker_.joinable()) return;
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    ticker_.join();
    if (terminal_ && shown_) std::fputs("\r\033[K", stderr);
  }

 private:
  void tick() {
    constexpr auto kDelay = std::chrono::seconds(1);
    constexpr auto kRefresh = std::chrono::milliseconds(250);
    constexpr auto kPipeRefresh = std::chrono::seconds(5);
    std::unique_lock lock(mutex_);
    auto last_line = std::chrono::steady_clock::time_point{};
    while (!wake_.wait_for(lock, kRefresh, [this] { return done_; })) {
      const auto now = std::chrono::steady_clock::now();
      if (what_.empty() || now - since_ < kDelay) continue;
      if (!terminal_ && printed_ && now - last_line < kPipeRefresh) continue;
      const double seconds = std::chrono::duration<double>(now - since_).count();
      std::fprintf(stderr, terminal_ ? "\r\033[Kwagener: %s ... %.0f s" : "wagener: %s ... %.0f s\n",
                   what_.c_str(), seconds);
      std::fflush(stderr);
      printed_ = shown_ = true;
      last_line = now;
    }
  }

  bool enabled_;
  bool terminal_;
  std::thread ticker_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string what_;
  std::chrono::steady_clock::time_point since_;
  bool printed_ = false, shown_ = false, done_ = false;
};

}  // namespace wagener::cli
