// Work split into contiguous slices, one thread each: the CPU backend's passes, the vertex indices,
// the writers' formatting and generating, and the reader's chunks. Results must not depend on the
// number of slices; callers make each slice's work a function of its own range alone.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <system_error>
#include <thread>
#include <vector>

namespace wagener::detail {

/// std::thread::hardware_concurrency(), read once: glibc reads it from /sys on every call, about 6 us
/// on the project's 2-core VM, which each parallel call paid once or more (merge_hulls() of two small
/// hulls took 25 us in all).
inline unsigned hardware_threads() {
  static const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  return threads;
}

/// Worker threads kept from one run_slices call to the next, so that a call does not pay for
/// starting and joining threads: on the project's 2-core VMs a 2-slice call's new thread began its
/// slice about 0.07 ms after the call and was joined 0.04-0.06 ms after it finished, about 0.2 ms
/// of a 1 ms hull of 10^6 points in its two parallel regions (bench/NOTES.md). One call at a time:
/// a call that finds the team busy (another thread's call, or a call from inside a slice) starts
/// threads of its own, as every call did before.
class SliceTeam {
 public:
  /// The process's team; a child process after fork() gets a new one (the workers are not there).
  static SliceTeam& instance() {
    static std::atomic<SliceTeam*> team{nullptr};
    SliceTeam* current = team.load(std::memory_order_acquire);
    const pid_t pid = ::getpid();
    while (current == nullptr || current->pid_ != pid) {
      // Never deleted: workers wait on it until the process ends (an old one, after fork, has none).
      auto fresh = std::make_unique<SliceTeam>(pid);
      if (team.compare_exchange_strong(current, fresh.get(), std::memory_order_acq_rel))
        return *fresh.release();
    }
    return *current;
  }

  explicit SliceTeam(pid_t pid) : pid_(pid) {}
  SliceTeam(const SliceTeam&) = delete;
  SliceTeam& operator=(const SliceTeam&) = delete;

  /// Runs job(context, s) for each s in [1, slices) on a worker and job(context, 0) on the calling
  /// thread; returns once every one has returned. job must not throw. Returns false, having run
  /// nothing, when the team is busy or cannot start enough workers.
  bool try_run(std::size_t slices, void (*job)(void*, std::size_t), void* context) {
    if (slices - 1 > kMaxWorkers || busy_.exchange(true, std::memory_order_acquire)) return false;
    try {
      while (workers_.size() + 1 < slices) {
        auto worker = std::make_unique<Worker>();
        Worker& h = *worker;
        const std::size_t slice = workers_.size() + 1;
        workers_.push_back(std::move(worker));
        try {
          h.thread = std::thread([this, &h, slice] { serve(h, slice); });
        } catch (...) {
          workers_.pop_back();
          throw;
        }
      }
    } catch (...) {
      busy_.store(false, std::memory_order_release);
      return false;
    }
    // Read by the workers after they see their counter move (release below, acquire there).
    job_ = job;
    context_ = context;
    // Waiting workers spin only while there is a core for each; more would take the cores from
    // the threads they wait for.
    spin_ = slices <= hardware_threads();
    pending_.store(static_cast<std::uint32_t>(slices - 1), std::memory_order_relaxed);
    for (std::size_t s = 1; s < slices; ++s) {
      Worker& h = *workers_[s - 1];
      h.go.fetch_add(1, std::memory_order_release);
      h.go.notify_one();
    }
    job(context, 0);
    std::uint32_t left = pending_.load(std::memory_order_acquire);
    // Spin until every worker is done, not only the next: a worker that finishes wakes the caller
    // only when it is the last.
    if (spin_) left = spin_until(pending_, [](std::uint32_t now) { return now == 0; });
    while (left != 0) {
      pending_.wait(left, std::memory_order_acquire);
      left = pending_.load(std::memory_order_acquire);
    }
    busy_.store(false, std::memory_order_release);
    return true;
  }

 private:
  struct Worker {
    std::atomic<std::uint32_t> go{0};  // moved by the caller once for each job this worker takes
    std::thread thread;
  };
  static constexpr std::size_t kMaxWorkers = 1024;
  // How long a worker that has finished a job, or a caller waiting for its workers, spins before it
  // blocks: more than the serial step between the full hull's two parallel regions, so that the
  // second region finds its workers running (waking a blocked thread costs about what starting one
  // does on these VMs). That step is about 0.05 ms at 10^6 points on 2 cores and 0.05-0.09 ms on 16,
  // where the workers that finished their sample first wait longest: with 100 us the last of them
  // began its slice of the pass 15-43 us late, with 300 us 2-4 us (bench/NOTES.md). A spinning
  // worker holds a core, though, which on two is half the machine: there a whole `wagener hull` of
  // 10^6 points took 0.5-1 ms longer with 300 us (where that time went is not pinned down). So the
  // longer spin only where there are more than four cores.
  static std::chrono::microseconds spin_time() {
    static const std::chrono::microseconds spin{hardware_threads() > 4 ? 300 : 100};
    return spin;
  }
  // A worker's spin_time() counts from the end of the region it worked in, not from the end of its
  // own slice: on 16 cores at 10^7 points the first slices of the pass finish 0.3 ms and more before
  // its last (the slowest pass, survivors' hull and merges), and their workers had blocked by the
  // next call, whose first region then began 43-46 us late (bench/NOTES.md). While the region runs
  // on, a worker spins at most this long.
  static constexpr std::chrono::microseconds kMaxRegionSpin{1000};

  /// Spins until done(value) or spin_time() has passed; returns the value last read.
  template <class Done>
  static std::uint32_t spin_until(const std::atomic<std::uint32_t>& value, Done done) {
    const auto deadline = std::chrono::steady_clock::now() + spin_time();
    for (unsigned i = 1;; ++i) {
      const std::uint32_t now = value.load(std::memory_order_acquire);
      if (done(now)) return now;
      if (i % 64 == 0 && std::chrono::steady_clock::now() > deadline) return now;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
  }

  /// A worker's spin for its next job, after job `done`: until the job comes, or spin_time() after
  /// the region ended (pending_ fell to 0), or kMaxRegionSpin while it has not; returns go's value.
  std::uint32_t spin_for_next(const std::atomic<std::uint32_t>& go, std::uint32_t done) const {
    auto now = std::chrono::steady_clock::now();
    const auto region_deadline = now + kMaxRegionSpin;
    auto deadline = now + spin_time();
    bool region_ended = false;
    for (unsigned i = 1;; ++i) {
      const std::uint32_t value = go.load(std::memory_order_acquire);
      if (value != done) return value;
      if (i % 64 == 0) {
        now = std::chrono::steady_clock::now();
        if (!region_ended && pending_.load(std::memory_order_relaxed) == 0) {
          region_ended = true;
          deadline = now + spin_time();
        }
        if (now > (region_ended ? deadline : region_deadline)) return value;
      }
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
  }

  /// A worker's life: run slice `slice` of each job it is given, forever.
  void serve(Worker& h, std::size_t slice) {
    std::uint32_t done = 0;
    bool spin = false;
    for (;;) {
      std::uint32_t go = h.go.load(std::memory_order_acquire);
      if (go == done && spin) go = spin_for_next(h.go, done);
      while (go == done) {
        h.go.wait(done, std::memory_order_acquire);
        go = h.go.load(std::memory_order_acquire);
      }
      done = go;
      // The job's fields are read before pending_ drops: after that the caller may start another.
      void (*const job)(void*, std::size_t) = job_;
      void* const context = context_;
      spin = spin_;
      job(context, slice);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
    }
  }

  const pid_t pid_;
  std::atomic<bool> busy_{false};
  std::vector<std::unique_ptr<Worker>> workers_;  // only while busy_ is held
  void (*job_)(void*, std::size_t) = nullptr;
  void* context_ = nullptr;
  bool spin_ = false;
  std::atomic<std::uint32_t> pending_{0};  // workers still running the job
};

/// The thread count a request of `requested` means: 0 asks for one per hardware thread.
inline std::size_t resolve_threads(unsigned requested) {
  const unsigned threads = requested != 0 ? requested : hardware_threads();
  return std::max(1u, threads);
}

/// How many slices to cut n items into: at most `threads`, and no slice of fewer than
/// `min_per_slice` items (below that, starting a thread costs more than it saves); at least one.
inline std::size_t slice_count(std::size_t n, std::size_t threads, std::size_t min_per_slice) {
  return std::clamp<std::size_t>(n / std::max<std::size_t>(min_per_slice, 1), 1, threads);
}

/// Slice s of `slices` contiguous slices of [0, n): [slice_begin(n, slices, s), slice_begin(n, slices, s +
/// 1)).
inline std::size_t slice_begin(std::size_t n, std::size_t slices, std::size_t s) {
  // n * s can overflow only beyond 2^64 / threads items, far beyond any memory.
  return n / slices * s + n % slices * s / slices;
}

/// Who runs the slices of a run_slices_impl call.
enum class SliceRunners {
  /// run_slices(): the calling thread takes slice 0, SliceTeam's workers the others, or where the
  /// team is busy threads started for the call.
  caller_and_threads,
  /// run_slices_or_here(): as caller_and_threads, but where the team is busy the calling thread runs
  /// every slice in turn.
  caller_or_here,
  /// run_slices_waiting(): every slice on a worker (or a thread started for the call), the calling
  /// thread only waits; the slices that no thread can be started for run on the calling thread.
  threads_only,
};

template <SliceRunners kRunners, class Body>
void run_slices_impl(std::size_t n, std::size_t slices, Body&& body) {
  if (slices <= 1) return body(std::size_t{0}, std::size_t{0}, n);
  std::vector<std::exception_ptr> errors(slices);
  const auto run = [&](std::size_t s) {
    try {
      body(s, slice_begin(n, slices, s), slice_begin(n, slices, s + 1));
    } catch (...) {
      errors[s] = std::current_exception();
    }
  };
  const auto rethrow = [&] {
    for (const std::exception_ptr& error : errors) {
      if (error) std::rethrow_exception(error);
    }
  };
  if constexpr (kRunners == SliceRunners::threads_only) {
    // The team's slot 0, the calling thread's, is left empty: slot s + 1 runs slice s.
    const auto run_slot = [&](std::size_t slot) {
      if (slot > 0) run(slot - 1);
    };
    using RunSlot = decltype(run_slot);
    const auto job = [](void* context, std::size_t slot) { (*static_cast<const RunSlot*>(context))(slot); };
    if (SliceTeam::instance().try_run(slices + 1, job,
                                      const_cast<void*>(static_cast<const void*>(&run_slot)))) {
      rethrow();
      return;
    }
    std::vector<std::thread> pool;
    pool.reserve(slices);
    std::size_t started = 0;
    try {
      for (; started < slices; ++started) pool.emplace_back(run, started);
    } catch (const std::system_error&) {
      // No more threads to be had: this one runs what is left.
    }
    for (std::size_t s = started; s < slices; ++s) run(s);
    for (std::thread& thread : pool) thread.join();
    rethrow();
  } else {
    using Run = decltype(run);
    const auto job = [](void* context, std::size_t s) { (*static_cast<const Run*>(context))(s); };
    if (SliceTeam::instance().try_run(slices, job, const_cast<void*>(static_cast<const void*>(&run)))) {
      rethrow();
      return;
    }
    if constexpr (kRunners == SliceRunners::caller_or_here) {
      for (std::size_t s = 0; s < slices; ++s) run(s);
      rethrow();
      return;
    }
    std::vector<std::thread> pool;
    pool.reserve(slices - 1);
    try {
      for (std::size_t s = 1; s < slices; ++s) pool.emplace_back(run, s);
    } catch (...) {
      // No thread to be had: the started ones must be joined before their handles are destroyed.
      for (std::thread& thread : pool) thread.join();
      throw;
    }
    run(0);
    for (std::thread& thread : pool) thread.join();
    rethrow();
  }
}

/// Runs body(s, begin, end) for each slice s of [0, n), the calling thread taking slice 0, the
/// others on SliceTeam's workers (or, when the team is busy, on threads started for the call). Once
/// all have finished, rethrows the first exception any of them threw.
template <class Body>
void run_slices(std::size_t n, std::size_t slices, Body&& body) {
  run_slices_impl<SliceRunners::caller_and_threads>(n, slices, std::forward<Body>(body));
}

/// As run_slices, except where the team is busy: then every slice runs on the calling thread in turn,
/// for work too short to pay for starting threads (merge_hulls() called from inside a slice, or from
/// several threads at once).
template <class Body>
void run_slices_or_here(std::size_t n, std::size_t slices, Body&& body) {
  run_slices_impl<SliceRunners::caller_or_here>(n, slices, std::forward<Body>(body));
}

/// As run_slices, but the calling thread takes no slice when there are several: it only waits, and
/// runs the slices no thread could be started for. For the point reader's long scans: when the
/// calling thread took a share, Linux often queued a new thread behind it on its own core for
/// milliseconds (on a 2-core KVM guest, 2 slices of a 10 ms scan ended at 5 or 9 ms, at random;
/// with the calling thread waiting, at 5 every time: bench/NOTES.md).
template <class Body>
void run_slices_waiting(std::size_t n, std::size_t slices, Body&& body) {
  run_slices_impl<SliceRunners::threads_only>(n, slices, std::forward<Body>(body));
}

}  // namespace wagener::detail
