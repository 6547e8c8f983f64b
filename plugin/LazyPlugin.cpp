//===- LazyPlugin.cpp - lazy dialect and passes as an mlir-opt plugin -----===//

#include "lazy/Conversion/Passes.h"
#include "lazy/Dialect/Lazy/Analysis/KernelSpace.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "LazyDialect", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            registry->insert<mlir::lazy::LazyDialect>();
            mlir::lazy::registerKernelPlanVerifier(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "LazyPasses", LLVM_VERSION_STRING, []() {
            // Only lazy-mlir's own passes and pipelines: the host mlir-opt
            // registers the upstream ones they compose.
            mlir::lazy::registerLazyPasses();
            mlir::lazy::registerSchedulePipeline();
            mlir::lazy::registerLazyConversionPasses();
            mlir::lazy::registerCpuPipeline();
            mlir::lazy::registerGpuPipelines();
          }};
}
