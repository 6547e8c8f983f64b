// RUN: lazy-opt %s -split-input-file -verify-diagnostics --lazy-distribute
// RUN: not lazy-opt %s -split-input-file --lazy-distribute=rank=1 2>&1 | FileCheck %s --check-prefix=RANK
// lazy-distribute's errors: what cannot become ranks.

// expected-error @+1 {{lazy-distribute: a buffer on DISK:/tmp/x cannot be given to a rank (only compute devices, KIND or KIND:N, and NPY arrays)}}
func.func @disk(%a: !lazy.buffer<4xf32, #lazy.device<"DISK:/tmp/x">>) -> !lazy.buffer<4xf32> {
  %b = lazy.alloc : !lazy.buffer<4xf32>
  %c = lazy.ext "copy" outs(%b : !lazy.buffer<4xf32>) ins(%a : !lazy.buffer<4xf32, #lazy.device<"DISK:/tmp/x">>)
  return %c : !lazy.buffer<4xf32>
}

// -----

func.func @unordered(%a: !lazy.buffer<4xf32>) -> !lazy.buffer<4xf32> {
  // expected-error @+1 {{lazy-distribute: not an item of an ordered schedule (run lazy-schedule first)}}
  %r = lazy.schedule -> !lazy.buffer<4xf32> {
    lazy.yield %a : !lazy.buffer<4xf32>
  }
  return %r : !lazy.buffer<4xf32>
}

// -----

func.func @first(%a: !lazy.buffer<4xf32>) -> !lazy.buffer<4xf32> {
  return %a : !lazy.buffer<4xf32>
}
// expected-error @+1 {{lazy-distribute: the module has more than one scheduled function; ranks run one}}
func.func @second(%a: !lazy.buffer<4xf32>) -> !lazy.buffer<4xf32> {
  return %a : !lazy.buffer<4xf32>
}

// -----

// One device: one rank, so rank=1 does not exist.
// RANK: error: lazy-distribute: rank 1 asked for, but the schedule has 1 device(s)
func.func @one_device(%a: !lazy.buffer<4xf32>) -> !lazy.buffer<4xf32> {
  return %a : !lazy.buffer<4xf32>
}
