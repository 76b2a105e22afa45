"""Build: the C++ libraries in tvmlite/lib (see LIBRARIES), then the Cython core linked against libtvmlite.so.

libtvmlite.so holds every csrc/**/*.cc except csrc/testing/ (runtime, and the IR, ops and kernels to come); it is
a plain shared library (not a Python extension) so the ctypes backend and exported modules can load the same copy.
libtvmlite_testing.so holds the testing.* functions and types, linked against it; tvmlite.testing loads it. Sources
compile in parallel with the system C++ compiler, each to build_temp/<its path>.o, with the extra flags DIR_FLAGS
gives its directory; objects are reused when nothing they depend on (the source and the headers the compiler listed
in <its path>.o.d, and the flags) changed. The Python extensions compile alongside the libraries and link after them.

TVMLITE_SANITIZE=address,undefined (any -fsanitize= list) builds the sanitized flavour instead: both libraries,
the Cython core and the ctypes backend's _capsule extension with -fsanitize=<list> -O1 -fno-inline -g1, no frame pointer
omission, and UBSan errors fatal. Each flavour keeps its objects in its own directory (recompiled when the flags
change), and a stamp next to libtvmlite.so records the flavour and flags that produced it: switching flavours
relinks the runtime and rebuilds the extensions, never linking stale objects. Unset, it is the normal optimized
build. `bash tests/sanitize.sh` runs the tests with the sanitized one.
"""
import glob
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
CXX = os.environ.get("CXX", "g++")
# -fno-semantic-interposition: calls inside the library bind directly instead of through the PLT.
CXXFLAGS = ["-std=c++17", "-O3", "-fPIC", "-fno-semantic-interposition", "-Wall", "-Wextra", "-Icsrc/include"]
# Extra compile flags by path prefix (a directory or a single file; the longest match wins), after CXXFLAGS. An ISA
# variant of a kernel gets its own file or directory, picked once from the CPU's features, e.g.
#   "csrc/topi/x86/avx512": ["-mavx512f", "-mavx512bw", "-mavx512vl"],
#   "csrc/topi/x86/avx2": ["-mavx2", "-mfma"],
# Such files keep their code in an anonymous namespace behind a plain entry point, and instantiate no inline or
# template code other files use too: the linker could keep their AVX-512 copy of it for the whole library.
DIR_FLAGS = {
    "csrc/topi/x86/avx512": ["-mavx512f", "-mavx512bw", "-mavx512dq", "-mavx512vl", "-mavx2", "-mfma"],
    "csrc/topi/x86/avx2": ["-mavx2", "-mfma"],
    # GCC's register-pressure-aware scheduling before allocation (off on x86 by default): the 1x1 conv tiles 2-8%
    # faster, the others slower (the file says more)
    "csrc/topi/x86/avx2/conv2d_nchwc_1x1.cc": ["-mavx2", "-mfma", "-fschedule-insns", "-fsched-pressure"],
}
SOURCES = sorted(glob.glob("csrc/**/*.cc", recursive=True))
HEADERS = sorted(glob.glob("csrc/**/*.h", recursive=True))  # an object's dependencies until its .d file exists
# Library -> its sources, built in this order; each links against libtvmlite.so when it is not that one.
LIBRARIES = {
    "libtvmlite.so": [s for s in SOURCES if not s.startswith("csrc/testing/")],
    "libtvmlite_testing.so": [s for s in SOURCES if s.startswith("csrc/testing/")],
}

SANITIZE = ",".join(s.strip() for s in os.environ.get("TVMLITE_SANITIZE", "").split(",") if s.strip())
if not re.fullmatch(r"[a-z0-9_,-]*", SANITIZE):
    raise SystemExit(f"TVMLITE_SANITIZE={SANITIZE!r}: expected a -fsanitize= list such as address,undefined")
FLAVOUR = f"sanitize-{SANITIZE.replace(',', '-')}" if SANITIZE else "release"
FLAVOUR_STAMP = ".build-flavour"  # in the lib dir: the flavour (and flags) libtvmlite.so and the extensions had
if SANITIZE:
    # Last on the command line, so -O1 wins over -O3 (ours and Python's own CFLAGS). -fno-inline: once g++ inlines
    # the callers, UBSan no longer checks the arguments of memcpy & co. against their nonnull attributes (a zero-size
    # memcpy from an empty view's null data went unreported); it costs the sanitized suite about 10%. -g1: line
    # tables only, what the reports' stack traces print (file:line); full debug info cost 13-20% more compile time.
    SAN_COMPILE = [f"-fsanitize={SANITIZE}", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer", "-g1",
                   "-O1", "-fno-inline"]
    SAN_LINK = [f"-fsanitize={SANITIZE}"]
else:
    SAN_COMPILE, SAN_LINK = [], []
RUNTIME_FLAGS = " ".join([CXX, *CXXFLAGS, *SAN_COMPILE])


def _compile_flags(src):
    prefixes = [p for p in DIR_FLAGS if src == p or src.startswith(p.rstrip("/") + "/")]
    return [*CXXFLAGS, *(DIR_FLAGS[max(prefixes, key=len)] if prefixes else []), *SAN_COMPILE]


def _newer(target, deps):
    if not os.path.exists(target):
        return True
    t = os.path.getmtime(target)
    return any(not os.path.exists(d) or os.path.getmtime(d) > t for d in deps)


def _object_deps(obj, src):
    """What obj was compiled from: the compiler's own list (-MMD, obj.d), or every csrc header before the first
    build wrote one. A header change then recompiles only the objects that include it."""
    try:
        with open(obj + ".d") as f:
            text = f.read().replace("\\\n", " ")
    except OSError:
        return [src] + HEADERS
    return text.split(":", 1)[1].split() if ":" in text else [src] + HEADERS


class BuildExtWithRuntime(build_ext):
    """build_ext that first builds the C++ libraries next to the package (in place for editable installs)."""

    def finalize_options(self):
        super().finalize_options()
        if SANITIZE:  # the extensions' objects, apart from the release ones
            self.build_temp += "-" + FLAVOUR

    def run(self):
        lib_dir = os.path.join(ROOT if self.inplace else self.build_lib, "tvmlite", "lib")
        stamp = os.path.join(lib_dir, FLAVOUR_STAMP)
        wanted = " ".join([f"{FLAVOUR}:", RUNTIME_FLAGS, *SAN_LINK])
        built = open(stamp).read().strip() if os.path.exists(stamp) else None
        if built != wanted:
            # Built as another flavour or with other flags (or before the stamp): relink and rebuild the extensions,
            # since build_ext only compares timestamps and would keep extensions built with the other flags.
            print(f"build flavour {(built or 'unknown').split(':')[0]} -> {FLAVOUR}: rebuilding", flush=True)
            self.force = True
            if os.path.exists(stamp):
                os.remove(stamp)
        for ext in self.extensions:
            ext.library_dirs.append(lib_dir)
        # The extensions compile while the libraries do (the Cython core takes 18 s of CPU, 9 s sanitized, which ran
        # after them on one core) and link once libtvmlite.so is there: build_extensions makes their link wait.
        with ThreadPoolExecutor(max_workers=1) as libraries:
            self._libraries = libraries.submit(self._build_libraries, lib_dir)
            super().run()
            self._libraries.result()
        with open(stamp, "w") as f:
            f.write(wanted + "\n")

    def build_extensions(self):
        link = self.compiler.link_shared_object

        def link_after_libraries(*args, **kwargs):
            self._libraries.result()  # they link against libtvmlite.so
            return link(*args, **kwargs)

        self.compiler.link_shared_object = link_after_libraries
        super().build_extensions()

    def _build_libraries(self, lib_dir):
        obj_dir = self.build_temp  # per flavour; an object's path is its source's, so names never collide
        os.makedirs(os.path.join(obj_dir, "csrc"), exist_ok=True)
        os.makedirs(lib_dir, exist_ok=True)
        # The flags the objects were compiled with: others (setup.py changed) recompile them all.
        flags_file = os.path.join(obj_dir, "csrc", ".flags")
        all_flags = RUNTIME_FLAGS + "\n" + repr(sorted(DIR_FLAGS.items()))
        same_flags = os.path.exists(flags_file) and open(flags_file).read() == all_flags
        if not same_flags and os.path.exists(flags_file):
            os.remove(flags_file)

        def compile_one(src):
            obj = os.path.join(obj_dir, src + ".o")
            if not same_flags or _newer(obj, _object_deps(obj, src)):
                print(f"compiling {src}", flush=True)
                os.makedirs(os.path.dirname(obj), exist_ok=True)
                subprocess.check_call([CXX, *_compile_flags(src), "-MMD", "-MF", obj + ".d", "-c", src, "-o", obj],
                                      cwd=ROOT)
            return obj

        # The ISA kernels first: they take longest (conv2d_nchwc_1x1.cc alone over a minute), and one started last
        # would run alone at the end while the other cores idle.
        order = sorted(SOURCES, key=lambda s: (not s.startswith("csrc/topi/x86/"), not s.startswith("csrc/topi/"), s))
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            objs = dict(zip(order, pool.map(compile_one, order)))
        with open(flags_file, "w") as f:
            f.write(all_flags)
        for name, sources in LIBRARIES.items():
            lib, lib_objs = os.path.join(lib_dir, name), [objs[s] for s in sources]
            # The others link against libtvmlite.so, found next to them wherever they are installed; its soname makes
            # the loader reuse the copy already loaded (by the core or by path), whatever LD_LIBRARY_PATH holds.
            deps = [] if name == "libtvmlite.so" else ["-L" + lib_dir, "-ltvmlite", "-Wl,-rpath,$ORIGIN"]
            if self.force or _newer(lib, lib_objs):
                subprocess.check_call([CXX, "-shared", *SAN_LINK, f"-Wl,-soname,{name}", "-o", lib, *lib_objs, *deps,
                                       "-lpthread"], cwd=ROOT)


def _extensions():
    from Cython.Build import cythonize

    core = Extension(
        "tvmlite._ffi._cython.core",
        ["tvmlite/_ffi/_cython/core.pyx"],
        include_dirs=["csrc/include", "tvmlite/_ffi/_cython"],
        libraries=["tvmlite"],
        extra_compile_args=["-O3", "-Wno-unused-function", *SAN_COMPILE],
        # The core finds libtvmlite.so relative to itself, wherever the package is installed.
        extra_link_args=["-Wl,-rpath,$ORIGIN/../../lib", *SAN_LINK],
    )
    # The ctypes backend's C DLPack capsule destructors (plain C, no libtvmlite: they only call the tensor's deleter).
    capsule = Extension(
        "tvmlite._ffi._ctypes._capsule",
        ["tvmlite/_ffi/_ctypes/_capsule.c"],
        include_dirs=["csrc/include", "tvmlite/_ffi/_cython"],
        extra_compile_args=["-O2", *SAN_COMPILE],
        extra_link_args=SAN_LINK,
    )
    return [capsule] + cythonize(
        [core],
        # Bounds checks stay on (core.pyx says why); no directive here may contradict the .pyx.
        compiler_directives={"language_level": 3, "embedsignature": True},
        quiet=True,
    )


setup(
    ext_modules=_extensions(),
    cmdclass={"build_ext": BuildExtWithRuntime},
    package_data={"tvmlite": ["lib/*.so", "py.typed", "_ffi/_cython/core.pyi"]},  # the types (PEP 561)
    include_package_data=True,
)
