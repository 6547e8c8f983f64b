# What `cmake --install build` puts under the prefix: the headers (and the
# generated .inc files and the TableGen files), every library an MLIR tool
# needs to use lazy-mlir, the tools, the mlir-opt plugin, and
# lib/cmake/LazyMLIR/LazyMLIRConfig.cmake (find_package(LazyMLIR), the
# imported target LazyMLIR::LazyMLIR). test/Consumer builds against it.

include(CMakePackageConfigHelpers)

install(DIRECTORY ${LAZY_SOURCE_DIR}/include/lazy
  DESTINATION include
  FILES_MATCHING PATTERN "*.h" PATTERN "*.def" PATTERN "*.td")
install(DIRECTORY ${LAZY_BINARY_DIR}/include/lazy
  DESTINATION include
  FILES_MATCHING PATTERN "*.inc" PATTERN "*.h" PATTERN "*.def")

# Users before what they use (the order of lazy-opt's link line).
set(LAZY_MLIR_EXPORTED_LIBS LazyInitAll MLIRLazyTransforms MLIRLazyToGPU
  MLIRLazyGpuKernelCodegen MLIRLazyToLoops MLIRLazyKernelCodegen
  MLIRLazyAnalysis LazyInterpreter MLIRLazyDialect LazyShapeTracker)
# add_mlir_library installs its own libraries; the plain ones are ours.
install(TARGETS LazyShapeTracker ARCHIVE DESTINATION lib)
set(LAZY_MLIR_INSTALLED_TOOLS lazy-opt lazy-run lazy-interp lazy-replay
  lazy-lsp-server)
# Installed binaries find libMLIR.so and libLLVM.so where MLIR's package
# has them (the build tree's run path is dropped on install).
set_target_properties(${LAZY_MLIR_INSTALLED_TOOLS} LazyPlugin PROPERTIES
  INSTALL_RPATH "\$ORIGIN/../lib;${LLVM_LIBRARY_DIR}")
install(TARGETS ${LAZY_MLIR_INSTALLED_TOOLS} RUNTIME DESTINATION bin)
install(TARGETS LazyPlugin LIBRARY DESTINATION lib)

string(REPLACE ";" " " LAZY_MLIR_EXPORTED_LIBS "${LAZY_MLIR_EXPORTED_LIBS}")
configure_file(${LAZY_SOURCE_DIR}/cmake/LazyMLIRConfig.cmake.in
  ${LAZY_BINARY_DIR}/lib/cmake/LazyMLIR/LazyMLIRConfig.cmake @ONLY)
write_basic_package_version_file(
  ${LAZY_BINARY_DIR}/lib/cmake/LazyMLIR/LazyMLIRConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES
  ${LAZY_BINARY_DIR}/lib/cmake/LazyMLIR/LazyMLIRConfig.cmake
  ${LAZY_BINARY_DIR}/lib/cmake/LazyMLIR/LazyMLIRConfigVersion.cmake
  DESTINATION lib/cmake/LazyMLIR)
