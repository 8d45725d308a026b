"""The learned player's arithmetic in the processor's vector registers, in a fixed order.

numba compiles a loop over a row of weights into vector instructions, but it keeps a sum that
runs across the rows in memory, and it never moves only the non-zero features of a card together.
These kernels are written in LLVM's vector types instead (numba's ``intrinsic``), so that a card's
unit sums stay in registers while its features are added, and its non-zero features are packed
with one instruction. ``LANES`` float32 numbers make a vector; LLVM lowers a vector to what the
processor has (one AVX-512 register, two AVX2 ones, ...).

Every sum is taken in an order fixed here, never left to the compiler: a unit's sum adds the
features in their order, one product and one sum each (no fused multiply-add); a dot product adds
lane by lane, vector after vector, and then its lanes by halves. So a score is the same to the
last bit on every processor, whatever its vectors, and ``tests/strategies/test_learned.py``
computes it again with numpy in the same order.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.extending import intrinsic

#: float32 numbers a vector holds.
LANES = 16
#: Vectors of unit sums a card keeps in registers at once: units are summed BIG_CHUNK at a time, and
#: what is left CHUNK at a time, so a model's units are padded to a multiple of CHUNK.
BIG_VECTORS, SMALL_VECTORS = 6, 2
BIG_CHUNK, CHUNK = LANES * BIG_VECTORS, LANES * SMALL_VECTORS

_F32 = ir.FloatType()
_I64 = ir.IntType(64)
_I32 = ir.IntType(32)
_VECTOR = ir.VectorType(_F32, LANES)
_NUMBERS = ir.VectorType(_I32, LANES)


def _data(context, builder, signature, args, position):
    """The pointer to the first number of the array argument at ``position``."""
    return context.make_array(signature.args[position])(context, builder, args[position]).data


def _load(builder, pointer, at):
    return builder.load(builder.bitcast(builder.gep(pointer, [at]), _VECTOR.as_pointer()), align=4)


def _store(builder, value, pointer, at):
    builder.store(value, builder.bitcast(builder.gep(pointer, [at]), value.type.as_pointer()), align=4)


def _splat(builder, value, kind):
    """A vector of ``kind`` with ``value`` in every lane."""
    one = builder.insert_element(ir.Constant(kind, ir.Undefined), value, ir.Constant(_I32, 0))
    return builder.shuffle_vector(one, ir.Constant(kind, ir.Undefined), ir.Constant(_NUMBERS, [0] * LANES))


def _lanes_sum(builder, vector):
    """The sum of a vector's lanes: its halves added lane by lane until one lane is left."""
    width = LANES
    while width > 1:
        half = width // 2
        low = builder.shuffle_vector(vector, vector, ir.Constant(ir.VectorType(_I32, half), list(range(half))))
        high = builder.shuffle_vector(vector, vector, ir.Constant(ir.VectorType(_I32, half), list(range(half, width))))
        vector = builder.fadd(low, high)
        width = half
    return builder.extract_element(vector, ir.Constant(_I32, 0))


def _for_chunks(builder, units, body):
    """``body(first, vectors)`` for the units ``first .. first + vectors * LANES - 1``, over ``units`` (a
    multiple of CHUNK): chunks of BIG_VECTORS vectors, then of SMALL_VECTORS."""
    big = builder.udiv(units, ir.Constant(_I64, BIG_CHUNK))
    with cgutils.for_range(builder, big) as loop:
        body(builder.mul(loop.index, ir.Constant(_I64, BIG_CHUNK)), BIG_VECTORS)
    done = builder.mul(big, ir.Constant(_I64, BIG_CHUNK))
    small = builder.udiv(builder.sub(units, done), ir.Constant(_I64, CHUNK))
    with cgutils.for_range(builder, small) as loop:
        body(builder.add(done, builder.mul(loop.index, ir.Constant(_I64, CHUNK))), SMALL_VECTORS)


def _feature_list(builder, index_p, value_p, count):
    """(count, index, value) of :func:`_add_features` for the int32 numbers at ``index_p`` and the values at
    ``value_p``."""
    def index_at(i):
        return builder.sext(builder.load(builder.gep(index_p, [i])), _I64)

    return count, index_at, lambda i: builder.load(builder.gep(value_p, [i]))


def _add_features(builder, sums, weights, row_of, offset, chunk, features):
    """For each feature ``i < features``: ``sums[j] += value(i) * weights[row_of(i) + offset + chunk + j *
    LANES]``, ``sums`` a list of vector slots; ``features`` (count, index, value) loops over them."""
    count, index_at, value_at = features
    with cgutils.for_range(builder, count) as item:
        value = _splat(builder, value_at(item.index), _VECTOR)
        row = builder.add(builder.add(row_of(index_at(item.index)), offset), chunk)
        for j, slot in enumerate(sums):
            weight = _load(builder, weights, builder.add(row, ir.Constant(_I64, j * LANES)))
            builder.store(builder.fadd(builder.load(slot), builder.fmul(value, weight)), slot)


@intrinsic
def hidden_score(typingctx, model, hidden, out, units, used, index, value, count, start):
    """sum over the units h < ``used`` (a multiple of CHUNK) of max(0, ``start[h]`` + sum over i <
    ``count`` of ``value[i] * model[hidden + index[i] * units + h]``) * ``model[out + h]``: a card's
    share of the network's score from its non-zero features (``index``, ``value``), its unit sums
    begun at ``start``; ``units`` is the length of a feature's row of hidden weights, of which the
    ``used`` from ``hidden`` on count."""
    sig = types.float32(model, hidden, out, units, used, index, value, count, start)

    def codegen(context, builder, signature, args):
        model_p, index_p, value_p, start_p = (_data(context, builder, signature, args, p) for p in (0, 5, 6, 8))
        hidden_at, out_at, units_n, used_n, count_n = args[1], args[2], args[3], args[4], args[7]
        zero = ir.Constant(_VECTOR, [0.0] * LANES)
        slots = [cgutils.alloca_once(builder, _VECTOR) for _ in range(BIG_VECTORS)]
        total = cgutils.alloca_once_value(builder, zero)
        features = _feature_list(builder, index_p, value_p, count_n)

        def chunk_score(chunk, vectors):
            sums = slots[:vectors]
            for j, slot in enumerate(sums):
                builder.store(_load(builder, start_p, builder.add(chunk, ir.Constant(_I64, j * LANES))), slot)
            _add_features(builder, sums, model_p, lambda f: builder.mul(f, units_n), hidden_at, chunk, features)
            for j, slot in enumerate(sums):
                value = builder.load(slot)
                rectified = builder.select(builder.fcmp_ordered(">", value, zero), value, zero)
                weight = _load(builder, model_p, builder.add(builder.add(out_at, chunk), ir.Constant(_I64, j * LANES)))
                builder.store(builder.fadd(builder.load(total), builder.fmul(rectified, weight)), total)

        _for_chunks(builder, used_n, chunk_score)
        return _lanes_sum(builder, builder.load(total))

    return sig, codegen


@intrinsic
def unit_sums(typingctx, model, hidden, units, used, first, index, value, count, out):
    """``out[h] = model[first + h]`` + sum over i < ``count`` of ``value[i] * model[hidden + index[i] * units
    + h]`` for every unit h < ``used`` (a multiple of CHUNK), the features added in their order; ``units``
    is the length of a feature's row of hidden weights."""
    sig = types.void(model, hidden, units, used, first, index, value, count, out)

    def codegen(context, builder, signature, args):
        model_p, index_p, value_p, out_p = (_data(context, builder, signature, args, p) for p in (0, 5, 6, 8))
        hidden_at, units_n, used_n, first_at, count_n = args[1], args[2], args[3], args[4], args[7]
        slots = [cgutils.alloca_once(builder, _VECTOR) for _ in range(BIG_VECTORS)]
        features = _feature_list(builder, index_p, value_p, count_n)

        def chunk_sums(chunk, vectors):
            sums = slots[:vectors]
            for j, slot in enumerate(sums):
                at = builder.add(builder.add(first_at, chunk), ir.Constant(_I64, j * LANES))
                builder.store(_load(builder, model_p, at), slot)
            _add_features(builder, sums, model_p, lambda f: builder.mul(f, units_n), hidden_at, chunk, features)
            for j, slot in enumerate(sums):
                _store(builder, builder.load(slot), out_p, builder.add(chunk, ir.Constant(_I64, j * LANES)))

        _for_chunks(builder, used_n, chunk_sums)
        return context.get_dummy_value()

    return sig, codegen


def _packed(builder, vector, mask):
    """The lanes of ``vector`` where ``mask`` is set, moved to its front in their order (the lanes after
    them hold nothing that counts)."""
    name = f"llvm.experimental.vector.compress.v{LANES}{'f32' if vector.type.element == _F32 else 'i32'}"
    kind = ir.FunctionType(vector.type, [vector.type, mask.type, vector.type])
    return builder.call(cgutils.get_or_insert_function(builder.module, kind, name),
                        [vector, mask, ir.Constant(vector.type, ir.Undefined)])


@intrinsic
def nonzero_features(typingctx, rows, row_at, keep, keep_at, width, index, value):
    """The features ``f < width`` (a multiple of LANES) of the row ``rows[row_at:]`` that are not zero and
    whose ``keep[keep_at + f]`` is not zero, in their order: their numbers into ``index`` (int32) and their
    values into ``value``; returns how many. Both arrays need LANES numbers of room past the last one."""
    sig = types.int64(rows, row_at, keep, keep_at, width, index, value)

    def codegen(context, builder, signature, args):
        rows_p, keep_p, index_p, value_p = (_data(context, builder, signature, args, p) for p in (0, 2, 5, 6))
        zero = ir.Constant(_VECTOR, [0.0] * LANES)
        count = cgutils.alloca_once_value(builder, ir.Constant(_I64, 0))
        lanes = ir.Constant(_NUMBERS, list(range(LANES)))
        popcount = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(LANES), [ir.IntType(LANES)]), f"llvm.ctpop.i{LANES}")
        blocks = builder.udiv(args[4], ir.Constant(_I64, LANES))
        with cgutils.for_range(builder, blocks) as loop:
            at = builder.mul(loop.index, ir.Constant(_I64, LANES))
            values = _load(builder, rows_p, builder.add(args[1], at))
            kept = _load(builder, keep_p, builder.add(args[3], at))
            mask = builder.and_(builder.fcmp_unordered("!=", values, zero), builder.fcmp_unordered("!=", kept, zero))
            numbers = builder.add(lanes, _splat(builder, builder.trunc(at, _I32), _NUMBERS))
            n = builder.load(count)
            _store(builder, _packed(builder, values, mask), value_p, n)
            _store(builder, _packed(builder, numbers, mask), index_p, n)
            found = builder.call(popcount, [builder.bitcast(mask, ir.IntType(LANES))])
            builder.store(builder.add(n, builder.zext(found, _I64)), count)
        return builder.load(count)

    return sig, codegen


@intrinsic
def dot(typingctx, rows, row_at, weights, weights_at, width):
    """sum over f < ``width`` (a multiple of LANES) of ``rows[row_at + f] * weights[weights_at + f]``:
    products added lane by lane, vector after vector, then the lanes."""
    sig = types.float32(rows, row_at, weights, weights_at, width)

    def codegen(context, builder, signature, args):
        rows_p, weights_p = (_data(context, builder, signature, args, p) for p in (0, 2))
        total = cgutils.alloca_once_value(builder, ir.Constant(_VECTOR, [0.0] * LANES))
        blocks = builder.udiv(args[4], ir.Constant(_I64, LANES))
        with cgutils.for_range(builder, blocks) as loop:
            offset = builder.mul(loop.index, ir.Constant(_I64, LANES))
            product = builder.fmul(_load(builder, rows_p, builder.add(args[1], offset)),
                                   _load(builder, weights_p, builder.add(args[3], offset)))
            builder.store(builder.fadd(builder.load(total), product), total)
        return _lanes_sum(builder, builder.load(total))

    return sig, codegen


def _stack_array(dtype, element, shape):
    """The code of a C-ordered array of ``dtype`` and constant ``shape`` in the calling function's frame."""
    kind = types.Array(dtype, len(shape), "C")
    size = 1
    for n in shape:
        size *= n

    def codegen(context, builder, signature, args):
        data = cgutils.alloca_once(builder, element, size=size)
        array = context.make_array(kind)(context, builder)
        strides, step = [], 4
        for n in reversed(shape):
            strides.insert(0, ir.Constant(_I64, step))
            step *= n
        context.populate_array(array, data=data, shape=[ir.Constant(_I64, n) for n in shape], strides=strides,
                               itemsize=ir.Constant(_I64, 4), meminfo=None)
        return array._getvalue()

    return kind, codegen


def _literals(*sizes):
    if all(isinstance(s, types.IntegerLiteral) for s in sizes):
        return [s.literal_value for s in sizes]
    return None


@intrinsic
def stack_numbers(typingctx, size):
    """A float32 array of ``size`` numbers (a constant) in the calling function's stack frame, for
    scratch work that must not allocate: it lives until that function returns and must not leave it."""
    shape = _literals(size)
    if shape is None:
        return None
    kind, codegen = _stack_array(types.float32, _F32, shape)
    return kind(size), codegen


@intrinsic
def stack_rows(typingctx, rows, width):
    """A float32 array of ``rows`` x ``width`` numbers (constants) in the frame, as :func:`stack_numbers`."""
    shape = _literals(rows, width)
    if shape is None:
        return None
    kind, codegen = _stack_array(types.float32, _F32, shape)
    return kind(rows, width), codegen


@intrinsic
def stack_indices(typingctx, size):
    """An int32 array of ``size`` numbers (a constant) in the frame, as :func:`stack_numbers`."""
    shape = _literals(size)
    if shape is None:
        return None
    kind, codegen = _stack_array(types.int32, _I32, shape)
    return kind(size), codegen
