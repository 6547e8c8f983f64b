// The compiled-program cache: a second run of the same program links the
// objects the first one stored (no lower or compile phase) and computes the
// same outputs; a damaged entry is rejected, compiled again and replaced.
// Two compile threads split the kernels into partitions, so an entry holds
// several objects; the 1 MiB intermediate is a static buffer the program
// maps itself.
// RUN: rm -rf %t && mkdir -p %t
// RUN: lazy-run %s --seed=3 --check --compile-threads=2 --timing --cache-dir=%t/c 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: lazy-run %s --seed=3 --check --compile-threads=2 --timing --cache-dir=%t/c 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: truncate -s 100 %t/c/cpu/*.lzo
// RUN: lazy-run %s --seed=3 --check --compile-threads=2 --timing --cache-dir=%t/c 2>&1 | FileCheck %s --check-prefix=REJECTED
// RUN: lazy-run %s --seed=3 --check --compile-threads=2 --timing --cache-dir=%t/c 2>&1 | FileCheck %s --check-prefix=HIT
// The outputs of a compiled and of a loaded program, byte for byte:
// RUN: lazy-run %s --seed=3 --compile-threads=2 --cache-dir=%t/o --output-dir=%t/compiled
// RUN: lazy-run %s --seed=3 --compile-threads=2 --cache-dir=%t/o --output-dir=%t/loaded --timing 2>&1 | FileCheck %s --check-prefix=LOADED
// RUN: cmp %t/compiled/out0.npy %t/loaded/out0.npy
// RUN: cmp %t/compiled/out1.npy %t/loaded/out1.npy
// Other options compile another program: another entry.
// RUN: lazy-run %s --seed=3 --compile-threads=2 --cache-dir=%t/o --profile --timing 2>&1 | FileCheck %s --check-prefix=OTHER
// The default directory, and the switch:
// RUN: env LAZY_MLIR_CACHE=1 XDG_CACHE_HOME=%t/xdg lazy-run %s --seed=3 --timing 2>&1 | FileCheck %s --check-prefix=XDG
// RUN: env LAZY_MLIR_CACHE=1 LAZY_MLIR_CACHE_DIR=%t/env lazy-run %s --seed=3 --timing 2>&1 | FileCheck %s --check-prefix=ENV
// RUN: env LAZY_MLIR_CACHE=1 LAZY_MLIR_CACHE_DIR=%t/env lazy-run %s --seed=3 --no-cache --timing 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: env LAZY_MLIR_CACHE=0 LAZY_MLIR_CACHE_DIR=%t/env lazy-run %s --seed=3 --timing 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: not lazy-run %s --no-cache --cache-dir=%t/c 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not lazy-run %s --device=emulate --cache-dir=%t/c 2>&1 | FileCheck %s --check-prefix=GPU

// MISS: lazy-run: time lower
// MISS: lazy-run: cache miss {{.*}}cpu{{[/\\]}}[[KEY:[0-9a-f]+]].lzo
// MISS-NEXT: lazy-run: time compile
// MISS: all outputs match

// HIT-NOT: time lower
// HIT: lazy-run: cache hit {{.*}}.lzo
// HIT-NEXT: lazy-run: time load
// HIT-NOT: time compile
// HIT: all outputs match

// REJECTED: lazy-run: cache rejected {{.*}}.lzo (truncated or padded: the payload should be
// REJECTED-NEXT: lazy-run: time compile
// REJECTED: all outputs match

// LOADED: lazy-run: cache hit

// OTHER: lazy-run: cache miss

// XDG: lazy-run: cache miss {{.*}}xdg{{[/\\]}}lazy-mlir{{[/\\]}}cpu{{[/\\]}}
// ENV: lazy-run: cache miss {{.*}}env{{[/\\]}}cpu{{[/\\]}}
// OFF-NOT: lazy-run: cache
// OFF: lazy-run: time compile
// OFF-NOT: lazy-run: cache

// BOTH: lazy-run: error: --no-cache and --cache-dir contradict each other
// GPU: lazy-run: error: --cache-dir keeps CPU programs; --device=emulate compiles no CPU program

module {
  func.func @graph(%a: tensor<512x512xf32> {lazy.buffer = 0 : i64})
      -> (tensor<512x1xf32>, tensor<1x512xf32>) {
    %e = lazy.exp2 %a : tensor<512x512xf32>
    %c = lazy.contiguous %e : tensor<512x512xf32>
    %r = lazy.reduce_sum %c axes [1] : tensor<512x512xf32> -> tensor<512x1xf32>
    %s = lazy.reduce_max %c axes [0] : tensor<512x512xf32> -> tensor<1x512xf32>
    return %r, %s : tensor<512x1xf32>, tensor<1x512xf32>
  }
}
