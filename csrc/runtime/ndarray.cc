/*!
 * \file ndarray.cc
 * \brief NDArray storage, DLPack import/export, and data type names.
 */
#include <tvmlite/runtime/ndarray.h>

#include <ostream>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace tvmlite {
namespace runtime {

TVMLITE_REGISTER_OBJECT_TYPE(NDArrayObj);

NDArrayObj::~NDArrayObj() {
  if (owns_data_) std::free(tensor.data);
  if (manager_deleter_) manager_deleter_(manager_ctx_);
}

namespace {

ObjectPtr<NDArrayObj> NewNDArrayObj(const DLTensor& t) {
  TVMLITE_CHECK_KIND(t.ndim >= 0, ValueError) << "NDArray ndim must be >= 0, got " << t.ndim;
  ObjectPtr<NDArrayObj> n = make_object<NDArrayObj>();
  n->tensor = t;
  return n;
}

void CheckDevice(DLDevice dev) {
  int32_t type = DeviceTypeCode(dev);  // a foreign tensor's device may hold any int
  TVMLITE_CHECK_KIND(type == kDLCPU || type == kDLCUDAHost, ValueError)
      << "tvmlite runs on the CPU; got a tensor on device type " << type;
}

/*! \brief The byte size of a compact array of shape and dtype; ValueError when it cannot be one. */
uint64_t CheckedByteSize(const int64_t* shape, int64_t ndim, DataType t) {
  TVMLITE_CHECK_KIND(ndim >= 0 && ndim <= kMaxNDim, ValueError)
      << "tvmlite supports at most " << kMaxNDim << " dimensions, got " << ndim;
  uint64_t nbytes = static_cast<uint64_t>(t.bytes());
  for (int64_t i = 0; i < ndim; ++i) {
    TVMLITE_CHECK_KIND(shape[i] >= 0, ValueError) << "NDArray dimension must be >= 0, got " << shape[i];
    TVMLITE_CHECK_KIND(!__builtin_mul_overflow(nbytes, static_cast<uint64_t>(shape[i]), &nbytes) &&
                           nbytes <= static_cast<uint64_t>(INT64_MAX),
                       ValueError)
        << "NDArray of shape " << ShapeTuple(std::vector<int64_t>(shape, shape + ndim)) << " and type " << t.str()
        << " would have more than 2**63 - 1 bytes";
  }
  return nbytes;
}

/*!
 * \brief Check a foreign tensor before wrapping it: tvmlite's data type and dimension limits, no negative dims, and
 * strides whose extent fits in int64 (negative strides are fine: a reversed view has them).
 */
void CheckExternalTensor(const DLTensor& t) {
  TVMLITE_CHECK_KIND(IsValidDLDataType(t.dtype), ValueError)
      << "tensor has an invalid data type (code " << static_cast<int>(t.dtype.code) << ", bits "
      << static_cast<int>(t.dtype.bits) << ", lanes " << t.dtype.lanes << ")";
  TVMLITE_CHECK_KIND(t.ndim == 0 || t.shape != nullptr, ValueError) << "tensor of ndim " << t.ndim << " has no shape";
  uint64_t nbytes = CheckedByteSize(t.shape, t.ndim, DataType(t.dtype));
  TVMLITE_CHECK_KIND(nbytes == 0 || t.data != nullptr, ValueError) << "tensor of " << nbytes << " bytes has no data";
  if (t.strides == nullptr || nbytes == 0) return;
  // The farthest element is sum(|stride| * (dim - 1)) elements away; its byte offset must fit in int64.
  const int64_t item = DataType(t.dtype).bytes();
  int64_t extent = 0, step = 0, reach = 0;
  for (int32_t i = 0; i < t.ndim; ++i) {
    const int64_t s = t.strides[i];
    TVMLITE_CHECK_KIND(s != INT64_MIN && !__builtin_mul_overflow(s < 0 ? -s : s, t.shape[i] - 1, &step) &&
                           !__builtin_add_overflow(extent, step, &extent) &&
                           !__builtin_mul_overflow(extent, item, &reach),
                       ValueError)
        << "tensor stride " << s << " of dimension " << i << " reaches outside any memory";
  }
}
}  // namespace

// Storage and shape arrays live in the object so the DLTensor pointers stay valid for its whole life.
NDArray NDArray::Empty(const std::vector<int64_t>& shape, DLDataType dtype, DLDevice device) {
  CheckDevice(device);
  DataType t(dtype);
  TVMLITE_CHECK_KIND(t.bits() > 0 && t.lanes() > 0 && IsValidDLDataType(dtype), ValueError)
      << "cannot allocate an array of " << (IsValidDLDataType(dtype) ? t.str() : "an invalid data type");
  uint64_t nbytes = CheckedByteSize(shape.data(), static_cast<int64_t>(shape.size()), t);
  TVMLITE_CHECK_KIND(nbytes <= (uint64_t{1} << 62), MemoryError)
      << "NDArray of shape " << ShapeTuple(shape) << " and type " << t.str() << " is too large";
  // aligned_alloc needs a size that is a multiple of the alignment.
  size_t padded = (nbytes + kAllocAlignment - 1) / kAllocAlignment * kAllocAlignment;
  void* data = std::aligned_alloc(kAllocAlignment, padded ? padded : kAllocAlignment);
  if (data == nullptr) throw std::bad_alloc();
  DLTensor tensor{data, device, static_cast<int32_t>(shape.size()), dtype, nullptr, nullptr, 0};
  ObjectPtr<NDArrayObj> n = NewNDArrayObj(tensor);
  n->owns_data_ = true;
  n->shape_ = shape;
  n->tensor.shape = n->shape_.data();
  return NDArray(std::move(n));
}

NDArray NDArray::FromExternal(const DLTensor& tensor, void* ctx, void (*deleter)(void*), uint64_t flags) {
  ObjectPtr<NDArrayObj> n;
  try {
    CheckDevice(tensor.device);
    CheckExternalTensor(tensor);
    n = NewNDArrayObj(tensor);
  } catch (...) {
    if (deleter) deleter(ctx);  // we were handed ownership; honour it even when we refuse the tensor
    throw;
  }
  n->manager_ctx_ = ctx;
  n->manager_deleter_ = deleter;
  n->flags = flags & DLPACK_FLAG_BITMASK_READ_ONLY;
  n->shape_.assign(tensor.shape, tensor.shape + tensor.ndim);
  n->tensor.shape = n->shape_.data();
  if (tensor.strides != nullptr) {
    n->strides_.assign(tensor.strides, tensor.strides + tensor.ndim);
    n->tensor.strides = n->strides_.data();
  }
  return NDArray(std::move(n));
}

NDArray NDArray::FromDLPack(DLManagedTensor* managed) {
  TVMLITE_CHECK_KIND(managed != nullptr, ValueError) << "null DLManagedTensor";
  return FromExternal(managed->dl_tensor, managed, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter) m->deleter(m);
  });
}

NDArray NDArray::FromDLPackVersioned(DLManagedTensorVersioned* managed) {
  TVMLITE_CHECK_KIND(managed != nullptr, ValueError) << "null DLManagedTensorVersioned";
  if (managed->version.major > DLPACK_MAJOR_VERSION) {
    if (managed->deleter) managed->deleter(managed);
    TVMLITE_THROW(ValueError) << "DLPack version " << managed->version.major << "." << managed->version.minor
                              << " is newer than the supported " << DLPACK_MAJOR_VERSION << ".x";
  }
  return FromExternal(
      managed->dl_tensor, managed,
      [](void* p) {
        auto* m = static_cast<DLManagedTensorVersioned*>(p);
        if (m->deleter) m->deleter(m);
      },
      managed->flags);
}

namespace {
/*! \brief An export: the DLPack struct plus the reference that keeps the array alive. */
template <typename Managed>
struct Export {
  Managed managed;
  ObjectPtr<Object> owner;
  static void Delete(Managed* self) { delete reinterpret_cast<Export*>(self); }
};
}  // namespace

DLManagedTensor* NDArray::ToDLPack() const {
  TVMLITE_CHECK_KIND(!read_only(), BufferError)
      << "a read-only NDArray cannot be exported as a pre-1.0 DLPack tensor, which cannot mark it read-only; "
         "ask for DLPack 1.0 (__dlpack__(max_version=(1, 0)))";
  auto* e = new Export<DLManagedTensor>();
  e->owner = data_;
  e->managed.dl_tensor = get()->tensor;
  e->managed.manager_ctx = e;
  e->managed.deleter = &Export<DLManagedTensor>::Delete;
  return &e->managed;
}

DLManagedTensorVersioned* NDArray::ToDLPackVersioned() const {
  auto* e = new Export<DLManagedTensorVersioned>();
  e->owner = data_;
  e->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  e->managed.dl_tensor = get()->tensor;
  e->managed.manager_ctx = e;
  e->managed.deleter = &Export<DLManagedTensorVersioned>::Delete;
  e->managed.flags = get()->flags & DLPACK_FLAG_BITMASK_READ_ONLY;
  return &e->managed;
}

NDArray RetainTensorView(TVMLiteTensorView* view) {
  TVMLiteObject* out = nullptr;
  if (view->retain == nullptr || view->retain(view, &out) != 0) {
    if (view->retain == nullptr) TVMLITE_THROW(ValueError) << "tensor view has no retain callback";
    throw Error::MoveFromRaised();
  }
  ObjectPtr<Object> p = ObjectPtr<Object>::MoveFromRaw(Object::FromHeader(out));
  TVMLITE_ICHECK(p->type_index() == kTVMLiteNDArray) << "tensor view retain returned " << p->GetTypeKey();
  return NDArray(std::move(p));
}

int64_t NDArray::NumElements() const {
  int64_t n = 1;
  for (int32_t i = 0; i < get()->tensor.ndim; ++i) n *= get()->tensor.shape[i];
  return n;
}

bool NDArray::IsContiguous() const {
  const DLTensor& t = get()->tensor;
  if (t.strides == nullptr) return true;
  int64_t expected = 1;
  for (int32_t i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] != 1 && t.strides[i] != expected) return false;
    expected *= t.shape[i];
  }
  return true;
}

void NDArray::CopyFrom(const NDArray& other) const {
  TVMLITE_CHECK_KIND(IsContiguous() && other.IsContiguous(), ValueError) << "CopyFrom needs contiguous arrays";
  TVMLITE_CHECK_KIND(NBytes() == other.NBytes(), ValueError)
      << "CopyFrom size mismatch: " << NBytes() << " vs " << other.NBytes() << " bytes";
  if (NBytes() == 0) return;  // an empty tensor's data may be null: no memcpy (nor offset) from or to null
  std::memcpy(static_cast<char*>(get()->tensor.data) + get()->tensor.byte_offset,
              static_cast<const char*>(other->tensor.data) + other->tensor.byte_offset, NBytes());
}

// --------------------------------------------------------------------------------------------------------------
// Data type names
// --------------------------------------------------------------------------------------------------------------

DLDataType StringToDLDataType(const std::string& str) {
  DLDataType t{kDLOpaqueHandle, 64, 1};
  if (str == "handle") return t;
  if (str == "void") return DLDataType{kDLOpaqueHandle, 0, 0};
  if (str == "bool") return DLDataType{kDLBool, 8, 1};
  if (str.rfind("boolx", 0) == 0) {  // vector of bools, as DLDataTypeToString writes it
    DLDataType v = StringToDLDataType("int8" + str.substr(4));
    return DLDataType{kDLBool, 8, v.lanes};
  }
  const char* s = str.c_str();
  auto take = [&](const char* prefix, uint8_t code) {
    size_t n = std::strlen(prefix);
    if (std::strncmp(s, prefix, n) != 0) return false;
    s += n, t.code = code;
    return true;
  };
  if (!(take("bfloat", kDLBfloat) || take("float", kDLFloat) || take("uint", kDLUInt) || take("int", kDLInt) ||
        take("complex", kDLComplex))) {
    TVMLITE_THROW(ValueError) << "unknown data type '" << str << "'";
  }
  char* end = nullptr;
  long bits = std::strtol(s, &end, 10);  // NOLINT(runtime/int)
  if (end == s) bits = t.code == kDLComplex ? 64 : 32;  // "float" alone means float32, as in numpy's names
  long lanes = 1;  // NOLINT(runtime/int)
  if (*end == 'x') {
    const char* l = end + 1;
    lanes = std::strtol(l, &end, 10);
    if (end == l) lanes = 0;
  }
  TVMLITE_CHECK_KIND(*end == '\0' && bits > 0 && bits <= 255 && lanes > 0 && lanes <= 65535, ValueError)
      << "unknown data type '" << str << "'";
  t.bits = static_cast<uint8_t>(bits);
  t.lanes = static_cast<uint16_t>(lanes);
  return t;
}

bool IsValidDLDataType(DLDataType t) {
  if (t.code == kDLOpaqueHandle && t.bits == 0 && t.lanes == 0) return true;  // "void"
  return t.code <= kDLBool && t.bits > 0 && t.lanes > 0;
}

DLDevice MakeDevice(int64_t device_type, int64_t device_id) {
  switch (device_type) {
    case kDLCPU: case kDLCUDA: case kDLCUDAHost: case kDLOpenCL: case kDLVulkan: case kDLMetal: case kDLVPI:
    case kDLROCM: case kDLROCMHost: case kDLExtDev: case kDLCUDAManaged: case kDLOneAPI: case kDLWebGPU:
    case kDLHexagon:
      break;
    default:
      TVMLITE_THROW(ValueError) << "Device: " << device_type << " is not a DLPack device type";
  }
  TVMLITE_CHECK_KIND(device_id >= 0 && device_id <= INT32_MAX, ValueError)
      << "Device: device id must be in [0, 2**31), got " << device_id;
  return DLDevice{static_cast<DLDeviceType>(device_type), static_cast<int32_t>(device_id)};
}

std::string DLDataTypeToString(DLDataType t) {
  if (t.code == kDLOpaqueHandle) return t.bits == 0 ? "void" : "handle";
  if (t.code == kDLBool) return t.lanes == 1 ? "bool" : "boolx" + std::to_string(t.lanes);
  std::string s;
  switch (t.code) {
    case kDLInt: s = "int"; break;
    case kDLUInt: s = "uint"; break;
    case kDLFloat: s = "float"; break;
    case kDLBfloat: s = "bfloat"; break;
    case kDLComplex: s = "complex"; break;
    default: TVMLITE_THROW(ValueError) << "data type code " << static_cast<int>(t.code) << " has no name";
  }
  s += std::to_string(t.bits);
  if (t.lanes != 1) s += "x" + std::to_string(t.lanes);
  return s;
}

}  // namespace runtime
}  // namespace tvmlite
