"""lazy-mlir in process: ctypes over liblazy-mlir-c.so (include/lazy-c/Lazy.h).

    from lazy_mlir import _capi
    ok, text, diagnostics = _capi.session().run(ir, "lazy-schedule", _capi.MODULE)

The library is looked for in `$LAZY_MLIR_BUILD_DIR/lib` when that is set,
else in the installed package (`lazy_mlir/_lib/`, put there by a
non-editable `pip install ./python`), else in `build/lib` of this checkout.
"""

import ctypes
import functools
import os
import sys
import threading

from . import REPO_ROOT

NONE, MODULE, CANONICAL_SCHEDULE, BRIDGE_SCHEDULE = 0, 1, 2, 3

LIBRARY_NAME = "liblazy-mlir-c.so"


class LibraryNotFound(RuntimeError):
    """liblazy-mlir-c.so is neither installed with the package nor built."""


class _Text(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]


class _Compact(ctypes.Structure):
    _fields_ = [("words", ctypes.c_void_p), ("num_words", ctypes.c_size_t),
                ("strings", ctypes.c_char_p), ("strings_length", ctypes.c_size_t)]


def _compact(graph):
    """A LazyCompactGraph over (array('q') words, bytes strings); the
    caller keeps both alive for the call."""
    words, strings = graph
    address, length = words.buffer_info()
    return _Compact(address, length, strings, len(strings))


class _Session(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


class _RunGraphOptions(ctypes.Structure):
    _fields_ = [("inputFile", ctypes.c_char_p), ("entry", ctypes.c_char_p),
                ("outputDir", ctypes.c_char_p), ("seed", ctypes.c_uint32), ("check", ctypes.c_int),
                ("distributed", ctypes.c_int), ("mpiTimeout", ctypes.c_uint32),
                ("repeat", ctypes.c_uint32), ("warmup", ctypes.c_uint32)]


class _Program(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


class CpuProgram:
    """A schedule's kernels compiled for this host (lazyCompileCpu). The
    code lives as long as this object."""

    def __init__(self, lib, handle):
        self._lib, self._handle = lib, handle

    def address(self, function):
        """The address of a kernel (by its symbol, without `@`), or None."""
        return self._lib.lazyCpuProgramLookup(self._handle, function.encode())

    def packed_address(self, function):
        """The address of a kernel's packed wrapper (one `void **`
        argument, for lazyRunPacked), or None."""
        return self.address("_mlir_" + function)

    @property
    def from_cache(self):
        """Whether the code was linked from the disk cache (compiled by an
        earlier process) rather than compiled."""
        return bool(self._lib.lazyCpuProgramFromCache(self._handle))

    def __del__(self):
        try:
            self._lib.lazyCpuProgramDestroy(self._handle)
        except Exception:
            pass


def library_path():
    """Where liblazy-mlir-c.so is, or None."""
    override = os.environ.get("LAZY_MLIR_BUILD_DIR")
    if override:
        candidates = [os.path.join(override, "lib", LIBRARY_NAME)]
    else:
        candidates = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib", LIBRARY_NAME),
                      os.path.join(REPO_ROOT, "build", "lib", LIBRARY_NAME)]
    for path in candidates:
        if os.path.isfile(path):
            return path
    return None


_lock = threading.Lock()
_library = None
_walker = False  # not looked for yet


def walker():
    """The `_lazy_walk` extension module (the bridge exporter's walk in C++,
    lib/Bindings/Python/TinygradWalk.cpp) found next to the library, or None
    when it was not built for this Python."""
    global _walker
    with _lock:
        if _walker is False:
            _walker = None
            path = library_path()
            if path is not None:
                import importlib.machinery
                import importlib.util
                folder = os.path.dirname(path)
                for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                    candidate = os.path.join(folder, "_lazy_walk" + suffix)
                    if os.path.isfile(candidate):
                        loader = importlib.machinery.ExtensionFileLoader("_lazy_walk", candidate)
                        spec = importlib.util.spec_from_file_location("_lazy_walk", candidate,
                                                                      loader=loader)
                        module = importlib.util.module_from_spec(spec)
                        loader.exec_module(module)
                        _walker = module
                        break
        return _walker


def library():
    """The loaded library, its prototypes declared (loaded once)."""
    global _library
    with _lock:
        if _library is None:
            path = library_path()
            if path is None:
                raise LibraryNotFound(
                    f"{LIBRARY_NAME} was not found: build lazy-mlir (bash scripts/setup.sh) or "
                    "install the package from a built checkout (pip install ./python)")
            lib = ctypes.CDLL(path)
            lib.lazySessionCreate.argtypes = [ctypes.c_int]
            lib.lazySessionCreate.restype = _Session
            lib.lazySessionDestroy.argtypes = [_Session]
            lib.lazySessionDestroy.restype = None
            lib.lazyRun.argtypes = [_Session, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                    ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(_Text),
                                    ctypes.POINTER(_Text)]
            lib.lazyRun.restype = ctypes.c_int
            lib.lazyRunCompact.argtypes = [_Session, _Compact, ctypes.c_char_p, ctypes.c_char_p,
                                           ctypes.c_int, ctypes.POINTER(_Text),
                                           ctypes.POINTER(_Text)]
            lib.lazyRunCompact.restype = ctypes.c_int
            lib.lazyCompileCpuCompact.argtypes = [_Session, _Compact, ctypes.c_char_p,
                                                  ctypes.c_char_p, ctypes.POINTER(_Program),
                                                  ctypes.POINTER(_Text), ctypes.POINTER(_Text)]
            lib.lazyCompileCpuCompact.restype = ctypes.c_int
            lib.lazyTextFree.argtypes = [_Text]
            lib.lazyTextFree.restype = None
            lib.lazyCompileCpu.argtypes = [_Session, ctypes.c_char_p, ctypes.c_size_t,
                                           ctypes.c_char_p, ctypes.c_char_p,
                                           ctypes.POINTER(_Program), ctypes.POINTER(_Text),
                                           ctypes.POINTER(_Text)]
            lib.lazyCompileCpu.restype = ctypes.c_int
            lib.lazyCpuProgramLookup.argtypes = [_Program, ctypes.c_char_p]
            lib.lazyCpuProgramLookup.restype = ctypes.c_void_p
            lib.lazyCpuProgramFromCache.argtypes = [_Program]
            lib.lazyCpuProgramFromCache.restype = ctypes.c_int
            lib.lazyCpuProgramDestroy.argtypes = [_Program]
            lib.lazyCpuProgramDestroy.restype = None
            lib.lazyVersion.argtypes = []
            lib.lazyVersion.restype = ctypes.c_char_p
            lib.lazyScheduleFlags.argtypes = []
            lib.lazyScheduleFlags.restype = ctypes.c_char_p
            lib.lazyFloatTolerance.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_double),
                                               ctypes.POINTER(ctypes.c_double)]
            lib.lazyFloatTolerance.restype = ctypes.c_int
            lib.lazyRunPacked.argtypes = [ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p]
            lib.lazyRunPacked.restype = None
            lib.lazyCompileGpu.argtypes = [_Session, ctypes.c_char_p, ctypes.c_size_t,
                                           ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                           *([ctypes.POINTER(_Text)] * 4)]
            lib.lazyCompileGpu.restype = ctypes.c_int
            lib.lazyCompileGpuCompact.argtypes = [_Session, _Compact, ctypes.c_char_p,
                                                  ctypes.c_char_p, ctypes.c_char_p,
                                                  *([ctypes.POINTER(_Text)] * 4)]
            lib.lazyCompileGpuCompact.restype = ctypes.c_int
            lib.lazyRunGraph.argtypes = [ctypes.POINTER(_RunGraphOptions)]
            lib.lazyRunGraph.restype = ctypes.c_int
            _library = lib
        return _library


def version():
    return library().lazyVersion().decode()


def run_graph(path, entry=None, output_dir=None, seed=0, check=False, distributed=False,
              mpi_timeout=0, repeat=0, warmup=0):
    """lazy-run's job on the module in `path`, in this process (lazyRunGraph):
    it prints what lazy-run prints and returns lazy-run's exit code. With
    `distributed`, every process of an `mpirun -n N` job calls it and runs its
    device's part of the schedule."""
    def text(value):
        return None if value is None else os.fsencode(value)
    options = _RunGraphOptions(text(path), text(entry), text(output_dir), seed, int(check),
                               int(distributed), mpi_timeout, repeat, warmup)
    sys.stdout.flush()
    return library().lazyRunGraph(ctypes.byref(options))


@functools.lru_cache(maxsize=None)
def schedule_flags():
    """The scheduler flags a module's `lazy.flags` takes, as the library
    declares them (ScheduleFlags.td): (key, tinygrad name, default), the
    default a bool, or for a policy its default's name (tinygrad name
    "-")."""
    flags = []
    for line in library().lazyScheduleFlags().decode().splitlines():
        key, tinygrad, default = line.split()
        flags.append((key, tinygrad, default == "1" if default in ("0", "1") else default))
    return tuple(flags)


@functools.lru_cache(maxsize=None)
def float_tolerance(element_type):
    """(rtol, atol) of a float MLIR element type ("f32"), as lazy-run
    --check uses them (runtime/Tolerance.h); None for a dtype compared bit
    for bit."""
    rtol, atol = ctypes.c_double(), ctypes.c_double()
    if not library().lazyFloatTolerance(element_type.encode(), ctypes.byref(rtol),
                                        ctypes.byref(atol)):
        return None
    return rtol.value, atol.value


class Session:
    """An MLIRContext with lazy-mlir registered. Runs are serialized: one
    context serves one thread at a time."""

    def __init__(self, threads=True):
        self._lib = library()
        self._handle = self._lib.lazySessionCreate(1 if threads else 0)
        self._lock = threading.Lock()

    def close(self):
        if self._handle is not None:
            self._lib.lazySessionDestroy(self._handle)
            self._handle = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def compile_gpu(self, ir, schedule_pipeline, lower_pipeline, name="<graph>"):
        """lazyCompileGpu on `ir` (text, or a compact graph as run() takes
        it): (ok, code object bytes, launch text, schedule text, diagnostics
        text)."""
        texts = [_Text() for _ in range(4)]
        pipelines = (schedule_pipeline.encode(), lower_pipeline.encode())
        with self._lock:
            if self._handle is None:
                raise RuntimeError("the session is closed")
            if isinstance(ir, tuple):
                ok = self._lib.lazyCompileGpuCompact(self._handle, _compact(ir), name.encode(),
                                                     *pipelines, *(ctypes.byref(t) for t in texts))
            else:
                data = ir.encode() if isinstance(ir, str) else ir
                ok = self._lib.lazyCompileGpu(self._handle, data, len(data), name.encode(),
                                              *pipelines, *(ctypes.byref(t) for t in texts))
        try:
            values = [ctypes.string_at(t.data, t.length) if t.data else b"" for t in texts]
        finally:
            for t in texts:
                self._lib.lazyTextFree(t)
        binary, launches, schedule, diagnostics = values
        return bool(ok), binary, launches.decode(), schedule.decode(), diagnostics.decode()

    def run(self, ir, pipeline, output=MODULE, name="<graph>"):
        """Parses `ir` (str or bytes; or a compact graph: a tuple of an
        array('q') of words and the string table's bytes, see
        include/lazy-c/Lazy.h), runs `pipeline` (a pass pipeline on the
        module, without the `builtin.module(...)` anchor) and returns (ok,
        output text, diagnostics text)."""
        out, diags = _Text(), _Text()
        with self._lock:
            if self._handle is None:
                raise RuntimeError("the session is closed")
            if isinstance(ir, tuple):
                ok = self._lib.lazyRunCompact(self._handle, _compact(ir), name.encode(),
                                              pipeline.encode(), output, ctypes.byref(out),
                                              ctypes.byref(diags))
            else:
                data = ir.encode() if isinstance(ir, str) else ir
                ok = self._lib.lazyRun(self._handle, data, len(data), name.encode(),
                                       pipeline.encode(), output, ctypes.byref(out),
                                       ctypes.byref(diags))
        text, diagnostics = self._take(out, diags)
        return bool(ok), text, diagnostics

    def _take(self, *texts):
        """The library's texts as str, each freed."""
        try:
            return [ctypes.string_at(t.data, t.length).decode() if t.data else "" for t in texts]
        finally:
            for t in texts:
                self._lib.lazyTextFree(t)


    def compile_cpu(self, ir, schedule_pipeline, name="<graph>"):
        """Schedules `ir` (text or a compact graph, as for run) with
        `schedule_pipeline`, then lowers and compiles its kernels for this
        host; returns (CpuProgram or None, bridge text of the schedule,
        diagnostics)."""
        program, schedule, diags = _Program(), _Text(), _Text()
        with self._lock:
            if self._handle is None:
                raise RuntimeError("the session is closed")
            if isinstance(ir, tuple):
                ok = self._lib.lazyCompileCpuCompact(
                    self._handle, _compact(ir), name.encode(), schedule_pipeline.encode(),
                    ctypes.byref(program), ctypes.byref(schedule), ctypes.byref(diags))
            else:
                data = ir.encode() if isinstance(ir, str) else ir
                ok = self._lib.lazyCompileCpu(self._handle, data, len(data), name.encode(),
                                              schedule_pipeline.encode(), ctypes.byref(program),
                                              ctypes.byref(schedule), ctypes.byref(diags))
        text, diagnostics = self._take(schedule, diags)
        return (CpuProgram(self._lib, program) if ok else None), text, diagnostics


_session = None
_session_lock = threading.Lock()


def session():
    """The process's shared session (made on first use)."""
    global _session
    with _session_lock:
        if _session is None:
            _session = Session()
        return _session
