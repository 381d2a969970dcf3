// One host thread per device for the life of the process (device_workers.cuh).
#include <cuda_runtime.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "cuda/check.cuh"
#include "cuda/device_workers.cuh"

namespace wagener::cuda {
namespace {

class DeviceWorker {
 public:
  DeviceWorker() : thread_([this] { serve(); }) { thread_.detach(); }

  void submit(std::function<void()> job) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(job));
    }
    wake_.notify_one();
  }

 private:
  void serve() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return !queue_.empty(); });
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();  // selects its device itself, so that a failure to is the job's error
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  std::thread thread_;
};

/// The process's workers by device; never destroyed (detached workers wait on them until the process
/// ends), and made anew in a child process after fork(), which has no workers.
DeviceWorker& worker(int device) {
  static std::mutex mutex;
  static auto* workers = new std::map<int, std::unique_ptr<DeviceWorker>>;
  static pid_t owner = ::getpid();
  const std::lock_guard<std::mutex> lock(mutex);
  if (owner != ::getpid()) {
    workers = new std::map<int, std::unique_ptr<DeviceWorker>>;  // the parent's threads are not here
    owner = ::getpid();
  }
  auto& slot = (*workers)[device];
  if (!slot) slot = std::make_unique<DeviceWorker>();
  return *slot;
}

}  // namespace

void run_on_devices(std::vector<std::pair<int, std::function<void()>>> jobs) {
  std::mutex mutex;
  std::condition_variable done;
  std::size_t left = jobs.size();
  std::vector<std::exception_ptr> errors(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    worker(jobs[i].first).submit([&, i] {
      try {
        WAGENER_CUDA_CHECK(cudaSetDevice(jobs[i].first));
        jobs[i].second();
      } catch (...) {
        errors[i] = std::current_exception();
      }
      // Notified under the lock: once the caller sees none left it returns and these go away.
      const std::lock_guard<std::mutex> lock(mutex);
      --left;
      done.notify_all();
    });
  }
  {
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] { return left == 0; });
  }
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace wagener::cuda
