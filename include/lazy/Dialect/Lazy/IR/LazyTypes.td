//===- LazyTypes.td - lazy dialect types ---------------------*- tablegen -*-===//

#ifndef LAZY_DIALECT_LAZY_IR_LAZYTYPES_TD
#define LAZY_DIALECT_LAZY_IR_LAZYTYPES_TD

include "lazy/Dialect/Lazy/IR/LazyAttrs.td"

def Lazy_BufferType : TypeDef<Lazy_Dialect, "Buffer"> {
  let mnemonic = "buffer";
  let summary = "a device buffer of a tinygrad dtype (schedule level)";
  let description = [{
    A flat buffer of `size` elements, the unit the scheduled program
    allocates, launches kernels on and copies between devices. The optional
    device is a `#lazy.device` (absent: the module's default device).

    ```mlir
    !lazy.buffer<16xf32>
    !lazy.buffer<4xsi32, #lazy.device<"CUDA:1">>
    ```
  }];
  let parameters = (ins "int64_t":$size, "::mlir::Type":$elementType,
                        OptionalParameter<"::mlir::lazy::DeviceAttr">:$device);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The buffer's size in bytes (tinygrad's nbytes).
    int64_t getSizeInBytes() const;
  }];
}

#endif // LAZY_DIALECT_LAZY_IR_LAZYTYPES_TD
