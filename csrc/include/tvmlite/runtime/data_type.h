/*!
 * \file tvmlite/runtime/data_type.h
 * \brief DataType (a DLDataType with names) and Device.
 */
#ifndef TVMLITE_RUNTIME_DATA_TYPE_H_
#define TVMLITE_RUNTIME_DATA_TYPE_H_

#include <tvmlite/runtime/string.h>

#include <string>

namespace tvmlite {
namespace runtime {

using Device = DLDevice;

/*!
 * \brief Parse "float32", "int8x4", "bool", "handle", "bfloat16", "int4", and the DLPack 1.1 low-precision floats by
 * their ml_dtypes names ("float8_e4m3fn", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn", ...); throws
 * ValueError otherwise. Sub-byte types (int4, float4_e2m1fn) take one byte per element in an NDArray.
 */
DLDataType StringToDLDataType(const std::string& str);
/*! \brief Canonical name of a data type ("float32", "uint8x4", "float8_e4m3fn", ...); ValueError if it has none. */
std::string DLDataTypeToString(DLDataType t);
/*!
 * \brief Whether t is a data type tvmlite can name: a DLDataTypeCode with bits and lanes > 0 (a low-precision float
 * code with its format's width), or "void".
 */
bool IsValidDLDataType(DLDataType t);
/*!
 * \brief A device from untrusted numbers: a DLDeviceType value and an id >= 0, else ValueError. Every Device that
 * enters tvmlite from outside (Python, JSON) is made here, so none holds a value outside the enum.
 */
DLDevice MakeDevice(int64_t device_type, int64_t device_id);

/*!
 * \brief Type code of "string", outside DLPack's codes: the IR types string tensors (ONNX STRING) and the debug
 * executor holds them as numpy object arrays, but no NDArray has this type (it has no fixed element size).
 */
constexpr uint8_t kTVMLiteStringTypeCode = 0xA0;

class DataType {
 public:
  DataType() : DataType(kDLOpaqueHandle, 0, 0) {}
  DataType(DLDataType t) : t_(t) {}  // NOLINT(*)
  DataType(int code, int bits, int lanes) {
    t_.code = static_cast<uint8_t>(code), t_.bits = static_cast<uint8_t>(bits);
    t_.lanes = static_cast<uint16_t>(lanes);
  }
  explicit DataType(const std::string& s) : t_(StringToDLDataType(s)) {}

  static DataType Int(int bits, int lanes = 1) { return DataType(kDLInt, bits, lanes); }
  static DataType UInt(int bits, int lanes = 1) { return DataType(kDLUInt, bits, lanes); }
  static DataType Float(int bits, int lanes = 1) { return DataType(kDLFloat, bits, lanes); }
  static DataType Bool() { return DataType(kDLBool, 8, 1); }

  int code() const { return t_.code; }
  int bits() const { return t_.bits; }
  int lanes() const { return t_.lanes; }
  /*! \brief Bytes per element, rounding sub-byte types up. */
  int bytes() const { return (t_.bits * t_.lanes + 7) / 8; }
  bool is_float() const { return t_.code == kDLFloat; }
  bool is_int() const { return t_.code == kDLInt; }
  bool is_uint() const { return t_.code == kDLUInt; }
  bool is_bool() const { return t_.code == kDLBool; }
  bool is_bfloat() const { return t_.code == kDLBfloat; }
  /*! \brief The IR's string element type (kTVMLiteStringTypeCode): types only, never an NDArray's. */
  bool is_string() const { return t_.code == kTVMLiteStringTypeCode; }
  /*! \brief One of the DLPack 1.1 float8/float6/float4 formats. */
  bool is_low_precision_float() const { return t_.code >= kDLFloat8_e3m4 && t_.code <= kDLFloat4_e2m1fn; }
  /*! \brief Any floating-point format: IEEE float, bfloat or a low-precision float. */
  bool is_floating_point() const { return is_float() || is_bfloat() || is_low_precision_float(); }
  operator DLDataType() const { return t_; }  // NOLINT(*)
  std::string str() const { return DLDataTypeToString(t_); }

  bool operator==(const DataType& o) const {
    return t_.code == o.t_.code && t_.bits == o.t_.bits && t_.lanes == o.t_.lanes;
  }
  bool operator!=(const DataType& o) const { return !(*this == o); }

 private:
  DLDataType t_;
};

inline std::ostream& operator<<(std::ostream& os, DataType t) { return os << t.str(); }

/*! \brief A DataType argument accepts a DataType value or its name as a string. */
template <>
struct TypeTraits<DataType> : PODTraitsBase<DataType> {
  static void CopyToView(DataType v, TVMLiteAny* out) {
    out->type_index = kTVMLiteDataType, out->reserved = 0, out->v_int64 = 0, out->v_dtype = v;
  }
  static std::optional<DataType> TryCast(const TVMLiteAny* v) {
    if (v->type_index == kTVMLiteDataType) return DataType(v->v_dtype);
    if (auto s = TypeTraits<std::string>::TryCast(v)) return DataType(*s);
    return std::nullopt;
  }
  static std::string TypeStr() { return "DataType"; }
};

template <>
struct TypeTraits<DLDataType> : PODTraitsBase<DLDataType> {
  static void CopyToView(DLDataType v, TVMLiteAny* out) { TypeTraits<DataType>::CopyToView(v, out); }
  static std::optional<DLDataType> TryCast(const TVMLiteAny* v) {
    if (auto t = TypeTraits<DataType>::TryCast(v)) return static_cast<DLDataType>(*t);
    return std::nullopt;
  }
  static std::string TypeStr() { return "DataType"; }
};

}  // namespace runtime
}  // namespace tvmlite
#endif  // TVMLITE_RUNTIME_DATA_TYPE_H_
