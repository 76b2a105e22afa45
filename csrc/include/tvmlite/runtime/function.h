/*!
 * \file tvmlite/runtime/function.h
 * \brief Function (PackedFunc): a callable object with the C calling convention, and typed wrappers.
 *
 * Every function, whether a C++ lambda or a Python callable, is a FunctionObj whose cell holds a TVMLiteSafeCall.
 * Calling it from any language is one indirect call; errors travel as Error objects.
 */
#ifndef TVMLITE_RUNTIME_FUNCTION_H_
#define TVMLITE_RUNTIME_FUNCTION_H_

#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/ndarray.h>

#include <string>
#include <tuple>
#include <utility>

namespace tvmlite {
namespace runtime {

/*! \brief The arguments of a packed call: borrowed views. */
class PackedArgs {
 public:
  PackedArgs(const AnyView* data, int32_t size) : data_(data), size_(size) {}
  int32_t size() const { return size_; }
  const AnyView& operator[](int32_t i) const { return data_[i]; }
  const AnyView* data() const { return data_; }

 private:
  const AnyView* data_;
  int32_t size_;
};

class FunctionObj : public Object {
 public:
  TVMLiteFunctionCell cell;  // must directly follow the header; cell.resource: a foreign callable, or null
  void (*resource_deleter)(void*) = nullptr;

  FunctionObj() { cell.safe_call = nullptr, cell.flags = 0, cell.reserved = 0, cell.resource = nullptr; }
  ~FunctionObj() {
    if (resource_deleter) resource_deleter(cell.resource);
  }

  /*! \brief Call; throws the callee's Error on failure. Inline: C++ -> callback loops live on this path. */
  void CallPacked(const AnyView* args, int32_t num_args, Any* rv) const {
    TVMLiteAny result;
    AnySetNone(&result);
    if (cell.safe_call(const_cast<FunctionObj*>(this)->header(), reinterpret_cast<const TVMLiteAny*>(args), num_args,
                       &result) != 0) {
      ThrowRaised();
    }
    *rv = Any::MoveFromRaw(result);
  }
  /*! \brief Throw this thread's pending error (out of line: the cold path). */
  [[noreturn]] static void ThrowRaised();

  static constexpr const char* _type_key = "runtime.Function";
  static constexpr int32_t _type_index = kTVMLiteFunction;
  TVMLITE_DECLARE_FINAL_OBJECT_INFO(FunctionObj, Object);
};

namespace details {
/*! \brief A FunctionObj running a C++ callable with signature void(PackedArgs, Any*). */
template <typename TCallable>
class FunctionObjImpl : public FunctionObj {
 public:
  explicit FunctionObjImpl(TCallable f) : f_(std::move(f)) { cell.safe_call = SafeCall; }

 private:
  static int SafeCall(void* self, const TVMLiteAny* args, int32_t num_args, TVMLiteAny* result) {
    try {
      Any rv;
      static_cast<FunctionObjImpl*>(static_cast<Object*>(self))
          ->f_(PackedArgs(reinterpret_cast<const AnyView*>(args), num_args), &rv);
      rv.MoveToRaw(result);
      return 0;
    }
    TVMLITE_CATCH_TO_RAISED(return -1)
  }
  TCallable f_;
};

template <typename T>
struct FuncSignature;
template <typename R, typename... Args>
struct FuncSignature<R(Args...)> {
  using RetType = R;
  static constexpr size_t kNumArgs = sizeof...(Args);
  using ArgsTuple = std::tuple<std::remove_cv_t<std::remove_reference_t<Args>>...>;
  /*! \brief "(0: int, 1: str) -> float", for error messages. */
  static std::string Str() {
    std::string s = "(";
    size_t i = 0;
    ((s += (i ? ", " : "") + std::to_string(i) + ": " + TypeTraitsNoCV<Args>::TypeStr(), ++i), ...);
    if constexpr (std::is_void_v<R>) {
      return s + ") -> None";
    } else {
      return s + ") -> " + TypeTraitsNoCV<R>::TypeStr();
    }
  }
};
template <typename R, typename... Args>
struct FuncSignature<R (*)(Args...)> : FuncSignature<R(Args...)> {};
template <typename C, typename R, typename... Args>
struct FuncSignature<R (C::*)(Args...) const> : FuncSignature<R(Args...)> {};
template <typename C, typename R, typename... Args>
struct FuncSignature<R (C::*)(Args...)> : FuncSignature<R(Args...)> {};

template <typename F, typename = void>
struct CallableSignature : FuncSignature<F> {};
template <typename F>
struct CallableSignature<F, std::void_t<decltype(&F::operator())>> : FuncSignature<decltype(&F::operator())> {};

[[noreturn]] void ThrowArgCountError(const std::string& name, const std::string& sig, size_t expected, int32_t got);
[[noreturn]] void ThrowArgTypeError(const std::string& name, const std::string& sig, size_t index,
                                    const TVMLiteAny& got, const std::string& expected);

/*!
 * \brief A typed body's argument as T. An object parameter is never null: None reaches a typed body only through
 * Optional<T> (or Any), so bodies may dereference their ObjectRef parameters.
 */
template <typename T>
std::optional<T> TryCastArg(const TVMLiteAny* raw) {
  if constexpr (std::is_base_of_v<ObjectRef, T>) {
    if (raw->type_index == kTVMLiteNone) return std::nullopt;
  }
  return TypeTraits<T>::TryCast(raw);
}

template <typename Sig, size_t I>
auto UnpackArg(const std::string& name, const PackedArgs& args) {
  using T = std::tuple_element_t<I, typename Sig::ArgsTuple>;
  const TVMLiteAny* raw = args[static_cast<int32_t>(I)].raw();
  std::optional<T> v = TryCastArg<T>(raw);
  if (!v.has_value()) ThrowArgTypeError(name, Sig::Str(), I, *raw, TypeTraits<T>::TypeStr());
  return std::move(*v);
}

template <typename Sig, typename F, size_t... I>
void UnpackCall(const std::string& name, const F& f, const PackedArgs& args, Any* rv, std::index_sequence<I...>) {
  if (args.size() != static_cast<int32_t>(Sig::kNumArgs)) {
    ThrowArgCountError(name, Sig::Str(), Sig::kNumArgs, args.size());
  }
  if constexpr (std::is_void_v<typename Sig::RetType>) {
    f(UnpackArg<Sig, I>(name, args)...);
  } else {
    *rv = Any(f(UnpackArg<Sig, I>(name, args)...));
  }
}
}  // namespace details

class Function : public ObjectRef {
 public:
  Function() = default;
  explicit Function(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  /*! \brief Wrap a packed callable: void(PackedArgs args, Any* rv). */
  template <typename TCallable, typename = std::enable_if_t<std::is_invocable_v<TCallable, PackedArgs, Any*>>>
  explicit Function(TCallable f) : ObjectRef(make_object<details::FunctionObjImpl<TCallable>>(std::move(f))) {}

  /*!
   * \brief Wrap a typed callable; arguments are converted with the FFI's rules and a mismatch raises TypeError
   * naming `name`, the argument index, the expected and the actual type.
   */
  template <typename TCallable>
  static Function FromTyped(TCallable f, std::string name) {
    using Sig = details::CallableSignature<TCallable>;
    return Function([f = std::move(f), name = std::move(name)](PackedArgs args, Any* rv) {
      details::UnpackCall<Sig>(name, f, args, rv, std::make_index_sequence<Sig::kNumArgs>());
    });
  }

  const FunctionObj* get() const { return static_cast<const FunctionObj*>(data_.get()); }
  const FunctionObj* operator->() const { return get(); }

  template <typename... Args>
  Any operator()(Args&&... args) const {
    AnyView views[sizeof...(Args) + 1] = {AnyView(std::forward<Args>(args))...};
    Any rv;
    get()->CallPacked(views, static_cast<int32_t>(sizeof...(Args)), &rv);
    return rv;
  }
  void CallPacked(PackedArgs args, Any* rv) const { get()->CallPacked(args.data(), args.size(), rv); }

  static constexpr bool _type_is_nullable = false;
  using ContainerType = FunctionObj;
};

/*! \brief A Function with a fixed C++ signature: calls convert the result to R. */
template <typename Sig>
class TypedFunction;
template <typename R, typename... Args>
class TypedFunction<R(Args...)> {
 public:
  TypedFunction() = default;
  explicit TypedFunction(Function f) : f_(std::move(f)) {}
  R operator()(Args... args) const {
    if constexpr (std::is_void_v<R>) {
      f_(std::forward<Args>(args)...);
    } else {
      return f_(std::forward<Args>(args)...).template cast<R>();
    }
  }
  const Function& packed() const { return f_; }

 private:
  Function f_;
};

}  // namespace runtime
}  // namespace tvmlite
#endif  // TVMLITE_RUNTIME_FUNCTION_H_
