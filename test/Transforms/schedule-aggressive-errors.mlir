// RUN: lazy-opt %s --split-input-file "--lazy-schedule=fusion=aggressive" --verify-diagnostics -o /dev/null
// fusion=aggressive reports what tinygrad's schedule reports for the same
// graph, as tinygrad's rules do (AggressiveFusion.cpp adds no error of its
// own).

// Two output groups that read each other: the reduce's group stores the
// shrunk sum (%12) and reads the external value (%36) computed from it.
// tinygrad reports the cycle; rule 4's reach walk followed it forever
// (a graph of the differential fuzzer, seed 72258: 24 GB, killed) before
// it stopped at a group it had not finished.
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = true, use_copy_kernel = false}} {
  // expected-error @+1 {{cycle detected in graph, prescheduled 2 but only scheduled 0}}
  func.func @cycle_between_groups(%arg0: tensor<512x96xf32>) -> (tensor<512x96xf32>, tensor<116xf32>) {
    %0 = lazy.const 1.0 : tensor<f32>
    %1 = lazy.view %0 as <[(512, 1):(0, 0)]> : tensor<f32> -> tensor<512x1xf32>
    %2 = lazy.reduce_sum %arg0 axes [1] : tensor<512x96xf32> -> tensor<512x1xf32>
    %3 = lazy.cmpne %2, %2 : tensor<512x1xf32> -> tensor<512x1xi1>
    %4 = lazy.cast %3 : tensor<512x1xi1> -> tensor<512x1xf32>
    %5 = lazy.neg %4 : tensor<512x1xf32>
    %6 = lazy.add %1, %5 : tensor<512x1xf32>
    %7 = lazy.recip %6 : tensor<512x1xf32>
    %8 = lazy.mul %6, %7 : tensor<512x1xf32>
    %9 = lazy.view %2 as <[(512):(1)]> : tensor<512x1xf32> -> tensor<512xf32>
    %10 = lazy.view %0 as <[(512):(0)]> : tensor<f32> -> tensor<512xf32>
    %11 = lazy.add %9, %10 : tensor<512xf32>
    %12 = lazy.view %11 as <[(116):(1) offset 279]> : tensor<512xf32> -> tensor<116xf32>
    %13 = lazy.const 0.0 : tensor<f32>
    %14 = lazy.view %13 as <[(116):(0)]> : tensor<f32> -> tensor<116xf32>
    %15 = lazy.cmpne %12, %14 : tensor<116xf32> -> tensor<116xi1>
    %16 = lazy.cmplt %12, %14 : tensor<116xf32> -> tensor<116xi1>
    %17 = lazy.const -1.0 : tensor<f32>
    %18 = lazy.view %17 as <[(116):(0)]> : tensor<f32> -> tensor<116xf32>
    %19 = lazy.view %0 as <[(116):(0)]> : tensor<f32> -> tensor<116xf32>
    %20 = lazy.where %16, %18, %19 : tensor<116xi1>, tensor<116xf32>
    %21 = lazy.where %15, %20, %14 : tensor<116xi1>, tensor<116xf32>
    %22 = lazy.sqrt %12 : tensor<116xf32>
    %23 = lazy.neg %22 : tensor<116xf32>
    %24 = lazy.mul %12, %21 : tensor<116xf32>
    %25 = lazy.add %24, %19 : tensor<116xf32>
    %26 = lazy.mul %25, %25 : tensor<116xf32>
    %27 = lazy.recip %26 : tensor<116xf32>
    %28 = lazy.mul %23, %27 : tensor<116xf32>
    %29 = lazy.mul %21, %28 : tensor<116xf32>
    %30 = lazy.recip %25 : tensor<116xf32>
    %31 = lazy.const 2.0 : tensor<f32>
    %32 = lazy.view %31 as <[(116):(0)]> : tensor<f32> -> tensor<116xf32>
    %33 = lazy.mul %22, %32 : tensor<116xf32>
    %34 = lazy.recip %33 : tensor<116xf32>
    %35 = lazy.mul %30, %34 : tensor<116xf32>
    // expected-note @+1 {{@cycle_between_groups_k1 is on the cycle}}
    %36 = lazy.add %29, %35 {lazy.external} : tensor<116xf32>
    %37 = lazy.view %36 as <[(512, 1):(1, 0) offset -279 mask [(279, 395), (0, 1)]]> : tensor<116xf32> -> tensor<512x1xf32>
    // expected-note @+1 {{@cycle_between_groups_k0 is on the cycle}}
    %38 = lazy.mul %8, %37 : tensor<512x1xf32>
    %39 = lazy.view %38 as <[(512, 96):(1, 0)]> : tensor<512x1xf32> -> tensor<512x96xf32>
    return %39, %12 : tensor<512x96xf32>, tensor<116xf32>
  }
}
