// lazy-replay's errors name what is wrong: a missing path, a file, a
// folder without a plan, an unknown option, a bad number.
// RUN: not lazy-replay %t/missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: mkdir -p %t/empty && echo x > %t/file
// RUN: not lazy-replay %t/file 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: not lazy-replay %t/empty 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not lazy-replay --bogus %t/empty 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not lazy-replay --repeat=abc %t/empty 2>&1 | FileCheck %s --check-prefix=REPEAT
// RUN: not lazy-replay --peak-gbs=0 %t/empty 2>&1 | FileCheck %s --check-prefix=PEAK
// RUN: not lazy-replay 2>&1 | FileCheck %s --check-prefix=NONE
// MISSING: lazy-replay: error: {{.*}}missing: No such file or directory
// FILE: lazy-replay: error: {{.*}}file is not a directory (a device plan is a folder that lazy-run --record=DIR writes)
// EMPTY: lazy-replay: error: {{.*}}empty is not a device plan (no 'lazy-plan 1' header in {{.*}}empty/plan.txt
// OPTION: lazy-replay: error: unknown option '--bogus'
// OPTION-NEXT: usage: lazy-replay PLAN_DIR...
// REPEAT: lazy-replay: error: --repeat takes a count up to 1000000, not 'abc'
// PEAK: lazy-replay: error: --peak-gbs takes a positive number, not '0'
// NONE: lazy-replay: error: no plan folder given
