// A misspelled option of a lazy pass or pipeline fails with the closest
// option's name, on the command line and in --pass-pipeline; a name
// nothing resembles gets no guess.
// RUN: not lazy-opt %s --lazy-schedule=fusoin=aggressive -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not lazy-opt %s "--pass-pipeline=builtin.module(lazy-schedule{fusion=aggressive multioutput=false})" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not lazy-opt %s "--pass-pipeline=builtin.module(lazy-group{fuse-arang=true})" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: not lazy-opt %s --lazy-to-nvvm=chp=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: not lazy-opt %s --lazy-to-cpu=profile-cals=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not lazy-opt %s --convert-lazy-to-loops=parallel-min-wrk=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOOPS
// RUN: not lazy-opt %s --lazy-schedule=zzzzzz=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE

// PIPELINE: no such option fusoin; did you mean 'fusion'?
// NESTED: no such option multioutput; did you mean 'multi-output'?
// NESTED: failed to add `lazy-schedule` with options `fusion=aggressive multioutput=false`
// PASS: no such option fuse-arang; did you mean 'fuse-arange'?
// GPU: no such option chp; did you mean 'chip'?
// CPU: no such option profile-cals; did you mean 'profile-calls'?
// LOOPS: no such option parallel-min-wrk; did you mean 'parallel-min-work'?
// NONE: no such option zzzzzz
// NONE-NOT: did you mean
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lazy.neg %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
