/*!
 * \file abi.cc
 * \brief TVMLiteGetABIConstants: the constants and layouts of tvmlite/c_api.h, as the compiler sees them, for
 * bindings that cannot include the header (the ctypes backend). Add an entry when a binding starts to rely on a fact.
 */
#include <tvmlite/c_api.h>

#include <cstddef>

namespace {

#define TVMLITE_ABI_VALUE(name) {#name, static_cast<int64_t>(name)}
#define TVMLITE_ABI_SIZEOF(type) {"sizeof(" #type ")", static_cast<int64_t>(sizeof(type))}
#define TVMLITE_ABI_OFFSETOF(type, field) \
  {"offsetof(" #type ", " #field ")", static_cast<int64_t>(offsetof(type, field))}

const TVMLiteABIConstant kABIConstants[] = {
    // Type indices.
    TVMLITE_ABI_VALUE(kTVMLiteNone),
    TVMLITE_ABI_VALUE(kTVMLiteInt),
    TVMLITE_ABI_VALUE(kTVMLiteBool),
    TVMLITE_ABI_VALUE(kTVMLiteFloat),
    TVMLITE_ABI_VALUE(kTVMLiteOpaquePtr),
    TVMLITE_ABI_VALUE(kTVMLiteDataType),
    TVMLITE_ABI_VALUE(kTVMLiteDevice),
    TVMLITE_ABI_VALUE(kTVMLiteDLTensorPtr),
    TVMLITE_ABI_VALUE(kTVMLiteRawStr),
    TVMLITE_ABI_VALUE(kTVMLiteByteArrayPtr),
    TVMLITE_ABI_VALUE(kTVMLiteTensorView),
    TVMLITE_ABI_VALUE(kTVMLiteStaticObjectBegin),
    TVMLITE_ABI_VALUE(kTVMLiteObject),
    TVMLITE_ABI_VALUE(kTVMLiteString),
    TVMLITE_ABI_VALUE(kTVMLiteBytes),
    TVMLITE_ABI_VALUE(kTVMLiteError),
    TVMLITE_ABI_VALUE(kTVMLiteFunction),
    TVMLITE_ABI_VALUE(kTVMLiteArray),
    TVMLITE_ABI_VALUE(kTVMLiteMap),
    TVMLITE_ABI_VALUE(kTVMLiteShape),
    TVMLITE_ABI_VALUE(kTVMLiteNDArray),
    TVMLITE_ABI_VALUE(kTVMLiteModule),
    TVMLITE_ABI_VALUE(kTVMLiteDynObjectBegin),
    TVMLITE_ABI_VALUE(kTVMLiteDynFieldSelf),
    // Flags and limits.
    TVMLITE_ABI_VALUE(kTVMLiteFieldWritable),
    TVMLITE_ABI_VALUE(kTVMLiteFieldNoCompare),
    TVMLITE_ABI_VALUE(kTVMLiteFieldDefinition),
    TVMLITE_ABI_VALUE(kTVMLiteFieldOptional),
    TVMLITE_ABI_VALUE(kTVMLiteFunctionLongRunning),
    TVMLITE_ABI_VALUE(kTVMLiteMaxNDim),
    // DLPack.
    TVMLITE_ABI_VALUE(kDLCPU),
    TVMLITE_ABI_VALUE(kDLCUDA),
    TVMLITE_ABI_VALUE(kDLCUDAHost),
    TVMLITE_ABI_VALUE(kDLOpenCL),
    TVMLITE_ABI_VALUE(kDLVulkan),
    TVMLITE_ABI_VALUE(kDLMetal),
    TVMLITE_ABI_VALUE(kDLVPI),
    TVMLITE_ABI_VALUE(kDLROCM),
    TVMLITE_ABI_VALUE(kDLROCMHost),
    TVMLITE_ABI_VALUE(kDLExtDev),
    TVMLITE_ABI_VALUE(kDLCUDAManaged),
    TVMLITE_ABI_VALUE(kDLOneAPI),
    TVMLITE_ABI_VALUE(kDLWebGPU),
    TVMLITE_ABI_VALUE(kDLHexagon),
    TVMLITE_ABI_VALUE(kDLInt),
    TVMLITE_ABI_VALUE(kDLUInt),
    TVMLITE_ABI_VALUE(kDLFloat),
    TVMLITE_ABI_VALUE(kDLOpaqueHandle),
    TVMLITE_ABI_VALUE(kDLBfloat),
    TVMLITE_ABI_VALUE(kDLComplex),
    TVMLITE_ABI_VALUE(kDLBool),
    TVMLITE_ABI_VALUE(DLPACK_FLAG_BITMASK_READ_ONLY),
    // Objects and values.
    TVMLITE_ABI_SIZEOF(TVMLiteObject),
    TVMLITE_ABI_OFFSETOF(TVMLiteObject, ref_count),
    TVMLITE_ABI_OFFSETOF(TVMLiteObject, type_index),
    TVMLITE_ABI_OFFSETOF(TVMLiteObject, reserved),
    TVMLITE_ABI_OFFSETOF(TVMLiteObject, deleter),
    TVMLITE_ABI_SIZEOF(TVMLiteAny),
    TVMLITE_ABI_OFFSETOF(TVMLiteAny, type_index),
    TVMLITE_ABI_OFFSETOF(TVMLiteAny, reserved),
    TVMLITE_ABI_OFFSETOF(TVMLiteAny, v_int64),
    TVMLITE_ABI_SIZEOF(TVMLiteByteArray),
    TVMLITE_ABI_OFFSETOF(TVMLiteByteArray, data),
    TVMLITE_ABI_OFFSETOF(TVMLiteByteArray, size),
    // Cells (offsets from the end of the header).
    TVMLITE_ABI_SIZEOF(TVMLiteStringCell),
    TVMLITE_ABI_OFFSETOF(TVMLiteStringCell, data),
    TVMLITE_ABI_OFFSETOF(TVMLiteStringCell, size),
    TVMLITE_ABI_SIZEOF(TVMLiteSeqCell),
    TVMLITE_ABI_OFFSETOF(TVMLiteSeqCell, data),
    TVMLITE_ABI_OFFSETOF(TVMLiteSeqCell, size),
    TVMLITE_ABI_OFFSETOF(TVMLiteSeqCell, capacity),
    TVMLITE_ABI_SIZEOF(TVMLiteShapeCell),
    TVMLITE_ABI_OFFSETOF(TVMLiteShapeCell, data),
    TVMLITE_ABI_OFFSETOF(TVMLiteShapeCell, size),
    TVMLITE_ABI_SIZEOF(TVMLiteFunctionCell),
    TVMLITE_ABI_OFFSETOF(TVMLiteFunctionCell, safe_call),
    TVMLITE_ABI_OFFSETOF(TVMLiteFunctionCell, flags),
    TVMLITE_ABI_OFFSETOF(TVMLiteFunctionCell, reserved),
    TVMLITE_ABI_OFFSETOF(TVMLiteFunctionCell, resource),
    TVMLITE_ABI_SIZEOF(TVMLiteErrorCell),
    TVMLITE_ABI_OFFSETOF(TVMLiteErrorCell, kind),
    TVMLITE_ABI_OFFSETOF(TVMLiteErrorCell, message),
    TVMLITE_ABI_OFFSETOF(TVMLiteErrorCell, backtrace),
    TVMLITE_ABI_OFFSETOF(TVMLiteErrorCell, payload),
    TVMLITE_ABI_OFFSETOF(TVMLiteErrorCell, payload_deleter),
    TVMLITE_ABI_SIZEOF(TVMLiteNDArrayObject),
    TVMLITE_ABI_OFFSETOF(TVMLiteNDArrayObject, header),
    TVMLITE_ABI_OFFSETOF(TVMLiteNDArrayObject, tensor),
    TVMLITE_ABI_OFFSETOF(TVMLiteNDArrayObject, flags),
    // Reflection.
    TVMLITE_ABI_SIZEOF(TVMLiteFieldInfo),
    TVMLITE_ABI_OFFSETOF(TVMLiteFieldInfo, name),
    TVMLITE_ABI_OFFSETOF(TVMLiteFieldInfo, type_str),
    TVMLITE_ABI_OFFSETOF(TVMLiteFieldInfo, offset),
    TVMLITE_ABI_OFFSETOF(TVMLiteFieldInfo, static_type_index),
    TVMLITE_ABI_OFFSETOF(TVMLiteFieldInfo, flags),
    TVMLITE_ABI_OFFSETOF(TVMLiteFieldInfo, getter),
    TVMLITE_ABI_OFFSETOF(TVMLiteFieldInfo, setter),
    TVMLITE_ABI_SIZEOF(TVMLiteTypeInfo),
    TVMLITE_ABI_OFFSETOF(TVMLiteTypeInfo, type_index),
    TVMLITE_ABI_OFFSETOF(TVMLiteTypeInfo, type_depth),
    TVMLITE_ABI_OFFSETOF(TVMLiteTypeInfo, type_key),
    TVMLITE_ABI_OFFSETOF(TVMLiteTypeInfo, ancestors),
    TVMLITE_ABI_OFFSETOF(TVMLiteTypeInfo, num_fields),
    TVMLITE_ABI_OFFSETOF(TVMLiteTypeInfo, fields),
    TVMLITE_ABI_OFFSETOF(TVMLiteTypeInfo, creator),
    TVMLITE_ABI_SIZEOF(TVMLiteDynFieldSpec),
    TVMLITE_ABI_OFFSETOF(TVMLiteDynFieldSpec, name),
    TVMLITE_ABI_OFFSETOF(TVMLiteDynFieldSpec, type_str),
    TVMLITE_ABI_OFFSETOF(TVMLiteDynFieldSpec, static_type_index),
    TVMLITE_ABI_OFFSETOF(TVMLiteDynFieldSpec, flags),
    // DLPack structs.
    TVMLITE_ABI_SIZEOF(DLDataType),
    TVMLITE_ABI_OFFSETOF(DLDataType, code),
    TVMLITE_ABI_OFFSETOF(DLDataType, bits),
    TVMLITE_ABI_OFFSETOF(DLDataType, lanes),
    TVMLITE_ABI_SIZEOF(DLDevice),
    TVMLITE_ABI_OFFSETOF(DLDevice, device_type),
    TVMLITE_ABI_OFFSETOF(DLDevice, device_id),
    TVMLITE_ABI_SIZEOF(DLTensor),
    TVMLITE_ABI_OFFSETOF(DLTensor, data),
    TVMLITE_ABI_OFFSETOF(DLTensor, device),
    TVMLITE_ABI_OFFSETOF(DLTensor, ndim),
    TVMLITE_ABI_OFFSETOF(DLTensor, dtype),
    TVMLITE_ABI_OFFSETOF(DLTensor, shape),
    TVMLITE_ABI_OFFSETOF(DLTensor, strides),
    TVMLITE_ABI_OFFSETOF(DLTensor, byte_offset),
    TVMLITE_ABI_SIZEOF(DLManagedTensor),
    TVMLITE_ABI_OFFSETOF(DLManagedTensor, dl_tensor),
    TVMLITE_ABI_OFFSETOF(DLManagedTensor, manager_ctx),
    TVMLITE_ABI_OFFSETOF(DLManagedTensor, deleter),
    TVMLITE_ABI_SIZEOF(DLPackVersion),
    TVMLITE_ABI_OFFSETOF(DLPackVersion, major),
    TVMLITE_ABI_OFFSETOF(DLPackVersion, minor),
    TVMLITE_ABI_SIZEOF(DLManagedTensorVersioned),
    TVMLITE_ABI_OFFSETOF(DLManagedTensorVersioned, version),
    TVMLITE_ABI_OFFSETOF(DLManagedTensorVersioned, manager_ctx),
    TVMLITE_ABI_OFFSETOF(DLManagedTensorVersioned, deleter),
    TVMLITE_ABI_OFFSETOF(DLManagedTensorVersioned, flags),
    TVMLITE_ABI_OFFSETOF(DLManagedTensorVersioned, dl_tensor),
};

#undef TVMLITE_ABI_VALUE
#undef TVMLITE_ABI_SIZEOF
#undef TVMLITE_ABI_OFFSETOF

}  // namespace

int TVMLiteGetABIConstants(const TVMLiteABIConstant** out, int32_t* num) {
  *out = kABIConstants;
  *num = static_cast<int32_t>(sizeof(kABIConstants) / sizeof(kABIConstants[0]));
  return 0;
}
