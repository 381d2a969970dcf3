// The full hull's inner polygon built on the device (convex_hull.cu's step 1 without the host round
// trip): one block of a thread a direction, behind sample_extremes_kernel, turns the directions'
// best samples into the tests of core::InnerPolygon and leaves them in device memory (DevicePolygon),
// where the filter reads them (hull_of_device_points says how). Its steps, each over the block:
//  1. each direction's best sample (as gather_extremes_kernel, whose places it also fills, with the
//     decision samples, for the host's guide path);
//  2. the bests in the directions' order, peeled in rounds as the survivors' polygon peels its bests
//     (survivor_polygon.cu), to about their hull: no sort, and no exact hull. Where the rounds stop
//     early the polygon is star-shaped around its centre, not convex. InnerPolygon's tests stay
//     sound on it (bench/NOTES.md, "A design check for a polygon built on the device"): the disk,
//     ring and fan certify only points of the polygon (every ray from the centre leaves it through
//     one edge), the boxes only points of the hull of its vertices, which are input points;
//  3. the centre, as InnerPolygon chooses it (the middle of the bounding box, else the centroid of
//     three spread vertices), checked exactly: strictly left of every edge, and the edges once
//     around it (the edges that cross the ray from it to +x upwards, counted exactly, are one);
//  4. the fan (angles from the smallest, made non-decreasing by a max-scan, the buckets by binary
//     search), the disk (the least edge bound), the ring (each edge's bound into the buckets its
//     angle range meets, by atomicMin on the bits), as InnerPolygon builds them;
//  5. the cross: each box's scale by a search over candidates of four threads, a corner a thread
//     (three rounds for the square box, two for the wide and the tall), each corner certified by
//     the fan or by the exact side of every edge, where InnerPolygon bisects one candidate at a time;
//  6. the float quick tests, and the dense guide's decision over the decision samples.
// Correctness needs none of the heuristics: every certificate is one of InnerPolygon's, checked
// here as there.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "cuda/check.cuh"
#include "cuda/full_hull.cuh"
#include "wagener/predicates.hpp"

namespace wagener::cuda::full_hull {
namespace {

constexpr int kThreads = kDirections;
// Candidates of the square box's scale a round (four threads each, a corner a thread), and of the
// wide and the tall box's. A round's time is one corner's test, not four in a row (bench/NOTES.md,
// "Where the float circle's guide and the random rows' polygon step go").
constexpr int kCorners = 4;
constexpr int kBoxCandidates = kThreads / kCorners;
constexpr int kSideCandidates = kBoxCandidates / 2;
static_assert(kThreads % kWarp == 0 && kWarp % kCorners == 0, "a candidate's threads share a warp");
static_assert(kMaxFanBuckets >= 4 * kDirections, "every polygon's buckets fit");

__device__ unsigned long long bits_of(double v) {
  return static_cast<unsigned long long>(__double_as_longlong(v));
}
__device__ double from_bits(unsigned long long b) {
  return __longlong_as_double(static_cast<long long>(b));
}

/// Whether p is strictly left of every edge of vertex[0..k) (exact; false for a non-finite p), the
/// edges tried from edge `from` on: a point outside mostly fails at the edge its angle names, where
/// a scan from edge 0 would take half the polygon's orientations, one after another on one thread.
__device__ bool left_of_every_edge(const Point2<double>* vertex, int k, const Point2<double>& p, int from) {
  if (!isfinite(p.x) || !isfinite(p.y)) return false;
  for (int step = 0, i = from; step < k; ++step, i = i + 1 == k ? 0 : i + 1) {
    if (orient2d(vertex[i], vertex[i + 1 == k ? 0 : i + 1], p) <= 0) return false;
  }
  return true;
}

/// The edge whose angle range around the view's centre holds p's, about (0 without a fan): where
/// left_of_every_edge starts.
__device__ int edge_near(const core::InnerPolygonView& view, const Point2<double>& p) {
  if (view.vertices == 0) return 0;
  const double a = core::pseudo_angle(p.x - view.cx, p.y - view.cy);
  if (!(a >= 0 && a <= 4)) return 0;
  const int b = min(view.buckets - 1, static_cast<int>(a * view.bucket_scale));
  return max(0, view.bucket[b]);
}

/// Whether the box c +- (dx, dy) has its four corners certified strictly inside, each by the fan
/// (when the view has one), else by the exact side of every edge (InnerPolygon::fit_box's test):
/// `candidate` (false past the search's range) over groups of kCorners threads of a warp, corner
/// threadIdx.x % kCorners a thread. Every thread of the warp calls it; each of a group computes the
/// same bounds into box.
__device__ bool box_certified(bool candidate, const core::InnerPolygonView& view,
                              const Point2<double>* vertex, int k, double dx, double dy, double box[4]) {
  box[0] = view.cx - dx, box[1] = view.cx + dx, box[2] = view.cy - dy, box[3] = view.cy + dy;
  const int corner = static_cast<int>(threadIdx.x) % kCorners;  // counter-clockwise from (x0, y0)
  const Point2<double> c{corner == 1 || corner == 2 ? box[1] : box[0], corner >= 2 ? box[3] : box[2]};
  const bool inside =
      candidate && (view.fan_inside(c.x, c.y) || left_of_every_edge(vertex, k, c, edge_near(view, c)));
  const unsigned group = static_cast<unsigned>(threadIdx.x % kWarp) & ~(kCorners - 1u);
  return (__ballot_sync(0xffffffffu, inside) >> group & ((1u << kCorners) - 1u)) == (1u << kCorners) - 1u;
}

template <class T, class Points>
__global__ void __launch_bounds__(kThreads)
    device_polygon_kernel(Points points, index_t samples, index_t stride, int decision,
                          const unsigned long long* best, Point2<double>* extreme, unsigned char* fan,
                          DevicePolygon* out) {
  using Count = cub::BlockScan<int, kThreads>;
  using MaxScan = cub::BlockScan<double, kThreads>;
  using MinReduce = cub::BlockReduce<double, kThreads>;
  __shared__ union {
    typename Count::TempStorage count;
    typename MaxScan::TempStorage max;
    typename MinReduce::TempStorage min;
  } temp;
  __shared__ Point2<double> vertex[kThreads];
  __shared__ double angle[kThreads];
  __shared__ int bucket[kMaxFanBuckets];
  __shared__ unsigned long long ring_bits[kMaxFanBuckets];
  __shared__ unsigned long long bound[4];  // ordered images: min x, min y, -max x, -max y
  __shared__ unsigned long long smallest, found[3];
  __shared__ int first;
  __shared__ double disk, boxes[3][4];
  __shared__ int outside;
  const int t = threadIdx.x;

  // 1. This direction's best sample, and the decision samples, where the host's path finds them.
  const Point2<double> p = gather_extremes<T>(points, samples, stride, decision, best, extreme);
  if (t == 0) {
    bound[0] = bound[1] = bound[2] = bound[3] = ~0ull;
    smallest = ~0ull, first = kThreads, outside = 0, disk = -1;
    found[0] = found[1] = found[2] = 0;
  }
  DevicePolygon result;  // thread 0's is written out; every field stays disabled until set

  // 2. The peel, within each warp first (as survivor_fan_kernel), then over the block.
  bool live = isfinite(p.x) && isfinite(p.y);
  const int k = peel_in_order<kThreads>(p, live, vertex, temp.count);
  const auto write_out = [&] {
    if (t == 0) *out = result;
  };
  if (k < 3) return write_out();  // the whole block alike

  // 3. The centre: the bounding box's middle, else the centroid of three spread vertices (as
  // InnerPolygon::choose_center, halves and thirds first so that the sums cannot overflow).
  if (t < k) {
    atomicMin(&bound[0], ordered_image(vertex[t].x));
    atomicMin(&bound[1], ordered_image(vertex[t].y));
    atomicMin(&bound[2], ordered_image(-vertex[t].x));
    atomicMin(&bound[3], ordered_image(-vertex[t].y));
  }
  __syncthreads();
  const double xmin = from_ordered_image<double>(bound[0]), ymin = from_ordered_image<double>(bound[1]);
  const double xmax = -from_ordered_image<double>(bound[2]), ymax = -from_ordered_image<double>(bound[3]);
  const Point2<double>&a = vertex[0], &b = vertex[k / 3], &c = vertex[2 * k / 3];
  const Point2<double> candidates[] = {{xmin / 2 + xmax / 2, ymin / 2 + ymax / 2},
                                       {a.x / 3 + b.x / 3 + c.x / 3, a.y / 3 + b.y / 3 + c.y / 3}};
  bool centred = false;
  double cx = 0, cy = 0;
  for (const auto& cand : candidates) {
    bool left = true, crosses = false;
    if (t < k) {
      const Point2<double> v = vertex[t], w = vertex[t + 1 == k ? 0 : t + 1];
      left = isfinite(cand.x) && isfinite(cand.y) && orient2d(v, w, cand) > 0;
      crosses = v.y < cand.y && w.y >= cand.y;
    }
    const bool all_left = __syncthreads_and(left) != 0;
    if (all_left && __syncthreads_count(crosses) == 1) {
      centred = true, cx = cand.x, cy = cand.y;
      break;  // the whole block alike
    }
  }
  if (!centred) return write_out();
  core::InnerPolygonView view;  // every thread's own copy; the tables in shared memory while built
  view.cx = cx, view.cy = cy;

  // 4. The fan: vertices from the smallest angle around c on, their angles made non-decreasing.
  double my_angle = 0;
  bool angle_ok = true;
  if (t < k) {
    my_angle = core::pseudo_angle(vertex[t].x - cx, vertex[t].y - cy);
    angle_ok = my_angle >= 0 && my_angle <= 4;  // else an overflow (huge coordinates): no fan
    if (angle_ok) atomicMin(&smallest, bits_of(my_angle));
  }
  const bool fan_ok = __syncthreads_and(angle_ok) != 0;
  int buckets = 64;
  while (buckets < 4 * k) buckets *= 2;
  const double scale = static_cast<double>(buckets) / 4;
  if (fan_ok) {
    if (t < k && bits_of(my_angle) == smallest) atomicMin(&first, t);
    if (t < k) angle[t] = my_angle;
    __syncthreads();
    // Vertex first + t (and its angle) to place t.
    Point2<double> rotated{};
    double rotated_angle = 0;
    if (t < k) rotated = vertex[(first + t) % k], rotated_angle = angle[(first + t) % k];
    __syncthreads();  // every read of the old order before the rotated writes
    if (t < k) vertex[t] = rotated;
    double rising = 0;
    MaxScan(temp.max).InclusiveScan(t < k ? rotated_angle : 0.0, rising,
                                    [](double x, double y) { return x > y ? x : y; });
    if (t < k) angle[t] = rising;
    __syncthreads();
    for (int bk = t; bk < buckets; bk += kThreads) {
      // The last vertex whose angle is at or below the bucket's start (-1: none).
      const double start = static_cast<double>(bk) / scale;
      int lo = 0, hi = k;  // the count of angles <= start is in [lo, hi]
      while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (angle[mid] <= start) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      bucket[bk] = lo - 1;
      ring_bits[bk] = bits_of(INFINITY);
    }
    view.vertex = vertex, view.angle = angle, view.bucket = bucket;
    view.vertices = k, view.buckets = buckets, view.bucket_scale = scale;
  }
  // The disk: the least of the edges' bounds (each edge of the polygon, in either order).
  double q = INFINITY;
  bool q_ok = true;
  if (t < k) {
    q = core::edge_distance_bound(vertex[t], vertex[t + 1 == k ? 0 : t + 1], cx, cy);
    q_ok = q >= 0;
  }
  const bool disk_ok = __syncthreads_and(q_ok) != 0;
  const double least =
      MinReduce(temp.min).Reduce(q_ok ? q : INFINITY, [](double x, double y) { return x < y ? x : y; });
  if (t == 0 && disk_ok) disk = least;
  __syncthreads();
  view.disk = disk;
  // The ring (InnerPolygon::build_ring): each edge's bound into every bucket its widened angle
  // range meets, the last edge's range past 4; a = 4 lands in the last bucket.
  if (fan_ok && disk > 0) {
    if (t < k) {
      const double widen = 0x1p-40;
      const double from = angle[t] - widen, to = (t + 1 < k ? angle[t + 1] : angle[0] + 4) + widen;
      const auto first_bucket = static_cast<long long>(floor(from * scale));
      const auto last_bucket = static_cast<long long>(floor(to * scale));
      const auto count = static_cast<long long>(buckets);
      int bk = static_cast<int>((first_bucket % count + count) % count);
      for (long long step = first_bucket; step <= last_bucket; ++step, bk = bk + 1 == buckets ? 0 : bk + 1) {
        atomicMin(&ring_bits[bk], bits_of(q));
        if (bk == 0) atomicMin(&ring_bits[buckets - 1], bits_of(q));
      }
    }
    __syncthreads();
    bool ring_ok = true;
    for (int bk = t; bk < buckets; bk += kThreads) {
      const double r = from_bits(ring_bits[bk]);
      ring_ok = ring_ok && r >= disk && r < INFINITY;
    }
    if (__syncthreads_and(ring_ok)) view.ring = reinterpret_cast<const double*>(ring_bits);
  }

  // 5. The cross (InnerPolygon::build_cross): the square box c +- f (hx, hy), then the wide and the
  // tall box with the other side s = 2f - 1. A candidate four threads (box_certified), each round
  // kBoxCandidates times finer within the step above the last certified scale; the largest certified
  // wins, and the first thread of the group that certified it writes its box (the same doubles it
  // checked).
  const double hx = xmax / 2 - xmin / 2, hy = ymax / 2 - ymin / 2;
  const int candidate = t / kCorners;
  const bool writes = t % kCorners == 0;
  double box[4];
  double f = 0, step = 1;
  for (int round = 0; round < 3; ++round) {
    step /= kBoxCandidates;
    const double scale_t = f + static_cast<double>(candidate + 1) * step;
    const bool ok = box_certified(scale_t <= 1, view, vertex, k, scale_t * hx, scale_t * hy, box);
    if (ok && writes) atomicMax(&found[0], bits_of(scale_t));
    __syncthreads();
    // Read between the barriers: the next round's atomicMax may follow the second one at once.
    f = from_bits(found[0]);
    if (ok && writes && bits_of(scale_t) == found[0]) {
      for (int i = 0; i < 4; ++i) boxes[0][i] = box[i];
    }
    __syncthreads();
  }
  if (f > 0.5) {
    const double s = 2 * f - 1;
    const int side = candidate / kSideCandidates, i = candidate % kSideCandidates;  // 0: wide, 1: tall
    // Round 0 from f to 1; round 1 within the step above the best of round 0 (none: nothing to find).
    const double g_step = (1 - f) / (kSideCandidates - 1);
    for (int round = 0; round < 2; ++round) {
      const unsigned long long best = found[1 + side];
      const double g = round == 0 ? f + g_step * i : from_bits(best) + g_step * (i + 1) / kSideCandidates;
      const bool searched = round == 0 || best != 0;
      const double dx = (side == 0 ? g : s) * hx, dy = (side == 0 ? s : g) * hy;
      const bool ok = box_certified(searched, view, vertex, k, dx, dy, box);  // a warp's lanes share a side
      __syncthreads();  // every group read `best` before any writes it
      if (ok && writes) atomicMax(&found[1 + side], bits_of(g));
      __syncthreads();
      // f == 1 certifies every g of a side: each of its groups writes the same doubles.
      if (ok && writes && bits_of(g) == found[1 + side]) {
        for (int j = 0; j < 4; ++j) boxes[1 + side][j] = box[j];
      }
      __syncthreads();
    }
  }
  if (f > 0) {
    const double* wide = found[1] != 0 ? boxes[1] : boxes[0];
    const double* tall = found[2] != 0 ? boxes[2] : boxes[0];
    view.wide_x0 = wide[0], view.wide_x1 = wide[1], view.wide_y0 = wide[2], view.wide_y1 = wide[3];
    view.tall_x0 = tall[0], view.tall_x1 = tall[1], view.tall_y0 = tall[2], view.tall_y1 = tall[3];
  }

  // 6. The dense guide's decision: the decision samples not certified inside (a non-finite one
  // counts as outside).
  int mine = 0;
  for (int s = t; s < decision; s += kThreads) {
    const Point2<double> d = extreme[kDirections + s];  // this thread's own write above
    mine += view.certainly_inside(d.x, d.y) ? 0 : 1;
  }
  if (mine != 0) atomicAdd(&outside, mine);

  // The tables to device memory, then the tests with their pointers.
  auto* fan_vertex = reinterpret_cast<Point2<double>*>(fan);
  auto* fan_angle = reinterpret_cast<double*>(fan + kDeviceFanAngles);
  auto* fan_ring = reinterpret_cast<double*>(fan + kDeviceFanRing);
  auto* fan_bucket = reinterpret_cast<int*>(fan + kDeviceFanBuckets);
  if (view.vertices > 0) {
    if (t < k) fan_vertex[t] = vertex[t], fan_angle[t] = angle[t];
    for (int bk = t; bk < buckets; bk += kThreads) {
      fan_bucket[bk] = bucket[bk];
      if (view.ring != nullptr) fan_ring[bk] = from_bits(ring_bits[bk]);
    }
    view.vertex = fan_vertex, view.angle = fan_angle, view.bucket = fan_bucket;
    if (view.ring != nullptr) view.ring = fan_ring;
  }
  __syncthreads();  // the decision counted
  result.view = view;
  result.quick = core::FloatQuickTests(view);
  result.enabled = 1;
  result.leaves_many = decision > 0 && index_t{outside} * kOutsideShare > index_t{decision};
  write_out();
}

}  // namespace

template <class T, class Points>
void build_device_polygon(Points points, index_t samples, index_t stride, int decision,
                          FullHullWorkspace<T>& ws, cudaStream_t stream) {
  device_polygon_kernel<T><<<1, kThreads, 0, stream>>>(points, samples, stride, decision, ws.best.data(),
                                                       ws.extremes.data(), ws.device_fan.data(),
                                                       ws.device_polygon.data());
  WAGENER_CUDA_CHECK_LAUNCH();
}

// Points in device memory: floats and doubles (convex_hull.cu's hull_of_device_points).
#define WAGENER_INSTANTIATE(T)                                                              \
  template void build_device_polygon<T, AosPoints<T>>(AosPoints<T>, index_t, index_t, int,  \
                                                      FullHullWorkspace<T>&, cudaStream_t); \
  template void build_device_polygon<T, SoaPoints<T>>(SoaPoints<T>, index_t, index_t, int,  \
                                                      FullHullWorkspace<T>&, cudaStream_t);
WAGENER_INSTANTIATE(float)
WAGENER_INSTANTIATE(double)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cuda::full_hull
