//===- LazyAttrs.td - lazy dialect attributes ---------------*- tablegen -*-===//

#ifndef LAZY_DIALECT_LAZY_IR_LAZYATTRS_TD
#define LAZY_DIALECT_LAZY_IR_LAZYATTRS_TD

include "lazy/Dialect/Lazy/IR/LazyBase.td"

class Lazy_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Lazy_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Lazy_DeviceAttr : Lazy_Attr<"Device", "device"> {
  let summary = "the device a tensor lives on";
  let description = [{
    A tinygrad device string: a name in capitals, optionally followed by `:`
    and a device number or a path (`CLANG`, `CUDA:1`, `DISK:/tmp/x`). Used as
    the encoding of a tensor type: `tensor<4xf32, #lazy.device<"CUDA:1">>`.
  }];
  let parameters = (ins StringRefParameter<"tinygrad device string">:$name);
  let assemblyFormat = "`<` $name `>`";
  let genVerifyDecl = 1;
}

def Lazy_ShapeTrackerAttr : Lazy_Attr<"ShapeTracker", "st"> {
  let summary = "a tinygrad ShapeTracker: a stack of strided, masked views";
  let description = [{
    The view a value takes of its base buffer: a list of views, the first
    indexing the base buffer and the last being the outermost, user-visible
    shape. Each view is `(shape):(strides)`, followed by `offset N` when the
    offset is non-zero and `mask [(begin, end), ...]` when some elements are
    padding (they read as 0).

    ```mlir
    #lazy.st<[(4, 4):(4, 1)]>
    #lazy.st<[(2, 2):(0, 2) offset 1 mask [(0, 1), (0, 2)], (4):(1)]>
    ```

    Views are canonical, as tinygrad's `View.create` makes them: size-1
    dimensions have stride 0, a mask covering the whole shape is absent, and
    a view with a zero-sized dimension has zero strides and offset. The
    parser rejects a non-canonical view and names the canonical one.
  }];
  // The views are stored flattened in the context's allocator (see
  // LazyAttrs.cpp for the layout) so that the storage is trivially
  // destructible; getTracker() rebuilds the library object.
  let parameters = (ins ArrayRefParameter<"int64_t", "encoded views">:$encoded);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    AttrBuilder<(ins "const ::lazy::st::ShapeTracker &":$tracker)>
  ];
  let extraClassDeclaration = [{
    /// The ShapeTracker this attribute holds.
    ::lazy::st::ShapeTracker getTracker() const;
    /// The user-visible shape (the last view's shape), read off the
    /// storage without rebuilding the tracker.
    ::llvm::ArrayRef<int64_t> getShape() const;
    /// validIndexRange of the first view (the one indexing the base
    /// buffer), read off the storage.
    std::optional<std::pair<int64_t, int64_t>> getBaseIndexRange() const;
  }];
}

#endif // LAZY_DIALECT_LAZY_IR_LAZYATTRS_TD
