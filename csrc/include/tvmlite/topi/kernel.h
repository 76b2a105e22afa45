/*!
 * \file tvmlite/topi/kernel.h
 * \brief What every kernel factory shares: reading its attrs, checking its tensors, marking the bound kernel.
 *
 *   TVMLITE_REGISTER_GLOBAL("topi.nn.softmax").set_body_typed([](Map<String, Any> attrs_in) {
 *     topi::KernelAttrs attrs("topi.nn.softmax", attrs_in);
 *     int64_t axis = attrs.GetInt("axis", -1);
 *     return topi::MakeKernel("topi.nn.softmax", 1, [axis](const topi::KernelArgs& args) {
 *       const float* x = args.Input(0, "data").Data<float>(); ...
 *     });
 *   });
 *
 * The factory runs once (at executor load); the bound kernel on every run. See docs/compiler.md.
 */
#ifndef TVMLITE_TOPI_KERNEL_H_
#define TVMLITE_TOPI_KERNEL_H_

#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/array.h>
#include <tvmlite/runtime/error.h>
#include <tvmlite/runtime/float_mode.h>
#include <tvmlite/runtime/function.h>
#include <tvmlite/runtime/map.h>
#include <tvmlite/runtime/ndarray.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/string.h>
#include <tvmlite/topi/epilogue.h>

#include <string>
#include <utility>
#include <vector>

namespace tvmlite {
namespace topi {

using runtime::Any;
using runtime::Array;
using runtime::Function;
using runtime::Map;
using runtime::NDArray;
using runtime::String;

/*! \brief A kernel's attrs with typed getters; a missing required key or a wrong type is a ValueError/TypeError. */
class KernelAttrs {
 public:
  KernelAttrs(std::string kernel, Map<String, Any> attrs) : kernel_(std::move(kernel)), attrs_(std::move(attrs)) {}
  bool Has(const char* key) const { return attrs_.count(String(key)) != 0; }
  /*! \brief Whether key is given with a value other than None (relay's Optional attrs: None means not given). */
  bool HasValue(const char* key) const;
  /*! \brief ValueError "<kernel>: takes no epilogue" unless the attr "epilogue" is absent or "". */
  void CheckNoEpilogue() const;
  int64_t GetInt(const char* key) const;
  int64_t GetInt(const char* key, int64_t fallback) const { return Has(key) ? GetInt(key) : fallback; }
  double GetFloat(const char* key) const;
  double GetFloat(const char* key, double fallback) const { return Has(key) ? GetFloat(key) : fallback; }
  std::string GetString(const char* key) const;
  std::string GetString(const char* key, const std::string& fallback) const {
    return Has(key) ? GetString(key) : fallback;
  }
  std::vector<int64_t> GetInts(const char* key) const;
  /*! \brief The attr "epilogue" parsed ("" or absent: the empty program); ValueError naming the kernel. */
  Epilogue GetEpilogue() const;
  std::vector<int64_t> GetInts(const char* key, std::vector<int64_t> fallback) const {
    return Has(key) ? GetInts(key) : std::move(fallback);
  }
  const std::string& kernel() const { return kernel_; }
  const Map<String, Any>& map() const { return attrs_; }

 private:
  Any Get(const char* key) const;
  std::string kernel_;
  Map<String, Any> attrs_;
};

/*! \brief One tensor argument of a bound kernel, checked: CPU, contiguous, not null. */
class TensorArg {
 public:
  TensorArg(NDArray array, const std::string* kernel, const char* name)
      : array_(std::move(array)), kernel_(kernel), name_(name) {}
  const NDArray& array() const { return array_; }
  int ndim() const { return array_->tensor.ndim; }
  int64_t dim(int i) const { return array_->tensor.shape[i]; }
  std::vector<int64_t> shape() const { return array_.Shape(); }
  int64_t size() const { return array_.NumElements(); }
  DLDataType dtype() const { return array_->tensor.dtype; }
  /*! \brief The data as T*, after checking the dtype is T's (float, int32_t, int64_t, uint8_t, ...). */
  template <typename T>
  T* Data() const;
  /*! \brief ValueError "<kernel>: <name> must have ... got ..." unless ndim == n. */
  const TensorArg& CheckNDim(int n) const;
  const TensorArg& CheckShape(const std::vector<int64_t>& shape) const;
  /*! \brief Raise ValueError naming the kernel and this argument. */
  [[noreturn]] void Fail(const std::string& what) const;

 private:
  void CheckDType(DLDataType want, const char* name) const;
  NDArray array_;
  const std::string* kernel_;
  const char* name_;
};

/*! \brief A bound kernel's arguments: inputs, then epilogue inputs, then the output (the last). */
class KernelArgs {
 public:
  KernelArgs(const std::string* kernel, runtime::PackedArgs args) : kernel_(kernel), args_(args) {}
  int size() const { return args_.size(); }
  TensorArg Input(int i, const char* name) const;
  TensorArg Output() const { return Input(args_.size() - 1, "out"); }
  /*! \brief Tensors i..size()-2: the epilogue's extra inputs when the kernel's own inputs are 0..i-1. */
  std::vector<NDArray> Rest(int i) const;
  const std::string& kernel() const { return *kernel_; }

 private:
  const std::string* kernel_;
  runtime::PackedArgs args_;
};

/*!
 * \brief The bound kernel: checks the argument count (num_inputs + 1, or more when the kernel takes epilogue
 * inputs: min_args) and calls body(args). Marked long-running: Python callers release the GIL.
 */
template <typename F>
Function MakeKernel(std::string name, int min_args, F body) {
  Function f([name = std::move(name), min_args, body = std::move(body)](runtime::PackedArgs args, Any*) {
    TVMLITE_CHECK_KIND(args.size() >= min_args, TypeError)
        << name << ": expected at least " << min_args << " tensor arguments (inputs, then out), got " << args.size();
    runtime::FloatModeScope float_mode;  // FTZ / DAZ when runtime::FlushDenormals()
    body(KernelArgs(&name, args));
  });
  const_cast<runtime::FunctionObj*>(f.get())->cell.flags |= kTVMLiteFunctionLongRunning;
  return f;
}

/*!
 * \brief A bound kernel whose output shape depends on its inputs' values (dyn.reshape, arange, ...): called with
 * its num_inputs inputs only, body(args) returns the output it made, which the kernel returns as [out] (the protocol
 * of nodes that return their outputs: graph_executor.cc). Ops with such kernels carry the op attribute
 * "TVMLiteReturnsOutputs" = true, so the lowering makes them nodes of that kind.
 */
template <typename F>
Function MakeReturningKernel(std::string name, int num_inputs, F body) {
  Function f([name = std::move(name), num_inputs, body = std::move(body)](runtime::PackedArgs args, Any* rv) {
    TVMLITE_CHECK_KIND(args.size() == num_inputs, TypeError)
        << name << ": expected " << num_inputs << " tensor arguments (its inputs), got " << args.size();
    *rv = Array<Any>{Any(body(KernelArgs(&name, args)))};
  });
  const_cast<runtime::FunctionObj*>(f.get())->cell.flags |=
      kTVMLiteFunctionLongRunning | kTVMLiteFunctionReturnsOutputs;
  return f;
}

/*!
 * \brief The factory of a kernel whose attrs parse once: params = parse(attrs) and the attr "epilogue" (GetEpilogue)
 * at load, run(params, epilogue, args) per call, which takes num_inputs inputs, the epilogue's inputs, then out.
 */
template <typename Parse, typename Run>
Function MakeParsedKernel(const std::string& name, Map<String, Any> attrs_in, int num_inputs, Parse parse, Run run) {
  KernelAttrs attrs(name, attrs_in);
  auto params = parse(attrs);
  Epilogue epilogue = attrs.GetEpilogue();
  return MakeKernel(name, num_inputs + 1 + epilogue.num_inputs(),
                    [params, epilogue, run](const KernelArgs& args) { run(params, epilogue, args); });
}

/*!
 * \brief axis (negative counts from the end) of a tensor of rank ndim, in [0, ndim); ValueError naming the kernel
 * for a scalar (ndim 0) or an axis out of range. The axis-wise kernels (softmax, layer norm, LRN) share it.
 */
int64_t NormalizedAxis(const std::string& kernel, int64_t axis, int64_t ndim);

/*! \brief A shape as the kernels' errors print it, "(1, 3, 224, 224)" (runtime::ShapeTuple's form). */
std::string ShapeString(const std::vector<int64_t>& shape);
inline std::string ShapeString(const TensorArg& t) { return ShapeString(t.shape()); }

/*!
 * \brief An axis-wise kernel's float32 data (args[0]) and out, out checked to have data's shape, and that shape cut
 * around the normalized axis: outer (the product of the dims before it) x len (its dim) x inner (those after).
 */
struct AxisWise {
  const float* x;
  float* y;
  std::vector<int64_t> shape;
  int64_t axis, outer, len, inner;
  int64_t size() const { return outer * len * inner; }
};
AxisWise ReadAxisWise(const KernelArgs& args, int64_t axis_attr);

// ---------------------------------------------------------------------------------------------------------------

template <typename T>
struct DTypeOf;
// clang-format off: a table
template <> struct DTypeOf<float> { static constexpr DLDataType value{kDLFloat, 32, 1}; };
template <> struct DTypeOf<double> { static constexpr DLDataType value{kDLFloat, 64, 1}; };
template <> struct DTypeOf<int8_t> { static constexpr DLDataType value{kDLInt, 8, 1}; };
template <> struct DTypeOf<uint8_t> { static constexpr DLDataType value{kDLUInt, 8, 1}; };
template <> struct DTypeOf<int32_t> { static constexpr DLDataType value{kDLInt, 32, 1}; };
template <> struct DTypeOf<int64_t> { static constexpr DLDataType value{kDLInt, 64, 1}; };
// clang-format on

template <typename T>
T* TensorArg::Data() const {
  CheckDType(DTypeOf<std::remove_const_t<T>>::value, "");
  return reinterpret_cast<T*>(static_cast<char*>(array_->tensor.data) + array_->tensor.byte_offset);
}

/*! \brief The op attribute naming an op's kernel (a registered "topi.*" factory), which the lowering reads. */
constexpr const char* kOpKernelAttr = "FTVMLiteKernel";

}  // namespace topi
}  // namespace tvmlite

/*!
 * \brief Name op's kernel (the kOpKernelAttr attribute), chainable like TVMLITE_REGISTER_OP:
 *   TVMLITE_REGISTER_OP_KERNEL("argwhere", "topi.argwhere").set_attr<bool>("TVMLiteReturnsOutputs", true);
 */
#define TVMLITE_REGISTER_OP_KERNEL(OpName, KernelName)                                             \
  TVMLITE_REGISTER_OP(OpName).set_attr<::tvmlite::runtime::String>(::tvmlite::topi::kOpKernelAttr, \
                                                                   ::tvmlite::runtime::String(KernelName))

/*!
 * \brief Register the kernel factory Name as Make(Name, attrs, extra...): for the factories one maker serves with
 * different arguments (the reductions, the pools, softmax and log_softmax, ...):
 *   TVMLITE_REGISTER_KERNEL_FACTORY("topi.sum", MakeReduce, Reducer::kSum);
 */
#define TVMLITE_REGISTER_KERNEL_FACTORY(Name, Make, ...)                                                       \
  TVMLITE_REGISTER_GLOBAL(Name)                                                                                \
      .set_body_typed([](::tvmlite::runtime::Map<::tvmlite::runtime::String, ::tvmlite::runtime::Any> attrs) { \
        return Make(Name, attrs, ##__VA_ARGS__);                                                               \
      })                                                                                                       \
      .set_kernel_factory()

#endif  // TVMLITE_TOPI_KERNEL_H_
