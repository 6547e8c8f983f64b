//===- ProgramCacheTest.cpp - the compiled-program cache's entries --------===//
//
// What ProgramCache promises, on entries this test writes: a stored entry
// reads back whole; a damaged one (truncated, a flipped byte, another
// key, another format) is rejected, removed and never loaded; the cap
// evicts the least recently used; writers of the same key in parallel
// leave one whole entry; the environment names the directory as
// documented.
//
//===----------------------------------------------------------------------===//

#include "lazy/Runtime/ProgramCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <utime.h>
#include <vector>

using namespace mlir::lazy;
using Outcome = ProgramCache::Outcome;

namespace {

const std::string kKey(64, 'a');

ProgramObjects sampleObjects(size_t objectBytes = 100) {
  ProgramObjects objects;
  objects.objects.push_back(
      {"part0.o", std::string(objectBytes, '\x7f'), {"graph_k0", "graph_k1"}});
  objects.objects.push_back({"host.o", "host code", {"_mlir_ciface_graph"}});
  objects.staticBuffers.push_back({"buf0", 1 << 20});
  return objects;
}

class ProgramCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("lazy-cache-test", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string read(const std::string &path) {
    auto file = llvm::MemoryBuffer::getFile(path);
    return file ? (*file)->getBuffer().str() : std::string();
  }
  void write(const std::string &path, const std::string &bytes) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << bytes;
  }
  /// The files in `folder` (entries and temporaries).
  static int filesIn(const std::string &folder) {
    std::error_code ec;
    int files = 0;
    for (llvm::sys::fs::directory_iterator it(folder, ec), end;
         !ec && it != end; it.increment(ec))
      ++files;
    return files;
  }
  /// Stores an entry, damages its bytes with `damage`, and expects the
  /// next load to reject it and remove the file.
  void expectRejected(const std::function<void(std::string &)> &damage,
                      llvm::StringRef reason) {
    ProgramCache cache(dir.str().str());
    ASSERT_FALSE(bool(cache.store(kKey, sampleObjects())));
    std::string bytes = read(cache.pathOf(kKey));
    damage(bytes);
    write(cache.pathOf(kKey), bytes);
    ProgramObjects loaded;
    std::string why;
    EXPECT_EQ(cache.load(kKey, loaded, &why), Outcome::Rejected);
    EXPECT_NE(why.find(reason.str()), std::string::npos) << why;
    EXPECT_TRUE(loaded.objects.empty());
    EXPECT_FALSE(llvm::sys::fs::exists(cache.pathOf(kKey)));
    EXPECT_EQ(cache.load(kKey, loaded), Outcome::Miss);
  }

  llvm::SmallString<128> dir;
};

TEST_F(ProgramCacheTest, StoredEntryReadsBackWhole) {
  ProgramCache cache(dir.str().str());
  ProgramObjects loaded;
  EXPECT_EQ(cache.load(kKey, loaded), Outcome::Miss);
  ASSERT_FALSE(bool(cache.store(kKey, sampleObjects())));
  ASSERT_EQ(cache.load(kKey, loaded), Outcome::Hit);
  ProgramObjects expected = sampleObjects();
  ASSERT_EQ(loaded.objects.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(loaded.objects[i].name, expected.objects[i].name);
    EXPECT_EQ(loaded.objects[i].bytes, expected.objects[i].bytes);
    EXPECT_EQ(loaded.objects[i].functions, expected.objects[i].functions);
  }
  EXPECT_EQ(loaded.staticBuffers, expected.staticBuffers);
  // The entry lives under cpu/, named by its key, and no temporary file
  // is left.
  EXPECT_EQ(llvm::sys::path::parent_path(cache.pathOf(kKey)),
            llvm::StringRef(cache.folder()));
  EXPECT_EQ(filesIn(cache.folder()), 1);
}

TEST_F(ProgramCacheTest, TruncatedEntryIsRejected) {
  expectRejected([](std::string &b) { b.resize(b.size() - 5); }, "truncated");
}

TEST_F(ProgramCacheTest, EntryShorterThanItsHeaderIsRejected) {
  expectRejected([](std::string &b) { b.resize(10); }, "shorter");
}

TEST_F(ProgramCacheTest, FlippedByteIsRejected) {
  expectRejected([](std::string &b) { b[b.size() / 2] ^= 0x10; }, "checksum");
}

TEST_F(ProgramCacheTest, ForeignFileIsRejected) {
  expectRejected([](std::string &b) { b[0] = 'X'; }, "magic");
}

TEST_F(ProgramCacheTest, OtherFormatVersionIsRejected) {
  expectRejected([](std::string &b) { b[8] += 1; }, "format version");
}

TEST_F(ProgramCacheTest, EntryOfAnotherKeyIsRejected) {
  // A whole, checksummed entry under the wrong name.
  expectRejected(
      [](std::string &b) {
        b = serializeEntry(std::string(64, 'b'), sampleObjects());
      },
      "another key");
}

TEST_F(ProgramCacheTest, MalformedPayloadIsRejected) {
  // A checksummed payload whose counts run past its end.
  std::string bytes = serializeEntry(kKey, sampleObjects());
  EXPECT_TRUE(bool(parseEntry(kKey, bytes)));
  ProgramObjects none;
  std::string empty = serializeEntry(kKey, none);
  auto parsed = parseEntry(kKey, empty);
  ASSERT_FALSE(bool(parsed));
  EXPECT_NE(llvm::toString(parsed.takeError()).find("no object files"),
            std::string::npos);
}

TEST_F(ProgramCacheTest, CapEvictsLeastRecentlyUsed) {
  // Three entries of ~1 KB under a 2.5 KB cap: the oldest goes, and a
  // load makes an entry the newest.
  ProgramCache cache(dir.str().str(), 2500);
  std::string a(64, '1'), b(64, '2'), c(64, '3');
  ASSERT_FALSE(bool(cache.store(a, sampleObjects(1000))));
  ASSERT_FALSE(bool(cache.store(b, sampleObjects(1000))));
  // Back-date both, then use `a`: `b` is now the least recently used.
  for (const std::string &key : {a, b}) {
    struct utimbuf old = {1000000000, 1000000000};
    ASSERT_EQ(::utime(cache.pathOf(key).c_str(), &old), 0);
  }
  ProgramObjects loaded;
  ASSERT_EQ(cache.load(a, loaded), Outcome::Hit);
  ASSERT_FALSE(bool(cache.store(c, sampleObjects(1000))));
  EXPECT_TRUE(llvm::sys::fs::exists(cache.pathOf(a)));
  EXPECT_FALSE(llvm::sys::fs::exists(cache.pathOf(b)));
  EXPECT_TRUE(llvm::sys::fs::exists(cache.pathOf(c)));
}

TEST_F(ProgramCacheTest, EntryLargerThanTheCapIsNotStored) {
  ProgramCache cache(dir.str().str(), 500);
  ASSERT_FALSE(bool(cache.store(kKey, sampleObjects(1000))));
  EXPECT_FALSE(llvm::sys::fs::exists(cache.pathOf(kKey)));
}

TEST_F(ProgramCacheTest, ParallelWritersLeaveOneWholeEntry) {
  ProgramCache cache(dir.str().str());
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t)
    writers.emplace_back([&cache] {
      for (int i = 0; i < 20; ++i)
        llvm::consumeError(cache.store(kKey, sampleObjects(4096)));
    });
  // Readers meanwhile see a whole entry or none, never a part.
  for (int i = 0; i < 200; ++i) {
    ProgramObjects loaded;
    std::string why;
    EXPECT_NE(cache.load(kKey, loaded, &why), Outcome::Rejected) << why;
  }
  for (std::thread &w : writers)
    w.join();
  ProgramObjects loaded;
  EXPECT_EQ(cache.load(kKey, loaded), Outcome::Hit);
  EXPECT_EQ(filesIn(cache.folder()), 1);
}

TEST_F(ProgramCacheTest, StaleTemporaryFilesAreRemoved) {
  ProgramCache cache(dir.str().str());
  ASSERT_FALSE(bool(cache.store(kKey, sampleObjects())));
  std::string stale = cache.folder() + "/dead-writer.tmp";
  std::string fresh = cache.folder() + "/live-writer.tmp";
  write(stale, "partial");
  write(fresh, "partial");
  struct utimbuf old = {1000000000, 1000000000};
  ASSERT_EQ(::utime(stale.c_str(), &old), 0);
  cache.trim();
  EXPECT_FALSE(llvm::sys::fs::exists(stale));
  EXPECT_TRUE(llvm::sys::fs::exists(fresh));
}

/// Sets or unsets environment variables for one test.
class Environment {
public:
  void set(const char *name, const char *value) {
    if (const char *old = std::getenv(name))
      saved.push_back({name, old, true});
    else
      saved.push_back({name, "", false});
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~Environment() {
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
      if (it->had)
        ::setenv(it->name.c_str(), it->value.c_str(), 1);
      else
        ::unsetenv(it->name.c_str());
    }
  }

private:
  struct Saved {
    std::string name, value;
    bool had;
  };
  std::vector<Saved> saved;
};

TEST(ProgramCacheEnvironment, DirectoryAsDocumented) {
  Environment env;
  env.set("LAZY_MLIR_CACHE", nullptr);
  env.set("LAZY_MLIR_CACHE_DIR", nullptr);
  env.set("XDG_CACHE_HOME", nullptr);
  env.set("HOME", "/home/someone");
  auto cache = ProgramCache::fromEnvironment();
  ASSERT_TRUE(cache.has_value());
  EXPECT_EQ(cache->folder(), "/home/someone/.cache/lazy-mlir/cpu");

  env.set("XDG_CACHE_HOME", "/xdg");
  EXPECT_EQ(ProgramCache::fromEnvironment()->folder(), "/xdg/lazy-mlir/cpu");

  env.set("LAZY_MLIR_CACHE_DIR", "/chosen");
  EXPECT_EQ(ProgramCache::fromEnvironment()->folder(), "/chosen/cpu");

  env.set("LAZY_MLIR_CACHE", "0");
  EXPECT_FALSE(ProgramCache::fromEnvironment().has_value());
  env.set("LAZY_MLIR_CACHE", "off");
  EXPECT_FALSE(ProgramCache::fromEnvironment().has_value());
  env.set("LAZY_MLIR_CACHE", "1");
  EXPECT_TRUE(ProgramCache::fromEnvironment().has_value());

  // No directory to name: no cache.
  env.set("LAZY_MLIR_CACHE_DIR", nullptr);
  env.set("XDG_CACHE_HOME", nullptr);
  env.set("HOME", nullptr);
  EXPECT_FALSE(ProgramCache::fromEnvironment().has_value());
}

} // namespace
