/* Destructors of the DLPack capsules tvmlite exports, shared by the Cython core and the ctypes backend (which gets
 * them from the small C extension tvmlite._ffi._ctypes._capsule).
 *
 * A destructor runs only for a capsule nobody consumed (a consumer renames it "used_..."), so the tensor is still
 * ours to delete. It may run while an exception is pending (a consumer that failed drops the capsule on its error
 * path), and the deleter can run Python code (a tensor that wraps a numpy buffer releases it), so the pending
 * exception is set aside and restored, as the DLPack spec asks. This has to be C: a Python callback (ctypes) can
 * neither run with an exception pending nor hand one back. */
#ifndef TVMLITE_DLPACK_CAPSULE_H_
#define TVMLITE_DLPACK_CAPSULE_H_
#include <Python.h>
#include "tvmlite/dlpack.h"

static void TVMLiteLegacyCapsuleDestructor(PyObject* capsule) {
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    DLManagedTensor* m = (DLManagedTensor*)PyCapsule_GetPointer(capsule, "dltensor");
    if (m->deleter != NULL) m->deleter(m);
  }
  PyErr_Restore(type, value, traceback);
}

static void TVMLiteVersionedCapsuleDestructor(PyObject* capsule) {
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    DLManagedTensorVersioned* m = (DLManagedTensorVersioned*)PyCapsule_GetPointer(capsule, "dltensor_versioned");
    if (m->deleter != NULL) m->deleter(m);
  }
  PyErr_Restore(type, value, traceback);
}
#endif /* TVMLITE_DLPACK_CAPSULE_H_ */
