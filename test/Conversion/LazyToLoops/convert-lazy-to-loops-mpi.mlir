// RUN: lazy-opt %s --convert-lazy-to-loops | FileCheck %s
// RUN: lazy-opt %s --lazy-to-cpu | FileCheck %s --check-prefix=LLVM
// lazy-distribute's items on the upstream mpi dialect: sends and receives
// of the buffer's bytes, an all-reduce of its elements; an input that
// shares bytes with the output is reduced from a copy (MPI reads and
// writes distinct memory). MPIToLLVM then calls OpenMPI's entry points.

// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">
// CHECK-LABEL: func.func @step_rank1(
// CHECK-SAME: %[[ARG:.*]]: memref<16xi8>
// CHECK: %[[C:.*]] = mpi.comm_world : !mpi.comm
// CHECK: mpi.send(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : memref<16xi8>, i32, i32
// CHECK: mpi.recv(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : memref<16xi8>, i32, i32
// CHECK: mpi.allreduce(%{{.*}}, %{{.*}}, MPI_SUM, %{{.*}}) : memref<4xf32>, memref<4xf32>
// The in-place one: a scratch copy first.
// CHECK: memref.copy %{{.*}}, %[[SCRATCH:.*]] : memref<4xi32> to memref<4xi32>
// CHECK: mpi.allreduce(%[[SCRATCH]], %{{.*}}, MPI_MAX, %{{.*}}) : memref<4xi32>, memref<4xi32>
// LLVM-DAG: llvm.mlir.global external @ompi_mpi_comm_world()
// LLVM-DAG: llvm.mlir.global external @ompi_mpi_sum()
// LLVM-DAG: llvm.mlir.global external @ompi_mpi_max()
// LLVM-DAG: llvm.func @MPI_Send(
// LLVM-DAG: llvm.func @MPI_Recv(
// LLVM-DAG: llvm.func @MPI_Allreduce(
// LLVM: llvm.call @MPI_Send
// LLVM: llvm.call @MPI_Recv
// LLVM: llvm.call @MPI_Allreduce
// LLVM: llvm.call @MPI_Allreduce
module attributes {lazy.rank_devices = ["CLANG", "CLANG:1"]} {
  func.func @step_rank1(%a: !lazy.buffer<4xf32, #lazy.device<"CLANG:1">> {lazy.argument = 1 : i64}) -> (!lazy.buffer<4xf32, #lazy.device<"CLANG:1">> {lazy.output = 1 : i64}, !lazy.buffer<4xsi32, #lazy.device<"CLANG:1">> {lazy.output = 2 : i64}) attributes {lazy.rank = 1 : i64} {
    %r = lazy.alloc : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>
    %o = lazy.alloc : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>
    %pool = lazy.alloc : !lazy.buffer<8xsi32, #lazy.device<"CLANG:1">>
    %i = lazy.suballoc %pool offset 0 : !lazy.buffer<8xsi32, #lazy.device<"CLANG:1">> -> !lazy.buffer<4xsi32, #lazy.device<"CLANG:1">>
    %j = lazy.suballoc %pool offset 8 : !lazy.buffer<8xsi32, #lazy.device<"CLANG:1">> -> !lazy.buffer<4xsi32, #lazy.device<"CLANG:1">>
    lazy.send %a to rank 0 tag 0 : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>
    %got = lazy.recv %r from rank 0 tag 1 : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>
    %sum = lazy.all_reduce "sum" %got into %o : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">> -> !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>
    %max = lazy.all_reduce "max" %i into %j : !lazy.buffer<4xsi32, #lazy.device<"CLANG:1">> -> !lazy.buffer<4xsi32, #lazy.device<"CLANG:1">>
    return %sum, %max : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>, !lazy.buffer<4xsi32, #lazy.device<"CLANG:1">>
  }
}
