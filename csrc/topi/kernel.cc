/*!
 * \file kernel.cc
 * \brief KernelAttrs, TensorArg and KernelArgs (tvmlite/topi/kernel.h).
 */
#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/shape.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/kernel.h>

#include <sstream>

namespace tvmlite {
namespace topi {

Any KernelAttrs::Get(const char* key) const {
  const Any* v = attrs_.get()->Find(Any(String(key)));
  TVMLITE_CHECK_KIND(v != nullptr, ValueError) << kernel_ << ": missing attribute '" << key << "'";
  return *v;
}

bool KernelAttrs::HasValue(const char* key) const {
  const Any* v = attrs_.get()->Find(Any(String(key)));
  return v != nullptr && !v->is_none();
}

Epilogue KernelAttrs::GetEpilogue() const { return Epilogue::Parse(GetString("epilogue", ""), kernel_); }

void KernelAttrs::CheckNoEpilogue() const {
  TVMLITE_CHECK_KIND(GetString("epilogue", "").empty(), ValueError) << kernel_ << ": takes no epilogue";
}

int64_t KernelAttrs::GetInt(const char* key) const {
  Any v = Get(key);
  std::optional<int64_t> i = v.type_index() == kTVMLiteFloat ? std::nullopt : v.as<int64_t>();
  TVMLITE_CHECK_KIND(i.has_value(), TypeError) << kernel_ << ": attribute '" << key << "' must be an int";
  return *i;
}

double KernelAttrs::GetFloat(const char* key) const {
  std::optional<double> f = Get(key).as<double>();
  TVMLITE_CHECK_KIND(f.has_value(), TypeError) << kernel_ << ": attribute '" << key << "' must be a float";
  return *f;
}

std::string KernelAttrs::GetString(const char* key) const {
  std::optional<String> s = Get(key).as<String>();
  TVMLITE_CHECK_KIND(s.has_value(), TypeError) << kernel_ << ": attribute '" << key << "' must be a str";
  return std::string(*s);
}

std::vector<int64_t> KernelAttrs::GetInts(const char* key) const {
  std::optional<Array<Any>> a = Get(key).as<Array<Any>>();
  TVMLITE_CHECK_KIND(a.has_value(), TypeError) << kernel_ << ": attribute '" << key << "' must be a list of ints";
  std::vector<int64_t> out;
  for (const Any& x : *a) {
    std::optional<int64_t> i = x.type_index() == kTVMLiteFloat ? std::nullopt : x.as<int64_t>();
    TVMLITE_CHECK_KIND(i.has_value(), TypeError) << kernel_ << ": attribute '" << key << "' must be a list of ints";
    out.push_back(*i);
  }
  return out;
}

void TensorArg::Fail(const std::string& what) const {
  TVMLITE_THROW(ValueError) << *kernel_ << ": " << name_ << " " << what;
}

void TensorArg::CheckDType(DLDataType want, const char*) const {
  DLDataType got = dtype();
  if (got.code != want.code || got.bits != want.bits || got.lanes != want.lanes) {
    TVMLITE_THROW(TypeError) << *kernel_ << ": " << name_ << " must be " << runtime::DataType(want).str() << ", got "
                             << runtime::DataType(got).str();
  }
}

const TensorArg& TensorArg::CheckNDim(int n) const {
  if (ndim() != n) {
    std::ostringstream os;
    os << "must have " << n << " dimensions, got shape " << runtime::ShapeTuple(shape());
    Fail(os.str());
  }
  return *this;
}

const TensorArg& TensorArg::CheckShape(const std::vector<int64_t>& want) const {
  if (shape() != want) {
    std::ostringstream os;
    os << "must have shape " << runtime::ShapeTuple(want) << ", got " << runtime::ShapeTuple(shape());
    Fail(os.str());
  }
  return *this;
}

TensorArg KernelArgs::Input(int i, const char* name) const {
  TVMLITE_CHECK_KIND(i >= 0 && i < args_.size(), TypeError)
      << *kernel_ << ": missing tensor argument " << i << " (" << name << ")";
  std::optional<NDArray> a = args_[i].as<NDArray>();
  TVMLITE_CHECK_KIND(a.has_value() && a->defined(), TypeError)
      << *kernel_ << ": argument " << i << " (" << name << ") must be an NDArray";
  const DLTensor& t = (*a)->tensor;
  TVMLITE_CHECK_KIND(t.device.device_type == kDLCPU, ValueError) << *kernel_ << ": " << name << " must be on the CPU";
  TVMLITE_CHECK_KIND(a->IsContiguous(), ValueError) << *kernel_ << ": " << name << " must be contiguous";
  TVMLITE_CHECK_KIND(t.data != nullptr || a->NumElements() == 0, ValueError)
      << *kernel_ << ": " << name << " has no data";
  return TensorArg(std::move(*a), kernel_, name);
}

std::vector<NDArray> KernelArgs::Rest(int i) const {
  std::vector<NDArray> out;
  for (int k = i; k < args_.size() - 1; ++k) out.push_back(Input(k, "epilogue input").array());
  return out;
}

int64_t NormalizedAxis(const std::string& kernel, int64_t axis, int64_t ndim) {
  TVMLITE_CHECK_KIND(ndim >= 1, ValueError) << kernel << ": data must have rank >= 1, got a scalar";
  TVMLITE_CHECK_KIND(axis >= -ndim && axis < ndim, ValueError)
      << kernel << ": axis " << axis << " is out of range for rank " << ndim;
  return axis < 0 ? axis + ndim : axis;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << runtime::ShapeTuple(shape);
  return os.str();
}

AxisWise ReadAxisWise(const KernelArgs& args, int64_t axis_attr) {
  TensorArg data = args.Input(0, "data"), out = args.Output();
  AxisWise a;
  a.x = data.Data<float>();
  a.y = out.Data<float>();
  a.shape = data.shape();
  const int64_t ndim = static_cast<int64_t>(a.shape.size());
  a.axis = NormalizedAxis(args.kernel(), axis_attr, ndim);
  out.CheckShape(a.shape);
  a.outer = 1, a.len = a.shape[a.axis], a.inner = 1;
  for (int64_t i = 0; i < ndim; ++i) {
    if (i != a.axis) (i < a.axis ? a.outer : a.inner) *= a.shape[i];
  }
  return a;
}

}  // namespace topi
}  // namespace tvmlite
