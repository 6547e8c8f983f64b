//===- DistributedRun.cpp - runGraph as one rank of an MPI job ------------===//
//
// DistributedRun.h says what it adds. Statuses: 0 ready (or matched), 1
// outputs differ, 2 failed. LAZY_MPI_TEST_FAULT=R:fail makes rank R fail
// before running, R:stall makes it wait there for ever: the tests' way to
// show what the other ranks report.
//
//===----------------------------------------------------------------------===//

#include "DistributedRun.h"
#include "GraphRun.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

using namespace mlir::lazy::driver;

namespace {
enum Status { kOk = 0, kDiffer = 1, kFailed = 2 };

/// The test fault asked for this rank: "fail", "stall" or empty.
std::string testFaultFor(int rank) {
  const char *fault = std::getenv("LAZY_MPI_TEST_FAULT");
  if (!fault)
    return "";
  auto [who, what] = llvm::StringRef(fault).split(':');
  int target = -1;
  if (who.getAsInteger(10, target) || target != rank)
    return "";
  return what.str();
}
} // namespace

std::unique_ptr<DistributedRun> DistributedRun::join(unsigned timeoutSeconds) {
  std::string why;
  std::unique_ptr<::lazy::runtime::MpiWorld> world =
      ::lazy::runtime::MpiWorld::join(why);
  if (!world) {
    fail("--distributed: " + why);
    return nullptr;
  }
  std::unique_ptr<DistributedRun> run(new DistributedRun(std::move(world)));
  if (run->rank() != 0) {
    // Rank 0 speaks for the job on stdout; the others' errors still reach
    // stderr, prefixed with their rank.
    llvm::outs().flush();
    int devNull = open("/dev/null", O_WRONLY);
    if (devNull >= 0) {
      dup2(devNull, STDOUT_FILENO);
      close(devNull);
    }
  }
  setErrorPrefix("rank " + std::to_string(run->rank()) + ": ");
  run->startWatchdog(timeoutSeconds);
  return run;
}

DistributedRun::DistributedRun(std::unique_ptr<::lazy::runtime::MpiWorld> mpi)
    : mpi(std::move(mpi)) {}

DistributedRun::~DistributedRun() {
  if (!readyAgreed)
    agreeReady(false);
  if (!resultsAgreed)
    agreeResults(false, false, {}, false);
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  finished.notify_all();
  if (watchdog.joinable())
    watchdog.join();
  llvm::outs().flush();
}

void DistributedRun::startWatchdog(unsigned timeoutSeconds) {
  int rank = mpi->rank();
  watchdog = std::thread([this, timeoutSeconds, rank] {
    std::unique_lock<std::mutex> lock(mutex);
    if (finished.wait_for(lock, std::chrono::seconds(timeoutSeconds),
                          [this] { return done; }))
      return;
    llvm::errs() << "lazy-run: rank " << rank << ": error: no progress in "
                 << timeoutSeconds
                 << " s (--mpi-timeout): another rank failed or hangs; "
                    "ending the job\n";
    llvm::errs().flush();
    llvm::outs().flush();
    // mpirun ends the other ranks when one exits without MPI_Finalize.
    std::_Exit(1);
  });
}

std::vector<int> DistributedRun::statuses(int mine) {
  std::vector<int> all(size_t(mpi->size()), 0);
  all[size_t(mpi->rank())] = mine;
  if (!mpi->maxOverRanks(all)) {
    fail("MPI_Allreduce failed");
    all.assign(all.size(), kFailed);
  }
  return all;
}

bool DistributedRun::agreeReady(bool ready) {
  std::string fault = testFaultFor(mpi->rank());
  if (ready && fault == "fail") {
    fail("failing before the run (LAZY_MPI_TEST_FAULT)");
    ready = false;
  }
  if (fault == "stall")
    std::this_thread::sleep_for(std::chrono::hours(1));
  readyAgreed = true;
  std::vector<int> all = statuses(ready ? kOk : kFailed);
  std::vector<std::string> failedRanks;
  for (auto [rank, status] : llvm::enumerate(all))
    if (status == kFailed)
      failedRanks.push_back(std::to_string(rank));
  if (failedRanks.empty())
    return true;
  if (ready)
    fail("rank(s) " + llvm::join(failedRanks, ", ") +
         " failed before the run (see their errors); nothing ran");
  return false;
}

bool DistributedRun::agreeResults(bool ran, bool matched,
                                  const std::map<int64_t, std::string> &lines,
                                  bool check) {
  resultsAgreed = true;
  std::vector<int> all = statuses(!ran ? kFailed : matched ? kOk : kDiffer);
  int worst = 0;
  for (int status : all)
    worst = std::max(worst, status);
  if (worst == kFailed) {
    if (ran)
      fail("another rank failed during the run (see its errors)");
    return false;
  }
  // Every rank's lines, gathered on rank 0: "N\tLINE" rows.
  std::string mine;
  for (auto &[output, line] : lines)
    mine += std::to_string(output) + "\t" + line + "\n";
  if (mpi->rank() != 0) {
    if (!mpi->sendText(0, mine))
      fail("cannot send the check lines to rank 0");
    return worst == kOk;
  }
  std::map<int64_t, std::string> merged = lines;
  for (int from = 1; from < mpi->size(); ++from) {
    std::string text;
    if (!mpi->receiveText(from, text)) {
      fail("cannot receive rank " + std::to_string(from) + "'s check lines");
      return false;
    }
    llvm::SmallVector<llvm::StringRef> rows;
    llvm::StringRef(text).split(rows, '\n', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef row : rows) {
      auto [number, line] = row.split('\t');
      int64_t output = 0;
      if (!number.getAsInteger(10, output))
        merged[output] = line.str();
    }
  }
  for (auto &[output, line] : merged)
    llvm::outs() << line << "\n";
  if (check)
    llvm::outs() << (worst == kOk ? "all outputs match" : "outputs differ")
                 << "\n";
  return worst == kOk;
}
