// pybind11 peer for bench/ffi_overhead.py.
//
// Exposes the same shapes of call that the tvmlite benchmark exercises, written the way an ordinary pybind11
// extension would write them (no tricks that a normal user would not use):
//   nop(*args)          -> None       variadic, like a packed function
//   echo(obj)           -> obj        returns its argument
//   take_object(obj)    -> None       takes one py::object
//   take_array(arr)     -> None       takes a numpy array (py::array)
//   Pair(int, int)                    class with readonly fields first / second
//   IntVector                         std::vector<int64_t> bound with py::bind_vector (supports v[i])
//   make_int_vector(n)  -> IntVector  [0, 1, ..., n-1]
//   call_n(f, n)        -> None       calls the Python callable f() n times from C++
//
// Built on demand by bench/ffi_overhead.py into bench/.build/.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl_bind.h>

#include <cstdint>
#include <vector>

namespace py = pybind11;

using IntVector = std::vector<int64_t>;
PYBIND11_MAKE_OPAQUE(IntVector);

namespace {

struct Pair {
  int64_t first;
  int64_t second;
  Pair(int64_t a, int64_t b) : first(a), second(b) {}
};

}  // namespace

PYBIND11_MODULE(pybind11_peer, m) {
  m.doc() = "pybind11 peer module for the tvmlite FFI overhead benchmark";

  m.def("nop", [](py::args) {});
  m.def("echo", [](py::object obj) { return obj; });
  m.def("take_object", [](py::object) {});
  m.def("take_array", [](py::array) {});

  py::class_<Pair>(m, "Pair")
      .def(py::init<int64_t, int64_t>())
      .def_readonly("first", &Pair::first)
      .def_readonly("second", &Pair::second);

  py::bind_vector<IntVector>(m, "IntVector");
  m.def("make_int_vector", [](int64_t n) {
    IntVector v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
    return v;
  });

  m.def("call_n", [](py::function f, int64_t n) {
    for (int64_t i = 0; i < n; ++i) f();
  });
}
