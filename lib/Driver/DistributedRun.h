//===- DistributedRun.h - runGraph as one rank of an MPI job ----*- C++ -*-===//
//
// What --distributed adds to runGraph (RunGraph.cpp):
//   - the rank joins the job (MpiWorld), ranks other than 0 print nothing
//     on stdout and prefix their errors with their rank;
//   - a watchdog ends the job when a rank waits longer than --mpi-timeout
//     (a rank that failed or hangs would otherwise leave the others
//     blocked in a send, receive or all-reduce for ever);
//   - two agreements every rank takes part in, whatever happened to it:
//     before running (did every rank schedule and compile?) and after (did
//     every output match?), so that a failure on one rank is an error on
//     all of them, and rank 0 prints every rank's check lines in output
//     order.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_LIB_DRIVER_DISTRIBUTEDRUN_H
#define LAZY_LIB_DRIVER_DISTRIBUTEDRUN_H

#include "lazy/Runtime/MpiWorld.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace mlir::lazy::driver {

class DistributedRun {
public:
  /// Joins the job; on failure, returns null after printing the error.
  static std::unique_ptr<DistributedRun> join(unsigned timeoutSeconds);
  /// Takes part in the agreements not reached yet, as a failed rank.
  ~DistributedRun();

  ::lazy::runtime::MpiWorld &world() { return *mpi; }
  int rank() const { return mpi->rank(); }

  /// Before running: true when every rank is ready; otherwise every rank
  /// prints which failed and false.
  bool agreeReady(bool ready);
  /// After running: `lines` are this rank's check lines by output number;
  /// rank 0 prints all of them in order, then the summary. Returns whether
  /// every rank's outputs matched.
  bool agreeResults(bool ran, bool matched,
                    const std::map<int64_t, std::string> &lines, bool check);

private:
  explicit DistributedRun(std::unique_ptr<::lazy::runtime::MpiWorld> mpi);
  void startWatchdog(unsigned timeoutSeconds);
  /// Every rank's status (the element-wise max of one slot each).
  std::vector<int> statuses(int mine);

  std::unique_ptr<::lazy::runtime::MpiWorld> mpi;
  bool readyAgreed = false, resultsAgreed = false;
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::thread watchdog;
};

} // namespace mlir::lazy::driver

#endif // LAZY_LIB_DRIVER_DISTRIBUTEDRUN_H
