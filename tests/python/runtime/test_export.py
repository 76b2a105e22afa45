"""export_library / tvmlite.runtime.load_module: one self-contained file, read back in a fresh process."""
import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tvmlite
from tvmlite import relay
from tvmlite.runtime import GraphModule, load_module

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _model(rng):
    x = relay.var("x", shape=(3, 8))
    w = rng.standard_normal((3, 8)).astype("float32")
    i = relay.var("i", shape=(2,), dtype="int64")
    h = relay.nn.relu(relay.multiply(x, relay.const(w)))  # a param, a native node
    out = relay.Tuple([relay.nn.softmax(relay.reshape(h, (4, 6))),  # a view, a reference node
                       relay.take(x, i, axis=0)])  # int64 input
    return relay.Function([x, i], out)


def _outputs(lib, xv, iv):
    gm = GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.run(x=xv, i=iv)
    return [gm.get_output(k).numpy() for k in range(gm.get_num_outputs())]


def test_round_trip_in_a_fresh_process(tmp_path, rng):
    lib = tvmlite.build(_model(rng), target="cpu")
    path = tmp_path / "model.tvmlite"
    lib.export_library(path)
    xv, iv = rng.standard_normal((3, 8)).astype("float32"), np.array([2, 0], "int64")
    np.save(tmp_path / "x.npy", xv)
    np.save(tmp_path / "i.npy", iv)
    want = _outputs(lib, xv, iv)
    script = textwrap.dedent(f"""
        import sys
        sys.modules["onnx"] = None  # importing onnx now fails: loading must not need it
        import numpy as np
        import tvmlite
        lib = tvmlite.runtime.load_module({str(path)!r})
        gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
        gm.run(x=np.load({str(tmp_path / "x.npy")!r}), i=np.load({str(tmp_path / "i.npy")!r}))
        for k in range(gm.get_num_outputs()):
            np.save({str(tmp_path)!r} + f"/out{{k}}.npy", gm.get_output(k).numpy())
        assert "onnx" not in sys.modules or sys.modules["onnx"] is None
    """)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    for k, w in enumerate(want):
        np.testing.assert_array_equal(np.load(tmp_path / f"out{k}.npy"), w)


def test_round_trip_keeps_graph_and_params(tmp_path, rng):
    lib = tvmlite.build(_model(rng), target="cpu")
    lib.export_library(str(tmp_path / "m.bin"))
    back = load_module(tmp_path / "m.bin")
    assert back.get_graph_json() == lib.get_graph_json()
    assert list(back.get_params()) == list(lib.get_params())
    for name, value in lib.get_params().items():
        np.testing.assert_array_equal(back.get_params()[name].numpy(), value.numpy())
    assert (back.planned_bytes, back.intermediate_bytes) == (lib.planned_bytes, lib.intermediate_bytes)


def test_large_params_are_raw_bytes(tmp_path, rng):
    x = relay.var("x", shape=(512, 512))
    w = rng.standard_normal((512, 512)).astype("float32")
    lib = tvmlite.build(relay.Function([x], relay.add(x, relay.const(w))), target="cpu")
    lib.export_library(tmp_path / "big")
    size = os.path.getsize(tmp_path / "big")
    assert w.nbytes < size < w.nbytes + len(lib.get_graph_json()) + 200
    np.testing.assert_array_equal(load_module(tmp_path / "big").get_params()["p0"].numpy(), w)


@pytest.fixture
def exported(tmp_path, rng):
    lib = tvmlite.build(_model(rng), target="cpu")
    path = tmp_path / "m.tvmlite"
    lib.export_library(path)
    return path, path.read_bytes()


def _write(path, data):
    path.write_bytes(data)
    return path


def test_corrupt_files_are_value_errors(tmp_path, exported):
    path, data = exported
    with pytest.raises(ValueError, match="cannot read"):
        load_module(tmp_path / "missing.tvmlite")
    with pytest.raises(ValueError, match="bad magic"):
        load_module(_write(tmp_path / "a", b"GARBAGE" + data))
    with pytest.raises(ValueError, match="bad magic"):
        load_module(_write(tmp_path / "b", b""))
    bad_version = data[:16] + struct.pack("<I", 99) + data[20:]
    with pytest.raises(ValueError, match="version 99"):
        load_module(_write(tmp_path / "c", bad_version))
    for cut in (18, 30, len(data) // 2, len(data) - 20, len(data) - 1):
        with pytest.raises(ValueError, match="truncated|end marker"):
            load_module(_write(tmp_path / f"t{cut}", data[:cut]))
    with pytest.raises(ValueError, match="trailing bytes"):
        load_module(_write(tmp_path / "d", data + b"x"))
    huge_graph = data[:20] + struct.pack("<Q", 1 << 60) + data[28:]
    with pytest.raises(ValueError, match="truncated"):
        load_module(_write(tmp_path / "e", huge_graph))
    (n,) = struct.unpack("<Q", data[20:28])
    graph = data[28:28 + n]
    broken = data[:28] + graph.replace(b'"nodes"', b'"nodez"', 1) + data[28 + n:]
    with pytest.raises(ValueError, match="f is not a valid tvmlite module: graph executor: the graph has no 'nodes'"):
        load_module(_write(tmp_path / "f", broken))  # valid JSON, not a graph: checked at load
    not_json = data[:28] + b"{" + graph[1:].replace(b":", b";", 1) + data[28 + n:]
    with pytest.raises(ValueError, match="malformed"):
        load_module(_write(tmp_path / "g", not_json))


def test_scalar_params_keep_rank_zero(tmp_path):
    from tvmlite.runtime.module import save_module

    x, k = relay.var("x", shape=(3,)), relay.var("k", shape=(), dtype="int64")
    lib = tvmlite.build(relay.Function([x, k], relay.add(x, relay.cast(k, "float32"))), target="cpu")
    save_module(tmp_path / "s", lib.get_graph_json(), {"k": tvmlite.nd.array(np.array(3, "int64"))})  # k: a param
    back = load_module(tmp_path / "s")
    assert back.get_params()["k"].shape == () and int(back.get_params()["k"].numpy()) == 3
    gm = GraphModule(back["default"](tvmlite.cpu(0)))
    gm.run(x=np.zeros(3, "float32"))
    np.testing.assert_array_equal(gm.get_output(0).numpy(), np.full(3, 3, "float32"))


def _v1_bytes(graph_json, params):
    """The version-1 layout (no padding before the raw bytes), as earlier releases wrote it."""
    out = [b"TVMLITE-GRAPHLIB", struct.pack("<I", 1)]
    g = graph_json.encode()
    out += [struct.pack("<Q", len(g)), g, struct.pack("<I", len(params))]
    for name, value in params.items():
        arr = value.numpy()
        for text in (name, str(value.dtype)):
            out += [struct.pack("<I", len(text)), text.encode()]
        out += [struct.pack("<I", arr.ndim), struct.pack(f"<{arr.ndim}q", *arr.shape), struct.pack("<Q", arr.nbytes),
                arr.tobytes()]
    return b"".join(out + [b"TVMLEND\0"])


def test_params_are_aligned_views_and_version_1_still_loads(tmp_path, rng):
    lib = tvmlite.build(_model(rng), target="cpu")
    lib.export_library(tmp_path / "m")
    params = load_module(tmp_path / "m").get_params()
    for value in params.values():
        assert np.from_dlpack(value).ctypes.data % 64 == 0  # the kernels' vector loads stay aligned
    old = load_module(_write(tmp_path / "v1", _v1_bytes(lib.get_graph_json(), lib.get_params())))
    for name, value in lib.get_params().items():
        np.testing.assert_array_equal(old.get_params()[name].numpy(), value.numpy())
    xv, iv = rng.standard_normal((3, 8)).astype("float32"), np.array([1, 2], "int64")
    for got, want in zip(_outputs(old, xv, iv), _outputs(lib, xv, iv)):
        np.testing.assert_array_equal(got, want)


def test_nonzero_padding_is_a_value_error(tmp_path, exported):
    path, data = exported
    (n,) = struct.unpack("<Q", data[20:28])
    first = 28 + n + 4  # the first param's record
    (name_len,) = struct.unpack("<I", data[first:first + 4])
    pos = first + 4 + name_len
    (dtype_len,) = struct.unpack("<I", data[pos:pos + 4])
    pos += 4 + dtype_len
    (ndim,) = struct.unpack("<I", data[pos:pos + 4])
    pos += 4 + 8 * ndim + 8  # past the dims and nbytes: the padding, if this offset is not aligned
    if pos % 64 == 0:
        pytest.fail("the first param needs no padding here; change the model so it does")
    with pytest.raises(ValueError, match="nonzero padding"):
        load_module(_write(tmp_path / "p", data[:pos] + b"\1" + data[pos + 1:]))


def test_export_over_a_loaded_file_leaves_the_loaded_model_intact(tmp_path, rng):
    """export_library replaces the file (a temporary then a rename) and a loaded module owns its bytes."""
    path = tmp_path / "m"
    lib = tvmlite.build(_model(rng), target="cpu")
    lib.export_library(path)
    loaded = load_module(path)
    before = {k: v.numpy().copy() for k, v in loaded.get_params().items()}
    other = tvmlite.build(_model(np.random.default_rng(7)), target="cpu")
    other.export_library(path)
    for k, v in loaded.get_params().items():
        np.testing.assert_array_equal(v.numpy(), before[k])
    assert [p.name for p in tmp_path.iterdir()] == ["m"]  # no temporary left behind


@pytest.mark.parametrize("native_only", [True, False])
def test_relay_is_imported_only_for_reference_nodes(tmp_path, rng, native_only):
    """Loading an all-native model stays quick: tvmlite.relay (the references' home) is imported only when the graph
    has a relay.backend.reference node, which then runs."""
    x = relay.var("x", shape=(4, 6))
    h = relay.nn.relu(x)
    body = h if native_only else relay.sort(h, axis=1)  # sort has no native kernel
    lib = tvmlite.build(relay.Function([x], body), target="cpu")
    path = tmp_path / "m.tvmlite"
    lib.export_library(path)
    script = textwrap.dedent(f"""
        import sys
        import numpy as np
        import tvmlite
        lib = tvmlite.runtime.load_module({str(path)!r})
        gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
        x = np.arange(24, dtype="float32").reshape(4, 6) - 10
        gm.run(x=x)
        want = np.maximum(x, 0) if {native_only} else np.sort(np.maximum(x, 0), axis=1)
        np.testing.assert_array_equal(gm.get_output(0).numpy(), want)
        print("tvmlite.relay" in sys.modules)
    """)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(not native_only)
