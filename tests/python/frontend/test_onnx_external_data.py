"""External tensor data is read only from inside the model's folder (tensor_data.py).

A model given as bytes or a ModelProto has no folder: its external data is refused unless from_onnx is given
base_dir, and it is never read relative to the process's working directory (a model once read ./SECRET.txt into a
param that way). A location may not leave the folder: absolute paths, '..' and symlinks out of it are refused.
"""
import os

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import tvmlite

SECRET = b"0123456789abcdef"  # 16 bytes: four float32 values a leak would return


def _external(tensor, location, offset=None, length=None):
    tensor.data_location = TensorProto.EXTERNAL
    tensor.ClearField("raw_data")
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        if value is not None:
            entry = tensor.external_data.add()
            entry.key, entry.value = key, str(value)
    return tensor


def _add_model(location):
    """y = x + w, w (4 float32) stored externally at location."""
    w = _external(numpy_helper.from_array(np.zeros(4, "float32"), "w"), location)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    graph = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g", [x], [y], [w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _constant_model(location):
    """y = Constant(value=<external>)."""
    value = _external(numpy_helper.from_array(np.zeros(4, "float32"), "c"), location)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    graph = helper.make_graph([helper.make_node("Constant", [], ["y"], name="k", value=value)], "g", [], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _if_model(location):
    """y = If(c) then x + w (w a subgraph initializer, external) else x."""
    w = _external(numpy_helper.from_array(np.zeros(4, "float32"), "w"), location)
    out = helper.make_tensor_value_info("o", TensorProto.FLOAT, [4])
    then = helper.make_graph([helper.make_node("Add", ["x", "w"], ["o"])], "then", [], [out], [w])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["o"])], "else", [], [out])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    node = helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then, else_branch=other)
    return helper.make_model(helper.make_graph([node], "g", [c, x], [y]), opset_imports=[helper.make_opsetid("", 17)])


@pytest.fixture
def secret_cwd(tmp_path, monkeypatch):
    """A working directory holding SECRET.txt, and a separate empty model folder."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / "SECRET.txt").write_bytes(SECRET)
    monkeypatch.chdir(cwd)
    folder = tmp_path / "model"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("make, what", [
    (_add_model, "initializer 'w'"),
    (_constant_model, "node 'k' (Constant): attribute 'value'"),
    (_if_model, "subgraph 'then': initializer 'w'"),
])
@pytest.mark.parametrize("as_bytes", [True, False])
def test_bytes_or_proto_never_read_the_working_directory(secret_cwd, make, what, as_bytes):
    model = make("SECRET.txt")
    given = model.SerializeToString() if as_bytes else model
    with pytest.raises(ValueError) as info:
        tvmlite.frontend.from_onnx(given)
    assert isinstance(info.value, tvmlite.TVMLiteError)
    msg = str(info.value)
    assert what in msg and "'SECRET.txt'" in msg and "pass base_dir= to from_onnx" in msg


def test_base_dir_names_the_folder(secret_cwd):
    (secret_cwd / "w.bin").write_bytes(np.arange(4, dtype="float32").tobytes())
    mod, params = tvmlite.frontend.from_onnx(_add_model("w.bin").SerializeToString(), base_dir=secret_cwd)
    np.testing.assert_array_equal(params["w"], np.arange(4, dtype="float32"))
    # and the secret is not there
    with pytest.raises(ValueError, match=r"external data file 'SECRET.txt' does not exist in"):
        tvmlite.frontend.from_onnx(_add_model("SECRET.txt"), base_dir=str(secret_cwd))


def test_offset_and_length_within_the_file(secret_cwd):
    data = np.arange(8, dtype="float32").tobytes()
    (secret_cwd / "w.bin").write_bytes(data)
    model = _add_model("w.bin")
    for key, value in (("offset", 16), ("length", 16)):
        entry = model.graph.initializer[0].external_data.add()
        entry.key, entry.value = key, str(value)
    _, params = tvmlite.frontend.from_onnx(model, base_dir=secret_cwd)
    np.testing.assert_array_equal(params["w"], np.arange(4, 8, dtype="float32"))
    model.graph.initializer[0].external_data[-1].value = str(1 << 40)  # a memory bomb: more than the file holds
    with pytest.raises(ValueError, match=r"^initializer 'w' cannot be read: .*exceeds"):
        tvmlite.frontend.from_onnx(model, base_dir=secret_cwd)


@pytest.mark.parametrize("location", ["../cwd/SECRET.txt", "sub/../../cwd/SECRET.txt", "/etc/passwd", "C:/x"])
def test_locations_that_leave_the_folder(secret_cwd, location):
    (secret_cwd / "sub").mkdir()
    with pytest.raises(ValueError, match=r"^initializer 'w': external data location .* must be a relative path "
                                         r"inside the model's folder$"):
        tvmlite.frontend.from_onnx(_add_model(location), base_dir=secret_cwd)


def test_symlink_out_of_the_folder(secret_cwd):
    os.symlink(secret_cwd.parent / "cwd" / "SECRET.txt", secret_cwd / "link.bin")
    with pytest.raises(ValueError, match=r"^initializer 'w': external data location 'link.bin' resolves outside "
                                         r"the model's folder"):
        tvmlite.frontend.from_onnx(_add_model("link.bin"), base_dir=secret_cwd)


def test_no_location(secret_cwd):
    model = _add_model("w.bin")
    del model.graph.initializer[0].external_data[:]
    with pytest.raises(ValueError, match=r"^initializer 'w': its external data names no file"):
        tvmlite.frontend.from_onnx(model, base_dir=secret_cwd)


def test_path_reads_from_the_model_folder(secret_cwd):
    """A model loaded from its path reads its external data next to it, whatever the working directory."""
    (secret_cwd / "w.bin").write_bytes(np.arange(4, dtype="float32").tobytes())
    path = secret_cwd / "m.onnx"
    path.write_bytes(_add_model("w.bin").SerializeToString())
    _, params = tvmlite.frontend.from_onnx(str(path))
    np.testing.assert_array_equal(params["w"], np.arange(4, dtype="float32"))
    leaky = secret_cwd / "leaky.onnx"
    leaky.write_bytes(_add_model("SECRET.txt").SerializeToString())  # in the cwd, not next to the model
    with pytest.raises(ValueError, match=r"external data file 'SECRET.txt' does not exist in"):
        tvmlite.frontend.from_onnx(leaky)


def test_base_dir_argument_checked(secret_cwd):
    with pytest.raises(TypeError, match=r"^from_onnx: base_dir must be a path, got int$"):
        tvmlite.frontend.from_onnx(_add_model("w.bin"), base_dir=3)
    with pytest.raises(FileNotFoundError, match=r"^from_onnx: base_dir is not a folder: "):
        tvmlite.frontend.from_onnx(_add_model("w.bin"), base_dir=secret_cwd / "nope")


def test_cli_reads_external_data_next_to_the_model(secret_cwd, tmp_path):
    from tvmlite.cli import main

    (secret_cwd / "w.bin").write_bytes(np.arange(4, dtype="float32").tobytes())
    path = secret_cwd / "m.onnx"
    path.write_bytes(_add_model("w.bin").SerializeToString())
    out = tmp_path / "m.tvmlite"
    assert main(["compile", str(path), "-o", str(out)]) == 0
    gm = tvmlite.runtime.GraphModule(tvmlite.runtime.load_module(str(out))["default"](tvmlite.cpu(0)))
    gm.set_input("x", np.ones(4, "float32"))
    gm.run()
    np.testing.assert_array_equal(gm.get_output(0).numpy(), np.arange(4, dtype="float32") + 1)


def test_values_in_two_fields_are_refused():
    """A tensor with raw_data and typed data too (onnx's checker and onnxruntime refuse it): which one holds the
    values would be a guess."""
    model = _add_model("w.bin")
    w = model.graph.initializer[0]
    w.data_location = TensorProto.DEFAULT
    del w.external_data[:]
    w.raw_data = np.zeros(4, "float32").tobytes()
    w.float_data.extend([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match=r"^initializer 'w': its values are in more than one field \(float_data, "
                                         r"raw_data\)$"):
        tvmlite.frontend.from_onnx(model)
