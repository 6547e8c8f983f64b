//===- ProgramCache.cpp - compiled CPU programs kept on disk --------------===//
//
// ProgramCache.h states the rules. An entry's layout (integers little
// endian):
//
//   "LZMCPU\0\0"  u32 version  u64 payload length  payload  u64 xxh3
//
// where the payload is: the key (u32 length, bytes); u32 objects, each a
// name, its bytes (u64 length) and u32 functions, each a name; u32 static
// buffers, each a name and a u64 size. Names are u32 length and bytes.
//
//===----------------------------------------------------------------------===//

#include "lazy/Runtime/ProgramCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <utime.h>

#include <algorithm>
#include <chrono>

using namespace mlir::lazy;
using llvm::StringRef;

namespace {

constexpr char kMagic[8] = {'L', 'Z', 'M', 'C', 'P', 'U', 0, 0};
constexpr size_t kHeaderBytes = sizeof(kMagic) + 4 + 8;
constexpr size_t kChecksumBytes = 8;
constexpr StringRef kEntrySuffix = ".lzo";
/// A temporary file older than this belongs to a writer that died.
constexpr auto kStaleTemporary = std::chrono::hours(1);

class Writer {
public:
  explicit Writer(std::string &out) : out(out) {}
  void u32(uint32_t v) {
    put(llvm::support::endian::byte_swap(v, llvm::endianness::little));
  }
  void u64(uint64_t v) {
    put(llvm::support::endian::byte_swap(v, llvm::endianness::little));
  }
  void bytes(StringRef s) { out.append(s.data(), s.size()); }
  void name(StringRef s) {
    u32(uint32_t(s.size()));
    bytes(s);
  }

private:
  template <typename T> void put(T v) {
    out.append(reinterpret_cast<const char *>(&v), sizeof(T));
  }
  std::string &out;
};

/// Reads a payload, every read bounds-checked: a short or malformed
/// payload turns `ok` false and reads as zeros and empty strings.
class Reader {
public:
  explicit Reader(StringRef in) : in(in) {}
  uint32_t u32() { return get<uint32_t>(); }
  uint64_t u64() { return get<uint64_t>(); }
  StringRef bytes(uint64_t n) {
    if (!ok || n > in.size()) {
      ok = false;
      return {};
    }
    StringRef s = in.take_front(n);
    in = in.drop_front(n);
    return s;
  }
  std::string name() { return bytes(u32()).str(); }
  bool ok = true;
  bool atEnd() const { return in.empty(); }

private:
  template <typename T> T get() {
    StringRef s = bytes(sizeof(T));
    if (!ok)
      return 0;
    return llvm::support::endian::read<T, llvm::endianness::little>(s.data());
  }
  StringRef in;
};

llvm::Error refuse(const llvm::Twine &why) {
  return llvm::createStringError(why);
}

std::optional<std::string> environment(const char *name) {
  if (std::optional<std::string> value = llvm::sys::Process::GetEnv(name))
    if (!value->empty())
      return value;
  return std::nullopt;
}

} // namespace

std::string mlir::lazy::serializeEntry(StringRef key,
                                       const ProgramObjects &objects) {
  std::string payload;
  Writer w(payload);
  w.name(key);
  w.u32(uint32_t(objects.objects.size()));
  for (const ProgramObjects::Object &object : objects.objects) {
    w.name(object.name);
    w.u64(object.bytes.size());
    w.bytes(object.bytes);
    w.u32(uint32_t(object.functions.size()));
    for (const std::string &function : object.functions)
      w.name(function);
  }
  w.u32(uint32_t(objects.staticBuffers.size()));
  for (const auto &[symbol, size] : objects.staticBuffers) {
    w.name(symbol);
    w.u64(size);
  }
  std::string entry;
  Writer e(entry);
  e.bytes(StringRef(kMagic, sizeof(kMagic)));
  e.u32(ProgramCache::kFormatVersion);
  e.u64(payload.size());
  e.bytes(payload);
  e.u64(llvm::xxh3_64bits(payload));
  return entry;
}

llvm::Expected<ProgramObjects> mlir::lazy::parseEntry(StringRef key,
                                                      StringRef bytes) {
  if (bytes.size() < kHeaderBytes + kChecksumBytes)
    return refuse("shorter than its header (" + llvm::Twine(bytes.size()) +
                  " bytes)");
  if (!bytes.starts_with(StringRef(kMagic, sizeof(kMagic))))
    return refuse("not a lazy-mlir program entry (bad magic word)");
  Reader header(bytes.drop_front(sizeof(kMagic)).take_front(12));
  uint32_t version = header.u32();
  uint64_t length = header.u64();
  if (version != ProgramCache::kFormatVersion)
    return refuse("format version " + llvm::Twine(version) + ", expected " +
                  llvm::Twine(ProgramCache::kFormatVersion));
  if (length != bytes.size() - kHeaderBytes - kChecksumBytes)
    return refuse("truncated or padded: the payload should be " +
                  llvm::Twine(length) + " bytes, the file holds " +
                  llvm::Twine(bytes.size() - kHeaderBytes - kChecksumBytes));
  StringRef payload = bytes.substr(kHeaderBytes, length);
  uint64_t checksum = Reader(bytes.take_back(kChecksumBytes)).u64();
  if (checksum != llvm::xxh3_64bits(payload))
    return refuse("checksum mismatch (the entry is corrupt)");
  Reader r(payload);
  if (r.name() != key)
    return refuse("the entry holds another key");
  ProgramObjects objects;
  for (uint32_t n = r.u32(); r.ok && n; --n) {
    ProgramObjects::Object &object = objects.objects.emplace_back();
    object.name = r.name();
    object.bytes = r.bytes(r.u64()).str();
    for (uint32_t f = r.u32(); r.ok && f; --f)
      object.functions.push_back(r.name());
  }
  for (uint32_t n = r.u32(); r.ok && n; --n) {
    std::string symbol = r.name();
    objects.staticBuffers.push_back({symbol, r.u64()});
  }
  if (!r.ok || !r.atEnd())
    return refuse("malformed payload");
  if (objects.objects.empty())
    return refuse("no object files");
  return objects;
}

std::optional<ProgramCache> ProgramCache::fromEnvironment() {
  if (std::optional<std::string> on = environment("LAZY_MLIR_CACHE"))
    if (*on == "0" || StringRef(*on).equals_insensitive("off"))
      return std::nullopt;
  uint64_t maxBytes = kDefaultMaxBytes;
  if (std::optional<std::string> mb = environment("LAZY_MLIR_CACHE_MAX_MB")) {
    uint64_t value;
    if (!StringRef(*mb).getAsInteger(10, value))
      maxBytes = value << 20;
  }
  if (std::optional<std::string> dir = environment("LAZY_MLIR_CACHE_DIR"))
    return ProgramCache(*dir, maxBytes);
  llvm::SmallString<256> dir;
  if (std::optional<std::string> xdg = environment("XDG_CACHE_HOME"))
    dir = *xdg;
  else if (std::optional<std::string> home = environment("HOME"))
    llvm::sys::path::append(dir, *home, ".cache");
  else
    return std::nullopt;
  llvm::sys::path::append(dir, "lazy-mlir");
  return ProgramCache(dir.str().str(), maxBytes);
}

ProgramCache::ProgramCache(std::string directory, uint64_t maxBytes)
    : maxBytes(maxBytes) {
  llvm::SmallString<256> folder(directory);
  llvm::sys::path::append(folder, "cpu");
  entryFolder = folder.str().str();
}

std::string ProgramCache::pathOf(StringRef key) const {
  llvm::SmallString<256> path(entryFolder);
  llvm::sys::path::append(path, key + kEntrySuffix);
  return path.str().str();
}

ProgramCache::Outcome ProgramCache::load(StringRef key, ProgramObjects &objects,
                                         std::string *why) const {
  std::string path = pathOf(key);
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return Outcome::Miss;
  llvm::Expected<ProgramObjects> parsed = parseEntry(key, (*file)->getBuffer());
  if (!parsed) {
    std::string message = llvm::toString(parsed.takeError());
    if (why)
      *why = message;
    // Never loaded again: the caller stores a good entry in its place.
    llvm::sys::fs::remove(path);
    return Outcome::Rejected;
  }
  objects = std::move(*parsed);
  // Recently used: trim() keeps it over older entries.
  ::utime(path.c_str(), nullptr);
  return Outcome::Hit;
}

llvm::Error ProgramCache::store(StringRef key,
                                const ProgramObjects &objects) const {
  if (std::error_code ec = llvm::sys::fs::create_directories(entryFolder))
    return refuse(entryFolder + ": " + ec.message());
  std::string entry = serializeEntry(key, objects);
  if (entry.size() > maxBytes)
    return llvm::Error::success(); // would evict everything, itself too
  llvm::SmallString<256> model(entryFolder), temporary;
  llvm::sys::path::append(model, key + "-%%%%%%%%.tmp");
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(model, fd, temporary))
    return refuse(llvm::Twine(model) + ": " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << entry;
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(temporary);
      return refuse(llvm::Twine(temporary) + ": " + message);
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, pathOf(key))) {
    llvm::sys::fs::remove(temporary);
    return refuse(pathOf(key) + ": " + ec.message());
  }
  trim();
  return llvm::Error::success();
}

void ProgramCache::trim() const {
  struct Entry {
    std::string path;
    uint64_t size;
    llvm::sys::TimePoint<> used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  auto now = std::chrono::system_clock::now();
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(entryFolder, ec), end;
       !ec && it != end; it.increment(ec)) {
    StringRef path = it->path();
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(path, status))
      continue; // removed by another process meanwhile
    if (path.ends_with(".tmp")) {
      if (now - status.getLastModificationTime() > kStaleTemporary)
        llvm::sys::fs::remove(path);
      continue;
    }
    if (!path.ends_with(kEntrySuffix))
      continue;
    entries.push_back(
        {path.str(), status.getSize(), status.getLastModificationTime()});
    total += status.getSize();
  }
  if (total <= maxBytes)
    return;
  llvm::sort(entries,
             [](const Entry &a, const Entry &b) { return a.used < b.used; });
  for (const Entry &entry : entries) {
    if (total <= maxBytes)
      break;
    llvm::sys::fs::remove(entry.path);
    total -= entry.size;
  }
}
