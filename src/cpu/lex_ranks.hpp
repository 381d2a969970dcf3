// Sorting a few points (a group's survivors on one side of its extremes' line) without a branch per
// comparison: each point's place in the sorted order is counted, not searched for. An insertion sort
// of ~11 points in random order mispredicts about once per point; counting costs n^2 comparisons,
// which vector lanes do eight (AVX-512) or four (AVX2) at a time, with nothing to predict.
#pragma once

#include <cstdint>

#include "cpu/filter_pass.hpp"

namespace wagener::cpu {

/// The most points lex_ranks() takes: its cost grows as n^2, an insertion sort's as n^2 / 4 plus a
/// mispredicted branch per point, and std::sort's as n log n.
constexpr std::uint32_t kMaxLexRanks = 32;

/// The place of each point (x[i], y[i]), i in [0, n), in the stable (x, then y) order:
/// rank[i] = #{j : (x[j], y[j]) < (x[i], y[i])} + #{j < i : (x[j], y[j]) == (x[i], y[i])}, comparing
/// as lex_less() and same_point() do (so -0 equals +0). rank is a permutation of [0, n); putting item
/// i at rank[i] sorts the items as std::stable_sort by (x, y) does. Pre: n <= kMaxLexRanks, no NaN,
/// filter_kernel_supported(kernel); x, y and rank hold n values (the vector kernels read no further).
void lex_ranks(const double* x, const double* y, std::uint32_t n, std::uint32_t* rank,
               FilterKernel kernel = FilterKernel::widest);

}  // namespace wagener::cpu
