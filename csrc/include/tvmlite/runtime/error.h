/*!
 * \file tvmlite/runtime/error.h
 * \brief Error: an object (so it crosses the C ABI and carries a Python exception back out) that is also a C++
 * exception. TVMLITE_THROW(Kind) << "message" throws one; Kind names the Python class it becomes.
 */
#ifndef TVMLITE_RUNTIME_ERROR_H_
#define TVMLITE_RUNTIME_ERROR_H_

#include <tvmlite/runtime/object.h>

#include <exception>
#include <sstream>
#include <string>

namespace tvmlite {
namespace runtime {

class ErrorObj : public Object {
 public:
  TVMLiteErrorCell cell;  // must directly follow the header: the C ABI reads it there

  ErrorObj(std::string kind, std::string message, std::string backtrace)
      : kind_(std::move(kind)), message_(std::move(message)), backtrace_(std::move(backtrace)) {
    cell.kind = {kind_.data(), static_cast<int64_t>(kind_.size())};
    cell.message = {message_.data(), static_cast<int64_t>(message_.size())};
    cell.backtrace = {backtrace_.data(), static_cast<int64_t>(backtrace_.size())};
    cell.payload = nullptr;
    cell.payload_deleter = nullptr;
  }
  ~ErrorObj() {
    if (cell.payload_deleter) cell.payload_deleter(cell.payload);
  }

  const std::string& kind() const { return kind_; }
  const std::string& message() const { return message_; }
  const std::string& backtrace() const { return backtrace_; }

  static constexpr const char* _type_key = "runtime.Error";
  static constexpr int32_t _type_index = kTVMLiteError;
  TVMLITE_DECLARE_FINAL_OBJECT_INFO(ErrorObj, Object);

 private:
  std::string kind_, message_, backtrace_;
};

class Error : public ObjectRef, public std::exception {
 public:
  Error(std::string kind, std::string message, std::string backtrace = "");
  explicit Error(ObjectPtr<Object> data) : ObjectRef(std::move(data)) {}

  const ErrorObj* get() const { return static_cast<const ErrorObj*>(data_.get()); }
  const ErrorObj* operator->() const { return get(); }
  const std::string& kind() const { return get()->kind(); }
  const std::string& message() const { return get()->message(); }
  const char* what() const noexcept override { return get()->message().c_str(); }

  /*! \brief Take this thread's pending error (set by a failed C call) as a throwable Error. */
  static Error MoveFromRaised();
};

namespace details {
/*! \brief Make error this thread's pending error (what the C API reports after returning -1). */
void SetRaised(ObjectPtr<Object> error);
/*! \brief Store a caught C++ exception as this thread's pending error (used at every C boundary). */
void SetRaisedFromException(std::exception_ptr e);

/*! \brief Collects a message and throws it as an Error when the statement ends. */
class ErrorBuilder {
 public:
  ErrorBuilder(const char* kind, const char* file, int line) : kind_(kind), file_(file), line_(line) {}
  std::ostringstream& stream() { return stream_; }
  [[noreturn]] ~ErrorBuilder() noexcept(false);

 private:
  const char* kind_;
  const char* file_;
  int line_;
  std::ostringstream stream_;
};
}  // namespace details

}  // namespace runtime
}  // namespace tvmlite

/*!
 * \brief Catch every C++ exception at a C boundary, except a thread's forced unwind (pthread_exit, which CPython
 * uses to end daemon threads at exit): that one must keep unwinding or the process aborts.
 *   try { ... } TVMLITE_CATCH_TO_RAISED(return -1);
 * The forced unwind is a foreign exception, told apart by having no exception_ptr: catching it as
 * `abi::__forced_unwind&` would bind that reference to null, which is undefined behaviour (a UBSan report).
 */
#define TVMLITE_CATCH_TO_RAISED(on_error)                                                \
  catch (...) {                                                                          \
    std::exception_ptr tvmlite_caught_ = std::current_exception();                       \
    if (!tvmlite_caught_) throw; /* foreign: the forced unwind of a thread that exits */ \
    ::tvmlite::runtime::details::SetRaisedFromException(std::move(tvmlite_caught_));     \
    on_error;                                                                            \
  }

/*! \brief Throw an error of the given kind: TVMLITE_THROW(ValueError) << "bad " << x; */
#define TVMLITE_THROW(Kind) ::tvmlite::runtime::details::ErrorBuilder(#Kind, __FILE__, __LINE__).stream()

/*! \brief Internal invariant; a failure is a bug in tvmlite, reported as InternalError. */
#define TVMLITE_ICHECK(cond) \
  if (cond) {                \
  } else TVMLITE_THROW(InternalError) << "Check failed: (" #cond ") is false: "

/*! \brief User-facing check with a chosen error kind. */
#define TVMLITE_CHECK_KIND(cond, Kind) \
  if (cond) {                          \
  } else TVMLITE_THROW(Kind)

#endif  // TVMLITE_RUNTIME_ERROR_H_
