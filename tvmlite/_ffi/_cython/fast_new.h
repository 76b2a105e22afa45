/* Make an instance of a class without running __init__: call its tp_new directly.
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
#endif
