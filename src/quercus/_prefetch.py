"""A Numba intrinsic: ask the processor to fetch a row of an array into its caches ahead of
its use (LLVM's ``prefetch``, a hint that changes no result).

The Newton learner's histograms gather the rows of a leaf, which lie far apart in the
binned matrix once the tree is a few levels deep: each row's fetch waits for memory. Asking
for the rows some way ahead lets those waits overlap (about half the time a row of a sparse
leaf, ``bench/histogram_kernels.py``), as LightGBM's histogram loops do.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch_row(typingctx, array, row):
    """Fetch the start of row ``row`` of the C-ordered 2-D ``array`` (of item ``row`` of a 1-D
    one) for reading, into every cache level; ``row`` must lie within the array."""
    if not (
        isinstance(array, types.Array) and array.ndim in (1, 2) and isinstance(row, types.Integer)
    ):
        return None
    signature = types.void(array, row)

    def codegen(context, builder, sig, args):
        array_type = sig.args[0]
        values = context.make_array(array_type)(context, builder, args[0])
        index = context.cast(builder, args[1], sig.args[1], types.intp)
        indices = [index] + [context.get_constant(types.intp, 0)] * (array_type.ndim - 1)
        pointer = cgutils.get_item_pointer(context, builder, array_type, values, indices)
        bytes_pointer = ir.IntType(8).as_pointer()
        int32 = ir.IntType(32)
        function_type = ir.FunctionType(ir.VoidType(), [bytes_pointer, int32, int32, int32])
        prefetch = cgutils.get_or_insert_function(
            builder.module, function_type, "llvm.prefetch.p0i8"
        )
        # read (0), keep in every level (3), data (1)
        builder.call(
            prefetch,
            [builder.bitcast(pointer, bytes_pointer), int32(0), int32(3), int32(1)],
        )
        return context.get_dummy_value()

    return signature, codegen


__all__ = ["prefetch_row"]
