/*!
 * \file dyn_shape.cc
 * \brief The shape arithmetic exporters put in graphs, natively: topi.shape_of, and the kernels whose output shape
 * depends on their inputs' values (they make and return their output: kernel.h, MakeReturningKernel):
 *
 *   topi.shape_of({"dtype": "int64"})            run(data, out)                  out = data's shape
 *   topi.dyn.reshape({"allowzero": 0})           [view] = run(data, newshape)    a view: no copy (ONNX 0/-1 rules)
 *   topi.dyn.broadcast_to({})                    [out] = run(data, shape)        numpy broadcasting, both ways
 *   topi.broadcast_to({"shape": [...]})          run(data, out)                  the static form, any dtype
 *   topi.broadcast_to_like({...})                run(data, shape_like, out)      to out's shape (shape_like's dims)
 *   topi.dyn.tile({})                            [out] = run(data, reps)         numpy.tile
 *   topi.tile({"reps": [...]})                   run(data, out)                  the static form
 *   topi.dyn.full({"dtype": "float32"})          [out] = run(value, shape)       value converted to dtype
 *   topi.arange({"dtype": "int64"})              [out] = run(start, stop, step)  ONNX Range
 *
 * A shape input is a 0-d or 1-d int32/int64 tensor. These run per call on small tensors (a shape, a mask, position
 * ids): what matters is that they cost microseconds, not a trip through Python. dyn.reshape's view shares data's
 * memory: the lowering declares its output an alias of its input, so the memory plan keeps that storage.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/registry.h>

#include <cmath>
#include <limits>

#include "injective.h"

namespace tvmlite {
namespace topi {
namespace {

using runtime::DataType;

/*! \brief The dtype attr ("" or absent: fallback). */
DLDataType DTypeAttr(const KernelAttrs& attrs, DLDataType fallback) {
  std::string s = attrs.GetString("dtype", "");
  return s.empty() || s == "void" ? fallback : DLDataType(DataType(s));
}

/*! \brief Every dim of a requested shape is >= 0 and their product fits in memory. */
void CheckShape(const std::vector<int64_t>& shape, const std::string& kernel) {
  int64_t n = 1;
  for (int64_t d : shape) {
    TVMLITE_CHECK_KIND(d >= 0, ValueError) << kernel << ": negative dim " << d << " in the requested shape";
    TVMLITE_CHECK_KIND(!__builtin_mul_overflow(n, d, &n) && n <= (int64_t{1} << 40), ValueError)
        << kernel << ": the requested shape is too large";
  }
}

/*! \brief A scalar of a numeric dtype as double and as int64 (exact for integers). */
struct Scalar {
  double f = 0;
  int64_t i = 0;
  bool is_int = false;
};

/*! \brief The dtypes ReadScalar reads (it checks this first; WriteScalar writes these too). */
bool IsScalarDType(DLDataType dt) {
  return IsDType(dt, kDLFloat, 32) || IsDType(dt, kDLFloat, 64) || IsDType(dt, kDLInt, 64) || IsDType(dt, kDLInt, 32) ||
         IsDType(dt, kDLInt, 16) || IsDType(dt, kDLInt, 8) || IsDType(dt, kDLUInt, 8) || IsDType(dt, kDLBool, 8);
}

Scalar ReadScalar(const TensorArg& t, const std::string& kernel, const char* what) {
  TVMLITE_CHECK_KIND(t.size() == 1, ValueError) << kernel << ": " << what << " must hold one value, got " << t.size();
  const DLDataType dt = t.dtype();
  TVMLITE_CHECK_KIND(IsScalarDType(dt), TypeError)
      << kernel << ": " << what << " of dtype " << DataType(dt).str() << " is not supported";
  const char* p = injective::Bytes(t);
  Scalar s;
  s.is_int = dt.code == kDLInt || dt.code == kDLUInt || dt.code == kDLBool;
  if (dt.code == kDLFloat && dt.bits == 32) s.f = *reinterpret_cast<const float*>(p);
  else if (dt.code == kDLFloat && dt.bits == 64) s.f = *reinterpret_cast<const double*>(p);
  else if (dt.code == kDLInt && dt.bits == 64) s.i = *reinterpret_cast<const int64_t*>(p);
  else if (dt.code == kDLInt && dt.bits == 32) s.i = *reinterpret_cast<const int32_t*>(p);
  else if (dt.code == kDLInt && dt.bits == 16) s.i = *reinterpret_cast<const int16_t*>(p);
  else if (dt.code == kDLInt && dt.bits == 8) s.i = *reinterpret_cast<const int8_t*>(p);
  else if ((dt.code == kDLUInt || dt.code == kDLBool) && dt.bits == 8) s.i = *reinterpret_cast<const uint8_t*>(p);
  else TVMLITE_THROW(TypeError) << kernel << ": " << what << " of dtype " << DataType(dt).str() << " is not supported";
  if (s.is_int) s.f = static_cast<double>(s.i);
  return s;
}

/*! \brief Write s to p as dtype (numpy's cast: float -> int truncates); TypeError for other dtypes. */
void WriteScalar(const Scalar& s, DLDataType dt, char* p, const std::string& kernel) {
  const int64_t i = s.is_int ? s.i : static_cast<int64_t>(s.f);
  if (dt.code == kDLFloat && dt.bits == 32) *reinterpret_cast<float*>(p) = static_cast<float>(s.f);
  else if (dt.code == kDLFloat && dt.bits == 64) *reinterpret_cast<double*>(p) = s.f;
  else if (dt.code == kDLInt && dt.bits == 64) *reinterpret_cast<int64_t*>(p) = i;
  else if (dt.code == kDLInt && dt.bits == 32) *reinterpret_cast<int32_t*>(p) = static_cast<int32_t>(i);
  else if (dt.code == kDLInt && dt.bits == 16) *reinterpret_cast<int16_t*>(p) = static_cast<int16_t>(i);
  else if (dt.code == kDLInt && dt.bits == 8) *reinterpret_cast<int8_t*>(p) = static_cast<int8_t>(i);
  else if (dt.code == kDLUInt && dt.bits == 8) *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(i);
  else if (dt.code == kDLBool && dt.bits == 8) *reinterpret_cast<uint8_t*>(p) = s.is_int ? i != 0 : s.f != 0;
  else TVMLITE_THROW(TypeError) << kernel << ": output dtype " << DataType(dt).str() << " is not supported";
}

/*! \brief A view of base's memory with another shape (base must be contiguous and hold as many bytes). */
NDArray ViewAs(const NDArray& base, const std::vector<int64_t>& shape) {
  DLTensor t = base->tensor;
  t.ndim = static_cast<int32_t>(shape.size());
  t.shape = const_cast<int64_t*>(shape.data());
  t.strides = nullptr;
  auto* owner = new NDArray(base);
  return NDArray::FromExternal(t, owner, [](void* p) { delete static_cast<NDArray*>(p); }, 0);
}

/*! \brief ONNX Reshape's target of data's shape: 0 copies data's dim (unless allowzero), one -1 is inferred. */
std::vector<int64_t> ResolveReshape(const std::vector<int64_t>& in, std::vector<int64_t> out, bool allowzero,
                                    const std::string& kernel) {
  int64_t total = 1, known = 1, infer = -1;
  for (int64_t d : in) total *= d;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0 && !allowzero) {
      TVMLITE_CHECK_KIND(i < in.size(), ValueError)
          << kernel << ": newshape[" << i << "] is 0 (copy) but the input has rank " << in.size();
      out[i] = in[i];
    }
    if (out[i] == -1) {
      TVMLITE_CHECK_KIND(infer < 0, ValueError) << kernel << ": newshape has more than one -1";
      infer = static_cast<int64_t>(i);
      continue;
    }
    TVMLITE_CHECK_KIND(out[i] >= 0, ValueError) << kernel << ": newshape[" << i << "] is " << out[i];
    TVMLITE_CHECK_KIND(!__builtin_mul_overflow(known, out[i], &known), ValueError) << kernel << ": too large";
  }
  if (infer >= 0) {
    TVMLITE_CHECK_KIND(known != 0 && total % known == 0, ValueError)
        << kernel << ": cannot reshape " << runtime::ShapeTuple(in) << " into " << runtime::ShapeTuple(out);
    out[infer] = total / known;
    known = total;
  }
  TVMLITE_CHECK_KIND(known == total, ValueError) << kernel << ": cannot reshape " << runtime::ShapeTuple(in)
                                                 << " (size " << total << ") into " << runtime::ShapeTuple(out);
  return out;
}

TVMLITE_REGISTER_GLOBAL("topi.shape_of").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.shape_of";
  KernelAttrs attrs(kName, attrs_in);
  const DLDataType dtype = DTypeAttr(attrs, DLDataType(DataType::Int(64)));
  TVMLITE_CHECK_KIND(dtype.code == kDLInt && (dtype.bits == 64 || dtype.bits == 32), TypeError)
      << kName << ": dtype must be int32 or int64";
  return MakeKernel(kName, 2, [dtype](const KernelArgs& args) {
    NDArray data = args.Input(0, "data").array();  // any dtype: only its shape is read
    TensorArg out = args.Output();
    out.CheckShape({static_cast<int64_t>(data->tensor.ndim)});
    TVMLITE_CHECK_KIND(out.dtype().code == dtype.code && out.dtype().bits == dtype.bits, TypeError)
        << kName << ": out must be " << DataType(dtype).str();
    for (int i = 0; i < data->tensor.ndim; ++i) {
      if (dtype.bits == 64) out.Data<int64_t>()[i] = data->tensor.shape[i];
      else out.Data<int32_t>()[i] = static_cast<int32_t>(data->tensor.shape[i]);
    }
  });
});

TVMLITE_REGISTER_GLOBAL("topi.dyn.reshape").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.dyn.reshape";
  KernelAttrs attrs(kName, attrs_in);
  const bool allowzero = attrs.GetInt("allowzero", 0) != 0;
  return MakeReturningKernel(kName, 2, [allowzero](const KernelArgs& args) {
    TensorArg data = args.Input(0, "data");
    std::vector<int64_t> shape =
        ResolveReshape(data.shape(), injective::IntValues(args.Input(1, "newshape"), kName), allowzero, kName);
    return ViewAs(data.array(), shape);
  });
});

/*! \brief The output of a kernel copying data into shape: given (checked: that shape, data's dtype), or made. */
NDArray OutputFor(const TensorArg& data, const std::vector<int64_t>& shape, const NDArray* given,
                  const std::string& kName) {
  CheckShape(shape, kName);
  NDArray out = given != nullptr ? *given : NDArray::Empty(shape, data.dtype());
  TensorArg(out, &kName, "out").CheckShape(shape);
  TVMLITE_CHECK_KIND(out->tensor.dtype.code == data.dtype().code && out->tensor.dtype.bits == data.dtype().bits,
                     TypeError)
      << kName << ": out must have data's dtype";
  return out;
}

/*! \brief Copy data broadcast (numpy rules, both ways, aligned to the right) to want's shape into out, which
 * must have that shape (out null: made here). The broadcast shape. */
NDArray BroadcastInto(const TensorArg& data, const std::vector<int64_t>& want, const NDArray* given,
                      const std::string& kName) {
  const int nd = std::max<int>(data.ndim(), static_cast<int>(want.size()));
  std::vector<int64_t> shape(nd), src_strides(nd, 0);
  const int esize = injective::ElemBytes(data, kName);
  std::vector<int64_t> in = data.shape(), in_stride(in.size());
  for (int64_t d = static_cast<int64_t>(in.size()) - 1, s = esize; d >= 0; --d) in_stride[d] = s, s *= in[d];
  for (int i = 0; i < nd; ++i) {
    const int di = i - (nd - data.ndim()), wi = i - (nd - static_cast<int>(want.size()));
    const int64_t a = di >= 0 ? in[di] : 1, b = wi >= 0 ? want[wi] : 1;
    TVMLITE_CHECK_KIND(a == b || a == 1 || b == 1, ValueError)
        << kName << ": " << runtime::ShapeTuple(in) << " does not broadcast to " << runtime::ShapeTuple(want);
    shape[i] = a == 1 ? b : a;
    if (di >= 0 && a != 1) src_strides[i] = in_stride[di];
  }
  NDArray out = OutputFor(data, shape, given, kName);
  TensorArg out_arg(out, &kName, "out");
  if (out_arg.size() > 0) {
    injective::StridedCopy(out_arg, injective::Bytes(data), shape, src_strides, esize, BoundEpilogue());
  }
  return out;
}

/*!
 * \brief Register the two kernels of a copy into a target (a shape for broadcast_to, reps for tile): the static one,
 * "topi.<op>" with the target in the attr key, run(data, out); and the dynamic one, "topi.dyn.<op>" with it in the
 * input key, [out] = run(data, target). into(data, target, out or null to make it, kernel) copies and returns out.
 */
template <typename Into>
bool RegisterCopyInto(const std::string& op, const char* key, Into into) {
  const std::string name = "topi." + op, dyn_name = "topi.dyn." + op;
  runtime::Registry::Register(dyn_name)
      .set_body_typed([dyn_name, key, into](Map<String, Any>) {  // no attrs
        return MakeReturningKernel(dyn_name, 2, [dyn_name, key, into](const KernelArgs& args) {
          return into(args.Input(0, "data"), injective::IntValues(args.Input(1, key), dyn_name), nullptr, dyn_name);
        });
      })
      .set_kernel_factory();
  runtime::Registry::Register(name)
      .set_body_typed([name, key, into](Map<String, Any> attrs_in) {
        KernelAttrs attrs(name, attrs_in);
        const std::vector<int64_t> target = attrs.GetInts(key);
        attrs.CheckNoEpilogue();
        return MakeKernel(name, 2, [name, target, into](const KernelArgs& args) {
          NDArray out = args.Output().array();
          into(args.Input(0, "data"), target, &out, name);
        });
      })
      .set_kernel_factory();
  return true;
}

// broadcast_to_like: the output's shape (from shape_like's dims, given by the executor) is the target.
TVMLITE_REGISTER_GLOBAL("topi.broadcast_to_like").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.broadcast_to_like";
  KernelAttrs attrs(kName, attrs_in);
  attrs.CheckNoEpilogue();
  return MakeKernel(kName, 3, [](const KernelArgs& args) {
    NDArray out = args.Output().array();
    std::vector<int64_t> want(out->tensor.shape, out->tensor.shape + out->tensor.ndim);
    BroadcastInto(args.Input(0, "data"), want, &out, kName);
  });
});

/*! \brief numpy.tile(data, reps) into out (null: made here): reps and data's rank padded with leading 1s. */
NDArray TileInto(const TensorArg& data, std::vector<int64_t> reps, const NDArray* given, const std::string& kName) {
  const int nd = std::max<int>(data.ndim(), static_cast<int>(reps.size()));
  std::vector<int64_t> in(nd - data.ndim(), 1), shape(nd);
  for (int64_t d : data.shape()) in.push_back(d);
  reps.insert(reps.begin(), nd - reps.size(), 1);
  for (int i = 0; i < nd; ++i) {
    TVMLITE_CHECK_KIND(reps[i] >= 0, ValueError) << kName << ": negative repeat " << reps[i];
    TVMLITE_CHECK_KIND(!__builtin_mul_overflow(in[i], reps[i], &shape[i]), ValueError) << kName << ": too large";
  }
  NDArray out = OutputFor(data, shape, given, kName);
  TensorArg out_arg(out, &kName, "out");
  const int64_t n = out_arg.size();
  if (n == 0) return out;
  const int esize = injective::ElemBytes(data, kName);
  if (nd == 0) {  // a scalar tiled by no reps: itself
    std::memcpy(injective::Bytes(out_arg), injective::Bytes(data), esize);
    return out;
  }
  // Rows of the last dim: each is the input row repeated reps[-1] times; an odometer over the outer dims.
  const int64_t row = in[nd - 1], out_row = shape[nd - 1];
  std::vector<int64_t> idx(nd, 0), in_stride(nd);
  for (int64_t d = nd - 1, st = 1; d >= 0; --d) in_stride[d] = st, st *= in[d];
  const char* src = injective::Bytes(data);
  char* dst = injective::Bytes(out_arg);
  for (int64_t r = 0; r < n / out_row; ++r) {
    int64_t at = 0;
    for (int d = 0; d < nd - 1; ++d) at += (idx[d] % in[d]) * in_stride[d];
    for (int64_t k = 0; k < out_row; k += row) {
      std::memcpy(dst + (r * out_row + k) * esize, src + at * esize, row * esize);
    }
    for (int d = nd - 2; d >= 0 && ++idx[d] == shape[d]; --d) idx[d] = 0;
  }
  return out;
}

const bool kCopyIntoRegistered =
    RegisterCopyInto("broadcast_to", "shape", BroadcastInto) && RegisterCopyInto("tile", "reps", TileInto);

TVMLITE_REGISTER_GLOBAL("topi.dyn.full").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.dyn.full";
  KernelAttrs attrs(kName, attrs_in);
  const std::string dtype_text = attrs.GetString("dtype", "");
  return MakeReturningKernel(kName, 2, [dtype_text](const KernelArgs& args) {
    TensorArg value = args.Input(0, "fill_value");
    const DLDataType dtype =
        dtype_text.empty() || dtype_text == "void" ? value.dtype() : DLDataType(DataType(dtype_text));
    TVMLITE_CHECK_KIND(IsScalarDType(dtype), TypeError)
        << kName << ": output dtype " << DataType(dtype).str() << " is not supported";
    std::vector<int64_t> shape = injective::IntValues(args.Input(1, "shape"), kName);
    CheckShape(shape, kName);
    NDArray out = NDArray::Empty(shape, dtype);
    const int64_t esize = DataType(dtype).bytes();
    char one[16];
    TVMLITE_CHECK_KIND(esize <= 16, TypeError) << kName << ": dtype " << DataType(dtype).str() << " is not supported";
    WriteScalar(ReadScalar(value, kName, "fill_value"), dtype, one, kName);
    char* p = static_cast<char*>(out->tensor.data) + out->tensor.byte_offset;
    const int64_t n = out.NumElements();
    for (int64_t i = 0; i < n; ++i) std::memcpy(p + i * esize, one, esize);
    return out;
  });
});

TVMLITE_REGISTER_GLOBAL("topi.arange").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.arange";
  KernelAttrs attrs(kName, attrs_in);
  const std::string dtype_text = attrs.GetString("dtype", "");
  return MakeReturningKernel(kName, 3, [dtype_text](const KernelArgs& args) {
    TensorArg start_t = args.Input(0, "start");
    const DLDataType dtype =
        dtype_text.empty() || dtype_text == "void" ? start_t.dtype() : DLDataType(DataType(dtype_text));
    TVMLITE_CHECK_KIND(IsScalarDType(dtype), TypeError)
        << kName << ": output dtype " << DataType(dtype).str() << " is not supported";  // before n is known
    Scalar start = ReadScalar(start_t, kName, "start");
    Scalar stop = ReadScalar(args.Input(1, "stop"), kName, "stop");
    Scalar step = ReadScalar(args.Input(2, "step"), kName, "step");
    TVMLITE_CHECK_KIND(step.f != 0, ValueError) << kName << ": step is 0";
    int64_t n;
    if (start.is_int && stop.is_int && step.is_int) {
      const __int128 span = static_cast<__int128>(stop.i) - start.i;
      const __int128 len = step.i > 0 ? (span + step.i - 1) / step.i : (span + step.i + 1) / step.i;
      n = static_cast<int64_t>(std::max<__int128>(len, 0));
    } else {
      const double len = std::ceil((stop.f - start.f) / step.f);
      TVMLITE_CHECK_KIND(std::isfinite(len), ValueError) << kName << ": the length is not finite";
      n = static_cast<int64_t>(std::max(len, 0.0));
    }
    CheckShape({n}, kName);
    NDArray out = NDArray::Empty({n}, dtype);
    char* p = static_cast<char*>(out->tensor.data) + out->tensor.byte_offset;
    const int64_t esize = DataType(dtype).bytes();
    for (int64_t k = 0; k < n; ++k) {
      Scalar v;
      v.is_int = start.is_int && step.is_int;
      v.i = start.i + k * step.i;
      v.f = v.is_int ? static_cast<double>(v.i) : start.f + static_cast<double>(k) * step.f;
      WriteScalar(v, dtype, p + k * esize, kName);
    }
    return out;
  });
});

/*!
 * \brief What each kernel here takes: shape / reps / newshape inputs 0-d or 1-d int32/int64, copied data 1/2/4/8-byte
 * scalars with out of its dtype, scalars (fill value, range bounds, outputs made of them) IsScalarDType.
 */
std::string DynShapeAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  const std::string& k = attrs.kernel();
  auto shape_input = [&](size_t i) -> std::string {
    TVMLITE_ACCEPTS_CHECK(IndexReason(k, "a shape or bounds input", t[i].dtype));
    return t[i].ndim <= 1 ? "" : k + ": a shape or bounds input must be 0-d or 1-d";
  };
  auto scalar = [&](DLDataType dt, const char* what) -> std::string {
    return IsScalarDType(dt) ? "" : k + ": " + what + " of dtype " + DTypeName(dt) + " is not supported";
  };
  auto count = [&](size_t n, const char* names) -> std::string {
    if (t.size() == n) return "";
    return k + ": expected " + std::to_string(n) + " tensor arguments (" + names + "), got " + std::to_string(t.size());
  };
  if (k == "topi.shape_of") {  // data of any dtype: only its shape is read
    TVMLITE_ACCEPTS_CHECK(count(2, "data, out"));
    const DLDataType want = DTypeAttr(attrs, DLDataType(DataType::Int(64)));
    if (t[1].dtype.code != want.code || t[1].dtype.bits != want.bits) return k + ": out must be " + DTypeName(want);
    return IndexReason(k, "dtype", want);
  }
  if (k == "topi.dyn.reshape") {  // a view: data of any dtype
    TVMLITE_ACCEPTS_CHECK(count(2, "data, newshape"));
    return shape_input(1);
  }
  if (k == "topi.dyn.broadcast_to" || k == "topi.dyn.tile") {
    TVMLITE_ACCEPTS_CHECK(count(2, "data, shape"));
    TVMLITE_ACCEPTS_CHECK(shape_input(1));
    return ByteScalarReason(k, t[0].dtype);
  }
  if (k == "topi.broadcast_to" || k == "topi.tile" || k == "topi.broadcast_to_like") {
    TVMLITE_ACCEPTS_CHECK(k == "topi.broadcast_to_like" ? count(3, "data, shape_like, out") : count(2, "data, out"));
    const DLDataType a = t[0].dtype, out = t.back().dtype;
    TVMLITE_ACCEPTS_CHECK(ByteScalarReason(k, a));
    return out.code == a.code && out.bits == a.bits ? "" : k + ": out must have data's dtype";
  }
  if (k == "topi.dyn.full") {
    TVMLITE_ACCEPTS_CHECK(count(2, "fill_value, shape"));
    TVMLITE_ACCEPTS_CHECK(shape_input(1));
    TVMLITE_ACCEPTS_CHECK(scalar(t[0].dtype, "fill_value"));
    return scalar(DTypeAttr(attrs, t[0].dtype), "output");
  }
  // topi.arange
  TVMLITE_ACCEPTS_CHECK(count(3, "start, stop, step"));
  const char* names[] = {"start", "stop", "step"};
  for (int i = 0; i < 3; ++i) TVMLITE_ACCEPTS_CHECK(scalar(t[i].dtype, names[i]));
  return scalar(DTypeAttr(attrs, t[0].dtype), "output");
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.shape_of", DynShapeAccepts);
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.dyn.reshape", DynShapeAccepts);
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.dyn.broadcast_to", DynShapeAccepts);
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.broadcast_to", DynShapeAccepts);
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.broadcast_to_like", DynShapeAccepts);
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.dyn.tile", DynShapeAccepts);
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.tile", DynShapeAccepts);
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.dyn.full", DynShapeAccepts);
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.arange", DynShapeAccepts);

}  // namespace

TVMLITE_REGISTER_OP_KERNEL("shape_of", "topi.shape_of");
TVMLITE_REGISTER_OP_KERNEL("dyn.reshape", "topi.dyn.reshape")
    .set_attr<bool>("TVMLiteReturnsOutputs", true)
    .set_attr<bool>("TVMLiteReturnsView", true);
TVMLITE_REGISTER_OP_KERNEL("broadcast_to", "topi.broadcast_to");
TVMLITE_REGISTER_OP_KERNEL("broadcast_to_like", "topi.broadcast_to_like");
TVMLITE_REGISTER_OP_KERNEL("dyn.broadcast_to", "topi.dyn.broadcast_to").set_attr<bool>("TVMLiteReturnsOutputs", true);
TVMLITE_REGISTER_OP_KERNEL("tile", "topi.tile");
TVMLITE_REGISTER_OP_KERNEL("dyn.tile", "topi.dyn.tile").set_attr<bool>("TVMLiteReturnsOutputs", true);
TVMLITE_REGISTER_OP_KERNEL("dyn.full", "topi.dyn.full").set_attr<bool>("TVMLiteReturnsOutputs", true);
TVMLITE_REGISTER_OP_KERNEL("arange", "topi.arange").set_attr<bool>("TVMLiteReturnsOutputs", true);

}  // namespace topi
}  // namespace tvmlite
