// The CUDA backend's entry points in a build without CUDA: every call says so.
#include "cuda/cuda_backend.hpp"
#include "wagener/cuda.hpp"
#include "wagener/error.hpp"

namespace wagener::cuda {
namespace {
[[noreturn]] void no_cuda() {
  throw unsupported_error("the CUDA backend is not available: wagener was built without CUDA");
}
}  // namespace

void start_device() {}

DeviceStartup device_startup() {
  return {DeviceStartup::State::failed, 0, "wagener was built without CUDA"};
}

bool device_available() {
  return false;
}

void require_device() {
  no_cuda();
}

void choose_device_for_local_rank(int) {}

int chosen_device_ordinal() {
  return -1;
}

std::string device_description() {
  return {};
}

template <class T>
std::vector<Point2<T>> upper_hull(std::span<const Point2<T>>, HullStats*) {
  no_cuda();
}

template <class T>
std::vector<Point2<T>> convex_hull(std::span<const Point2<T>>, HullStats*) {
  no_cuda();
}

template <class T>
index_t upper_hull_device(const Point2<T>*, index_t, Point2<T>*, void*) {
  no_cuda();
}

template <class T>
std::vector<Point2<T>> upper_hull_traced(std::span<const Point2<T>>,
                                         const std::function<void(TraceRound<T>&&)>&) {
  no_cuda();
}

template std::vector<Point2<float>> upper_hull_traced(std::span<const Point2<float>>,
                                                      const std::function<void(TraceRound<float>&&)>&);
template std::vector<Point2<double>> upper_hull_traced(std::span<const Point2<double>>,
                                                       const std::function<void(TraceRound<double>&&)>&);
template <class T>
index_t convex_hull_device(const Point2<T>*, index_t, Point2<T>*, void*) {
  no_cuda();
}

template <class T>
index_t convex_hull_device(const T*, const T*, index_t, Point2<T>*, void*) {
  no_cuda();
}

template index_t convex_hull_device(const float*, const float*, index_t, Point2<float>*, void*);
template index_t convex_hull_device(const double*, const double*, index_t, Point2<double>*, void*);
template index_t convex_hull_device(const Point2<float>*, index_t, Point2<float>*, void*);
template index_t convex_hull_device(const Point2<double>*, index_t, Point2<double>*, void*);
template index_t upper_hull_device(const Point2<float>*, index_t, Point2<float>*, void*);
template index_t upper_hull_device(const Point2<double>*, index_t, Point2<double>*, void*);
template <class T>
std::vector<Point2<T>> convex_hull_on_devices(std::span<const Point2<T>>, std::span<const int>, HullStats*) {
  no_cuda();
}

template std::vector<Point2<float>> convex_hull_on_devices(std::span<const Point2<float>>,
                                                           std::span<const int>, HullStats*);
template std::vector<Point2<double>> convex_hull_on_devices(std::span<const Point2<double>>,
                                                            std::span<const int>, HullStats*);
template std::vector<Point2<float>> upper_hull(std::span<const Point2<float>>, HullStats*);
template std::vector<Point2<double>> upper_hull(std::span<const Point2<double>>, HullStats*);
template std::vector<Point2<float>> convex_hull(std::span<const Point2<float>>, HullStats*);
template std::vector<Point2<double>> convex_hull(std::span<const Point2<double>>, HullStats*);

template <class T>
std::vector<Point2<T>> convex_hull_of_parts(std::span<const DevicePoints<T>>, HullStats*) {
  no_cuda();
}

template std::vector<Point2<float>> convex_hull_of_parts(std::span<const DevicePoints<float>>, HullStats*);
template std::vector<Point2<double>> convex_hull_of_parts(std::span<const DevicePoints<double>>, HullStats*);

#define WAGENER_INSTANTIATE_INTEGERS(T)                                                                    \
  template std::vector<Point2<T>> upper_hull_traced(std::span<const Point2<T>>,                            \
                                                    const std::function<void(TraceRound<T> &&)>&);         \
  template index_t convex_hull_device(const T*, const T*, index_t, Point2<T>*, void*);                     \
  template index_t convex_hull_device(const Point2<T>*, index_t, Point2<T>*, void*);                       \
  template index_t upper_hull_device(const Point2<T>*, index_t, Point2<T>*, void*);                        \
  template std::vector<Point2<T>> convex_hull_on_devices(std::span<const Point2<T>>, std::span<const int>, \
                                                         HullStats*);                                      \
  template std::vector<Point2<T>> upper_hull(std::span<const Point2<T>>, HullStats*);                      \
  template std::vector<Point2<T>> convex_hull(std::span<const Point2<T>>, HullStats*);                     \
  template std::vector<Point2<T>> convex_hull_of_parts(std::span<const DevicePoints<T>>, HullStats*);
WAGENER_INSTANTIATE_INTEGERS(std::int32_t)
WAGENER_INSTANTIATE_INTEGERS(std::int64_t)
#undef WAGENER_INSTANTIATE_INTEGERS

}  // namespace wagener::cuda
