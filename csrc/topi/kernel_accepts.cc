/*!
 * \file kernel_accepts.cc
 * \brief The "<kernel>.accepts" registrations and the checks they share (tvmlite/topi/kernel_accepts.h).
 */
#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/kernel_accepts.h>

#include <sstream>

namespace tvmlite {
namespace topi {

std::string DTypeName(DLDataType t) {
  try {
    return runtime::DLDataTypeToString(t);
  } catch (const runtime::Error&) {
    return "a dtype without a name";
  }
}

std::string SameDTypeReason(const std::string& kernel, DLDataType a, DLDataType b) {
  return SameDType(a, b) ? "" : kernel + ": dtypes differ: " + DTypeName(a) + " and " + DTypeName(b);
}

std::string IndexReason(const std::string& kernel, const char* what, DLDataType t) {
  return IsIndexDType(t) ? "" : kernel + ": " + what + " must be int32 or int64, got " + DTypeName(t);
}

std::string MinRankReason(const std::string& kernel, const char* what, const TensorSig& t, int64_t min_ndim) {
  if (t.ndim >= min_ndim) return "";
  return kernel + ": " + what + " must have rank >= " + std::to_string(min_ndim) + ", got " + std::to_string(t.ndim);
}

std::string ByteScalarReason(const std::string& kernel, DLDataType t) {
  return IsByteScalar(t) ? "" : kernel + ": dtype " + DTypeName(t) + " is not supported (1, 2, 4 or 8 byte scalars)";
}

int EpilogueInputs(const KernelAttrs& attrs) { return attrs.GetEpilogue().num_inputs(); }

std::string CheckArity(const KernelAttrs& attrs, const std::vector<TensorSig>& t, int own, bool has_out) {
  const int epi = EpilogueInputs(attrs);
  const int want = own + epi + (has_out ? 1 : 0);
  std::ostringstream os;
  if (static_cast<int>(t.size()) != want) {
    os << attrs.kernel() << ": expected " << want << " tensor arguments (" << own << " inputs, " << epi
       << " epilogue inputs" << (has_out ? ", out" : "") << "), got " << t.size();
    return os.str();
  }
  for (int k = 0; k < epi; ++k) {
    if (!IsF32(t[own + k].dtype)) {
      os << attrs.kernel() << ": epilogue input " << k << " must be float32, got " << DTypeName(t[own + k].dtype);
      return os.str();
    }
  }
  if (epi > 0 || !attrs.GetString("epilogue", "").empty()) {
    if (has_out && !IsF32(t.back().dtype)) {
      return attrs.kernel() + ": out must be float32 with an epilogue, got " + DTypeName(t.back().dtype);
    }
  }
  return "";
}

bool RegisterKernelAccepts(const std::string& kernel, AcceptsFn fn) {
  const std::string name = kernel + ".accepts";
  runtime::Registry::Register(name).set_body_typed(
      [kernel, name, fn](Map<String, Any> attrs, Array<String> dtypes, Array<int64_t> ndims) -> String {
        TVMLITE_CHECK_KIND(dtypes.size() == ndims.size(), ValueError)
            << name << ": dtypes has " << dtypes.size() << " entries, ndims " << ndims.size();
        std::vector<TensorSig> sigs;
        for (size_t i = 0; i < dtypes.size(); ++i) {
          const std::string text = dtypes[i];
          DLDataType dt;
          try {
            dt = runtime::StringToDLDataType(text);
          } catch (const runtime::Error&) {
            TVMLITE_THROW(ValueError) << name << ": dtypes[" << i << "] '" << text << "' is not a dtype";
          }
          TVMLITE_CHECK_KIND(runtime::IsValidDLDataType(dt), ValueError)
              << name << ": dtypes[" << i << "] '" << text << "' is not a dtype";
          const int64_t nd = ndims[i];
          TVMLITE_CHECK_KIND(nd >= 0 && nd <= 64, ValueError) << name << ": ndims[" << i << "] is " << nd;
          sigs.push_back({dt, nd});
        }
        return String(fn(KernelAttrs(kernel, attrs), sigs));
      });
  return true;
}

}  // namespace topi
}  // namespace tvmlite
