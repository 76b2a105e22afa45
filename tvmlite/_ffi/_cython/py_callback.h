/* The C entry point of Python callbacks. Calls from C++ nearly always arrive on a thread that already holds the
 * GIL (Python -> C++ -> Python), where PyGILState_Ensure would be pure overhead; take the GIL only when it is not
 * held (a long-running function released it, or a foreign thread calls). */
#ifndef TVMLITE_PY_CALLBACK_H_
#define TVMLITE_PY_CALLBACK_H_
#include <Python.h>
#include "tvmlite/c_api.h"

/* Set once at module init to the Cython implementation (which requires the GIL). */
static int (*tvmlite_py_callback_impl)(void*, const TVMLiteAny*, int32_t, TVMLiteAny*) = NULL;

static int TVMLitePyCallback(void* self, const TVMLiteAny* args, int32_t num_args, TVMLiteAny* result) {
  if (!Py_IsInitialized()) {
    TVMLiteErrorSetRaisedFromCStr("RuntimeError", "a Python callback was called after the interpreter exited");
    return -1;
  }
  if (PyGILState_Check()) return tvmlite_py_callback_impl(self, args, num_args, result);
  PyGILState_STATE state = PyGILState_Ensure();
  int ret = tvmlite_py_callback_impl(self, args, num_args, result);
  PyGILState_Release(state);
  return ret;
}
#endif
