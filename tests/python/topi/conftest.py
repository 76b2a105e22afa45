"""Fixtures of the kernel tests: every ISA path and both thread counts, restored after each test."""
import pytest

import tvmlite


@pytest.fixture(params=["avx512", "avx2", "scalar"])
def isa(request):
    """The ISA path the kernels take during the test (a request above the CPU's runs the CPU's own path; kernels
    pick theirs when made); the one in use before is restored after."""
    set_isa = tvmlite.get_global_func("topi.set_cpu_isa")
    before = tvmlite.get_global_func("topi.cpu_isa")()
    try:
        yield set_isa(request.param)
    finally:
        set_isa(before)


@pytest.fixture(params=[1, 2])
def threads(request):
    """The thread pool's size during the test; the default is restored after."""
    set_threads = tvmlite.get_global_func("runtime.set_num_threads")
    try:
        set_threads(request.param)
        yield request.param
    finally:
        set_threads(0)
