// The wagener executable: the command line lives in cli.cpp, shared with wagener-mpi and the fuzzer.
#include "cli.hpp"

int main(int argc, char** argv) {
  return wagener::cli::run(argc, argv);
}
