"""Importing tvmlite: lazy heavy dependencies, backend selection (each check in a fresh interpreter)."""
import os
import subprocess
import sys
import textwrap

import pytest


def _run(code, **env_overrides):
    env = dict(os.environ)
    env.pop("TVMLITE_FFI", None)
    for key, value in env_overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                          timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("module", ["numpy", "tvmlite.testing"])
def test_import_does_not_import(module):
    """numpy is imported only when first needed; tvmlite.testing (and its library) only when asked for."""
    rc, out, err = _run(f"""
        import sys
        import tvmlite
        print({module!r} in sys.modules)
    """)
    assert rc == 0, err
    assert out.strip() == "False"


def test_plain_ffi_use_does_not_import_numpy():
    rc, out, err = _run("""
        import sys
        import tvmlite
        import tvmlite.testing  # loads the testing.* functions (and must not import numpy either)
        echo = tvmlite.get_global_func("testing.echo")
        assert echo([1, "a", {"k": 2.5}])[2]["k"] == 2.5
        assert tvmlite.get_global_func("testing.apply")(lambda x: x + 1, 1) == 2
        x = tvmlite.nd.empty((2, 3), "float32")
        assert x.shape == (2, 3) and x.dtype == "float32"
        assert echo(memoryview(b"abc")).shape == (3,)
        print("numpy" in sys.modules)
    """)
    assert rc == 0, err
    assert out.strip() == "False"


def test_default_backend_is_cython():
    rc, out, err = _run("""
        import tvmlite
        from tvmlite._ffi import core
        print(core.BACKEND, tvmlite._ffi.core.BACKEND)
    """)
    assert rc == 0, err
    assert out.split() == ["cython", "cython"]


def test_explicit_cython_backend():
    rc, out, err = _run("import tvmlite; print(tvmlite._ffi.core.BACKEND)", TVMLITE_FFI="cython")
    assert rc == 0, err
    assert out.strip() == "cython"


@pytest.mark.parametrize("value", ["bogus", "Cython"])
def test_bad_backend_is_import_error_mentioning_the_variable(value):
    rc, out, err = _run("""
        try:
            import tvmlite
        except ImportError as e:
            print("ImportError:", e)
        else:
            print("imported with backend", tvmlite._ffi.core.BACKEND)
    """, TVMLITE_FFI=value)
    assert rc == 0, err
    assert out.startswith("ImportError:"), out
    assert "TVMLITE_FFI" in out
    assert repr(value) in out


def test_bad_backend_fails_import_loudly():
    rc, out, err = _run("import tvmlite", TVMLITE_FFI="bogus")
    assert rc != 0
    assert "ImportError" in err and "TVMLITE_FFI" in err


def test_lazy_testing_attribute():
    rc, out, err = _run("""
        import tvmlite
        print(tvmlite.testing.Pair(1, 2).first)
    """)
    assert rc == 0, err[-2000:]
    assert out.strip() == "1"


def test_unknown_attribute_of_package_is_attribute_error():
    rc, out, err = _run("""
        import tvmlite
        try:
            tvmlite.no_such_thing
        except AttributeError as e:
            print("AttributeError", e)
    """)
    assert rc == 0, err
    assert "AttributeError" in out and "no_such_thing" in out


def test_public_names():
    rc, out, err = _run("""
        import tvmlite
        missing = [n for n in tvmlite.__all__ if not hasattr(tvmlite, n)]
        print(missing, tvmlite.__version__)
    """)
    assert rc == 0, err
    assert out.split()[0] == "[]"
