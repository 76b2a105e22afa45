"""IR pieces for the fuzzer (fuzz_calls.py): every op's type relation on random types and hostile attrs.

A relation only runs inside InferType, so calling the globals with random values never reaches it. Here each
registered op with an "FTypeRelation" gets random argument types (tensors of random rank, dims (0, 1, huge,
symbolic), dtypes; tuples, functions, sequences) and an attrs object made by the op's own maker from values drawn
for each field's declared type (negative, zero, huge, NaN, empty lists, odd strings): a relation must return a
type or raise a clean error, never crash, hang or overflow (the suite runs this under ASan/UBSan too).
"""
_DTYPES = ["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool"]
_INTS = [0, 1, 2, 3, 4, 7, -1, -2, -7, 2 ** 31, -2 ** 31, 2 ** 40, 2 ** 62, -2 ** 63]
_FLOATS = [0.0, 1.0, -1.0, 0.5, 1e-30, 1e30, float("nan"), float("inf"), -float("inf")]
_STRS = ["", "NCHW", "OIHW", "NHWC", "linear", "nearest", "cubic", "constant", "reflect", "edge", "half_pixel",
         "align_corners", "SAME_UPPER", "VALID", "forward", "bidirectional", "Sigmoid", "Tanh", "Relu", "ij->ji",
         "...ii->...i", "abc,bcd->ad", "\x00", "??", "float32", "int4"]


class IRFuzz:
    """Draws IR values with the fuzzer's seeded rng."""

    def __init__(self, rng):
        import tvmlite.relay  # noqa: F401  (ops, their Python classes and references)
        from tvmlite import ir
        from tvmlite._ffi import core

        self.rng, self.ir, self.core = rng, ir, core
        self._ops = None
        self._sizevars = [ir.SizeVar("n"), ir.SizeVar("m")]

    def ops(self):
        """(name, relation, maker or None, attrs fields) of every op with a type relation (cached)."""
        if self._ops is None:
            import tvmlite

            self._ops = []
            for name in self.ir.list_op_names():
                op = self.ir.Op.get(name)
                rel = op.get_attr("FTypeRelation")
                if rel is None:
                    continue
                head, _, base = name.rpartition(".")
                maker = tvmlite.get_global_func(f"relay.op.{head + '.' if head else ''}_make.{base}", True)
                fields = ()
                if op.attrs_type_key:
                    index = self.core._type_key_to_index(op.attrs_type_key, allow_missing=True)
                    if index is not None:
                        fields = self._fields(index)
                self._ops.append((name, rel, maker, op.num_inputs, fields))
        return self._ops

    def _fields(self, index):
        info = self.core._type_info(index)
        out = []
        for parent in info[1][1:]:  # ancestors after runtime.Object
            out.extend(self.core._type_info(parent)[2])
        out.extend(info[2])
        return [(f[0], f[1]) for f in out]

    def dim(self):
        r = self.rng.random()
        if r < 0.7:
            return self.rng.choice([0, 1, 1, 2, 3, 4, 5, 8])
        if r < 0.85:
            return self.rng.choice(self._sizevars + [self.ir.Any()])
        return self.rng.choice([2 ** 31, 2 ** 40, 2 ** 62, 2 ** 63 - 1])

    def tensor_type(self):
        rank = self.rng.choice([0, 1, 2, 3, 4, 4, 5, 6])
        return self.ir.TensorType([self.dim() for _ in range(rank)], self.rng.choice(_DTYPES))

    def type(self, depth=0):
        r = self.rng.random()
        if r < 0.85 or depth > 1:
            return self.tensor_type()
        if r < 0.92:
            return self.ir.TupleType([self.type(depth + 1) for _ in range(self.rng.randrange(4))])
        if r < 0.96:
            return self.ir.FuncType([self.type(depth + 1) for _ in range(self.rng.randrange(3))], self.type(depth + 1))
        return self.ir.SequenceType(self.type(depth + 1))

    def value_for(self, type_str):
        """A value of a field's declared type, chosen to be hostile (or, now and then, of another type)."""
        rng = self.rng
        if rng.random() < 0.05:
            return rng.choice([None, "x", 1.5, [1, "a"], -1])
        t = type_str.replace("Optional<", "").rstrip(">")
        if t == "int":
            return rng.choice(_INTS)
        if t == "float":
            return rng.choice(_FLOATS)
        if t == "bool":
            return rng.random() < 0.5
        if t == "str":
            return rng.choice(_STRS)
        if t == "DataType":
            return rng.choice(_DTYPES)
        if t.startswith("Array<"):
            inner = t[len("Array<"):]
            n = rng.choice([0, 1, 2, 3, 4, 6, 8])
            if inner.startswith("int") or inner == "Any":
                return [rng.choice(_INTS[:7] if rng.random() < 0.8 else _INTS) for _ in range(n)]
            if inner.startswith("float"):
                return [rng.choice(_FLOATS) for _ in range(n)]
            if inner.startswith("str"):
                return [rng.choice(_STRS) for _ in range(n)]
            return []
        return None

    def relation_call(self):
        """(name, relation, [arg types, attrs]) for one random op, or None when its maker refused the attrs."""
        from tvmlite import relay

        name, rel, maker, num_inputs, fields = self.rng.choice(self.ops())
        n = num_inputs if num_inputs >= 0 and self.rng.random() < 0.9 else self.rng.randrange(5)
        types = [self.type() for _ in range(n)]
        attrs = None
        if maker is not None and fields:
            inputs = [relay.var("v", ty) for ty in types[:max(num_inputs, 0)]]
            inputs += [relay.var("v", self.tensor_type()) for _ in range(max(num_inputs, 0) - len(inputs))]
            values = [self.value_for(ts) for _, ts in fields[:self.rng.randrange(len(fields) + 1)]]
            try:
                attrs = maker(*inputs, *values).attrs
            except (TypeError, ValueError, IndexError, OverflowError):
                return None
        return name, rel, [types, attrs]
