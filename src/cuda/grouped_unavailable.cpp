// The CUDA grouped hulls in a build without CUDA: every call says so.
#include "cuda/grouped_backend.hpp"
#include "wagener/cuda.hpp"
#include "wagener/error.hpp"

namespace wagener::cuda {
namespace {
[[noreturn]] void no_cuda() {
  throw unsupported_error("the CUDA backend is not available: wagener was built without CUDA");
}
}  // namespace

template <class T>
GroupedHulls<T> grouped_hulls(std::span<const Point2<T>>, std::span<const std::int64_t>, HullPart, bool,
                              HullStats*) {
  no_cuda();
}

template <class T>
index_t convex_hulls_device(const Point2<T>*, const std::int64_t*, index_t, index_t, Point2<T>*,
                            std::int64_t*, std::int64_t*, HullPart, void*) {
  no_cuda();
}

WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE_CUDA_GROUPED)

}  // namespace wagener::cuda
