// Debian's stock mlir-opt-22 loads the lazy dialect and its passes from the
// plugin, parses the dialect and runs lazy-fold-views.
// RUN: %mlir_opt %s --load-dialect-plugin=%lazy_libs/LazyPlugin%shlibext --load-pass-plugin=%lazy_libs/LazyPlugin%shlibext --pass-pipeline="builtin.module(func.func(lazy-fold-views))" | FileCheck %s
// RUN: %mlir_opt %s --load-dialect-plugin=%lazy_libs/LazyPlugin%shlibext | FileCheck %s --check-prefix=PARSE

// CHECK-LABEL: func.func @plugin
// CHECK-SAME: (%[[A:.+]]: tensor<4x4xf32>)
// PARSE-LABEL: func.func @plugin
func.func @plugin(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // PARSE: lazy.permute %{{.*}} [1, 0]
  // CHECK-NEXT: %[[V:.+]] = lazy.view %[[A]] as <[(4, 4):(1, 4)]>
  %0 = lazy.permute %a [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  // CHECK-NEXT: lazy.add %[[V]], %[[A]] : tensor<4x4xf32>
  %1 = lazy.add %0, %a : tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}
