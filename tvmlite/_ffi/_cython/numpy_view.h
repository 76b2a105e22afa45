/* Borrow a numpy array as a DLTensor without importing numpy and without the buffer protocol.
 *
 * numpy's array struct (PyArrayObject_fields) and the head of its dtype struct (PyArray_Descr up to type_num) are
 * the same in numpy 1.x and 2.x; this mirrors only those prefixes. The Cython core checks the mirror against
 * __array_interface__ on the first array it sees and never uses this path if they disagree.
 */
#ifndef TVMLITE_NUMPY_VIEW_H_
#define TVMLITE_NUMPY_VIEW_H_
#include <Python.h>
#include "tvmlite/c_api.h"

typedef struct {
  PyObject_HEAD char* data;
  int nd;
  Py_ssize_t* dimensions;
  Py_ssize_t* strides;
  PyObject* base;
  PyObject* descr;
  int flags;
} TVMLiteNumpyArray;

typedef struct {
  PyObject_HEAD PyTypeObject* typeobj;
  char kind;
  char type;
  char byteorder;
  char flags_or_unused;
  int type_num;
} TVMLiteNumpyDescrHead;

#define TVMLITE_NPY_C_CONTIGUOUS 0x0001
#define TVMLITE_NPY_WRITEABLE 0x0400

/* numpy type numbers -> DLPack types, for an LP64 platform (numpy's long is 64-bit). */
static inline int TVMLiteNumpyDType(int type_num, DLDataType* out) {
  static const struct {
    int num;
    uint8_t code;
    uint8_t bits;
  } table[] = {{0, kDLBool, 8},   {1, kDLInt, 8},     {2, kDLUInt, 8},    {3, kDLInt, 16},   {4, kDLUInt, 16},
               {5, kDLInt, 32},   {6, kDLUInt, 32},   {7, kDLInt, 64},    {8, kDLUInt, 64},  {9, kDLInt, 64},
               {10, kDLUInt, 64}, {11, kDLFloat, 32}, {12, kDLFloat, 64}, {23, kDLFloat, 16}};
  if (sizeof(long) != 8) return 0;
  for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); ++i) {
    if (table[i].num == type_num) {
      out->code = table[i].code, out->bits = table[i].bits, out->lanes = 1;
      return 1;
    }
  }
  return 0;
}

/* Fill view->tensor from a C-contiguous, native-endian numpy array of a plain type. Returns 0 (and leaves the
 * caller to take the general path) for anything else. shape points into the array: valid while it lives. */
static inline int TVMLiteNumpyFillView(PyObject* obj, TVMLiteTensorView* view) {
  TVMLiteNumpyArray* a = (TVMLiteNumpyArray*)obj;
  TVMLiteNumpyDescrHead* d = (TVMLiteNumpyDescrHead*)a->descr;
  /* Read-only arrays take the general path, which records the flag on the NDArray. */
  if (!(a->flags & TVMLITE_NPY_C_CONTIGUOUS) || !(a->flags & TVMLITE_NPY_WRITEABLE) || d->byteorder == '>') return 0;
  if (!TVMLiteNumpyDType(d->type_num, &view->tensor.dtype)) return 0;
  view->tensor.data = a->data;
  view->tensor.device.device_type = kDLCPU;
  view->tensor.device.device_id = 0;
  view->tensor.ndim = a->nd;
  view->tensor.shape = (int64_t*)a->dimensions;
  view->tensor.strides = NULL;
  view->tensor.byte_offset = 0;
  view->owner = obj;
  return 1;
}

/* The raw fields the Cython core compares with __array_interface__ before trusting this mirror. */
static inline void* TVMLiteNumpyData(PyObject* obj) { return ((TVMLiteNumpyArray*)obj)->data; }
static inline int TVMLiteNumpyNDim(PyObject* obj) { return ((TVMLiteNumpyArray*)obj)->nd; }
static inline int64_t TVMLiteNumpyDim(PyObject* obj, int i) { return ((TVMLiteNumpyArray*)obj)->dimensions[i]; }
static inline int TVMLiteNumpyTypeNum(PyObject* obj) {
  return ((TVMLiteNumpyDescrHead*)((TVMLiteNumpyArray*)obj)->descr)->type_num;
}
#endif
