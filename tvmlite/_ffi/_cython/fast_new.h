/* Fast paths for making objects from Python.
 *
 * Make an instance of a class without running __init__: call its tp_new directly.
 * Cython's Base.__new__(Sub) refuses subclasses with a different tp_new (Function, Array...), and going through
 * type.__call__ would run __init__. Objects returned from C++ are built this way. */
#ifndef TVMLITE_FAST_NEW_H_
#define TVMLITE_FAST_NEW_H_
#include <Python.h>

static PyObject* tvmlite_empty_tuple = NULL;

static inline PyObject* TVMLiteNewInstance(PyObject* cls) {
  PyTypeObject* type = (PyTypeObject*)cls;
  if (tvmlite_empty_tuple == NULL) {
    tvmlite_empty_tuple = PyTuple_New(0);
    if (tvmlite_empty_tuple == NULL) return NULL;
  }
  return type->tp_new(type, tvmlite_empty_tuple, NULL);
}

/* __init_handle_by_constructor__(fconstructor, *args) as a METH_FASTCALL method: every object construction from
 * Python goes through it, and Cython's *args would build a tuple each time. The Cython implementation is plugged
 * in at module init. */
static PyObject* (*tvmlite_init_by_ctor_impl)(PyObject* self, PyObject** args, Py_ssize_t nargs) = NULL;

static PyObject* TVMLiteInitByCtorFastcall(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  return tvmlite_init_by_ctor_impl(self, (PyObject**)args, nargs);
}

static PyMethodDef tvmlite_init_by_ctor_def = {
    "__init_handle_by_constructor__", (PyCFunction)(void (*)(void))TVMLiteInitByCtorFastcall, METH_FASTCALL,
    "__init_handle_by_constructor__($self, fconstructor, *args)\n--\n\n"
    "Construct the underlying object by calling fconstructor(*args) (a packed function)."};

/* Replace cls.__init_handle_by_constructor__ with the fastcall version. */
static inline int TVMLiteInstallInitByCtor(PyObject* cls) {
  PyObject* descr = PyDescr_NewMethod((PyTypeObject*)cls, &tvmlite_init_by_ctor_def);
  if (descr == NULL) return -1;
  int ret = PyDict_SetItemString(((PyTypeObject*)cls)->tp_dict, "__init_handle_by_constructor__", descr);
  Py_DECREF(descr);
  PyType_Modified((PyTypeObject*)cls);
  return ret;
}
#endif
