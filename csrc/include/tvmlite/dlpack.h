/*
 * DLPack ABI (v1.1) for tvmlite.
 *
 * DLPack is a standard in-memory tensor ABI shared by numpy, PyTorch, JAX and TVM. Only the layout matters for
 * interoperability; these declarations follow the published specification field for field. The include guard is the
 * reference header's, so whichever of the two is included first wins and the other is skipped.
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#include <stdint.h>
#include <stddef.h>

#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief Version carried by DLManagedTensorVersioned. */
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

/*! \brief Device kinds; tvmlite runs on kDLCPU only but keeps the numbering so foreign tensors are recognised. */
typedef enum {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17,
} DLDeviceType;

/*! \brief A device: kind plus ordinal. */
typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

/*!
 * \brief Scalar type codes. The low-precision float codes (DLPack 1.1) each name one format with a fixed width:
 * 8 bits for kDLFloat8_*, 6 for kDLFloat6_*, 4 for kDLFloat4_e2m1fn (a consumer rejects other widths).
 */
typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U,
  kDLBool = 6U,
  kDLFloat8_e3m4 = 7U,
  kDLFloat8_e4m3 = 8U,
  kDLFloat8_e4m3b11fnuz = 9U,
  kDLFloat8_e4m3fn = 10U,
  kDLFloat8_e4m3fnuz = 11U,
  kDLFloat8_e5m2 = 12U,
  kDLFloat8_e5m2fnuz = 13U,
  kDLFloat8_e8m0fnu = 14U,
  kDLFloat6_e2m3fn = 15U,
  kDLFloat6_e3m2fn = 16U,
  kDLFloat4_e2m1fn = 17U,
} DLDataTypeCode;

/*! \brief Element type: code, bits per lane, lanes. float32 is {kDLFloat, 32, 1}. */
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

/*! \brief A strided view of memory. strides == NULL means compact row-major. Strides count elements. */
typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
} DLTensor;

/*! \brief Pre-1.0 exchange struct: the consumer calls deleter(self) once it no longer needs dl_tensor. */
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)

/*! \brief 1.0 exchange struct: as DLManagedTensor plus a version and flags. */
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

#ifdef __cplusplus
}  // extern "C"
#endif
#endif  // DLPACK_DLPACK_H_
