// RUN: lazy-lsp-server -lit-test < %s | FileCheck -strict-whitespace %s
// The language server speaks LSP: initialize, then a document with a lazy
// op its verifier rejects; the server publishes the verifier's diagnostic
// at the op's line.
{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"processId":123,"rootPath":"lazy","capabilities":{},"trace":"off"}}
// CHECK: "id": 0,
// CHECK: "result": {
// CHECK: "capabilities": {
// -----
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{
  "uri":"test:///graph.mlir",
  "languageId":"mlir",
  "version":1,
  "text":"func.func @g(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {\n  %s = lazy.reduce_sum %x axes [3] : tensor<4x8xf32> -> tensor<4x1xf32>\n  return %s : tensor<4x1xf32>\n}"
}}}
// CHECK: "method": "textDocument/publishDiagnostics",
// CHECK-NEXT: "params": {
// CHECK-NEXT:   "diagnostics": [
// CHECK-NEXT:     {
// CHECK-NEXT:       "category": "{{.*}} Error",
// CHECK-NEXT:       "message": "'lazy.reduce_sum' op axis 3 is out of range for rank 2",
// CHECK-NEXT:       "range": {
// CHECK-NEXT:         "end": {
// CHECK-NEXT:           "character": 22,
// CHECK-NEXT:           "line": 1
// CHECK-NEXT:         },
// CHECK-NEXT:         "start": {
// CHECK-NEXT:           "character": 7,
// CHECK-NEXT:           "line": 1
// CHECK-NEXT:         }
// CHECK-NEXT:       },
// CHECK: "severity": 1,
// CHECK: "uri": "test:///graph.mlir",
// CHECK-NEXT: "version": 1
// -----
{"jsonrpc":"2.0","id":3,"method":"shutdown"}
// -----
{"jsonrpc":"2.0","method":"exit"}
