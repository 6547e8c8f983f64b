# The allocator the command-line tools link. Scheduling allocates and frees
# many small objects (graph nodes, kernel ASTs, MLIR ops and attributes);
# mimalloc does that faster than glibc's malloc and keeps freed memory for
# reuse instead of returning it, so pages are not faulted in again. It
# replaces malloc process-wide, so only executables link it: a library
# (the plugin, the Python extension) must not change the allocator of the
# process that loads it.
option(LAZY_USE_MIMALLOC "Link lazy-opt, lazy-run and lazy-interp with mimalloc" ON)
if(LAZY_USE_MIMALLOC)
  # The shared library: a static archive would only be linked in if
  # something named it, and nothing does.
  find_library(LAZY_MIMALLOC_LIBRARY NAMES libmimalloc.so mimalloc.so)
  if(LAZY_MIMALLOC_LIBRARY)
    message(STATUS "Tools link mimalloc: ${LAZY_MIMALLOC_LIBRARY}")
  else()
    message(STATUS "mimalloc not found (Debian: libmimalloc-dev); tools use "
                   "the C library's malloc")
  endif()
endif()

# Links `target` (an executable) with the chosen allocator, if any. The
# library stays a dependency even though no symbol names it; the dynamic
# loader places it before libc, so its malloc is the one every library of
# the process (and anything dlopen'ed later) binds to.
function(lazy_link_allocator target)
  if(LAZY_USE_MIMALLOC AND LAZY_MIMALLOC_LIBRARY)
    target_link_libraries(${target} PRIVATE
      -Wl,--push-state,--no-as-needed ${LAZY_MIMALLOC_LIBRARY} -Wl,--pop-state)
  endif()
endfunction()
