//===- MpiWorld.h - this process as one rank of an MPI job ------*- C++ -*-===//
//
// lazy-run --distributed runs as one rank of an `mpirun -n N` job. The MPI
// library is opened with dlopen (OpenMPI 4's libmpi.so.40, which Debian's
// libopenmpi3 ships, or $LAZY_MPI_LIBRARY), so nothing is linked against
// MPI and a machine without it only loses --distributed. MpiWorld initializes
// it, says which rank this is, agrees on a status with every rank (so that a
// rank that failed is reported on all of them instead of leaving them waiting),
// carries text to rank 0, and hands the JIT the symbols the lowered
// programs call (MPIToLLVM's OpenMPI ABI: MPI_Send, MPI_Recv,
// MPI_Allreduce and the predefined handles).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_RUNTIME_MPIWORLD_H
#define LAZY_RUNTIME_MPIWORLD_H

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace lazy::runtime {

class MpiWorld {
public:
  /// Opens OpenMPI and calls MPI_Init unless it ran before; null with `why`
  /// when MPI is missing or does not start.
  static std::unique_ptr<MpiWorld> join(std::string &why);
  /// MPI stays initialized until the process exits (MPI_Finalize then):
  /// one process may join several times.
  ~MpiWorld();
  MpiWorld(const MpiWorld &) = delete;
  MpiWorld &operator=(const MpiWorld &) = delete;

  int rank() const { return myRank; }
  int size() const { return worldSize; }

  /// Replaces `values` (the same length on every rank) with their
  /// element-wise maximum over the ranks: a collective every rank calls.
  bool maxOverRanks(std::vector<int> &values);
  /// Point-to-point text (a length, then the bytes) on a tag the programs'
  /// own messages leave alone once they have run.
  bool sendText(int to, const std::string &text);
  bool receiveText(int from, std::string &text);
  /// Ends the whole job (MPI_Abort) with `code`.
  [[noreturn]] void abort(int code);

  /// The symbols a program lowered for OpenMPI refers to, by name; with
  /// `timed`, MPI_Send, MPI_Recv and MPI_Allreduce go through wrappers
  /// that add their wall time to callTimes().
  std::vector<std::pair<std::string, void *>>
  programSymbols(bool timed = false) const;

  /// Seconds the program spent in each MPI call kind (with timed symbols)
  /// since the last reset.
  struct CallTimes {
    double send = 0, receive = 0, allReduce = 0;
    unsigned calls = 0;
  };
  static CallTimes &callTimes();

  struct Api;

private:
  MpiWorld();
  std::unique_ptr<Api> api;
  int myRank = 0, worldSize = 1;
};

} // namespace lazy::runtime

#endif // LAZY_RUNTIME_MPIWORLD_H
