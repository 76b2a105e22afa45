/* The ctypes backend's only compiled part: the C destructors of the DLPack capsules it exports (see
 * dlpack_capsule.h for why they cannot be Python callbacks). It exports their addresses as ints. */
#include "dlpack_capsule.h"

static struct PyModuleDef capsule_module = {PyModuleDef_HEAD_INIT, "_capsule",
                                            "Addresses of tvmlite's C DLPack capsule destructors.", -1, NULL};

PyMODINIT_FUNC PyInit__capsule(void) {
  PyObject* m = PyModule_Create(&capsule_module);
  if (m == NULL) return NULL;
  if (PyModule_AddObject(m, "LEGACY_DESTRUCTOR", PyLong_FromVoidPtr((void*)&TVMLiteLegacyCapsuleDestructor)) < 0 ||
      PyModule_AddObject(m, "VERSIONED_DESTRUCTOR", PyLong_FromVoidPtr((void*)&TVMLiteVersionedCapsuleDestructor)) <
          0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
