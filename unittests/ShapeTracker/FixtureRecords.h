//===- FixtureRecords.h - Reading the tinygrad fixture files ----*- C++ -*-===//
//
// Part of lazy-mlir.
//
//===----------------------------------------------------------------------===//
//
// The fixtures generated from tinygrad (utils/gen_*_cases.py) are line
// records: a tag, then its fields, whitespace separated; blank lines and
// `#` comments are skipped. Each fixture test reads them through here.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_UNITTESTS_SHAPETRACKER_FIXTURERECORDS_H
#define LAZY_UNITTESTS_SHAPETRACKER_FIXTURERECORDS_H

#include <fstream>
#include <sstream>
#include <string>

namespace lazy::st::testing {

/// One record: its tag, the stream of its fields (after the tag), the
/// whole line and its number in the file.
struct Record {
  std::string tag;
  std::istringstream fields;
  const std::string &line;
  int lineNo;
};

/// Calls `onRecord(Record &)` for every record of the file at `path`, in
/// order; false when the file cannot be opened.
template <typename Fn>
bool forEachRecord(const std::string &path, Fn onRecord) {
  std::ifstream in(path);
  if (!in)
    return false;
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (line.empty() || line[0] == '#')
      continue;
    Record r{std::string(), std::istringstream(line), line, lineNo};
    r.fields >> r.tag;
    onRecord(r);
  }
  return true;
}

} // namespace lazy::st::testing

#endif // LAZY_UNITTESTS_SHAPETRACKER_FIXTURERECORDS_H
