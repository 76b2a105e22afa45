/* The C entry point of Python callbacks. Calls from C++ nearly always arrive on a thread that already holds the
 * GIL (Python -> C++ -> Python), where PyGILState_Ensure would be pure overhead; take the GIL only when it is not
 * held (a long-running function released it, or a foreign thread calls). */
#ifndef TVMLITE_PY_CALLBACK_H_
#define TVMLITE_PY_CALLBACK_H_
#include <Python.h>
#include "tvmlite/c_api.h"

/* Set once at module init to Cython functions (each requires the GIL):
 * the general callback, which converts arguments and result; */
static int (*tvmlite_py_callback_impl)(void*, const TVMLiteAny*, int32_t, TVMLiteAny*) = NULL;
/* turning the Python exception being raised into the pending tvmlite error (returns -1); */
static int (*tvmlite_py_raise_impl)(void) = NULL;
/* converting a callback's return value (borrowed) into result (returns 0 or -1). */
static int (*tvmlite_py_set_result_impl)(PyObject*, TVMLiteAny*) = NULL;

/* How many calls from Python into C++ this thread is inside while holding the GIL (the Cython core counts them
 * around every call that keeps the GIL and zeroes it around calls that release it). Non-zero means a callback
 * arriving on this thread already holds the GIL, which is much cheaper to know than to ask CPython. */
/* initial-exec: a plain %fs-relative load instead of a __tls_get_addr call on every Python -> C++ call (the
 * few bytes come from the static TLS space glibc reserves for dlopen'ed modules). */
static __thread int tvmlite_gil_call_depth __attribute__((tls_model("initial-exec"))) = 0;

/* Call with the GIL held. Callbacks without arguments (the common "notify" shape) skip argument conversion. */
static inline int TVMLitePyCallbackHeld(void* self, const TVMLiteAny* args, int32_t num_args, TVMLiteAny* result) {
  if (num_args != 0) return tvmlite_py_callback_impl(self, args, num_args, result);
  PyObject* rv = PyObject_CallNoArgs((PyObject*)TVMLITE_OBJECT_CELL(TVMLiteFunctionCell, self)->resource);
  if (rv == NULL) return tvmlite_py_raise_impl();
  int ret = rv == Py_None ? 0 : tvmlite_py_set_result_impl(rv, result);
  Py_DECREF(rv);
  return ret;
}

static int TVMLitePyCallback(void* self, const TVMLiteAny* args, int32_t num_args, TVMLiteAny* result) {
  if (tvmlite_gil_call_depth > 0) return TVMLitePyCallbackHeld(self, args, num_args, result);
  if (!Py_IsInitialized()) {
    TVMLiteErrorSetRaisedFromCStr("RuntimeError", "a Python callback was called after the interpreter exited");
    return -1;
  }
  if (PyGILState_Check()) return TVMLitePyCallbackHeld(self, args, num_args, result);
  PyGILState_STATE state = PyGILState_Ensure();
  int ret = TVMLitePyCallbackHeld(self, args, num_args, result);
  PyGILState_Release(state);
  return ret;
}
#endif
