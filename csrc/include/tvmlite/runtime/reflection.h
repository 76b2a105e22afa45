/*!
 * \file tvmlite/runtime/reflection.h
 * \brief Declare an object type's fields once; Python attributes, structural equality/hashing and JSON read them.
 *
 *   TVMLITE_STATIC_INIT_BLOCK({
 *     refl::ObjectDef<PairObj>()
 *         .def_ro("first", &PairObj::first)
 *         .def_ro("second", &PairObj::second)
 *         .def(refl::init<Any, Any>());   // Python: Pair(first, second)
 *   });
 *
 * Fields read-only under their member names, the common case, are named once:
 *
 *   TVMLITE_REFLECT_FIELDS(PairObj, first, second).def(refl::init<Any, Any>());
 *
 * refl::init<Args...> registers the global "<type_key>.__init__" (a typed function making the object with
 * `new T(args...)`): register_object gives the Python class an __init__ that calls it through
 * __init_handle_by_constructor__, so a new node type needs no hand-written maker or Python __init__.
 */
#ifndef TVMLITE_RUNTIME_REFLECTION_H_
#define TVMLITE_RUNTIME_REFLECTION_H_

#include <tvmlite/runtime/function.h>

#include <string>

namespace tvmlite {
namespace runtime {
namespace refl {

/*! \brief Append a field to a type's info (names are copied into the registry). */
void RegisterField(int32_t type_index, const std::string& name, const std::string& type_str, int64_t offset,
                   int32_t static_type_index, int32_t flags, TVMLiteFieldGetter getter, TVMLiteFieldSetter setter);
/*! \brief Set the function that makes a default object of a type (deserialization). */
void RegisterCreator(int32_t type_index, int (*creator)(TVMLiteObjectHandle* out));

/*! \brief Tag for ObjectDef::def: construct with T's constructor taking Args. */
template <typename... Args>
struct init {};

/*! \brief The global name under which a type's constructor is registered. */
inline std::string ConstructorName(const std::string& type_key) { return type_key + ".__init__"; }
/*! \brief Register f as the constructor of type_key (once; a second registration is a ValueError). */
void RegisterConstructor(const std::string& type_key, Function f);

/*! \brief Type index every value of a C++ field type has, or -1 when it varies. */
template <typename FT>
constexpr int32_t FieldStaticTypeIndex() {
  if constexpr (std::is_same_v<FT, bool>) {
    return kTVMLiteBool;
  } else if constexpr (std::is_integral_v<FT>) {
    return kTVMLiteInt;
  } else if constexpr (std::is_floating_point_v<FT>) {
    return kTVMLiteFloat;
  } else if constexpr (std::is_same_v<FT, std::string>) {
    return kTVMLiteString;
  } else if constexpr (std::is_same_v<FT, DataType> || std::is_same_v<FT, DLDataType>) {
    return kTVMLiteDataType;
  } else if constexpr (std::is_same_v<FT, DLDevice>) {
    return kTVMLiteDevice;
  } else if constexpr (std::is_base_of_v<ObjectRef, FT>) {
    if constexpr (FT::ContainerType::_type_index >= 0) return FT::ContainerType::_type_index;
    return -1;  // a dynamic index is only known at run time; the getter's value says it
  } else {
    return -1;
  }
}

template <typename T>
class ObjectDef {
 public:
  ObjectDef() : type_index_(T::RuntimeTypeIndex()) {
    if constexpr (std::is_default_constructible_v<T>) RegisterCreator(type_index_, &Create);
  }

  /*! \brief A field Python can read but not assign. */
  template <typename FT>
  ObjectDef& def_ro(const char* name, FT T::* member, int32_t flags = 0) {
    return Def(name, member, flags);
  }
  /*! \brief A field Python can read and assign (the value is converted and type-checked). */
  template <typename FT>
  ObjectDef& def_rw(const char* name, FT T::* member, int32_t flags = 0) {
    return Def(name, member, flags | kTVMLiteFieldWritable);
  }
  /*! \brief The constructor Python calls (see the file comment). Arguments are checked like any typed call. */
  template <typename... Args>
  ObjectDef& def(init<Args...>) {
    // Errors name the type ("testing.Pair: argument #1 ..."), as a call of the class reads.
    RegisterConstructor(
        T::_type_key,
        Function::FromTyped([](Args... args) { return ObjectRef(make_object<T>(std::forward<Args>(args)...)); },
                            T::_type_key));
    return *this;
  }

 private:
  template <typename FT>
  ObjectDef& Def(const char* name, FT T::* member, int32_t flags) {
    // Offset from the header: address of the member in a fake object at a non-null base.
    const T* probe = reinterpret_cast<const T*>(alignof(T) * 1024);
    int64_t offset = reinterpret_cast<const char*>(&(probe->*member)) -
                     reinterpret_cast<const char*>(static_cast<const Object*>(probe));
    RegisterField(type_index_, name, TypeTraits<FT>::TypeStr(), offset, FieldStaticTypeIndex<FT>(), flags, &Getter<FT>,
                  &Setter<FT>);
    return *this;
  }
  template <typename FT>
  static int Getter(void* addr, TVMLiteAny* out) {
    try {
      Any(*static_cast<const FT*>(addr)).MoveToRaw(out);
      return 0;
    }
    TVMLITE_CATCH_TO_RAISED(return -1)
  }
  template <typename FT>
  static int Setter(void* addr, const TVMLiteAny* value) {
    try {
      *static_cast<FT*>(addr) = AnyView::FromRaw(*value).cast<FT>();
      return 0;
    }
    TVMLITE_CATCH_TO_RAISED(return -1)
  }
  static int Create(TVMLiteObjectHandle* out) {
    try {
      *out = make_object<T>().release()->header();
      return 0;
    }
    TVMLITE_CATCH_TO_RAISED(return -1)
  }
  int32_t type_index_;
};

}  // namespace refl
}  // namespace runtime
}  // namespace tvmlite

/*!
 * \brief refl::ObjectDef<T>() with .def_ro("f", &T::f) for each field named, in order (up to 16), as nlohmann's
 * NLOHMANN_DEFINE_TYPE_INTRUSIVE names them: a field's name and member cannot disagree. Chain more calls after it.
 */
#define TVMLITE_REFLECT_FIELDS(T, ...)                                                                  \
  ::tvmlite::runtime::refl::ObjectDef<T>() TVMLITE_REFL_PICK(                                           \
      __VA_ARGS__, TVMLITE_REFL_16, TVMLITE_REFL_15, TVMLITE_REFL_14, TVMLITE_REFL_13, TVMLITE_REFL_12, \
      TVMLITE_REFL_11, TVMLITE_REFL_10, TVMLITE_REFL_9, TVMLITE_REFL_8, TVMLITE_REFL_7, TVMLITE_REFL_6, \
      TVMLITE_REFL_5, TVMLITE_REFL_4, TVMLITE_REFL_3, TVMLITE_REFL_2, TVMLITE_REFL_1)(T, __VA_ARGS__)
#define TVMLITE_REFL_PICK(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, NAME, ...) NAME
// Each TVMLITE_REFL_<n> defines the first field and hands the rest to TVMLITE_REFL_<n - 1>.
#define TVMLITE_REFL_1(T, f) .def_ro(#f, &T::f)
#define TVMLITE_REFL_2(T, f, ...) TVMLITE_REFL_1(T, f) TVMLITE_REFL_1(T, __VA_ARGS__)
#define TVMLITE_REFL_3(T, f, ...) TVMLITE_REFL_1(T, f) TVMLITE_REFL_2(T, __VA_ARGS__)
#define TVMLITE_REFL_4(T, f, ...) TVMLITE_REFL_1(T, f) TVMLITE_REFL_3(T, __VA_ARGS__)
#define TVMLITE_REFL_5(T, f, ...) TVMLITE_REFL_1(T, f) TVMLITE_REFL_4(T, __VA_ARGS__)
#define TVMLITE_REFL_6(T, f, ...) TVMLITE_REFL_1(T, f) TVMLITE_REFL_5(T, __VA_ARGS__)
#define TVMLITE_REFL_7(T, f, ...) TVMLITE_REFL_1(T, f) TVMLITE_REFL_6(T, __VA_ARGS__)
#define TVMLITE_REFL_8(T, f, ...) TVMLITE_REFL_1(T, f) TVMLITE_REFL_7(T, __VA_ARGS__)
#define TVMLITE_REFL_9(T, f, ...) TVMLITE_REFL_1(T, f) TVMLITE_REFL_8(T, __VA_ARGS__)
#define TVMLITE_REFL_10(T, f, ...) TVMLITE_REFL_1(T, f) TVMLITE_REFL_9(T, __VA_ARGS__)
#define TVMLITE_REFL_11(T, f, ...) TVMLITE_REFL_1(T, f) TVMLITE_REFL_10(T, __VA_ARGS__)
#define TVMLITE_REFL_12(T, f, ...) TVMLITE_REFL_1(T, f) TVMLITE_REFL_11(T, __VA_ARGS__)
#define TVMLITE_REFL_13(T, f, ...) TVMLITE_REFL_1(T, f) TVMLITE_REFL_12(T, __VA_ARGS__)
#define TVMLITE_REFL_14(T, f, ...) TVMLITE_REFL_1(T, f) TVMLITE_REFL_13(T, __VA_ARGS__)
#define TVMLITE_REFL_15(T, f, ...) TVMLITE_REFL_1(T, f) TVMLITE_REFL_14(T, __VA_ARGS__)
#define TVMLITE_REFL_16(T, f, ...) TVMLITE_REFL_1(T, f) TVMLITE_REFL_15(T, __VA_ARGS__)

#endif  // TVMLITE_RUNTIME_REFLECTION_H_
