//===- CpuProgram.cpp - a lowered lazy-to-cpu module compiled for the host ===//
//
// Rules:
//   - the units of parallel work are the module's public functions with a
//     body other than the entry and its _mlir_ciface_ wrapper (the
//     kernels); each goes to the partition with the fewest operations so
//     far, largest first;
//   - a partition is a module of its own: its kernels whole, every other
//     function as a declaration, the private helpers and globals it still
//     references after symbol DCE; a mutable private global left in a
//     kernel partition would be duplicated, so the module is then compiled
//     whole;
//   - every engine optimizes with LLVM's -O3 pipeline for this host's
//     TargetMachine (its own, per thread) and generates code eagerly
//     (a lookup of each of its functions);
//   - of the packed wrappers ExecutionEngine adds (_mlir_NAME, one per
//     public function), only those of the functions an engine is asked
//     for stay public; the others are internal, so LLVM drops them before
//     optimizing (a few hundred instructions of a one-kernel program's
//     code; a*b+c 2^24 compiled in 21 ms instead of 24);
//   - the host partition's kernel declarations resolve to the kernel
//     engines' addresses, registered as absolute symbols;
//   - a private mutable global of at least kMappedBufferMinBytes with an
//     undef initializer (a static buffer) becomes an external declaration
//     resolved to anonymous memory the program maps and unmaps: the JIT
//     would zero-fill it when linking, touching every page (a 64 MiB
//     buffer took 33 ms of a 55 ms compile); mapped pages are zero and
//     faulted in by the first run that touches them, as a heap
//     allocation's would be. Such a global no longer keeps the kernels
//     from compiling in partitions;
//   - what every program may call is provided here, once for all callers:
//     the OpenMP runtime (libomp, loaded into the process: the parallel
//     loops call it) and lazy-mlir's runtime functions (HostFunctions.h).
//
//===----------------------------------------------------------------------===//

#include "lazy/Runtime/CpuProgram.h"
#include "lazy/Interpreter/HostFunctions.h"
#include "lazy/Support/HostCpu.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>

using namespace mlir;
using namespace mlir::lazy;

namespace {

constexpr unsigned kPartitionsPerThread = 4;
/// Static buffers at least this large are mapped (mapStaticBuffers);
/// smaller ones stay in the object, where zero-filling costs little.
constexpr int64_t kMappedBufferMinBytes = 1 << 20;

/// How hard LLVM works on a partition.
struct Effort {
  unsigned optLevel;
  llvm::CodeGenOptLevel codegen;
};
/// The kernels: LLVM's -O3 for this host's CPU.
constexpr Effort kKernelEffort{3, llvm::CodeGenOptLevel::Aggressive};
/// The host function only calls kernels and computes addresses: its
/// straight-line code is as fast through fast instruction selection, which
/// takes a tenth of the time.
constexpr Effort kHostEffort{1, llvm::CodeGenOptLevel::None};

using Symbols = SmallVector<std::pair<std::string, void *>>;

/// Loads what every program may call into the process: libomp.
llvm::Error loadRuntimeLibraries() {
  std::string error;
  if (llvm::sys::DynamicLibrary::LoadLibraryPermanently(LAZY_LIBOMP_PATH,
                                                        &error))
    return llvm::createStringError("cannot load the OpenMP runtime " +
                                   std::string(LAZY_LIBOMP_PATH) + ": " +
                                   error);
  return llvm::Error::success();
}

/// The host symbols a program is linked against: the caller's and
/// lazy-mlir's runtime functions.
Symbols runtimeSymbols(const CpuProgramOptions &options) {
  Symbols symbols(options.symbols.begin(), options.symbols.end());
  symbols.push_back({"lazy_rt_custom_random",
                     reinterpret_cast<void *>(&lazy_rt_custom_random)});
  return symbols;
}

/// Maps `size` zero bytes for a static buffer.
llvm::Expected<void *> mapBuffer(StringRef symbol, size_t size) {
  // Page-aligned (at least the global's alignment) and zero.
  void *address = ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (address == MAP_FAILED)
    return llvm::createStringError("cannot map " + std::to_string(size) +
                                   " bytes for the static buffer " +
                                   symbol.str());
  return address;
}

/// The object file `engine` compiled (it was created with
/// enableObjectDump): ExecutionEngine hands it out only as a file.
llvm::Expected<std::string> objectOf(ExecutionEngine &engine) {
  SmallString<128> path;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("lazy-program", "o", path))
    return llvm::createStringError("cannot create a temporary object file: " +
                                   ec.message());
  engine.dumpToObjectFile(path);
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  llvm::sys::fs::remove(path);
  if (!file)
    return llvm::createStringError("cannot read the object file back: " +
                                   file.getError().message());
  return (*file)->getBuffer().str();
}

/// An ExecutionEngine for `module` with `effort` for this host, then code
/// generation of each of `functions` (so nothing is compiled lazily
/// later), whose addresses go to `addresses` when given. With
/// options.objectDir the object goes to `objectName` there; with
/// `captured`, the object and `functions` go there.
llvm::Expected<std::unique_ptr<ExecutionEngine>> compileEngine(
    ModuleOp module, ArrayRef<std::string> functions,
    const CpuProgramOptions &options, Effort effort, StringRef objectName,
    ArrayRef<std::pair<std::string, void *>> extraSymbols = {},
    Symbols *addresses = nullptr, ProgramObjects::Object *captured = nullptr) {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  builder->setCodeGenOptLevel(effort.codegen);
  // LLVM tunes Intel's AVX-512 CPUs to vectorize loops 256 bits wide
  // (older ones lowered their clock on 512-bit instructions); the kernels'
  // own vectors are 512 bits there already, and a softmax's reduce loops
  // ran 20% faster at 512 on a Sapphire Rapids.
  if (::lazy::hostHasAvx512())
    builder->getFeatures().AddFeature("prefer-256-bit", false);
  auto optMachine = builder->createTargetMachine();
  if (!optMachine)
    return optMachine.takeError();
  auto codegenMachine = builder->createTargetMachine();
  if (!codegenMachine)
    return codegenMachine.takeError();
  // Without a TargetMachine LLVM's vectorizers see no vector registers.
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(effort.optLevel, /*sizeLevel=*/0,
                                optMachine->get());
  // ExecutionEngine gives every function a packed wrapper (_mlir_NAME);
  // only those of `functions` are called (invokePacked), so the others
  // become internal and LLVM drops them before it optimizes and selects
  // code for them: a few hundred instructions of a one-kernel program.
  // They are known by name before ExecutionEngine adds them: a function
  // of the module named _mlir_... (a graph named so) is not one.
  llvm::StringSet<> packedUncalled;
  SymbolTable symbolTable(module);
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    std::string packed = ("_mlir_" + func.getName()).str();
    if (!func.isExternal() && !symbolTable.lookup(packed))
      packedUncalled.insert(packed);
  }
  for (const std::string &name : functions)
    packedUncalled.erase("_mlir_" + name);
  auto transform = [&](llvm::Module *m) -> llvm::Error {
    for (llvm::Function &f : *m)
      if (!f.isDeclaration() && packedUncalled.contains(f.getName()))
        f.setLinkage(llvm::GlobalValue::InternalLinkage);
    return optimize(m);
  };
  ExecutionEngineOptions engineOptions;
  // A function_ref: `transform` outlives ExecutionEngine::create.
  engineOptions.transformer = transform;
  engineOptions.jitCodeGenOptLevel = effort.codegen;
  // The listeners are process-wide: keep the threads off them.
  engineOptions.enableGDBNotificationListener = false;
  engineOptions.enablePerfNotificationListener = false;
  engineOptions.enableObjectDump = !options.objectDir.empty() || captured;
  auto engine = ExecutionEngine::create(module, engineOptions,
                                        std::move(*codegenMachine));
  if (!engine)
    return engine.takeError();
  Symbols symbols = runtimeSymbols(options);
  symbols.append(extraSymbols.begin(), extraSymbols.end());
  (*engine)->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    for (auto &[name, address] : symbols)
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                             llvm::JITSymbolFlags::Exported};
    return map;
  });
  for (const std::string &name : functions) {
    llvm::Expected<void *> address = (*engine)->lookup(name);
    if (!address)
      return address.takeError();
    if (addresses)
      addresses->push_back({name, *address});
  }
  if (!options.objectDir.empty())
    (*engine)->dumpToObjectFile(options.objectDir + "/" + objectName.str());
  if (captured) {
    llvm::Expected<std::string> bytes = objectOf(**engine);
    if (!bytes)
      return bytes.takeError();
    *captured = {objectName.str(), std::move(*bytes),
                 std::vector<std::string>(functions.begin(), functions.end())};
  }
  return engine;
}

/// Operations in a function, the partitions' measure of size.
int64_t sizeOf(LLVM::LLVMFuncOp func) {
  int64_t n = 0;
  func.walk([&](Operation *) { ++n; });
  return n;
}

bool isLocal(LLVM::Linkage linkage) {
  return linkage == LLVM::Linkage::Private ||
         linkage == LLVM::Linkage::Internal;
}

/// Erases the private and internal functions and globals that nothing in
/// `module` references, until none is left (the LLVM dialect's linkage is
/// not MLIR's symbol visibility, which symbol DCE reads).
void dropUnusedLocals(ModuleOp module) {
  for (bool changed = true; changed;) {
    changed = false;
    llvm::DenseSet<StringAttr> used;
    if (auto uses = SymbolTable::getSymbolUses(&module.getBodyRegion()))
      for (const SymbolTable::SymbolUse &use : *uses)
        used.insert(use.getSymbolRef().getRootReference());
    for (Operation &op : llvm::make_early_inc_range(*module.getBody())) {
      bool local = false;
      if (auto func = dyn_cast<LLVM::LLVMFuncOp>(op))
        local = isLocal(func.getLinkage());
      else if (auto global = dyn_cast<LLVM::GlobalOp>(op))
        local = isLocal(global.getLinkage());
      auto name =
          op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
      if (local && name && !used.contains(name)) {
        op.erase();
        changed = true;
      }
    }
  }
}

/// The module with `functions` whole and every other function with a
/// body as a declaration (private helpers stay whole; dropUnusedLocals
/// removes what nothing references).
OwningOpRef<ModuleOp> partitionOf(ModuleOp module,
                                  ArrayRef<std::string> functions) {
  llvm::StringSet<> keep;
  for (const std::string &name : functions)
    keep.insert(name);
  OpBuilder b(module.getContext());
  OwningOpRef<ModuleOp> part = ModuleOp::create(module.getLoc());
  part->getOperation()->setAttrs(module->getAttrDictionary());
  b.setInsertionPointToEnd(part->getBody());
  for (Operation &op : module.getBody()->getOperations()) {
    auto func = dyn_cast<LLVM::LLVMFuncOp>(op);
    if (func && !func.isExternal() && !keep.contains(func.getName()) &&
        !isLocal(func.getLinkage())) {
      b.insert(op.cloneWithoutRegions());
      continue;
    }
    b.clone(op);
  }
  dropUnusedLocals(*part);
  return part;
}

/// Whether `global` is a static buffer: private or internal, mutable, a
/// byte array whose initializer is undef.
bool isStaticBuffer(LLVM::GlobalOp global) {
  auto bytes = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
  if (!bytes || !bytes.getElementType().isInteger(8) || global.getConstant() ||
      !isLocal(global.getLinkage()) || global.getValueAttr())
    return false;
  Block *init = global.getInitializerBlock();
  if (!init || init->empty())
    return false;
  auto ret = dyn_cast<LLVM::ReturnOp>(init->getTerminator());
  return ret && ret.getNumOperands() == 1 &&
         ret.getOperand(0).getDefiningOp<LLVM::UndefOp>();
}

/// Maps anonymous memory for each of `module`'s static buffers of at least
/// kMappedBufferMinBytes and turns the global into an external
/// declaration of it: the mappings go to `mapped`, their symbols to
/// `symbols`, their names and sizes to `captured` when given.
llvm::Error
mapStaticBuffers(ModuleOp module,
                 std::vector<std::pair<void *, size_t>> &mapped,
                 std::vector<std::pair<std::string, void *>> &symbols,
                 ProgramObjects *captured) {
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    if (!isStaticBuffer(global))
      continue;
    auto bytes = cast<LLVM::LLVMArrayType>(global.getGlobalType());
    if (int64_t(bytes.getNumElements()) < kMappedBufferMinBytes)
      continue;
    size_t size = bytes.getNumElements();
    llvm::Expected<void *> address = mapBuffer(global.getSymName(), size);
    if (!address)
      return address.takeError();
    mapped.push_back({*address, size});
    symbols.push_back({global.getSymName().str(), *address});
    if (captured)
      captured->staticBuffers.push_back({global.getSymName().str(), size});
    global.getInitializerRegion().getBlocks().clear();
    global.setLinkage(LLVM::Linkage::External);
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::unique_ptr<CpuProgram>>
CpuProgram::compile(ModuleOp module, StringRef entry,
                    const CpuProgramOptions &options,
                    ProgramObjects *captured) {
  if (llvm::Error error = loadRuntimeLibraries())
    return std::move(error);
  if (captured)
    *captured = {};
  auto program = std::unique_ptr<CpuProgram>(new CpuProgram());
  // The options every engine gets: the caller's, with the mapped buffers'
  // symbols.
  CpuProgramOptions withBuffers = options;
  if (llvm::Error error = mapStaticBuffers(module, program->mappedBuffers,
                                           withBuffers.symbols, captured))
    return std::move(error);
  std::string wrapper = ("_mlir_ciface_" + entry).str();
  SmallVector<LLVM::LLVMFuncOp> kernels;
  for (auto func : module.getOps<LLVM::LLVMFuncOp>())
    if (!func.isExternal() && func.getName() != entry &&
        func.getName() != wrapper && !isLocal(func.getLinkage()))
      kernels.push_back(func);
  unsigned threads = withBuffers.threads
                         ? withBuffers.threads
                         : std::max(1u, std::thread::hardware_concurrency());
  // More partitions than threads, taken in turn, even out the threads'
  // work where sizes mispredict compile times.
  size_t count =
      std::min<size_t>(threads * kPartitionsPerThread, kernels.size());
  auto whole = [&]() -> llvm::Expected<std::unique_ptr<CpuProgram>> {
    // A kernel named here keeps its packed wrapper; a partition's kernels
    // always do (the partition is asked for them).
    std::vector<std::string> functions{wrapper};
    if (withBuffers.kernelWrappers)
      for (LLVM::LLVMFuncOp k : kernels)
        functions.push_back(k.getName().str());
    auto engine = compileEngine(
        module, functions, withBuffers, kKernelEffort, "whole.o", {}, nullptr,
        captured ? &captured->objects.emplace_back() : nullptr);
    if (!engine)
      return engine.takeError();
    program->host = std::move(*engine);
    return std::move(program);
  };
  if (threads < 2 || count < 2)
    return whole();

  // Largest first, each to the lightest partition.
  SmallVector<std::pair<int64_t, LLVM::LLVMFuncOp>> bySize;
  for (LLVM::LLVMFuncOp k : kernels)
    bySize.push_back({sizeOf(k), k});
  llvm::stable_sort(
      bySize, [](const auto &a, const auto &c) { return a.first > c.first; });
  std::vector<std::vector<std::string>> names(count);
  std::vector<int64_t> load(count, 0);
  for (auto &[size, k] : bySize) {
    size_t p =
        size_t(std::min_element(load.begin(), load.end()) - load.begin());
    load[p] += size;
    names[p].push_back(k.getName().str());
  }
  std::vector<OwningOpRef<ModuleOp>> parts;
  for (ArrayRef<std::string> functions : names) {
    OwningOpRef<ModuleOp> part = partitionOf(module, functions);
    // A mutable global defined in a kernel partition would be a second
    // copy (a declaration, a mapped static buffer, is the same memory).
    for (auto global : part->getOps<LLVM::GlobalOp>())
      if (!global.getConstant() &&
          (global.getValueAttr() || global.getInitializerBlock()))
        return whole();
    parts.push_back(std::move(part));
  }
  OwningOpRef<ModuleOp> hostPart = partitionOf(module, {entry.str(), wrapper});

  // `threads` workers (this one among them) take the partitions, the
  // largest first.
  std::vector<llvm::Expected<std::unique_ptr<ExecutionEngine>>> engines;
  for (size_t p = 0; p < count; ++p)
    engines.emplace_back(std::unique_ptr<ExecutionEngine>());
  std::vector<Symbols> addresses(count);
  // The kernel partitions' objects, then the host's.
  if (captured)
    captured->objects.resize(count + 1);
  std::atomic<size_t> next{0};
  auto work = [&]() {
    for (size_t p; (p = next.fetch_add(1)) < count;)
      engines[p] =
          compileEngine(*parts[p], names[p], withBuffers, kKernelEffort,
                        "part" + std::to_string(p) + ".o", {}, &addresses[p],
                        captured ? &captured->objects[p] : nullptr);
  };
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < std::min<size_t>(threads, count); ++t)
    workers.emplace_back(work);
  work();
  for (std::thread &t : workers)
    t.join();
  Symbols kernelSymbols;
  llvm::Error errors = llvm::Error::success();
  for (size_t p = 0; p < count; ++p) {
    if (!engines[p]) {
      errors = llvm::joinErrors(std::move(errors), engines[p].takeError());
      continue;
    }
    kernelSymbols.append(addresses[p].begin(), addresses[p].end());
    program->kernelEngines.push_back(std::move(*engines[p]));
  }
  if (errors)
    return std::move(errors);
  auto host = compileEngine(*hostPart, {wrapper}, withBuffers, kHostEffort,
                            "host.o", kernelSymbols, nullptr,
                            captured ? &captured->objects.back() : nullptr);
  if (!host)
    return host.takeError();
  program->host = std::move(*host);
  return std::move(program);
}

llvm::Expected<std::unique_ptr<CpuProgram>>
CpuProgram::load(const ProgramObjects &objects,
                 const CpuProgramOptions &options) {
  if (objects.objects.empty())
    return llvm::createStringError("a program needs an object file");
  if (llvm::Error error = loadRuntimeLibraries())
    return std::move(error);
  auto program = std::unique_ptr<CpuProgram>(new CpuProgram());
  Symbols symbols = runtimeSymbols(options);
  for (const auto &[symbol, size] : objects.staticBuffers) {
    llvm::Expected<void *> address = mapBuffer(symbol, size);
    if (!address)
      return address.takeError();
    program->mappedBuffers.push_back({*address, size});
    symbols.push_back({symbol, *address});
  }
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  // The objects were made for RuntimeDyld (ExecutionEngine links with
  // it): link them the same way.
  auto jit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(*builder))
          .setObjectLinkingLayerCreator(
              [](llvm::orc::ExecutionSession &session)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                return std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                    session, [](const llvm::MemoryBuffer &) {
                      return std::make_unique<llvm::SectionMemoryManager>();
                    });
              })
          .create();
  if (!jit)
    return jit.takeError();
  llvm::orc::LLJIT &linker = **jit;
  // One library per object, as each was compiled alone; the last one
  // (the host's, or the whole program) sees all the others.
  std::vector<llvm::orc::JITDylib *> libraries;
  for (size_t i = 0; i + 1 < objects.objects.size(); ++i) {
    auto library = linker.createJITDylib(objects.objects[i].name);
    if (!library)
      return library.takeError();
    libraries.push_back(&*library);
  }
  libraries.push_back(&linker.getMainJITDylib());
  for (auto [library, object] : llvm::zip(libraries, objects.objects)) {
    llvm::orc::SymbolMap map;
    for (auto &[name, address] : symbols)
      map[linker.mangleAndIntern(name)] = {
          llvm::orc::ExecutorAddr::fromPtr(address),
          llvm::JITSymbolFlags::Exported};
    if (llvm::Error error =
            library->define(llvm::orc::absoluteSymbols(std::move(map))))
      return std::move(error);
    if (library == &linker.getMainJITDylib())
      for (llvm::orc::JITDylib *kernels : ArrayRef(libraries).drop_back())
        library->addToLinkOrder(*kernels);
    if (llvm::Error error = linker.addObjectFile(
            *library,
            llvm::MemoryBuffer::getMemBufferCopy(object.bytes, object.name)))
      return std::move(error);
  }
  // Everything links now: a missing symbol is an error here, not a crash
  // at the first call.
  for (auto [library, object] : llvm::zip(libraries, objects.objects))
    for (const std::string &function : object.functions) {
      auto address = linker.lookup(*library, function);
      if (!address)
        return llvm::createStringError("linking " + object.name + ": " +
                                       llvm::toString(address.takeError()));
    }
  if (llvm::Error error = linker.initialize(linker.getMainJITDylib()))
    return std::move(error);
  program->linked = std::move(*jit);
  program->linkedLibraries = std::move(libraries);
  return std::move(program);
}

CpuProgram::~CpuProgram() {
  // The code goes first (the host, which calls the kernels, before
  // them): nothing may run on the buffers after them.
  host.reset();
  kernelEngines.clear();
  if (linked)
    llvm::consumeError(linked->deinitialize(linked->getMainJITDylib()));
  linked.reset();
  for (auto [address, size] : mappedBuffers)
    ::munmap(address, size);
}

llvm::Error CpuProgram::invokePacked(StringRef name,
                                     MutableArrayRef<void *> args) {
  if (host)
    return host->invokePacked(name, args);
  llvm::Expected<void *> packed = lookup(("_mlir_" + name).str());
  if (!packed)
    return packed.takeError();
  reinterpret_cast<void (*)(void **)>(*packed)(args.data());
  return llvm::Error::success();
}

llvm::Expected<void *> CpuProgram::lookup(StringRef name) {
  if (linked) {
    // Every object's library, the host's last. The error is made a
    // string: ORC's may point into the JIT, which can go first.
    auto address = linked->getExecutionSession().lookup(
        llvm::orc::makeJITDylibSearchOrder(
            linkedLibraries, llvm::orc::JITDylibLookupFlags::MatchAllSymbols),
        linked->mangleAndIntern(name));
    if (!address)
      return llvm::createStringError(llvm::toString(address.takeError()));
    return address->getAddress().toPtr<void *>();
  }
  // Each engine knows its own partition's functions; a failed lookup's
  // error is dropped while others remain to ask.
  for (auto &engine : kernelEngines) {
    llvm::Expected<void *> address = engine->lookup(name);
    if (address)
      return address;
    llvm::consumeError(address.takeError());
  }
  return host->lookup(name);
}
