//===- ProgramCache.h - compiled CPU programs kept on disk ------*- C++ -*-===//
//
// A compiled program's object files, kept on disk so that a later process
// that schedules the same graph links them instead of lowering and
// compiling again (tinygrad keeps its compiled kernels in a disk cache
// too). The caller names an entry by a key it computes (CpuCacheKey.h in
// the driver: the scheduled module's text, the target, the options and the
// build); this class only stores, finds and checks entries.
//
// Rules:
//   - the directory is, first found: LAZY_MLIR_CACHE_DIR; then
//     $XDG_CACHE_HOME/lazy-mlir; then $HOME/.cache/lazy-mlir. Entries live
//     in its `cpu/` folder, one file each, `<key>.lzo`;
//   - LAZY_MLIR_CACHE=0 turns the cache off; LAZY_MLIR_CACHE_MAX_MB caps
//     the entries' total size (default kDefaultMaxBytes);
//   - an entry is written to a unique temporary file in the same folder
//     and renamed over its name: rename is atomic, so a reader (another
//     process among them) sees a whole entry or none; two processes that
//     store the same key both write whole entries, and the last rename
//     stays;
//   - an entry starts with a magic word and the format's version, holds
//     its own key and its payload's length, and ends with the payload's
//     checksum (xxh3). One that fails any of these checks, or does not
//     parse, is rejected and removed: the caller compiles again and
//     stores a good one. It is never loaded;
//   - a hit touches its entry's modification time; after each store, the
//     oldest entries go until the total is within the cap (least recently
//     used first), and temporary files an interrupted writer left for more
//     than an hour go too.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_RUNTIME_PROGRAMCACHE_H
#define LAZY_RUNTIME_PROGRAMCACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::lazy {

/// The compiled code of one CPU program, as CpuProgram captures and loads
/// it.
struct ProgramObjects {
  struct Object {
    /// The object's name (whole.o, part<N>.o, host.o) and its bytes.
    std::string name, bytes;
    /// Functions looked up when it is linked, so that every symbol
    /// resolves (or fails) at load time, not at the first call.
    std::vector<std::string> functions;
  };
  /// Each object is linked on its own; the last one (the host function's,
  /// or the whole program's) sees the symbols of all the others.
  std::vector<Object> objects;
  /// Static buffers the program maps itself: symbol and size in bytes.
  std::vector<std::pair<std::string, uint64_t>> staticBuffers;
};

class ProgramCache {
public:
  /// 512 MiB of entries.
  static constexpr uint64_t kDefaultMaxBytes = uint64_t(512) << 20;
  /// Bumped whenever the entry layout changes.
  static constexpr uint32_t kFormatVersion = 1;

  /// What a lookup found.
  enum class Outcome { Hit, Miss, Rejected };

  /// The cache the environment asks for (see the rules above), or none
  /// when it is turned off or no directory can be named.
  static std::optional<ProgramCache> fromEnvironment();
  /// The cache rooted at `directory` (its entries in `directory`/cpu).
  explicit ProgramCache(std::string directory,
                        uint64_t maxBytes = kDefaultMaxBytes);

  /// Reads the entry of `key` into `objects`. A present but bad entry is
  /// Rejected (removed, and `why` says what was wrong).
  Outcome load(llvm::StringRef key, ProgramObjects &objects,
               std::string *why = nullptr) const;
  /// Writes the entry of `key` atomically, then trims the cache.
  llvm::Error store(llvm::StringRef key, const ProgramObjects &objects) const;
  /// Removes the least recently used entries until the total is within
  /// the cap.
  void trim() const;

  /// The folder of the entries, and the file of `key`'s entry.
  const std::string &folder() const { return entryFolder; }
  std::string pathOf(llvm::StringRef key) const;

private:
  std::string entryFolder;
  uint64_t maxBytes;
};

/// The entry bytes of `objects` under `key`, and back: parseEntry checks
/// the magic word, version, key, length and checksum, and returns why it
/// refuses.
std::string serializeEntry(llvm::StringRef key, const ProgramObjects &objects);
llvm::Expected<ProgramObjects> parseEntry(llvm::StringRef key,
                                          llvm::StringRef bytes);

} // namespace mlir::lazy

#endif // LAZY_RUNTIME_PROGRAMCACHE_H
