/*!
 * \file error.cc
 * \brief Error objects, the per-thread pending error, and the messages of conversion failures.
 */
#include <tvmlite/runtime/function.h>

#include <cstring>

namespace tvmlite {
namespace runtime {

TVMLITE_REGISTER_OBJECT_TYPE(ErrorObj);

Error::Error(std::string kind, std::string message, std::string backtrace)
    : ObjectRef(make_object<ErrorObj>(std::move(kind), std::move(message), std::move(backtrace))) {}

namespace {
/*! \brief This thread's pending error: set by a failed call, taken by whoever reports it. */
ObjectPtr<Object>& RaisedSlot() {
  static thread_local ObjectPtr<Object> slot;
  return slot;
}
}  // namespace

Error Error::MoveFromRaised() {
  ObjectPtr<Object> e = std::move(RaisedSlot());
  RaisedSlot() = nullptr;
  if (!e) return Error("InternalError", "a call failed without setting an error");
  return Error(std::move(e));
}

namespace details {

ErrorBuilder::~ErrorBuilder() noexcept(false) {
  std::string where = std::string(file_) + ":" + std::to_string(line_);
  throw Error(kind_, stream_.str(), where);
}

void SetRaisedFromException(std::exception_ptr eptr) {
  try {
    std::rethrow_exception(eptr);
  } catch (const Error& e) {
    RaisedSlot() = ObjectPtr<Object>::CopyFromRaw(const_cast<Object*>(e.ObjectRef::get()));
  } catch (const std::bad_alloc& e) {
    RaisedSlot() = Error("MemoryError", "out of memory").ObjectPtrRef();
  } catch (const std::exception& e) {
    RaisedSlot() = Error("InternalError", e.what()).ObjectPtrRef();
  } catch (...) {
    RaisedSlot() = Error("InternalError", "unknown C++ exception").ObjectPtrRef();
  }
}

void SetRaised(ObjectPtr<Object> error) { RaisedSlot() = std::move(error); }

[[noreturn]] void ThrowCastError(const TVMLiteAny& from, const std::string& to) {
  throw Error("TypeError", "Cannot convert from type `" + AnyTypeStr(from) + "` to `" + to + "`");
}

[[noreturn]] void ThrowArgCountError(const std::string& name, const std::string& sig, size_t expected, int32_t got) {
  throw Error("TypeError", "Mismatched number of arguments when calling: `" + name + sig + "`. Expected " +
                               std::to_string(expected) + " but got " + std::to_string(got) + " arguments");
}

[[noreturn]] void ThrowArgTypeError(const std::string& name, const std::string& sig, size_t index,
                                    const TVMLiteAny& got, const std::string& expected) {
  throw Error("TypeError", "Mismatched type on argument #" + std::to_string(index) + " when calling: `" + name + sig +
                               "`. Expected `" + expected + "` but got `" + AnyTypeStr(got) + "`");
}

}  // namespace details

std::string AnyTypeStr(const TVMLiteAny& v) {
  switch (v.type_index) {
    case kTVMLiteNone: return "None";
    case kTVMLiteInt: return "int";
    case kTVMLiteBool: return "bool";
    case kTVMLiteFloat: return "float";
    case kTVMLiteOpaquePtr: return "void*";
    case kTVMLiteDataType: return "DataType";
    case kTVMLiteDevice: return "Device";
    case kTVMLiteDLTensorPtr: return "DLTensor*";
    case kTVMLiteRawStr: return "str";
    case kTVMLiteByteArrayPtr: return "bytes";
    case kTVMLiteTensorView: return "NDArray";
    case kTVMLiteString: return "str";
    case kTVMLiteBytes: return "bytes";
    default: return TypeIndexToKey(v.type_index);
  }
}

}  // namespace runtime
}  // namespace tvmlite
