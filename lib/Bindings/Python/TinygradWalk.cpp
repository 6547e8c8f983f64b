//===- TinygradWalk.cpp - tinygrad graphs to the compact form, in C++ -----===//
//
// The Python module `_lazy_walk`: the walk of the bridge's exporter
// (python/lazy_mlir/tinygrad/_export.py, _CompactExporter) over tinygrad
// 0.9.2's LazyBuffer graph, done through CPython's API. In Python the walk
// costs 7-10 µs a node, more than the rest of the schedule round trip; here
// it is well under one.
//
// `walk(exporter, outs)` does what `_CompactExporter.walk` and its emit
// methods do, node for node and word for word (a test compares the two on
// every corpus graph): the iterative post-order (sources in order, each
// node once), the references each node gets from outside the graph (its
// reference count less those from inside: `lazy.external`), and each op's
// record. The mapping stays in _export.py: whatever is rare or seen for
// the first time goes back to the exporter (a type, an argument, the
// attributes of CONST, CUSTOM and ASSIGN, a metadata string, a tracker
// with a symbolic entry, every error). Returns the results' value
// references; the op records go to `exporter.op_words` as bytes of int64.
//
// No recursion on graph depth. Nodes are held through `order` (a list with
// a reference to each) while the walk looks at them; nothing here runs
// Python code that could drop a node.
//
//===----------------------------------------------------------------------===//

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace {

/// A strong reference, released at scope exit.
class Ref {
public:
  Ref() = default;
  explicit Ref(PyObject *object) : object(object) {}
  Ref(const Ref &) = delete;
  Ref &operator=(const Ref &) = delete;
  Ref(Ref &&other) noexcept : object(other.object) { other.object = nullptr; }
  Ref &operator=(Ref &&other) noexcept {
    if (this != &other) {
      Py_XDECREF(object);
      object = other.object;
      other.object = nullptr;
    }
    return *this;
  }
  ~Ref() { Py_XDECREF(object); }
  PyObject *get() const { return object; }
  explicit operator bool() const { return object != nullptr; }

private:
  PyObject *object = nullptr;
};

/// Interned attribute names.
struct Names {
  PyObject *base, *srcs, *op, *st, *views, *shape, *strides, *offset, *mask,
      *dtype, *device, *metadata, *name, *backward, *forcedRealize, *arg,
      *opRefs, *recordKinds, *unitRefs, *seen, *ops, *trackerWords, *trackers,
      *opWords, *count, *typeRef, *tracker, *emitArgument, *recordAttrs,
      *locationRef, *checkBase, *emitView;
  bool init() {
    struct {
      PyObject **slot;
      const char *text;
    } all[] = {{&base, "_base"},
               {&srcs, "srcs"},
               {&op, "op"},
               {&st, "st"},
               {&views, "views"},
               {&shape, "shape"},
               {&strides, "strides"},
               {&offset, "offset"},
               {&mask, "mask"},
               {&dtype, "dtype"},
               {&device, "device"},
               {&metadata, "metadata"},
               {&name, "name"},
               {&backward, "backward"},
               {&forcedRealize, "forced_realize"},
               {&arg, "arg"},
               {&opRefs, "op_refs"},
               {&recordKinds, "record_kinds"},
               {&unitRefs, "unit_refs"},
               {&seen, "seen"},
               {&ops, "ops"},
               {&trackerWords, "tracker_words"},
               {&trackers, "trackers"},
               {&opWords, "op_words"},
               {&count, "count"},
               {&typeRef, "type_ref"},
               {&tracker, "tracker"},
               {&emitArgument, "emit_argument"},
               {&recordAttrs, "record_attrs"},
               {&locationRef, "location_ref"},
               {&checkBase, "check_base"},
               {&emitView, "emit_view"}};
    for (auto &entry : all)
      if (!(*entry.slot = PyUnicode_InternFromString(entry.text)))
        return false;
    return true;
  }
} names;

/// An attribute that may be missing (a realized LazyBuffer has no `srcs`):
/// a new reference, or null with no error set when it is absent.
PyObject *optionalAttr(PyObject *object, PyObject *name) {
  PyObject *value = PyObject_GetAttr(object, name);
  if (!value && PyErr_ExceptionMatches(PyExc_AttributeError))
    PyErr_Clear();
  return value;
}

bool toInt64(PyObject *value, int64_t &out) {
  if (!PyLong_CheckExact(value))
    return false;
  int overflow = 0;
  out = PyLong_AsLongLongAndOverflow(value, &overflow);
  return !overflow && !(out == -1 && PyErr_Occurred());
}

/// Appends the items of a tuple of Python ints; false (no error set) when
/// one is not a plain int that fits.
bool appendInts(PyObject *tuple, std::vector<int64_t> &out) {
  if (!PyTuple_Check(tuple))
    return false;
  for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(tuple); i < n; ++i) {
    int64_t value;
    if (!toInt64(PyTuple_GET_ITEM(tuple, i), value))
      return false;
    out.push_back(value);
  }
  return true;
}

/// Calls exporter.<method>(args...) and reads an int result; false with
/// the error set on failure.
template <typename... Args>
bool callInt(PyObject *exporter, PyObject *method, int64_t &out, Args... args) {
  Ref result(PyObject_CallMethodObjArgs(exporter, method, args..., nullptr));
  if (!result)
    return false;
  out = PyLong_AsLongLong(result.get());
  return !(out == -1 && PyErr_Occurred());
}

/// A node's dependencies (its base, or its sources), held while in use.
struct Dependencies {
  Ref holder;
  PyObject *single = nullptr;
  PyObject **items = nullptr;
  Py_ssize_t size = 0;
};

struct PairHash {
  size_t operator()(const std::pair<PyObject *, bool> &key) const {
    return std::hash<PyObject *>()(key.first) * 2 + key.second;
  }
};

/// Record kinds (the exporter's `record_kinds`): what an op's record needs.
enum RecordKind : int64_t {
  Plain = 0,
  Reduce = 1, // axes, read here
  Const = 2,  // the exporter's record_attrs; no buffer of its own
  Custom = 3, // the exporter's record_attrs; may cross devices
  Assign = 4, // the exporter's record_attrs
  Copy = 5,   // crosses devices
};

class Walker {
public:
  Walker(PyObject *exporter) : exporter(exporter) {}

  /// The walk; the results' value references, or null with the error set.
  PyObject *run(PyObject *outs);

private:
  bool postOrder();
  bool dependencies(PyObject *node, Dependencies &deps);
  bool computeHeld();
  bool emit(PyObject *node);
  bool emitView(PyObject *node);
  bool emitBase(PyObject *node);
  bool typeRef(PyObject *node, int64_t &ref);
  bool trackerRef(PyObject *node, PyObject *st, int64_t &ref);
  bool locationRef(PyObject *node, int64_t &ref);
  bool valueRef(PyObject *node, int64_t &ref) {
    auto it = refs.find(node);
    if (it == refs.end()) {
      PyErr_SetString(PyExc_RuntimeError,
                      "lazy-mlir's walk met a node before its source");
      return false;
    }
    ref = it->second;
    return true;
  }

  PyObject *exporter;
  Ref outsSequence;
  std::vector<PyObject *> outputs; // held by outsSequence
  Ref order;                       // every node, sources first (a list)
  std::unordered_map<PyObject *, int64_t> refs;
  std::unordered_set<PyObject *> held, seen;
  std::unordered_map<std::string, int64_t> types;
  std::unordered_map<PyObject *, int64_t> trackers, opRefs, recordKinds;
  std::unordered_map<PyObject *, int64_t> metadataRefs;
  std::unordered_map<std::pair<PyObject *, bool>, int64_t, PairHash>
      metadataNames;
  std::vector<Ref> keepAlive;
  std::vector<int64_t> words;
  std::vector<int64_t> scratch;
  int64_t unitForced = 0, unitSeen = 0, unitExternal = 0;
  int64_t trackerAttr = 0, axesAttr = 0, viewOpRef = 0;
  int64_t count = 0;
  PyObject *ops = nullptr; // exporter.ops, or None
  PyObject *trackerWords = nullptr, *trackerTable = nullptr;
};

bool Walker::dependencies(PyObject *node, Dependencies &deps) {
  Ref base(PyObject_GetAttr(node, names.base));
  if (!base)
    return false;
  if (base.get() != Py_None) {
    deps.holder = std::move(base);
    deps.single = deps.holder.get();
    deps.items = &deps.single;
    deps.size = 1;
    return true;
  }
  deps.holder = Ref(optionalAttr(node, names.srcs));
  if (!deps.holder) {
    deps.size = 0;
    return !PyErr_Occurred();
  }
  if (!PyTuple_Check(deps.holder.get())) {
    PyErr_SetString(PyExc_TypeError, "a LazyBuffer's srcs is not a tuple");
    return false;
  }
  deps.items = &PyTuple_GET_ITEM(deps.holder.get(), 0);
  deps.size = PyTuple_GET_SIZE(deps.holder.get());
  return true;
}

bool Walker::postOrder() {
  order = Ref(PyList_New(0));
  if (!order)
    return false;
  std::unordered_set<PyObject *> visited;
  std::vector<std::pair<PyObject *, bool>> stack;
  for (PyObject *out : outputs) {
    if (visited.count(out))
      continue;
    stack.emplace_back(out, false);
    while (!stack.empty()) {
      auto [node, ready] = stack.back();
      stack.pop_back();
      if (visited.count(node))
        continue;
      if (ready) {
        visited.insert(node);
        if (PyList_Append(order.get(), node) < 0)
          return false;
        continue;
      }
      stack.emplace_back(node, true);
      Dependencies deps;
      if (!dependencies(node, deps))
        return false;
      // Every node on the stack stays alive: it is reachable from `outs`.
      for (Py_ssize_t k = deps.size - 1; k >= 0; --k)
        if (!visited.count(deps.items[k]))
          stack.emplace_back(deps.items[k], false);
    }
  }
  return true;
}

/// `lazy.external`: unrealized bases that something outside the graph
/// keeps alive, as _export._held_bases counts them (a node's references
/// less one from `order` and those from inside the graph).
bool Walker::computeHeld() {
  std::unordered_map<PyObject *, Py_ssize_t> internal;
  Py_ssize_t n = PyList_GET_SIZE(order.get());
  for (Py_ssize_t i = 0; i < n; ++i) {
    Dependencies deps;
    if (!dependencies(PyList_GET_ITEM(order.get(), i), deps))
      return false;
    for (Py_ssize_t j = 0; j < deps.size; ++j)
      ++internal[deps.items[j]];
  }
  std::unordered_set<PyObject *> skip, outputBases;
  for (PyObject *out : outputs) {
    Ref base(PyObject_GetAttr(out, names.base));
    if (!base)
      return false;
    outputBases.insert(base.get() != Py_None ? base.get() : out);
  }
  std::vector<PyObject *> candidates;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *node = PyList_GET_ITEM(order.get(), i);
    Ref base(PyObject_GetAttr(node, names.base));
    if (!base)
      return false;
    bool isView = base.get() != Py_None;
    if (!isView) {
      Ref srcs(optionalAttr(node, names.srcs));
      if (!srcs && PyErr_Occurred())
        return false;
      bool constant = false;
      if (srcs) {
        Ref op(PyObject_GetAttr(node, names.op));
        if (!op)
          return false;
        auto kind = recordKinds.find(op.get());
        constant = kind != recordKinds.end() && kind->second == Const;
      }
      if (!srcs || constant)
        skip.insert(node);
    }
    // The references `base` holds are its own; Py_REFCNT counts `order`'s.
    Py_ssize_t outside = Py_REFCNT(node) - 1 - internal[node];
    if (outside > 0)
      candidates.push_back(isView ? base.get() : node);
  }
  for (PyObject *candidate : candidates)
    if (!skip.count(candidate) && !outputBases.count(candidate))
      held.insert(candidate);
  return true;
}

bool Walker::typeRef(PyObject *node, int64_t &ref) {
  Ref shape(PyObject_GetAttr(node, names.shape));
  Ref dtype(PyObject_GetAttr(node, names.dtype));
  Ref device(PyObject_GetAttr(node, names.device));
  if (!shape || !dtype || !device)
    return false;
  scratch.clear();
  scratch.push_back(reinterpret_cast<intptr_t>(dtype.get()));
  scratch.push_back(reinterpret_cast<intptr_t>(device.get()));
  if (!appendInts(shape.get(), scratch))
    return callInt(exporter, names.typeRef, ref, node); // symbolic: its error
  std::string key(reinterpret_cast<const char *>(scratch.data()),
                  scratch.size() * sizeof(int64_t));
  auto it = types.find(key);
  if (it != types.end()) {
    ref = it->second;
    return true;
  }
  if (!callInt(exporter, names.typeRef, ref, node))
    return false;
  types.emplace(std::move(key), ref);
  return true;
}

/// A tracker's index; new trackers are encoded here into the exporter's
/// table (#lazy.st's stored encoding), symbolic ones by the exporter.
bool Walker::trackerRef(PyObject *node, PyObject *st, int64_t &ref) {
  auto it = trackers.find(st);
  if (it != trackers.end()) {
    ref = it->second;
    return true;
  }
  Ref key(PyLong_FromVoidPtr(st));
  if (!key)
    return false;
  // One the exporter made (an ASSIGN's view).
  if (PyObject *entry = PyDict_GetItemWithError(trackerTable, key.get())) {
    if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2 ||
        !toInt64(PyTuple_GET_ITEM(entry, 1), ref)) {
      PyErr_SetString(PyExc_TypeError, "the exporter's tracker table is not "
                                       "as lazy-mlir's walk expects");
      return false;
    }
    trackers.emplace(st, ref);
    return true;
  }
  if (PyErr_Occurred())
    return false;
  Ref views(PyObject_GetAttr(st, names.views));
  if (!views)
    return false;
  bool plain = PyTuple_Check(views.get());
  scratch.clear();
  if (plain)
    scratch.push_back(PyTuple_GET_SIZE(views.get()));
  for (Py_ssize_t i = 0; plain && i < PyTuple_GET_SIZE(views.get()); ++i) {
    PyObject *view = PyTuple_GET_ITEM(views.get(), i);
    Ref shape(PyObject_GetAttr(view, names.shape));
    Ref strides(PyObject_GetAttr(view, names.strides));
    Ref offset(PyObject_GetAttr(view, names.offset));
    Ref mask(PyObject_GetAttr(view, names.mask));
    if (!shape || !strides || !offset || !mask)
      return false;
    int64_t value;
    plain = PyTuple_Check(shape.get()) &&
            (scratch.push_back(PyTuple_GET_SIZE(shape.get())), true) &&
            appendInts(shape.get(), scratch) &&
            appendInts(strides.get(), scratch) && toInt64(offset.get(), value);
    if (!plain)
      break;
    scratch.push_back(value);
    if (mask.get() == Py_None) {
      scratch.push_back(0);
      continue;
    }
    scratch.push_back(1);
    plain = PyTuple_Check(mask.get());
    for (Py_ssize_t d = 0; plain && d < PyTuple_GET_SIZE(mask.get()); ++d)
      plain = PyTuple_Check(PyTuple_GET_ITEM(mask.get(), d)) &&
              PyTuple_GET_SIZE(PyTuple_GET_ITEM(mask.get(), d)) == 2 &&
              appendInts(PyTuple_GET_ITEM(mask.get(), d), scratch);
  }
  if (!plain) {
    if (PyErr_Occurred())
      return false;
    if (!callInt(exporter, names.tracker, ref, st, node))
      return false;
    trackers.emplace(st, ref);
    return true;
  }
  // The exporter's table: (st, index) by id(st), words appended.
  ref = PyDict_GET_SIZE(trackerTable);
  Ref index(PyLong_FromLongLong(ref));
  Ref entry(index ? PyTuple_Pack(2, st, index.get()) : nullptr);
  if (!entry || PyDict_SetItem(trackerTable, key.get(), entry.get()))
    return false;
  Ref length(PyLong_FromSize_t(scratch.size()));
  if (!length || PyList_Append(trackerWords, length.get()))
    return false;
  for (int64_t word : scratch) {
    Ref item(PyLong_FromLongLong(word));
    if (!item || PyList_Append(trackerWords, item.get()))
      return false;
  }
  trackers.emplace(st, ref);
  return true;
}

/// The metadata string's index, or -1. tinygrad 0.9.2's str(Metadata) is
/// its name, plus " bw" when backward: equal (name, backward) pairs share
/// the exporter's answer.
bool Walker::locationRef(PyObject *node, int64_t &ref) {
  Ref metadata(PyObject_GetAttr(node, names.metadata));
  if (!metadata)
    return false;
  if (metadata.get() == Py_None) {
    ref = -1;
    return true;
  }
  auto it = metadataRefs.find(metadata.get());
  if (it != metadataRefs.end()) {
    ref = it->second;
    return true;
  }
  Ref name(PyObject_GetAttr(metadata.get(), names.name));
  Ref backward(PyObject_GetAttr(metadata.get(), names.backward));
  if (!name || !backward)
    return false;
  std::pair<PyObject *, bool> key(name.get(), backward.get() == Py_True);
  auto named = metadataNames.find(key);
  if (named != metadataNames.end() && PyUnicode_CheckExact(name.get()) &&
      PyBool_Check(backward.get())) {
    ref = named->second;
  } else {
    if (!callInt(exporter, names.locationRef, ref, node))
      return false;
    if (PyUnicode_CheckExact(name.get()) && PyBool_Check(backward.get())) {
      metadataNames.emplace(key, ref);
      keepAlive.push_back(std::move(name)); // the key's pointer stays valid
    }
  }
  // The node holds its metadata for the whole walk.
  metadataRefs.emplace(metadata.get(), ref);
  return true;
}

bool Walker::emitView(PyObject *node) {
  Ref base(PyObject_GetAttr(node, names.base));
  Ref dtype(PyObject_GetAttr(node, names.dtype));
  Ref baseDtype(base ? PyObject_GetAttr(base.get(), names.dtype) : nullptr);
  Ref st(PyObject_GetAttr(node, names.st));
  if (!base || !dtype || !baseDtype || !st)
    return false;
  if (dtype.get() != baseDtype.get()) {
    int equal = PyObject_RichCompareBool(dtype.get(), baseDtype.get(), Py_EQ);
    if (equal < 0)
      return false;
    if (!equal) { // the exporter's error
      Ref none(
          PyObject_CallMethodObjArgs(exporter, names.emitView, node, nullptr));
      if (!PyErr_Occurred())
        PyErr_SetString(PyExc_RuntimeError,
                        "the exporter took a view lazy-mlir's walk refuses");
      return false;
    }
  }
  int64_t type, location, tracker, source;
  if (!typeRef(node, type) || !locationRef(node, location) ||
      !trackerRef(node, st.get(), tracker) || !valueRef(base.get(), source))
    return false;
  refs[node] = count++;
  words.insert(words.end(), {viewOpRef, type, location, 1, trackerAttr,
                             /*_TRACKER*/ 1, tracker, 1, source});
  return !ops || PyList_Append(ops, node) == 0;
}

bool Walker::emitBase(PyObject *node) {
  Ref op(PyObject_GetAttr(node, names.op));
  Ref srcs(PyObject_GetAttr(node, names.srcs));
  Ref device(PyObject_GetAttr(node, names.device));
  if (!op || !srcs || !device)
    return false;
  auto known = opRefs.find(op.get());
  bool checked = known != opRefs.end() && PyTuple_Check(srcs.get());
  auto kind = recordKinds.find(op.get());
  int64_t recordKind = kind == recordKinds.end() ? 0 : kind->second;
  // Sources on another device: the exporter's check names them (COPY and
  // CUSTOM may cross devices).
  bool crosses = recordKind == Custom || recordKind == Copy;
  for (Py_ssize_t i = 0;
       checked && !crosses && i < PyTuple_GET_SIZE(srcs.get()); ++i) {
    Ref srcDevice(
        PyObject_GetAttr(PyTuple_GET_ITEM(srcs.get(), i), names.device));
    if (!srcDevice)
      return false;
    if (srcDevice.get() != device.get()) {
      int equal =
          PyObject_RichCompareBool(srcDevice.get(), device.get(), Py_EQ);
      if (equal < 0)
        return false;
      checked = equal;
    }
  }
  if (!checked) {
    Ref result(
        PyObject_CallMethodObjArgs(exporter, names.checkBase, node, nullptr));
    if (!result)
      return false;
    if (known == opRefs.end()) {
      PyErr_SetString(PyExc_RuntimeError, "an op the exporter accepts and "
                                          "lazy-mlir's walk does not know");
      return false;
    }
  }
  int64_t type, location;
  if (!typeRef(node, type) || !locationRef(node, location))
    return false;

  scratch.clear(); // the attributes' words
  int64_t numAttrs = 0;
  Ref forced(PyObject_GetAttr(node, names.forcedRealize));
  if (!forced)
    return false;
  int truth = PyObject_IsTrue(forced.get());
  if (truth < 0)
    return false;
  if (truth) {
    scratch.insert(scratch.end(), {unitForced, 0});
    ++numAttrs;
  }
  if (seen.count(node)) {
    scratch.insert(scratch.end(), {unitSeen, 0});
    ++numAttrs;
  }
  if (held.count(node)) {
    scratch.insert(scratch.end(), {unitExternal, 0});
    ++numAttrs;
  }
  if (recordKind == Reduce) {
    Ref axes(PyObject_GetAttr(node, names.arg));
    if (!axes)
      return false;
    size_t at = scratch.size();
    scratch.insert(scratch.end(), {axesAttr, /*_I64_ARRAY*/ 2, 0});
    if (!appendInts(axes.get(), scratch)) {
      PyErr_SetString(PyExc_TypeError, "a reduce's axes are not ints");
      return false;
    }
    scratch[at + 2] = int64_t(scratch.size() - at - 3);
    ++numAttrs;
  } else if (recordKind == Const || recordKind == Custom ||
             recordKind == Assign) {
    Ref extra(
        PyObject_CallMethodObjArgs(exporter, names.recordAttrs, node, nullptr));
    if (!extra)
      return false;
    if (!PyTuple_Check(extra.get()) || PyTuple_GET_SIZE(extra.get()) < 1) {
      PyErr_SetString(PyExc_TypeError, "record_attrs must give a tuple");
      return false;
    }
    int64_t extraCount;
    if (!toInt64(PyTuple_GET_ITEM(extra.get(), 0), extraCount)) {
      PyErr_SetString(PyExc_TypeError, "record_attrs must give ints");
      return false;
    }
    numAttrs += extraCount;
    for (Py_ssize_t i = 1; i < PyTuple_GET_SIZE(extra.get()); ++i) {
      int64_t word;
      if (!toInt64(PyTuple_GET_ITEM(extra.get(), i), word)) {
        PyErr_SetString(PyExc_TypeError, "record_attrs must give ints");
        return false;
      }
      scratch.push_back(word);
    }
  }
  words.insert(words.end(), {known->second, type, location, numAttrs});
  words.insert(words.end(), scratch.begin(), scratch.end());
  Py_ssize_t numSrcs = PyTuple_GET_SIZE(srcs.get());
  words.push_back(numSrcs);
  for (Py_ssize_t i = 0; i < numSrcs; ++i) {
    int64_t ref;
    if (!valueRef(PyTuple_GET_ITEM(srcs.get(), i), ref))
      return false;
    words.push_back(ref);
  }
  refs[node] = count++;
  return !ops || PyList_Append(ops, node) == 0;
}

bool Walker::emit(PyObject *node) {
  Ref base(PyObject_GetAttr(node, names.base));
  if (!base)
    return false;
  if (base.get() != Py_None)
    return emitView(node);
  Ref srcs(optionalAttr(node, names.srcs));
  if (!srcs) {
    if (PyErr_Occurred())
      return false;
    int64_t ref;
    if (!callInt(exporter, names.emitArgument, ref, node))
      return false;
    refs[node] = ref;
    return true;
  }
  return emitBase(node);
}

/// A dict of the exporter's, keyed by objects, as a pointer map.
bool readTable(PyObject *exporter, PyObject *name,
               std::unordered_map<PyObject *, int64_t> &out) {
  Ref table(PyObject_GetAttr(exporter, name));
  if (!table)
    return false;
  if (!PyDict_Check(table.get())) {
    PyErr_SetString(PyExc_TypeError, "the exporter's table is not a dict");
    return false;
  }
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(table.get(), &pos, &key, &value)) {
    int64_t number;
    if (!toInt64(value, number)) {
      PyErr_SetString(PyExc_TypeError, "the exporter's table holds a non-int");
      return false;
    }
    out[key] = number; // keys are module-level enum members: always alive
  }
  return true;
}

PyObject *Walker::run(PyObject *outs) {
  Ref unit(PyObject_GetAttr(exporter, names.unitRefs));
  Ref seenIds(PyObject_GetAttr(exporter, names.seen));
  Ref opsList(PyObject_GetAttr(exporter, names.ops));
  Ref trackerWordsList(PyObject_GetAttr(exporter, names.trackerWords));
  Ref trackerDict(PyObject_GetAttr(exporter, names.trackers));
  if (!unit || !seenIds || !opsList || !trackerWordsList || !trackerDict)
    return nullptr;
  if (!PyTuple_Check(unit.get()) || PyTuple_GET_SIZE(unit.get()) != 6 ||
      !PyList_Check(trackerWordsList.get()) ||
      !PyDict_Check(trackerDict.get())) {
    PyErr_SetString(PyExc_TypeError, "the exporter's tables are not as "
                                     "lazy-mlir's walk expects");
    return nullptr;
  }
  int64_t *slots[] = {&unitForced,  &unitSeen, &unitExternal,
                      &trackerAttr, &axesAttr, &viewOpRef};
  for (Py_ssize_t i = 0; i < 6; ++i)
    if (!toInt64(PyTuple_GET_ITEM(unit.get(), i), *slots[i])) {
      PyErr_SetString(PyExc_TypeError, "unit_refs must hold ints");
      return nullptr;
    }
  ops = opsList.get() == Py_None ? nullptr : opsList.get();
  trackerWords = trackerWordsList.get();
  trackerTable = trackerDict.get();
  if (!readTable(exporter, names.opRefs, opRefs) ||
      !readTable(exporter, names.recordKinds, recordKinds))
    return nullptr;
  outsSequence = Ref(PySequence_Fast(outs, "outs must be a sequence"));
  if (!outsSequence)
    return nullptr;
  for (Py_ssize_t i = 0, e = PySequence_Fast_GET_SIZE(outsSequence.get());
       i < e; ++i)
    outputs.push_back(PySequence_Fast_GET_ITEM(outsSequence.get(), i));
  if (!postOrder() || !computeHeld())
    return nullptr;
  // `seen` holds ids; keep the nodes whose id it holds.
  Py_ssize_t n = PyList_GET_SIZE(order.get());
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *node = PyList_GET_ITEM(order.get(), i);
    Ref id(PyLong_FromVoidPtr(node));
    int in = id ? PySet_Contains(seenIds.get(), id.get()) : -1;
    if (in < 0)
      return nullptr;
    if (in)
      seen.insert(node);
  }
  for (Py_ssize_t i = 0; i < n; ++i)
    if (!emit(PyList_GET_ITEM(order.get(), i)))
      return nullptr;
  Ref results(PyList_New(Py_ssize_t(outputs.size())));
  if (!results)
    return nullptr;
  for (size_t i = 0; i < outputs.size(); ++i) {
    int64_t ref;
    if (!valueRef(outputs[i], ref))
      return nullptr;
    PyObject *item = PyLong_FromLongLong(ref);
    if (!item)
      return nullptr;
    PyList_SET_ITEM(results.get(), i, item);
  }
  Ref bytes(
      PyBytes_FromStringAndSize(reinterpret_cast<const char *>(words.data()),
                                Py_ssize_t(words.size() * sizeof(int64_t))));
  Ref total(PyLong_FromLongLong(count));
  if (!bytes || !total ||
      PyObject_SetAttr(exporter, names.opWords, bytes.get()) ||
      PyObject_SetAttr(exporter, names.count, total.get()))
    return nullptr;
  PyObject *out = results.get();
  Py_INCREF(out);
  return out;
}

PyObject *walk(PyObject *, PyObject *args) {
  PyObject *exporter, *outs;
  if (!PyArg_ParseTuple(args, "OO:walk", &exporter, &outs))
    return nullptr;
  return Walker(exporter).run(outs);
}

PyMethodDef methods[] = {
    {"walk", walk, METH_VARARGS,
     "walk(exporter, outs): _CompactExporter's walk; returns the results' "
     "value references and sets exporter.op_words (bytes) and count."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef moduleDef = {PyModuleDef_HEAD_INIT, "_lazy_walk",
                         "lazy-mlir's walk of tinygrad graphs, in C++.", -1,
                         methods};

} // namespace

PyMODINIT_FUNC PyInit__lazy_walk() {
  if (!names.init())
    return nullptr;
  return PyModule_Create(&moduleDef);
}
