//===- MpiWorld.cpp - OpenMPI through dlopen ------------------------------===//
//
// OpenMPI's C ABI: communicators, datatypes and ops are pointers to
// predefined objects the library exports (ompi_mpi_comm_world, ...);
// MPI_STATUS_IGNORE is null. MLIR 22's MPIToLLVM names the predefined ops
// `ompi_mpi_sum`/`ompi_mpi_max`, while OpenMPI exports them as
// `ompi_mpi_op_sum`/`ompi_mpi_op_max`: programSymbols binds the former
// to the latter.
//
//===----------------------------------------------------------------------===//

#include "lazy/Runtime/MpiWorld.h"
#include "DynamicLibrary.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>

using namespace lazy::runtime;

namespace {
using Handle = void *;
/// The tag of sendText's messages: the largest every MPI allows.
constexpr int kTextTag = 32767;
} // namespace

struct MpiWorld::Api {
  DynamicLibrary library;
  int (*init)(int *, char ***) = nullptr;
  int (*initialized)(int *) = nullptr;
  int (*finalize)() = nullptr;
  int (*commRank)(Handle, int *) = nullptr;
  int (*commSize)(Handle, int *) = nullptr;
  int (*allreduce)(const void *, void *, int, Handle, Handle, Handle) = nullptr;
  int (*send)(const void *, int, Handle, int, int, Handle) = nullptr;
  int (*recv)(void *, int, Handle, int, int, Handle, void *) = nullptr;
  int (*abort)(Handle, int) = nullptr;
  Handle commWorld = nullptr, intType = nullptr, charType = nullptr,
         maxOp = nullptr;
};

MpiWorld::MpiWorld() : api(std::make_unique<Api>()) {}

/// MPI_Finalize at exit: MPI can be initialized once per process, and a
/// process (a Python one, through the C API) may run several jobs.
static int (*finalizeAtExit)() = nullptr;

MpiWorld::~MpiWorld() = default;

std::unique_ptr<MpiWorld> MpiWorld::join(std::string &why) {
  std::unique_ptr<MpiWorld> world(new MpiWorld());
  Api &api = *world->api;
  std::string error;
  // LAZY_MPI_LIBRARY names another OpenMPI build's libmpi.
  const char *chosen = std::getenv("LAZY_MPI_LIBRARY");
  bool opened = chosen ? api.library.open({chosen}, error, /*global=*/true)
                       : api.library.open({"libmpi.so.40", "libmpi.so"}, error,
                                          /*global=*/true);
  if (!opened) {
    why = "cannot load OpenMPI (" + error +
          "); install openmpi-bin and libopenmpi-dev (scripts/setup.sh does)";
    return nullptr;
  }
  std::string missing;
  if (!api.library.bind(api.init, "MPI_Init", missing) ||
      !api.library.bind(api.initialized, "MPI_Initialized", missing) ||
      !api.library.bind(api.finalize, "MPI_Finalize", missing) ||
      !api.library.bind(api.commRank, "MPI_Comm_rank", missing) ||
      !api.library.bind(api.commSize, "MPI_Comm_size", missing) ||
      !api.library.bind(api.allreduce, "MPI_Allreduce", missing) ||
      !api.library.bind(api.send, "MPI_Send", missing) ||
      !api.library.bind(api.recv, "MPI_Recv", missing) ||
      !api.library.bind(api.abort, "MPI_Abort", missing)) {
    why = "the MPI library has no " + missing + " (not OpenMPI 4's ABI?)";
    return nullptr;
  }
  api.commWorld = api.library.address("ompi_mpi_comm_world");
  api.intType = api.library.address("ompi_mpi_int");
  api.charType = api.library.address("ompi_mpi_char");
  api.maxOp = api.library.address("ompi_mpi_op_max");
  if (!api.commWorld || !api.intType || !api.charType || !api.maxOp) {
    why = "the MPI library is not OpenMPI (no ompi_mpi_comm_world, ...): "
          "lazy-run --distributed speaks OpenMPI's ABI";
    return nullptr;
  }
  int already = 0;
  api.initialized(&already);
  if (!already) {
    if (api.init(nullptr, nullptr) != 0) {
      why = "MPI_Init failed";
      return nullptr;
    }
    finalizeAtExit = api.finalize;
    std::atexit([] { finalizeAtExit(); });
  }
  api.commRank(api.commWorld, &world->myRank);
  api.commSize(api.commWorld, &world->worldSize);
  return world;
}

bool MpiWorld::maxOverRanks(std::vector<int> &values) {
  std::vector<int> result(values.size());
  if (api->allreduce(values.data(), result.data(), int(values.size()),
                     api->intType, api->maxOp, api->commWorld) != 0)
    return false;
  values = std::move(result);
  return true;
}

bool MpiWorld::sendText(int to, const std::string &text) {
  int length = int(text.size());
  return api->send(&length, 1, api->intType, to, kTextTag, api->commWorld) ==
             0 &&
         api->send(text.data(), length, api->charType, to, kTextTag,
                   api->commWorld) == 0;
}

bool MpiWorld::receiveText(int from, std::string &text) {
  int length = 0;
  if (api->recv(&length, 1, api->intType, from, kTextTag, api->commWorld,
                nullptr) != 0 ||
      length < 0)
    return false;
  text.assign(size_t(length), '\0');
  return api->recv(text.data(), length, api->charType, from, kTextTag,
                   api->commWorld, nullptr) == 0;
}

void MpiWorld::abort(int code) {
  api->abort(api->commWorld, code);
  std::_Exit(code); // MPI_Abort does not return; in case it does
}

MpiWorld::CallTimes &MpiWorld::callTimes() {
  static CallTimes times;
  return times;
}

namespace {
/// The calls the timing wrappers forward to (one MPI library per process).
int (*timedSend)(const void *, int, Handle, int, int, Handle) = nullptr;
int (*timedRecv)(void *, int, Handle, int, int, Handle, void *) = nullptr;
int (*timedAllreduce)(const void *, void *, int, Handle, Handle,
                      Handle) = nullptr;

double secondsNow() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Adds the time since `start` to `into` when the call returns.
struct CallTimer {
  double &into;
  double start = secondsNow();
  ~CallTimer() {
    into += secondsNow() - start;
    ++MpiWorld::callTimes().calls;
  }
};

int sendTimed(const void *buf, int count, Handle type, int to, int tag,
              Handle comm) {
  CallTimer timer{MpiWorld::callTimes().send};
  return timedSend(buf, count, type, to, tag, comm);
}
int recvTimed(void *buf, int count, Handle type, int from, int tag, Handle comm,
              void *status) {
  CallTimer timer{MpiWorld::callTimes().receive};
  return timedRecv(buf, count, type, from, tag, comm, status);
}
int allreduceTimed(const void *in, void *out, int count, Handle type, Handle op,
                   Handle comm) {
  CallTimer timer{MpiWorld::callTimes().allReduce};
  return timedAllreduce(in, out, count, type, op, comm);
}
} // namespace

std::vector<std::pair<std::string, void *>>
MpiWorld::programSymbols(bool timed) const {
  timedSend = api->send;
  timedRecv = api->recv;
  timedAllreduce = api->allreduce;
  std::vector<std::pair<std::string, void *>> symbols = {
      {"MPI_Send", timed ? reinterpret_cast<void *>(&sendTimed)
                         : reinterpret_cast<void *>(api->send)},
      {"MPI_Recv", timed ? reinterpret_cast<void *>(&recvTimed)
                         : reinterpret_cast<void *>(api->recv)},
      {"MPI_Allreduce", timed ? reinterpret_cast<void *>(&allreduceTimed)
                              : reinterpret_cast<void *>(api->allreduce)},
      {"ompi_mpi_comm_world", api->commWorld},
      {"ompi_mpi_sum", api->library.address("ompi_mpi_op_sum")},
      {"ompi_mpi_max", api->library.address("ompi_mpi_op_max")}};
  for (const char *type :
       {"ompi_mpi_float", "ompi_mpi_double", "ompi_mpi_int8_t",
        "ompi_mpi_uint8_t", "ompi_mpi_int16_t", "ompi_mpi_uint16_t",
        "ompi_mpi_int32_t", "ompi_mpi_uint32_t", "ompi_mpi_int64_t",
        "ompi_mpi_uint64_t"})
    symbols.push_back({type, api->library.address(type)});
  std::vector<std::pair<std::string, void *>> found;
  for (auto &symbol : symbols)
    if (symbol.second)
      found.push_back(symbol);
  return found;
}
