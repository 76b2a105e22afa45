/*!
 * \file ndarray.cc
 * \brief NDArray storage, DLPack import/export, and data type names.
 */
#include <tvmlite/runtime/ndarray.h>
#include <tvmlite/runtime/registry.h>

#include <ostream>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#ifdef __linux__
#include <sys/mman.h>
#endif

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
  TVMLITE_CHECK_KIND(IsValidDLDataType(t.dtype) && t.dtype.code != kTVMLiteStringTypeCode, ValueError)
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

namespace {
/*!
 * \brief Storage of nbytes, kAllocAlignment-aligned. A buffer of 2 MB or more (packed weights, activations of a
 * model) starts on a 2 MB boundary and asks for transparent huge pages: a kernel streaming a weight of tens of MB
 * (a decoder's vocabulary projection) otherwise misses the TLB on every 4 KB page, at a speed that depends on where
 * the pages land (two identical builds measured 1.04-1.2x apart). The tail past the last whole 2 MB stays small
 * pages: no memory is added.
 */
void* AllocStorage(uint64_t nbytes) {
  constexpr size_t kHugePage = size_t{2} << 20;
  size_t padded = (nbytes + kAllocAlignment - 1) / kAllocAlignment * kAllocAlignment;
  if (padded == 0) padded = kAllocAlignment;
  void* data = nullptr;
  if (padded >= kHugePage) {
    if (posix_memalign(&data, kHugePage, padded) != 0) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(data, padded / kHugePage * kHugePage, MADV_HUGEPAGE);  // advice: refused (no THP) changes nothing
#endif
    return data;
  }
  data = std::aligned_alloc(kAllocAlignment, padded);  // a size that is a multiple of the alignment
  if (data == nullptr) throw std::bad_alloc();
  return data;
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
  void* data = AllocStorage(nbytes);
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

NDArray NDArray::CreateView(const std::vector<int64_t>& shape, DLDataType dtype) const {
  TVMLITE_CHECK_KIND(IsValidDLDataType(dtype) && dtype.bits > 0, ValueError) << "CreateView: invalid data type";
  TVMLITE_CHECK_KIND(IsContiguous(), ValueError) << "CreateView needs a contiguous array";
  uint64_t nbytes = CheckedByteSize(shape.data(), static_cast<int64_t>(shape.size()), DataType(dtype));
  TVMLITE_CHECK_KIND(nbytes == NBytes(), ValueError)
      << "CreateView: shape " << ShapeTuple(shape) << " of " << DataType(dtype).str() << " is " << nbytes
      << " bytes, the array " << ShapeTuple(Shape()) << " of " << this->dtype().str() << " is " << NBytes();
  const DLTensor& src = get()->tensor;
  DLTensor view{src.data, src.device,     static_cast<int32_t>(shape.size()), dtype, const_cast<int64_t*>(shape.data()),
                nullptr,  src.byte_offset};
  auto* owner = new NDArray(*this);
  return FromExternal(view, owner, [](void* p) { delete static_cast<NDArray*>(p); }, get()->flags);
}

TVMLITE_REGISTER_GLOBAL("runtime.NDArrayCreateView")
    .set_body_typed([](NDArray array, Array<int64_t> shape, DataType dtype) -> NDArray {
      std::vector<int64_t> dims;
      for (size_t i = 0; i < shape.size(); ++i) dims.push_back(shape[i]);
      return array.CreateView(dims, dtype);
    });

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

namespace {

/*! \brief The DLPack 1.1 low-precision float formats: each code names one format of a fixed width. */
struct NamedFloat {
  const char* name;
  uint8_t code;
  uint8_t bits;
};
constexpr NamedFloat kNamedFloats[] = {
    {"float8_e3m4", kDLFloat8_e3m4, 8},
    {"float8_e4m3", kDLFloat8_e4m3, 8},
    {"float8_e4m3b11fnuz", kDLFloat8_e4m3b11fnuz, 8},
    {"float8_e4m3fn", kDLFloat8_e4m3fn, 8},
    {"float8_e4m3fnuz", kDLFloat8_e4m3fnuz, 8},
    {"float8_e5m2", kDLFloat8_e5m2, 8},
    {"float8_e5m2fnuz", kDLFloat8_e5m2fnuz, 8},
    {"float8_e8m0fnu", kDLFloat8_e8m0fnu, 8},
    {"float6_e2m3fn", kDLFloat6_e2m3fn, 6},
    {"float6_e3m2fn", kDLFloat6_e3m2fn, 6},
    {"float4_e2m1fn", kDLFloat4_e2m1fn, 4},
};

const NamedFloat* FindNamedFloat(uint8_t code) {
  for (const NamedFloat& f : kNamedFloats) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

/*! \brief The lanes of a suffix: "" is 1, "x4" is 4; 0 when the suffix is not one. */
long ParseLanes(const char* s) {  // NOLINT(runtime/int)
  if (*s == '\0') return 1;
  if (*s != 'x') return 0;
  char* end = nullptr;
  long lanes = std::strtol(s + 1, &end, 10);  // NOLINT(runtime/int)
  if (end == s + 1 || *end != '\0' || lanes <= 0 || lanes > 65535) return 0;
  return lanes;
}

}  // namespace

DLDataType StringToDLDataType(const std::string& str) {
  DLDataType t{kDLOpaqueHandle, 64, 1};
  if (str == "handle") return t;
  if (str == "void") return DLDataType{kDLOpaqueHandle, 0, 0};
  if (str == "bool") return DLDataType{kDLBool, 8, 1};
  if (str == "string") return DLDataType{kTVMLiteStringTypeCode, 0, 1};
  if (str.rfind("boolx", 0) == 0) {  // vector of bools, as DLDataTypeToString writes it
    DLDataType v = StringToDLDataType("int8" + str.substr(4));
    return DLDataType{kDLBool, 8, v.lanes};
  }
  // "float8_e4m3fn", "float4_e2m1fnx2": a named format, then the lanes suffix. The suffix check keeps a name that
  // is a prefix of another ("float8_e4m3" of "float8_e4m3fn") from matching the longer one.
  for (const NamedFloat& f : kNamedFloats) {
    size_t n = std::strlen(f.name);
    if (str.compare(0, n, f.name) != 0) continue;
    long lanes = ParseLanes(str.c_str() + n);  // NOLINT(runtime/int)
    if (lanes == 0) continue;
    return DLDataType{f.code, f.bits, static_cast<uint16_t>(lanes)};
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
  long bits = std::strtol(s, &end, 10);                 // NOLINT(runtime/int)
  if (end == s) bits = t.code == kDLComplex ? 64 : 32;  // "float" alone means float32, as in numpy's names
  long lanes = ParseLanes(end);                         // NOLINT(runtime/int)
  TVMLITE_CHECK_KIND(bits > 0 && bits <= 255 && lanes > 0, ValueError) << "unknown data type '" << str << "'";
  t.bits = static_cast<uint8_t>(bits);
  t.lanes = static_cast<uint16_t>(lanes);
  return t;
}

bool IsValidDLDataType(DLDataType t) {
  if (t.code == kDLOpaqueHandle && t.bits == 0 && t.lanes == 0) return true;  // "void"
  if (t.code == kTVMLiteStringTypeCode) return t.bits == 0 && t.lanes == 1;   // a type, never an array's
  if (t.lanes == 0) return false;
  if (const NamedFloat* f = FindNamedFloat(t.code)) return t.bits == f->bits;
  return t.code <= kDLBool && t.bits > 0;
}

DLDevice MakeDevice(int64_t device_type, int64_t device_id) {
  switch (device_type) {
    case kDLCPU:
    case kDLCUDA:
    case kDLCUDAHost:
    case kDLOpenCL:
    case kDLVulkan:
    case kDLMetal:
    case kDLVPI:
    case kDLROCM:
    case kDLROCMHost:
    case kDLExtDev:
    case kDLCUDAManaged:
    case kDLOneAPI:
    case kDLWebGPU:
    case kDLHexagon: break;
    default: TVMLITE_THROW(ValueError) << "Device: " << device_type << " is not a DLPack device type";
  }
  TVMLITE_CHECK_KIND(device_id >= 0 && device_id <= INT32_MAX, ValueError)
      << "Device: device id must be in [0, 2**31), got " << device_id;
  return DLDevice{static_cast<DLDeviceType>(device_type), static_cast<int32_t>(device_id)};
}

std::string DLDataTypeToString(DLDataType t) {
  if (t.code == kDLOpaqueHandle) return t.bits == 0 ? "void" : "handle";
  if (t.code == kDLBool) return t.lanes == 1 ? "bool" : "boolx" + std::to_string(t.lanes);
  if (t.code == kTVMLiteStringTypeCode && t.bits == 0 && t.lanes == 1) return "string";
  std::string s;
  switch (t.code) {
    case kDLInt: s = "int"; break;
    case kDLUInt: s = "uint"; break;
    case kDLFloat: s = "float"; break;
    case kDLBfloat: s = "bfloat"; break;
    case kDLComplex: s = "complex"; break;
    default: {
      const NamedFloat* f = FindNamedFloat(t.code);
      TVMLITE_CHECK_KIND(f != nullptr, ValueError) << "data type code " << static_cast<int>(t.code) << " has no name";
      TVMLITE_CHECK_KIND(t.bits == f->bits, ValueError)
          << "data type " << f->name << " has " << static_cast<int>(f->bits) << " bits, not "
          << static_cast<int>(t.bits);
      s = f->name;
      if (t.lanes != 1) s += "x" + std::to_string(t.lanes);
      return s;
    }
  }
  s += std::to_string(t.bits);
  if (t.lanes != 1) s += "x" + std::to_string(t.lanes);
  return s;
}

}  // namespace runtime
}  // namespace tvmlite
