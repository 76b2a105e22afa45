"""Build: the C++ runtime as tvmlite/lib/libtvmlite.so, then the Cython core linked against it.

The runtime is a plain shared library (not a Python extension) so the ctypes backend and exported modules can load
the same copy. Its sources compile in parallel with the system C++ compiler; objects are reused when nothing they
depend on changed.
"""
import glob
import os
import subprocess
import sysconfig
from concurrent.futures import ThreadPoolExecutor

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
CXX = os.environ.get("CXX", "g++")
# -fno-semantic-interposition: calls inside the library bind directly instead of through the PLT.
CXXFLAGS = ["-std=c++17", "-O3", "-fPIC", "-fno-semantic-interposition", "-Wall", "-Wextra", "-Icsrc/include"]
RUNTIME_SOURCES = sorted(glob.glob("csrc/runtime/*.cc"))
HEADERS = sorted(glob.glob("csrc/include/**/*.h", recursive=True) + glob.glob("csrc/runtime/*.h"))


def _newer(target, deps):
    if not os.path.exists(target):
        return True
    t = os.path.getmtime(target)
    return any(os.path.getmtime(d) > t for d in deps)


class BuildExtWithRuntime(build_ext):
    """build_ext that first builds libtvmlite.so next to the package (in place for editable installs)."""

    def run(self):
        lib_dir = os.path.join(ROOT if self.inplace else self.build_lib, "tvmlite", "lib")
        self._build_runtime(lib_dir)
        for ext in self.extensions:
            ext.library_dirs.append(lib_dir)
        super().run()

    def _build_runtime(self, lib_dir):
        obj_dir = os.path.join(self.build_temp, "csrc")
        os.makedirs(obj_dir, exist_ok=True)
        os.makedirs(lib_dir, exist_ok=True)

        def compile_one(src):
            obj = os.path.join(obj_dir, os.path.basename(src) + ".o")
            if _newer(obj, [src] + HEADERS):
                print(f"compiling {src}", flush=True)
                subprocess.check_call([CXX, *CXXFLAGS, "-c", src, "-o", obj], cwd=ROOT)
            return obj

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            objs = list(pool.map(compile_one, RUNTIME_SOURCES))
        lib = os.path.join(lib_dir, "libtvmlite.so")
        if _newer(lib, objs):
            subprocess.check_call([CXX, "-shared", "-o", lib, *objs, "-lpthread"], cwd=ROOT)


def _extensions():
    from Cython.Build import cythonize

    core = Extension(
        "tvmlite._ffi._cython.core",
        ["tvmlite/_ffi/_cython/core.pyx"],
        include_dirs=["csrc/include", "tvmlite/_ffi/_cython"],
        libraries=["tvmlite"],
        extra_compile_args=["-O3", "-Wno-unused-function"],
        # The core finds libtvmlite.so relative to itself, wherever the package is installed.
        extra_link_args=["-Wl,-rpath,$ORIGIN/../../lib"],
    )
    # The ctypes backend's C DLPack capsule destructors (plain C, no libtvmlite: they only call the tensor's deleter).
    capsule = Extension(
        "tvmlite._ffi._ctypes._capsule",
        ["tvmlite/_ffi/_ctypes/_capsule.c"],
        include_dirs=["csrc/include", "tvmlite/_ffi/_cython"],
        extra_compile_args=["-O2"],
    )
    return [capsule] + cythonize(
        [core],
        compiler_directives={"language_level": 3, "boundscheck": False, "wraparound": False,
                             "embedsignature": True},
        quiet=True,
    )


setup(
    ext_modules=_extensions(),
    cmdclass={"build_ext": BuildExtWithRuntime},
    package_data={"tvmlite": ["lib/*.so"]},
    include_package_data=True,
)
