// For the tests that run device code on the CPU (test_grouped_team_emulated, test_block_emulated):
// CUDA's qualifiers, and its per-thread integer intrinsics and min / max, as plain functions. The
// intrinsics that synchronise or exchange (barriers, shuffles, ballots) are each test's own.
#pragma once

#define __device__
#define __host__
#define __forceinline__
#define __noinline__

inline int __ffs(int x) {
  return __builtin_ffs(x);
}
inline int __ffs(unsigned x) {
  return __builtin_ffs(static_cast<int>(x));
}
inline int __clz(int x) {
  return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x));
}
inline int __popc(unsigned x) {
  return __builtin_popcount(x);
}
inline int min(int a, int b) {
  return a < b ? a : b;
}
inline int max(int a, int b) {
  return a > b ? a : b;
}
