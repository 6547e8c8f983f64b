//===- DevicePlan.cpp - GPU work recorded here, replayed elsewhere --------===//
//
// Recorded pointers are (buffer id + 1) << 40 | offset, so that a launch
// argument, a copy or a download names its buffer and offset without a
// lookup. Replay keeps one real allocation per id.
//
//===----------------------------------------------------------------------===//

#include "lazy/Runtime/DevicePlan.h"
#include "lazy/Runtime/Tolerance.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace lazy::runtime;

namespace {

constexpr int kOffsetBits = 40;
constexpr DevicePtr kOffsetMask = (DevicePtr(1) << kOffsetBits) - 1;

size_t bufferOf(DevicePtr ptr) { return size_t(ptr >> kOffsetBits) - 1; }
size_t offsetOf(DevicePtr ptr) { return size_t(ptr & kOffsetMask); }

bool readFile(const std::string &path, std::vector<uint8_t> &data) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  data.assign(std::istreambuf_iterator<char>(in),
              std::istreambuf_iterator<char>());
  return true;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31, exp = (h >> 10) & 0x1f,
           mant = h & 0x3ff;
  float value;
  if (exp == 0)
    value = std::ldexp(float(mant), -24);
  else if (exp == 31)
    value = mant ? NAN : INFINITY;
  else
    value = std::ldexp(float(mant | 0x400), int(exp) - 25);
  return sign ? -value : value;
}

float bfloat16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

} // namespace

//===----------------------------------------------------------------------===//
// Recording
//===----------------------------------------------------------------------===//

PlanRecorder::PlanRecorder(std::string dir, std::string vendor,
                           std::string chip, bool withData)
    : dir(std::move(dir)), targetChip(std::move(chip)), withData(withData) {
  out = std::fopen((this->dir + "/plan.txt").c_str(), "w");
  if (out)
    std::fprintf(out, "lazy-plan 1 %s %s\n", vendor.c_str(),
                 targetChip.c_str());
}

PlanRecorder::~PlanRecorder() {
  if (!out)
    return;
  flushLaunch();
  std::fclose(out);
}

bool PlanRecorder::writeFile(const std::string &name, const void *data,
                             size_t bytes) {
  FILE *f = std::fopen((dir + "/" + name).c_str(), "wb");
  if (!f)
    return failWith("cannot write " + dir + "/" + name);
  bool written = bytes == 0 || std::fwrite(data, 1, bytes, f) == bytes;
  std::fclose(f);
  return written ? true : failWith("cannot write " + dir + "/" + name);
}

std::string PlanRecorder::where(DevicePtr ptr) const {
  return std::to_string(bufferOf(ptr)) + " " + std::to_string(offsetOf(ptr));
}

/// A launch argument: a buffer (its recorded pointer has an id above the
/// offset bits) or, below them, a Variable's value passed by value.
static std::string launchArgument(const std::string &where, DevicePtr arg) {
  if ((arg >> kOffsetBits) == 0)
    return "v " + std::to_string(arg);
  return where;
}

void PlanRecorder::flushLaunch() {
  if (pendingHead.empty())
    return;
  std::fprintf(out, "%s %zu%s\n", pendingHead.c_str(), pendingBytes,
               pendingArgs.c_str());
  for (; pendingSyncs > 0; --pendingSyncs)
    std::fprintf(out, "sync\n");
  pendingHead.clear();
}

bool PlanRecorder::alloc(size_t bytes, DevicePtr &ptr) {
  flushLaunch();
  if (nextBuffer + 1 >= (size_t(1) << (64 - kOffsetBits)) ||
      bytes > kOffsetMask)
    return failWith("a plan holds fewer than 2^24 buffers of under 1 TiB");
  size_t id = nextBuffer++;
  ptr = DevicePtr(id + 1) << kOffsetBits;
  std::fprintf(out, "alloc %zu %zu\n", id, bytes);
  return true;
}

bool PlanRecorder::free(DevicePtr ptr) {
  flushLaunch();
  std::fprintf(out, "free %zu\n", bufferOf(ptr));
  return true;
}

bool PlanRecorder::copyToDevice(DevicePtr dst, const void *src, size_t bytes) {
  flushLaunch();
  if (!withData) {
    std::fprintf(out, "zero %s %zu\n", where(dst).c_str(), bytes);
    return true;
  }
  std::string name = "data" + std::to_string(files++) + ".bin";
  if (!writeFile(name, src, bytes))
    return false;
  std::fprintf(out, "upload %s %zu %s\n", where(dst).c_str(), bytes,
               name.c_str());
  return true;
}

bool PlanRecorder::copyToHost(void *dst, DevicePtr src, size_t bytes) {
  flushLaunch();
  std::memset(dst, 0, bytes);
  std::fprintf(out, "download %zu %s %zu\n", downloads++, where(src).c_str(),
               bytes);
  return true;
}

bool PlanRecorder::copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) {
  flushLaunch();
  std::fprintf(out, "copy %s %s %zu\n", where(dst).c_str(), where(src).c_str(),
               bytes);
  return true;
}

bool PlanRecorder::fillZero(DevicePtr dst, size_t bytes) {
  flushLaunch();
  std::fprintf(out, "zero %s %zu\n", where(dst).c_str(), bytes);
  return true;
}

bool PlanRecorder::loadModule(const void *image, size_t bytes) {
  flushLaunch();
  std::string name = "module" + std::to_string(files++) + ".bin";
  if (!writeFile(name, image, bytes))
    return false;
  std::fprintf(out, "module %s\n", name.c_str());
  return true;
}

bool PlanRecorder::launch(const std::string &kernel, const unsigned grid[3],
                          const unsigned block[3], const DevicePtr *args,
                          size_t numArgs) {
  flushLaunch();
  std::ostringstream head, tail;
  head << "launch " << kernel << " " << grid[0] << " " << grid[1] << " "
       << grid[2] << " " << block[0] << " " << block[1] << " " << block[2];
  tail << " " << numArgs;
  for (size_t i = 0; i < numArgs; ++i)
    tail << " " << launchArgument(where(args[i]), args[i]);
  pendingHead = head.str();
  pendingArgs = tail.str();
  pendingBytes = 0;
  return true;
}

void PlanRecorder::setLastLaunchBytes(size_t bytes) { pendingBytes = bytes; }

bool PlanRecorder::synchronize() {
  // After a launch, held back with it: its byte count may still come.
  if (!pendingHead.empty())
    ++pendingSyncs;
  else
    std::fprintf(out, "sync\n");
  return true;
}

bool PlanRecorder::expect(size_t index, const std::string &dtype,
                          const void *data, size_t bytes) {
  flushLaunch();
  std::string name = "expect" + std::to_string(index) + ".bin";
  if (!writeFile(name, data, bytes))
    return false;
  // One word per field: "unsigned char" is written unsigned_char.
  std::string word = dtype;
  for (char &c : word)
    if (c == ' ')
      c = '_';
  std::fprintf(out, "expect %zu %s %s\n", index, word.c_str(), name.c_str());
  return true;
}

//===----------------------------------------------------------------------===//
// Comparing
//===----------------------------------------------------------------------===//

namespace {

/// Element `i` of `data`, a buffer of float dtype `dtype` (tinygrad's name)
/// with items of `size` bytes.
double floatAt(const std::string &dtype, size_t size,
               const std::vector<uint8_t> &data, size_t i) {
  const uint8_t *p = &data[i * size];
  if (size == 8) {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  if (size == 4) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return dtype == "half" ? halfToFloat(h) : bfloat16ToFloat(h);
}

/// How many of the reference's rounding-noise spreads an element off it
/// may be (compareWithEvidence): the range of four samples of a noise is
/// about two of its standard deviations, and two results' difference has
/// sqrt(2) of them, so that 2 spreads take about 3 standard deviations.
constexpr double kNoiseSpreads = 2.0;

/// compareBuffers, and with `exact` or `noise` compareWithEvidence:
/// `rescued` counts the elements off `want` that lie between it and
/// `exact`, or within its noise.
bool judge(const std::string &dtype, const std::vector<uint8_t> &got,
           const std::vector<uint8_t> &want, double &worst,
           const std::string &roundedAs, const std::vector<double> *exact,
           const std::vector<double> *noise, Rescued &rescued) {
  worst = 0;
  rescued = Rescued();
  if (got.size() != want.size()) {
    worst = INFINITY;
    return false;
  }
  const FloatTolerance *tolerance = floatTolerance(dtype.c_str());
  // Overflow is judged by the result's own type: that a narrower type
  // computed in its cone overflowed is not known from the exact value.
  double overflow = tolerance ? tolerance->overflow : INFINITY;
  if (!tolerance) {
    bool same = got == want;
    worst = same ? 0 : INFINITY;
    return same;
  }
  if (const FloatTolerance *rounded = floatTolerance(roundedAs.c_str()))
    tolerance = rounded;
  double rtol = tolerance->rtol, atol = tolerance->atol;
  size_t size = dtype == "double" ? 8 : dtype == "float" ? 4 : 2;
  size_t n = want.size() / size;
  if (exact && exact->size() != n)
    exact = nullptr;
  if (noise && noise->size() != n)
    noise = nullptr;
  double maxAbs = 0;
  for (size_t i = 0; i < n; ++i)
    if (std::isfinite(floatAt(dtype, size, want, i)))
      maxAbs = std::max(maxAbs, std::fabs(floatAt(dtype, size, want, i)));
  double slack = atol * std::max(1.0, maxAbs);
  bool ok = true;
  for (size_t i = 0; i < n; ++i) {
    double w = floatAt(dtype, size, want, i), g = floatAt(dtype, size, got, i);
    if (std::isnan(w) || std::isnan(g)) {
      // NaN against a number (an unwritten, poisoned output): no distance.
      if (std::isnan(w) != std::isnan(g)) {
        ok = false;
        worst = NAN;
      }
      continue;
    }
    if (std::isinf(w) || std::isinf(g)) {
      if (w == g)
        continue;
      // An infinity against anything else is as far as it gets, unless
      // the exact value says which is right: it overflows the result's
      // type to this infinity (the interpreter's in-order sum stalled
      // below it), or the interpreter overflowed where the exact value,
      // and this result near it, did not.
      if (exact && !std::isnan((*exact)[i])) {
        double e = (*exact)[i];
        bool overflows = std::fabs(e) >= overflow;
        if (std::isinf(g) ? overflows && std::signbit(e) == std::signbit(g)
                          : !overflows && std::fabs(g - e) <=
                                              slack + rtol * std::fabs(e)) {
          ++rescued.betweenExact;
          worst = INFINITY;
          continue;
        }
      }
      ok = false;
      worst = INFINITY;
      continue;
    }
    double d = std::fabs(w - g);
    worst = std::max(worst, d);
    if (d <= slack + rtol * std::fabs(w))
      continue;
    // Off the reference, but between it and the exact value (within the
    // tolerance): another order of the same sums, rounded less. Not past
    // the exact value: a wrong result on its other side is no closer to
    // being right for being as far from it.
    if (exact && std::isfinite((*exact)[i])) {
      double e = (*exact)[i];
      double margin = slack + rtol * std::fabs(e);
      if (g >= std::min(w, e) - margin && g <= std::max(w, e) + margin) {
        ++rescued.betweenExact;
        continue;
      }
    }
    // Within the reference's own rounding noise: a result that rounding
    // alone moves this far (a cancellation) is no more wrong here.
    if (noise && std::isfinite((*noise)[i]) &&
        d <= slack + rtol * std::fabs(w) + kNoiseSpreads * (*noise)[i]) {
      ++rescued.withinNoise;
      continue;
    }
    ok = false;
  }
  return ok;
}

} // namespace

bool lazy::runtime::compareBuffers(const std::string &dtype,
                                   const std::vector<uint8_t> &got,
                                   const std::vector<uint8_t> &want,
                                   double &worst,
                                   const std::string &roundedAs) {
  Rescued rescued;
  return judge(dtype, got, want, worst, roundedAs, nullptr, nullptr, rescued);
}

bool lazy::runtime::compareWithEvidence(
    const std::string &dtype, const std::vector<uint8_t> &got,
    const std::vector<uint8_t> &want, const FloatEvidence &evidence,
    double &worst, const std::string &roundedAs, Rescued &rescued) {
  return judge(dtype, got, want, worst, roundedAs,
               evidence.exact.empty() ? nullptr : &evidence.exact,
               evidence.noise.empty() ? nullptr : &evidence.noise, rescued);
}

//===----------------------------------------------------------------------===//
// Replaying
//===----------------------------------------------------------------------===//

std::string lazy::runtime::planVendor(const std::string &dir) {
  std::ifstream in(dir + "/plan.txt");
  std::string magic, version, vendor;
  in >> magic >> version >> vendor;
  return magic == "lazy-plan" && version == "1" ? vendor : "";
}

namespace {

struct Step {
  std::vector<std::string> words;
  size_t line;
};

/// One run of the plan. With `check`, downloads are compared with their
/// expectations; with `times`, each launch is synchronized and timed.
bool runOnce(
    const std::string &dir, const std::vector<Step> &steps, GpuDevice &device,
    bool check,
    std::vector<std::pair<std::string, std::pair<double, size_t>>> *times,
    FILE *log) {
  std::map<size_t, DevicePtr> buffers;
  std::map<size_t, size_t> sizes;
  std::map<size_t, std::vector<uint8_t>> downloaded;
  bool ok = true;
  auto release = [&] {
    for (auto &[id, ptr] : buffers)
      device.free(ptr);
  };
  auto fail = [&](const Step &s, const std::string &why) {
    std::fprintf(log, "%s/plan.txt:%zu: %s\n", dir.c_str(), s.line,
                 why.c_str());
    release();
    return false;
  };
  auto number = [](const std::string &w) {
    return size_t(std::strtoull(w.c_str(), nullptr, 10));
  };
  // A buffer and an offset, checked to leave `bytes` in bounds.
  auto at = [&](const Step &s, size_t word, size_t bytes, DevicePtr &ptr) {
    size_t id = number(s.words[word]), offset = number(s.words[word + 1]);
    auto it = buffers.find(id);
    if (it == buffers.end())
      return false;
    size_t size = sizes.at(id);
    if (offset > size || bytes > size - offset)
      return false;
    ptr = it->second + offset;
    return true;
  };
  // A file of the plan: a plain name inside its directory.
  auto planFile = [&](const std::string &name) {
    return name.find('/') == std::string::npos && name != "." && name != "..";
  };
  for (const Step &s : steps) {
    const std::string &op = s.words[0];
    const auto &w = s.words;
    if (op == "alloc" && w.size() == 3) {
      DevicePtr ptr;
      if (buffers.count(number(w[1])))
        return fail(s, "allocates buffer " + w[1] + " twice");
      if (!device.alloc(number(w[2]), ptr))
        return fail(s, device.error());
      buffers[number(w[1])] = ptr;
      sizes[number(w[1])] = number(w[2]);
    } else if (op == "free" && w.size() == 2) {
      auto it = buffers.find(number(w[1]));
      if (it == buffers.end())
        return fail(s, "frees an unknown buffer");
      device.free(it->second);
      buffers.erase(it);
    } else if (op == "upload" && w.size() == 5) {
      std::vector<uint8_t> data;
      DevicePtr ptr;
      if (!at(s, 1, number(w[3]), ptr))
        return fail(s, "uploads outside its buffer");
      if (!planFile(w[4]) || !readFile(dir + "/" + w[4], data) ||
          data.size() != number(w[3]))
        return fail(s, "cannot read " + w[4] + " (or its size differs)");
      if (!device.copyToDevice(ptr, data.data(), data.size()))
        return fail(s, device.error());
    } else if (op == "zero" && w.size() == 4) {
      DevicePtr ptr;
      if (!at(s, 1, number(w[3]), ptr))
        return fail(s, "fills outside its buffer");
      if (!device.fillZero(ptr, number(w[3])))
        return fail(s, device.error());
    } else if (op == "copy" && w.size() == 6) {
      DevicePtr dst, src;
      if (!at(s, 1, number(w[5]), dst) || !at(s, 3, number(w[5]), src))
        return fail(s, "copies outside its buffers");
      if (!device.copyOnDevice(dst, src, number(w[5])))
        return fail(s, device.error());
    } else if (op == "module" && w.size() == 2) {
      std::vector<uint8_t> image;
      if (!planFile(w[1]) || !readFile(dir + "/" + w[1], image))
        return fail(s, "cannot read " + w[1]);
      if (!device.loadModule(image.data(), image.size()))
        return fail(s, device.error());
    } else if (op == "launch" && w.size() >= 10) {
      unsigned grid[3], block[3];
      for (int i = 0; i < 3; ++i) {
        grid[i] = unsigned(number(w[2 + i]));
        block[i] = unsigned(number(w[5 + i]));
      }
      size_t bytes = number(w[8]), n = number(w[9]);
      if ((w.size() - 10) % 2 != 0 || n != (w.size() - 10) / 2)
        return fail(s, "malformed launch");
      std::vector<DevicePtr> args(n);
      for (size_t i = 0; i < n; ++i) {
        if (w[10 + 2 * i] == "v") {
          args[i] = DevicePtr(number(w[11 + 2 * i]));
          continue;
        }
        if (!at(s, 10 + 2 * i, 0, args[i]))
          return fail(s, "passes an unknown buffer");
      }
      double seconds = 0;
      if (times
              ? !device.timedLaunch(w[1], grid, block, args.data(), n, seconds)
              : !device.launch(w[1], grid, block, args.data(), n))
        return fail(s, device.error());
      if (times)
        times->push_back({w[1], {seconds, bytes}});
    } else if (op == "sync" && w.size() == 1) {
      if (!device.synchronize())
        return fail(s, device.error());
    } else if (op == "download" && w.size() == 5) {
      DevicePtr ptr;
      if (!at(s, 2, number(w[4]), ptr))
        return fail(s, "downloads outside its buffer");
      std::vector<uint8_t> data(number(w[4]));
      if (!device.copyToHost(data.data(), ptr, data.size()))
        return fail(s, device.error());
      downloaded[number(w[1])] = std::move(data);
    } else if (op == "expect" && w.size() == 4) {
      if (!check)
        continue;
      std::vector<uint8_t> want;
      if (!planFile(w[3]) || !readFile(dir + "/" + w[3], want))
        return fail(s, "cannot read " + w[3]);
      auto got = downloaded.find(number(w[1]));
      if (got == downloaded.end())
        return fail(s, "expects a result that was not downloaded");
      double worst;
      bool match = compareBuffers(w[2], got->second, want, worst);
      std::fprintf(log, "out%s: %s, max abs error %e (%s)\n", w[1].c_str(),
                   match ? "match" : "MISMATCH", worst, w[2].c_str());
      ok &= match;
    } else {
      return fail(s, "unknown or malformed step '" + op + "'");
    }
  }
  release();
  return ok;
}

} // namespace

bool lazy::runtime::replayPlan(const std::string &dir, GpuDevice &device,
                               const ReplayOptions &options, FILE *log) {
  std::ifstream in(dir + "/plan.txt");
  if (!in) {
    std::fprintf(log, "%s: no plan.txt\n", dir.c_str());
    return false;
  }
  std::vector<Step> steps;
  std::string text;
  size_t line = 0;
  std::getline(in, text); // header, read by planVendor
  ++line;
  while (std::getline(in, text)) {
    ++line;
    std::istringstream words(text);
    Step step{{}, line};
    for (std::string w; words >> w;)
      step.words.push_back(w);
    if (!step.words.empty())
      steps.push_back(std::move(step));
  }
  bool ok = runOnce(dir, steps, device, options.check, nullptr, log);
  std::vector<std::pair<std::string, std::pair<double, size_t>>> times;
  for (unsigned r = 0; ok && r < options.repeat; ++r) {
    times.clear();
    ok = runOnce(dir, steps, device, /*check=*/false, &times, log);
  }
  for (auto &[kernel, measured] : times) {
    auto [seconds, bytes] = measured;
    double gbs = double(bytes) / seconds / 1e9;
    std::fprintf(log, "kernel %s: %.1f us, %zu bytes, %.1f GB/s",
                 kernel.c_str(), seconds * 1e6, bytes, gbs);
    if (options.peakGBs > 0)
      std::fprintf(log, " (%.0f%% of peak)", 100 * gbs / options.peakGBs);
    std::fprintf(log, "\n");
  }
  std::fprintf(log, "%s: %s\n", dir.c_str(),
               !ok             ? "FAILED"
               : options.check ? "all outputs match"
                               : "replayed (outputs not checked)");
  return ok;
}
