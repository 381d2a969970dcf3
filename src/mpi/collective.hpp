// What the MPI door's steps share: agreeing on failure, and moving vectors of any length between
// ranks (MPI counts are int, a hull of 10^9 vertices is not).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "wagener/error.hpp"

namespace wagener::mpi::detail {

/// Throws the MPI error a call returned as std::runtime_error (the default handler aborts first;
/// this covers communicators set to MPI_ERRORS_RETURN).
inline void check_mpi(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw std::runtime_error(std::string(call) +
                           " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

/// The kinds of failure a step can end in, so that every rank throws the same type.
enum class FailureKind : int { none, input, invalid_argument, unsupported, cuda, other };

inline FailureKind kind_of(const std::exception& e) {
  if (dynamic_cast<const input_error*>(&e)) return FailureKind::input;
  if (dynamic_cast<const std::invalid_argument*>(&e)) return FailureKind::invalid_argument;
  if (dynamic_cast<const unsupported_error*>(&e)) return FailureKind::unsupported;
  if (dynamic_cast<const cuda_error*>(&e)) return FailureKind::cuda;
  return FailureKind::other;
}

[[noreturn]] inline void throw_as(FailureKind kind, const std::string& message) {
  switch (kind) {
    case FailureKind::input: throw input_error(message);
    case FailureKind::invalid_argument: throw std::invalid_argument(message);
    case FailureKind::unsupported: throw unsupported_error(message);
    case FailureKind::cuda: throw cuda_error(message);
    case FailureKind::none:
    case FailureKind::other: break;
  }
  throw std::runtime_error(message);
}

/// Runs `step` on every rank and agrees on its outcome: when it throws on any rank, every rank
/// throws the same type with the message of the lowest failing rank, so that no rank goes on to
/// wait for a partner that gave up. Collective.
template <class Step>
void all_or_none(MPI_Comm comm, Step&& step) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  FailureKind kind = FailureKind::none;
  std::string message;
  try {
    step();
  } catch (const std::exception& e) {
    kind = kind_of(e);
    message = e.what();
  }
  int failing = kind == FailureKind::none ? size : rank;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &failing, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (failing == size) return;
  int header[2] = {static_cast<int>(kind), static_cast<int>(std::min<std::size_t>(message.size(), 1 << 20))};
  check_mpi(MPI_Bcast(header, 2, MPI_INT, failing, comm), "MPI_Bcast");
  message.resize(static_cast<std::size_t>(header[1]));
  check_mpi(MPI_Bcast(message.data(), header[1], MPI_CHAR, failing, comm), "MPI_Bcast");
  throw_as(static_cast<FailureKind>(header[0]), message);
}

// Messages of at most 1 GiB: MPI counts are int.
inline constexpr std::size_t kMaxMessageBytes = std::size_t{1} << 30;

/// Sends a vector as its length, then its bytes in messages of at most kMaxMessageBytes.
template <class V>
void send_vector(const std::vector<V>& values, int to, int tag, MPI_Comm comm) {
  std::int64_t count = static_cast<std::int64_t>(values.size());
  check_mpi(MPI_Send(&count, 1, MPI_INT64_T, to, tag, comm), "MPI_Send");
  const auto* bytes = reinterpret_cast<const char*>(values.data());
  for (std::size_t sent = 0, total = values.size() * sizeof(V); sent < total;) {
    const std::size_t piece = std::min(kMaxMessageBytes, total - sent);
    check_mpi(MPI_Send(bytes + sent, static_cast<int>(piece), MPI_BYTE, to, tag, comm), "MPI_Send");
    sent += piece;
  }
}

/// Receives what send_vector sent.
template <class V>
std::vector<V> receive_vector(int from, int tag, MPI_Comm comm) {
  std::int64_t count = 0;
  check_mpi(MPI_Recv(&count, 1, MPI_INT64_T, from, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
  std::vector<V> values(static_cast<std::size_t>(count));
  auto* bytes = reinterpret_cast<char*>(values.data());
  for (std::size_t received = 0, total = values.size() * sizeof(V); received < total;) {
    const std::size_t piece = std::min(kMaxMessageBytes, total - received);
    check_mpi(
        MPI_Recv(bytes + received, static_cast<int>(piece), MPI_BYTE, from, tag, comm, MPI_STATUS_IGNORE),
        "MPI_Recv");
    received += piece;
  }
  return values;
}

/// Broadcasts a vector from `root` (its length, then its bytes in pieces).
template <class V>
void broadcast_vector(std::vector<V>& values, int root, MPI_Comm comm) {
  std::int64_t count = static_cast<std::int64_t>(values.size());
  check_mpi(MPI_Bcast(&count, 1, MPI_INT64_T, root, comm), "MPI_Bcast");
  values.resize(static_cast<std::size_t>(count));
  auto* bytes = reinterpret_cast<char*>(values.data());
  for (std::size_t done = 0, total = values.size() * sizeof(V); done < total;) {
    const std::size_t piece = std::min(kMaxMessageBytes, total - done);
    check_mpi(MPI_Bcast(bytes + done, static_cast<int>(piece), MPI_BYTE, root, comm), "MPI_Bcast");
    done += piece;
  }
}

}  // namespace wagener::mpi::detail
