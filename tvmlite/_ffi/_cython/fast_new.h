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
/* A class whose C++ type declared a constructor (refl::init) is built by one C call: its tp_init reads the
 * constructor from the class attribute _tvmlite_ctor (an MRO lookup through the type attribute cache) and calls it
 * on the positional arguments, with no Python frame and no bound method. The class also gets an __init__ method
 * doing the same, so super().__init__(...) and explicit calls work; it is put in the class dict directly, because
 * assigning __init__ would make Python reset tp_init to its generic slot. The Cython part is plugged in at module
 * init. */
static int (*tvmlite_ctor_init_impl)(PyObject* self, PyObject* ctor, PyObject** args, Py_ssize_t nargs) = NULL;
static PyObject* tvmlite_ctor_attr = NULL;

static inline PyObject* TVMLiteFindCtor(PyObject* self) {
  if (tvmlite_ctor_attr == NULL) {
    tvmlite_ctor_attr = PyUnicode_InternFromString("_tvmlite_ctor");
    if (tvmlite_ctor_attr == NULL) return NULL;
  }
  PyObject* ctor = _PyType_Lookup(Py_TYPE(self), tvmlite_ctor_attr); /* borrowed */
  if (ctor == NULL) {
    PyErr_Format(PyExc_TypeError, "%s has no C++ constructor", Py_TYPE(self)->tp_name);
  }
  return ctor;
}

static int TVMLiteCtorTpInit(PyObject* self, PyObject* args, PyObject* kwds) {
  if (kwds != NULL && PyDict_GET_SIZE(kwds) != 0) {
    PyErr_Format(PyExc_TypeError, "%s() takes positional arguments only", Py_TYPE(self)->tp_name);
    return -1;
  }
  PyObject* ctor = TVMLiteFindCtor(self);
  if (ctor == NULL) return -1;
  return tvmlite_ctor_init_impl(self, ctor, &PyTuple_GET_ITEM(args, 0), PyTuple_GET_SIZE(args));
}

static PyObject* TVMLiteCtorInitMethod(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  PyObject* ctor = TVMLiteFindCtor(self);
  if (ctor == NULL || tvmlite_ctor_init_impl(self, ctor, (PyObject**)args, nargs) != 0) return NULL;
  Py_RETURN_NONE;
}

static PyMethodDef tvmlite_ctor_init_def = {
    "__init__", (PyCFunction)(void (*)(void))TVMLiteCtorInitMethod, METH_FASTCALL,
    "__init__($self, /, *args)\n--\n\nMake the object with its C++ constructor (refl::init)."};

/* cls(*args) as a vectorcall of the class itself: no argument tuple and no tp_init dispatch. CPython calls a class
 * through its tp_vectorcall when set (as for list or range); it is never inherited, so a subclass (maybe with its
 * own __init__) goes through type.__call__ as usual. When the class's tp_init is no longer ours (__init__ was
 * assigned), the generic path runs, so the class behaves exactly as type.__call__ would. */
static PyObject* TVMLiteCtorVectorcall(PyObject* cls, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  PyTypeObject* type = (PyTypeObject*)cls;
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (type->tp_init != TVMLiteCtorTpInit || (kwnames != NULL && PyTuple_GET_SIZE(kwnames) != 0)) {
    PyObject* tuple = PyTuple_New(nargs);
    if (tuple == NULL) return NULL;
    for (Py_ssize_t i = 0; i < nargs; ++i) {
      Py_INCREF(args[i]);
      PyTuple_SET_ITEM(tuple, i, args[i]);
    }
    PyObject* kwargs = NULL;
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) != 0) {
      kwargs = PyDict_New();
      for (Py_ssize_t i = 0; kwargs != NULL && i < PyTuple_GET_SIZE(kwnames); ++i) {
        if (PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) != 0) Py_CLEAR(kwargs);
      }
      if (kwargs == NULL) {
        Py_DECREF(tuple);
        return NULL;
      }
    }
    PyObject* out = PyType_Type.tp_call(cls, tuple, kwargs);
    Py_DECREF(tuple);
    Py_XDECREF(kwargs);
    return out;
  }
  PyObject* self = TVMLiteNewInstance(cls);
  if (self == NULL) return NULL;
  PyObject* ctor = TVMLiteFindCtor(self);
  if (ctor == NULL || tvmlite_ctor_init_impl(self, ctor, (PyObject**)args, nargs) != 0) {
    Py_DECREF(self);
    return NULL;
  }
  return self;
}

/* Give cls the constructor ctor (a Function): cls(*args) becomes ctor(*args). */
static inline int TVMLiteInstallConstructor(PyObject* cls, PyObject* ctor) {
  PyTypeObject* type = (PyTypeObject*)cls;
  if (!(type->tp_flags & Py_TPFLAGS_HEAPTYPE)) {
    PyErr_SetString(PyExc_TypeError, "_install_constructor: only classes defined in Python can take one");
    return -1;
  }
  if (PyObject_SetAttrString(cls, "_tvmlite_ctor", ctor) != 0) return -1;
  PyObject* descr = PyDescr_NewMethod(type, &tvmlite_ctor_init_def);
  if (descr == NULL) return -1;
  int ret = PyDict_SetItemString(type->tp_dict, "__init__", descr);
  Py_DECREF(descr);
  if (ret != 0) return -1;
  type->tp_init = TVMLiteCtorTpInit;
  type->tp_vectorcall = TVMLiteCtorVectorcall;
  PyType_Modified(type);
  return 0;
}
#endif
