// One error type per layer, each carrying a message a user can act on.
#pragma once

#include <stdexcept>
#include <string>

namespace wagener {

/// Bad input: unreadable file, malformed or non-finite values, unsorted data promised sorted.
/// The CLI maps it to exit code 2.
class input_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A CUDA runtime failure (out of memory, launch failure, no device), with the call that failed.
class cuda_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A request this build cannot serve (e.g. the CUDA backend in a build without CUDA).
class unsupported_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace wagener
