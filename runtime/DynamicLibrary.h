//===- DynamicLibrary.h - dlopen with typed symbol lookup -------*- C++ -*-===//

#ifndef LAZY_RUNTIME_DYNAMICLIBRARY_H
#define LAZY_RUNTIME_DYNAMICLIBRARY_H

#include <dlfcn.h>

#include <initializer_list>
#include <string>

namespace lazy::runtime {

/// A shared library opened at run time and kept loaded until the process
/// ends: GPU vendor runtimes and MPI (libcuda, libamdhip64) register exit
/// handlers and start threads that run their code, even after a failed init, so
/// unloading them is unsafe (and leak checkers could no longer name them).
class DynamicLibrary {
public:
  DynamicLibrary() = default;
  DynamicLibrary(const DynamicLibrary &) = delete; // owns the handle
  DynamicLibrary &operator=(const DynamicLibrary &) = delete;

  /// Tries each name in turn; on failure `error` holds dlerror's text for
  /// the first (the usual) name. `global`: its symbols resolve the
  /// libraries it loads in turn (OpenMPI's plugins need that).
  bool open(std::initializer_list<const char *> names, std::string &error,
            bool global = false) {
    error.clear();
    for (const char *name : names) {
      handle = dlopen(name, RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
      if (handle)
        return true;
      const char *why = dlerror();
      if (error.empty())
        error = why ? why : name;
    }
    return false;
  }
  /// Binds `fn` to the symbol `name`; false (and `missing` set) if absent.
  template <typename Fn>
  bool bind(Fn &fn, const char *name, std::string &missing) {
    fn = reinterpret_cast<Fn>(dlsym(handle, name));
    if (!fn)
      missing = name;
    return fn != nullptr;
  }
  /// The address of the data symbol `name`, or null.
  void *address(const char *name) const { return dlsym(handle, name); }

private:
  void *handle = nullptr;
};

} // namespace lazy::runtime

#endif // LAZY_RUNTIME_DYNAMICLIBRARY_H
