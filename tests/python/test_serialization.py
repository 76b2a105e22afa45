"""JSON save/load and pickling of object graphs (csrc/runtime/json.cc, Object.__reduce_ex__)."""
import base64
import copy
import json
import math
import pickle
import subprocess
import sys

import numpy as np
import pytest

import tvmlite
from tvmlite.runtime import Array, Map, ShapeTuple
from tvmlite.testing import Pair


@tvmlite.register_object("test.PickleNode")
class PickleNode(tvmlite.Object):
    x: int
    y: float = 0.0
    name: str = ""
    child: object = None


@tvmlite.register_object("test.PickleNodeChild")
class PickleNodeChild(PickleNode):
    extra: object = None


def roundtrip(value):
    text = tvmlite.save_json(value)
    json.loads(text)  # always valid JSON
    return tvmlite.load_json(text)


def test_format_has_version_and_nodes():
    doc = json.loads(tvmlite.save_json(Pair(1, [2])))
    assert doc["format"] == "tvmlite-json"
    assert doc["version"] == 1
    assert [n["type"] for n in doc["nodes"]] == ["runtime.Array", "testing.Pair"]  # children before parents
    assert doc["root"] == {"$ref": 1}
    assert tvmlite.save_json(Pair(1, [2])) == tvmlite.save_json(Pair(1, [2]))  # deterministic


@pytest.mark.parametrize("value", [
    None, 0, -1, 2**63 - 1, -2**63, True, False, 1.5, -0.0, 1e300, 5e-324, 1.0, 123456789.0, float("inf"),
    float("-inf"), "", "plain", "quote\" backslash\\ slash/ \b\f\n\r\t \x01 \x7f", "héllo wörld ✓ 😀 \u2028",
    "nul\x00inside", b"", b"\x00\xffbytes",
])
def test_plain_value_roundtrip(value):
    out = roundtrip(value)
    assert type(out) is type(value)
    assert out == value
    if isinstance(value, float):
        assert math.copysign(1.0, out) == math.copysign(1.0, value)


def test_nan_roundtrip():
    assert math.isnan(roundtrip(float("nan")))


def test_float_is_never_read_back_as_int():
    out = roundtrip([1.0, 2.0e20, -3.0])
    assert [type(v) for v in out] == [float, float, float]
    assert list(out) == [1.0, 2.0e20, -3.0]


def test_dtype_and_device_roundtrip():
    for name in ["float32", "int8", "uint1", "bool", "float16x4", "handle", "bfloat16"]:
        dt = roundtrip(tvmlite.DataType(name))
        assert isinstance(dt, tvmlite.DataType) and dt == tvmlite.DataType(name)
    dev = roundtrip(tvmlite.Device(3, 7))
    assert isinstance(dev, tvmlite.Device) and dev == tvmlite.Device(3, 7)


def test_unusual_dtypes_roundtrip():
    # "void" and "boolx4" load from the [code, bits, lanes] form and survive a save/load round trip.
    for code_bits_lanes in ([3, 0, 0], [6, 8, 4]):
        dt = tvmlite.load_json(_doc({"$dtype": code_bits_lanes}))
        assert (dt.type_code, dt.bits, dt.lanes) == tuple(code_bits_lanes)
        assert tvmlite.load_json(tvmlite.save_json(dt)) == dt
        assert roundtrip(dt) == dt


def test_container_roundtrip():
    value = [1, [2, [3, []]], {"a": 1, 2: "b", None: [4.5], 3.5: {}}, ShapeTuple((1, 2, 3)), ShapeTuple(())]
    out = roundtrip(value)
    assert isinstance(out, Array)
    assert tvmlite.structural_equal(out, value)
    assert list(out[2].keys()) == ["a", 2, None, 3.5]  # insertion order kept
    assert isinstance(out[3], ShapeTuple) and tuple(out[3]) == (1, 2, 3)


def test_map_with_object_keys_keeps_identity():
    k = Pair(1, 2)
    out = roundtrip(Pair(k, Map({k: "v"})))
    assert out.second[out.first] == "v"


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int64", "uint8", "bool"])
def test_ndarray_roundtrip(dtype):
    src = (np.arange(24).reshape(2, 3, 4) % 3).astype(dtype)
    out = roundtrip(tvmlite.nd.array(src))
    assert out.dtype == dtype and out.shape == (2, 3, 4)
    np.testing.assert_array_equal(out.numpy(), src)


def test_ndarray_edge_shapes():
    scalar = roundtrip(tvmlite.nd.array(np.array(7.5, "float32")))
    assert scalar.shape == () and scalar.numpy() == 7.5
    empty = roundtrip(tvmlite.nd.array(np.zeros((0, 5), "int32")))
    assert empty.shape == (0, 5)


def test_ndarray_strided_saved_compact():
    view = np.arange(24, dtype="float32").reshape(4, 6)[::2, 1::2]
    out = roundtrip(tvmlite.nd.from_dlpack(view))
    assert out.strides is None
    np.testing.assert_array_equal(out.numpy(), view)


def test_dag_preserved():
    a = Pair(1, 2)
    root = Pair(a, a)
    loaded = roundtrip(root)
    assert loaded.first.same_as(loaded.second)
    assert not loaded.first.same_as(a)
    assert tvmlite.structural_equal(loaded, root)
    doc = json.loads(tvmlite.save_json(root))
    assert len(doc["nodes"]) == 2  # the shared Pair is saved once


def test_dag_preserved_across_containers():
    a = tvmlite.nd.array(np.ones(3, "float32"))
    out = roundtrip({"x": [a, a], "y": Pair(a, 0)})
    assert out["x"][0].same_as(out["x"][1]) and out["x"][0].same_as(out["y"].first)


def test_deep_dag_roundtrip_is_linear():
    p = Pair(0, "leaf")
    for _ in range(100):
        p = Pair(p, p)
    text = tvmlite.save_json(p)
    assert len(json.loads(text)["nodes"]) == 101
    assert tvmlite.structural_equal(tvmlite.load_json(text), p)


def test_bound_variables_roundtrip():
    make_var = tvmlite.get_global_func("testing.Var")
    x = make_var("x", "int")
    fn = tvmlite.get_global_func("testing.Lambda")([x], Pair(x, x))
    out = roundtrip(fn)
    field = tvmlite.get_global_func("testing.get_field")  # no Python class registered for testing.Lambda here
    param, body = field(out, "params")[0], field(out, "body")
    assert param.same_as(body.first) and body.first.same_as(body.second)
    assert field(param, "name") == "x" and field(param, "annotation") == "int"
    assert tvmlite.structural_equal(out, fn) and tvmlite.structural_hash(out) == tvmlite.structural_hash(fn)


def test_python_defined_type_roundtrip():
    node = PickleNodeChild(3, 2.5, "n", child=PickleNode(4), extra=[1, 2])
    out = roundtrip(node)
    assert type(out) is PickleNodeChild
    assert (out.x, out.y, out.name, out.child.x, list(out.extra)) == (3, 2.5, "n", 4, [1, 2])
    assert type(out.child) is PickleNode
    assert tvmlite.structural_equal(out, node)


@pytest.mark.parametrize("make", [
    lambda: Pair(1, Pair("two", [3.0])),
    lambda: Array([1, "a", None, [2]]),
    lambda: Map({"a": [1], 2: Pair(3, 4)}),
    lambda: ShapeTuple((2, 3)),
    lambda: tvmlite.nd.array(np.arange(6, dtype="int16").reshape(2, 3)),
    lambda: PickleNode(1, 2.5, "p", child=Pair(1, 2)),
], ids=["pair", "array", "map", "shape", "ndarray", "python_type"])
def test_pickle(make):
    obj = make()
    for protocol in (2, pickle.HIGHEST_PROTOCOL):
        out = pickle.loads(pickle.dumps(obj, protocol=protocol))
        assert type(out) is type(obj)
        assert not out.same_as(obj)
        assert tvmlite.structural_equal(out, obj)


def test_pickle_keeps_sharing_and_deepcopy():
    a = PickleNode(1)
    out = pickle.loads(pickle.dumps(Pair(a, a)))
    assert out.first.same_as(out.second)
    dup = copy.deepcopy(Pair(a, [a]))
    assert dup.first.same_as(dup.second[0]) and not dup.first.same_as(a)


def test_pickle_in_a_fresh_process():
    data = pickle.dumps(Pair(Pair(1, "x"), [2.5]))
    code = "import pickle, sys; p = pickle.loads(sys.stdin.buffer.read()); print(p.first.second, p.second[0])"
    out = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, check=True).stdout
    assert out.decode().split() == ["x", "2.5"]


def test_function_is_not_serializable():
    f = tvmlite.get_global_func("testing.nop")
    with pytest.raises(TypeError, match="runtime.Function are not serializable"):
        tvmlite.save_json(Pair(1, f))
    with pytest.raises(TypeError, match="not serializable"):
        tvmlite.save_json(f)
    with pytest.raises(TypeError, match="not serializable"):
        pickle.dumps(Pair(f, 1))


def test_cycle_is_an_error():
    node = PickleNode(1)
    node.child = node
    try:
        with pytest.raises(ValueError, match="cycle"):
            tvmlite.save_json(node)
    finally:
        node.child = None


@pytest.mark.parametrize("raw, valid", [
    (b"ok \xc3\xa9 \xf0\x9f\x98\x80", True),
    (b"\xff", False),
    (b"\xc0\x80", False),          # overlong NUL
    (b"\xed\xa0\x80", False),      # an encoded surrogate
    (b"\xf4\x90\x80\x80", False),  # above U+10FFFF
    (b"\xe2\x82", False),          # truncated
])
def test_string_that_is_not_utf8_roundtrips_as_base64(raw, valid):
    # Only C++ can make such a String; build one through LoadJSON and save it again (it stays inside a Pair).
    text = _doc({"$ref": 0}, nodes=[{"type": "testing.Pair",
                                     "fields": {"first": {"$str_b64": base64.b64encode(raw).decode()}}}])
    saved = tvmlite.save_json(tvmlite.load_json(text))
    first = json.loads(saved)["nodes"][0]["fields"]["first"]
    if valid:
        assert first == raw.decode()
    else:
        assert first == {"$str_b64": base64.b64encode(raw).decode()}


def test_unicode_escapes_are_decoded():
    text = tvmlite.save_json("x").replace('"x"', r'"\u00e9\ud83d\ude00\n\/\"\u0000"')
    assert tvmlite.load_json(text) == 'é😀\n/"\x00'


def _doc(root, nodes=(), version=1):
    return json.dumps({"format": "tvmlite-json", "version": version, "root": root, "nodes": list(nodes)})


@pytest.mark.parametrize("text, message", [
    ("", "unexpected end"),
    ("{", "expected a member name"),
    ("[1, 2]", "must be a JSON object"),
    ('{"format": "tvmlite-json"} x', "unexpected text"),
    ('{"format": "other", "version": 1, "root": null, "nodes": []}', "not a tvmlite JSON"),
    (_doc(None, version=99), "version 99 is not supported"),
    ('{"format": "tvmlite-json", "version": 1, "nodes": []}', "missing \"root\""),
    (_doc(1, nodes=[{"type": "no.such.Type", "fields": {}}]), "unknown type key 'no.such.Type'"),
    (_doc({"$ref": 0}), "bad reference"),
    (_doc(None, nodes=[{"type": "runtime.Array", "items": [{"$ref": 0}]}]), "bad reference"),
    (_doc({"$what": 1}), "bad tagged value"),
    (_doc({"$float": "huge"}), "bad tagged value"),
    (_doc({"$bytes": "a"}), "base64"),
    (_doc({"$bytes": "@@@@"}), "base64"),
    (_doc({"$dtype": "float-ish"}), "unknown data type"),
    (_doc([1]), "not a value"),
    (_doc(None, nodes=[{"type": "runtime.NDArray", "dtype": "float32", "shape": [2], "data": "AAAA"}]),
     "NDArray data has 3 bytes"),
    (_doc(None, nodes=[{"type": "runtime.NDArray", "dtype": "int8", "shape": [2**62, 8], "data": ""}]),
     "bad NDArray shape"),
    (_doc(None, nodes=[{"type": "testing.Pair", "fields": {"third": 1}}]), "has no field 'third'"),
    (_doc(None, nodes=[{"type": "runtime.Function"}]), "cannot be created"),
    ('{"format": "tvmlite-json", "version": 1, "root": 99999999999999999999, "nodes": []}', "out of range"),
    ('{"format": "tvmlite-json", "version": 1, "root": 01, "nodes": []}', "expected"),
    ('{"format": "tvmlite-json", "version": 1, "root": "\x01", "nodes": []}', "control character"),
    ('{"format": "tvmlite-json", "version": 1, "root": "\\ud800", "nodes": []}', "lone high surrogate"),
    ('{"format": "tvmlite-json", "version": 1, "root": "\\q", "nodes": []}', "bad escape"),
    ('{"format": "tvmlite-json", "version": 1, "root": "abc', "unterminated string"),
    ("[" * 100000, "nested too deeply"),
    ("nul", "unexpected character"),
])
def test_malformed_json_is_a_value_error(text, message):
    with pytest.raises(ValueError, match=message):
        tvmlite.load_json(text)


def test_load_json_wants_str():
    with pytest.raises(TypeError):
        tvmlite.load_json(b"{}")


# ----------------------------------------------------------------------------------------------------------------
# Fields are set with the checks of construction; missing ones take their declared default
# ----------------------------------------------------------------------------------------------------------------

def _node_doc(fields, key="test.PickleNode"):
    return _doc({"$ref": 0}, nodes=[{"type": key, "fields": fields}])


@pytest.mark.parametrize("fields, message", [
    ({"x": "a"}, r"node 0 \(test.PickleNode\): test.PickleNode.x expects int but got str"),
    ({"x": 1.5}, "test.PickleNode.x expects int but got float"),
    ({"x": True}, "test.PickleNode.x expects int but got bool"),
    ({"x": 1, "y": "1.5"}, "test.PickleNode.y expects float but got str"),
    ({"x": 1, "name": 3}, "test.PickleNode.name expects str but got int"),
])
def test_load_json_checks_field_types(fields, message):
    with pytest.raises(TypeError, match=message):
        tvmlite.load_json(_node_doc(fields))


def test_load_json_checks_object_field_types():
    # testing.Lambda.params is an Array: read-only fields are filled at load too, but with their type checked.
    with pytest.raises(TypeError, match="testing.Lambda.params expects Array<Any> but got int"):
        tvmlite.load_json(_doc(None, nodes=[{"type": "testing.Lambda", "fields": {"params": 5}}]))


def test_load_json_missing_fields_take_declared_defaults():
    out = tvmlite.load_json(_node_doc({"x": 7}))
    assert (out.x, out.y, out.name, out.child) == (7, 0.0, "", None)
    child = tvmlite.load_json(_node_doc({"x": 1, "extra": "e"}, key="test.PickleNodeChild"))
    assert (child.x, child.y, child.name, child.extra) == (1, 0.0, "", "e")  # inherited defaults too


@pytest.mark.parametrize("doc", [
    _node_doc({"y": 2.0}),
    _doc({"$ref": 0}, nodes=[{"type": "test.PickleNode"}]),  # no "fields" at all
])
def test_load_json_missing_required_field_is_value_error(doc):
    with pytest.raises(ValueError, match=r"node 0 \(test.PickleNode\): missing field 'x', which has no default"):
        tvmlite.load_json(doc)


def test_load_json_defaults_follow_the_latest_registration():
    def define(default):
        @tvmlite.register_object("test.RebindDefault")
        class RebindDefault(tvmlite.Object):
            x: int
            tag: str = default
        return RebindDefault

    define("old")
    doc = _node_doc({"x": 1}, key="test.RebindDefault")
    assert tvmlite.load_json(doc).tag == "old"
    cls = define("new")  # the same fields: the class is rebound, its defaults replaced
    out = tvmlite.load_json(doc)
    assert type(out) is cls and out.tag == "new" == cls(1).tag


def test_field_default_of_the_wrong_type_is_an_error_at_registration():
    with pytest.raises(TypeError, match=r"register_object\('test.BadDefault'\): bad field default: "
                                        r"test.BadDefault.x expects int but its default is str"):
        @tvmlite.register_object("test.BadDefault")
        class BadDefault(tvmlite.Object):
            x: int = "one"


def test_load_json_field_given_twice_is_value_error():
    text = _node_doc({"x": 1}).replace('"x": 1', '"x": 1, "x": 2')
    with pytest.raises(ValueError, match="field 'x' is given twice"):
        tvmlite.load_json(text)


# ----------------------------------------------------------------------------------------------------------------
# Tampered documents: every one is a clear error (a local mutation sweep found these shapes; see also the fuzz test)
# ----------------------------------------------------------------------------------------------------------------

def _nd(dtype="int8", shape=(2,), data="AAA="):
    return {"type": "runtime.NDArray", "dtype": dtype, "shape": list(shape), "data": data}


@pytest.mark.parametrize("text, error, message", [
    # values that cannot be what save_json writes
    (_doc({"$device": [-5, 0]}), ValueError, "bad device: Device: -5 is not a DLPack device type"),
    (_doc({"$device": [1, -1]}), ValueError, "bad device: .*device id must be in"),
    (_doc({"$device": [1, 2**40]}), ValueError, "bad device"),
    (_doc({"$device": [1]}), ValueError, "bad tagged value"),
    (_doc({"$device": [1.0, 0]}), ValueError, "a device must hold integers"),
    (_doc({"$dtype": [99, 8, 1]}), ValueError, "bad data type"),
    (_doc({"$dtype": [0, 0, 1]}), ValueError, "bad data type"),
    (_doc({"$dtype": [2, 32, 0]}), ValueError, "bad data type"),
    (_doc({"$dtype": [2, 32]}), ValueError, "bad data type"),
    # references out of range, forward (a cycle needs one), negative, of the wrong kind
    (_doc({"$ref": -1}), ValueError, "bad reference"),
    (_doc({"$ref": 2**63 - 1}), ValueError, "bad reference"),
    (_doc({"$ref": 0}, nodes=[{"type": "testing.Pair", "fields": {"first": {"$ref": 0}}}]), ValueError,
     r"node 0 \(testing.Pair\): bad reference"),
    (_doc({"$ref": 1}, nodes=[{"type": "runtime.Array", "items": [{"$ref": 1}]}, {"type": "runtime.Array",
                                                                                 "items": [{"$ref": 0}]}]),
     ValueError, r"node 0 \(runtime.Array\): bad reference"),
    (_doc({"$ref": "0"}, nodes=[{"type": "runtime.Array", "items": []}]), ValueError, "bad reference"),
    (_doc({"$ref": 0.0}, nodes=[{"type": "runtime.Array", "items": []}]), ValueError, "bad reference"),
    # nodes of the wrong shape
    (_doc(None, nodes=[5]), ValueError, r"node 0 \(\?\): a node must be a JSON object"),
    (_doc(None, nodes=[{"type": 5}]), ValueError, '"type" must be a string'),
    (_doc(None, nodes=[{"type": "runtime.Array"}]), ValueError, 'missing "items"'),
    (_doc(None, nodes=[{"type": "runtime.Map", "items": [[1]]}]), ValueError, r"\[key, value\] pairs"),
    (_doc(None, nodes=[{"type": "runtime.ShapeTuple", "dims": [1.5]}]), ValueError, "dims must hold integers"),
    (_doc(None, nodes=[{"type": "runtime.String"}]), ValueError, "strings and bytes are values"),
    (_doc(None, nodes=[{"type": "test.PickleNode", "fields": []}]), ValueError, '"fields" must be an object'),
    (_doc(None, nodes=[{"type": "test.PickleNode", "fields": {"x": 1, "child": {"$ref": 0}}}]), ValueError,
     "bad reference"),
    (_doc(None, nodes=[{"type": "runtime.Array", "items": []},
                       {"type": "test.PickleNode", "fields": {"x": {"$ref": 0}}}]), TypeError,
     r"node 1 \(test.PickleNode\): test.PickleNode.x expects int but got runtime.Array"),
    # absurd NDArrays: never an allocation attempt
    (_doc(None, nodes=[_nd(shape=(-2,))]), ValueError, "bad NDArray shape"),
    (_doc(None, nodes=[_nd(shape=(-2, -1))]), ValueError, "bad NDArray shape"),
    (_doc(None, nodes=[_nd(shape=(2**62, 2**62, 0), data="")]), ValueError, "bad NDArray shape"),
    (_doc(None, nodes=[_nd(dtype="float64", shape=(2**61,), data="")]), ValueError, "NDArray data has 0 bytes"),
    (_doc(None, nodes=[_nd(shape=(1,) * 40, data="AA==")]), ValueError, "at most 32 dimensions, got 40"),
    (_doc(None, nodes=[_nd(shape=(1,) * 100000, data="AA==")]), ValueError, "at most 32 dimensions"),
    (_doc(None, nodes=[_nd(dtype="void", shape=(2,), data="")]), ValueError, "cannot allocate an array of void"),
    (_doc(None, nodes=[_nd(dtype=[99, 8, 1])]), ValueError, "bad data type"),
    (_doc(None, nodes=[_nd(shape=(2.0,))]), ValueError, "shape must hold integers"),
    # numbers and text out of range
    (_doc(None, version=2**63 - 1), ValueError, "version 9223372036854775807 is not supported"),
    ('{"format": "tvmlite-json", "version": 1e400, "root": null, "nodes": []}', ValueError, "out of range"),
    ('{"format": "tvmlite-json", "version": 1, "root": -99999999999999999999, "nodes": []}', ValueError,
     "out of range"),
    (_doc({"$str_b64": "A"}), ValueError, "base64"),
    ('{"format": "tvmlite-json", "version": 1, "root": ' + "{\"$ref\": " * 70 + "0" + "}" * 70 + ', "nodes": []}',
     ValueError, "nested too deeply"),
])
def test_tampered_json_is_a_clear_error(text, error, message):
    with pytest.raises(error, match=message):
        tvmlite.load_json(text)


@pytest.mark.parametrize("make", [
    lambda: Pair(1, [2, "a", {"k": 3.5}]),
    lambda: PickleNode(1, 2.0, "a", PickleNodeChild(2, extra=tvmlite.Device(2, 0))),
    lambda: tvmlite.nd.array(np.arange(6, dtype="float32").reshape(2, 3)),
    lambda: {"d": tvmlite.DataType("int8x4"), 1: ShapeTuple((1, 2))},
])
def test_every_truncation_is_a_clear_error(make):
    text = tvmlite.save_json(make())
    for end in range(len(text)):
        with pytest.raises(ValueError, match="LoadJSON: "):
            tvmlite.load_json(text[:end])
