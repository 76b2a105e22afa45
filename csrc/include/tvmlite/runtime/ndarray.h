/*!
 * \file tvmlite/runtime/ndarray.h
 * \brief NDArray: a ref-counted DLTensor. Owns 64-byte aligned storage, or wraps someone else's (DLPack, numpy).
 */
#ifndef TVMLITE_RUNTIME_NDARRAY_H_
#define TVMLITE_RUNTIME_NDARRAY_H_

#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/shape.h>

#include <vector>

namespace tvmlite {
namespace runtime {

/*! \brief Alignment of storage that tvmlite allocates: one cache line, enough for AVX-512 loads. */
constexpr size_t kAllocAlignment = 64;
/*! \brief Most dimensions an NDArray may have (Python's buffer and nd.empty paths share the limit). */
constexpr int64_t kMaxNDim = kTVMLiteMaxNDim;

class NDArrayObj : public Object {
 public:
  DLTensor tensor;     // must directly follow the header
  uint64_t flags = 0;  // DLPack flag bits: DLPACK_FLAG_BITMASK_READ_ONLY

  NDArrayObj() = default;
  bool read_only() const { return flags & DLPACK_FLAG_BITMASK_READ_ONLY; }
  ~NDArrayObj();

  static constexpr const char* _type_key = "runtime.NDArray";
  static constexpr int32_t _type_index = kTVMLiteNDArray;
  TVMLITE_DECLARE_FINAL_OBJECT_INFO(NDArrayObj, Object);

 private:
  friend class NDArray;
  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  void* manager_ctx_ = nullptr;               // external owner of the data, if any
  void (*manager_deleter_)(void*) = nullptr;  // releases manager_ctx_
  bool owns_data_ = false;                    // data came from our aligned allocator
};

class NDArray : public ObjectRef {
 public:
  TVMLITE_DEFINE_OBJECT_REF_METHODS(NDArray, ObjectRef, NDArrayObj);

  /*! \brief Uninitialised compact array. */
  static NDArray Empty(const std::vector<int64_t>& shape, DLDataType dtype, DLDevice device = {kDLCPU, 0});
  /*! \brief Wrap memory owned elsewhere; deleter(ctx) runs when the array dies (tensor is copied, data is not). */
  static NDArray FromExternal(const DLTensor& tensor, void* ctx, void (*deleter)(void*), uint64_t flags = 0);
  static NDArray FromDLPack(DLManagedTensor* managed);
  static NDArray FromDLPackVersioned(DLManagedTensorVersioned* managed);
  /*! \brief Export sharing memory; the export keeps this array alive until its deleter runs. */
  DLManagedTensor* ToDLPack() const;
  DLManagedTensorVersioned* ToDLPackVersioned() const;

  DLTensor* mutable_tensor() const { return &const_cast<NDArrayObj*>(get())->tensor; }
  bool read_only() const { return get()->read_only(); }
  std::vector<int64_t> Shape() const { return get()->shape_; }
  DataType dtype() const { return get()->tensor.dtype; }
  int64_t NumElements() const;
  size_t NBytes() const { return static_cast<size_t>(NumElements()) * DataType(get()->tensor.dtype).bytes(); }
  bool IsContiguous() const;
  /*!
   * \brief A view of this contiguous array's bytes as another shape and dtype of the same byte size (a float8 array
   * seen as uint8, for one); it shares the memory, keeps this array alive and inherits its read-only flag.
   */
  NDArray CreateView(const std::vector<int64_t>& shape, DLDataType dtype) const;
  /*! \brief Copy the bytes of a contiguous array of the same shape and dtype into this one. */
  void CopyFrom(const NDArray& other) const;
};

/*! \brief Take ownership of a borrowed tensor view through its retain callback (see TVMLiteTensorView). */
NDArray RetainTensorView(TVMLiteTensorView* view);

/*! \brief An NDArray argument also accepts a tensor view (numpy), retained so the callee may keep it. */
template <>
struct ObjectRefConvert<NDArray> {
  static bool Check(const Object* obj) { return obj->type_index() == kTVMLiteNDArray; }
  static std::optional<NDArray> FromValue(const TVMLiteAny* v) {
    if (v->type_index == kTVMLiteTensorView) return RetainTensorView(static_cast<TVMLiteTensorView*>(v->v_ptr));
    return std::nullopt;
  }
  static std::string TypeStr() { return "NDArray"; }
};

}  // namespace runtime
}  // namespace tvmlite
#endif  // TVMLITE_RUNTIME_NDARRAY_H_
