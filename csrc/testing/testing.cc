/*!
 * \file testing.cc
 * \brief The testing.* functions and types (testing.Pair, testing.Var, testing.Lambda) for tests and benchmarks.
 *
 * Built as its own library, tvmlite/lib/libtvmlite_testing.so, linked against libtvmlite.so: loading it (import
 * tvmlite.testing) runs its static initializers, which register everything below in libtvmlite's registries.
 * Only the public headers and the C API are used here, as any library built on tvmlite would.
 */
#include <tvmlite/c_api.h>
#include <tvmlite/runtime/reflection.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/structural.h>

#include <chrono>
#include <thread>
#include <vector>

namespace tvmlite {
namespace runtime {

/*! \brief testing.Pair: two fields of any type. */
class PairObj : public Object {
 public:
  Any first;
  Any second;

  PairObj() = default;
  PairObj(Any first_in, Any second_in) : first(std::move(first_in)), second(std::move(second_in)) {}

  TVMLITE_DECLARE_FINAL_OBJECT("testing.Pair", PairObj, Object);
};

TVMLITE_STATIC_INIT_BLOCK({ TVMLITE_REFLECT_FIELDS(PairObj, first, second).def(refl::init<Any, Any>()); });

// The same constructor under the type key, for tests and benchmarks that call it as a plain global.
TVMLITE_REGISTER_GLOBAL("testing.Pair").set_body_typed([](Any first, Any second) {
  return ObjectRef(make_object<PairObj>(std::move(first), std::move(second)));
});

TVMLITE_REGISTER_GLOBAL("testing.nop").set_body_packed([](PackedArgs, Any*) {});

TVMLITE_REGISTER_GLOBAL("testing.echo").set_body_packed([](PackedArgs args, Any* rv) {
  TVMLITE_CHECK_KIND(args.size() == 1, TypeError) << "testing.echo takes exactly one argument, got " << args.size();
  *rv = Any(args[0]);
});

TVMLITE_REGISTER_GLOBAL("testing.call_n").set_body_typed([](Function f, int64_t n) {
  for (int64_t i = 0; i < n; ++i) f();
});

/*! \brief testing.apply(f, *args) -> f(*args): a C++ frame between two Python calls. */
TVMLITE_REGISTER_GLOBAL("testing.apply").set_body_packed([](PackedArgs args, Any* rv) {
  TVMLITE_CHECK_KIND(args.size() >= 1, TypeError) << "testing.apply needs a function";
  Function f = args[0].cast<Function>();
  f.CallPacked(PackedArgs(args.data() + 1, args.size() - 1), rv);
});

TVMLITE_REGISTER_GLOBAL("testing.raise").set_body_typed([](std::string kind, std::string message) {
  throw Error(kind, message, std::string(__FILE__) + ":" + std::to_string(__LINE__));
});

TVMLITE_REGISTER_GLOBAL("testing.object_count").set_body_typed([]() { return TVMLiteObjectLiveCount(); });

/*! \brief Typed functions whose argument checks the tests exercise. */
TVMLITE_REGISTER_GLOBAL("testing.add_int").set_body_typed([](int64_t a, int64_t b) {
  int64_t sum;
  TVMLITE_CHECK_KIND(!__builtin_add_overflow(a, b, &sum), OverflowError)
      << "testing.add_int: " << a << " + " << b << " does not fit in int64";
  return sum;
});
TVMLITE_REGISTER_GLOBAL("testing.concat").set_body_typed([](String a, String b) {
  return String(std::string(a) + std::string(b));
});
TVMLITE_REGISTER_GLOBAL("testing.sum_array").set_body_typed([](Array<int64_t> xs) {
  int64_t s = 0;
  for (int64_t x : xs) {
    TVMLITE_CHECK_KIND(!__builtin_add_overflow(s, x, &s), OverflowError)
        << "testing.sum_array: the sum does not fit in int64";
  }
  return s;
});

/*! \brief Reads a field by reflection, as C++ code reads objects defined in Python. */
TVMLITE_REGISTER_GLOBAL("testing.get_field").set_body_typed([](ObjectRef obj, std::string name) {
  const TVMLiteTypeInfo* own = TVMLiteGetTypeInfo(obj->type_index());
  std::vector<int32_t> chain(own->ancestors, own->ancestors + own->type_depth);
  chain.push_back(own->type_index);
  for (int32_t t : chain) {
    const TVMLiteTypeInfo& info = *TVMLiteGetTypeInfo(t);
    for (int32_t i = 0; i < info.num_fields; ++i) {
      const TVMLiteFieldInfo& f = info.fields[i];
      if (std::string(f.name.data, f.name.size) != name) continue;
      TVMLiteAny out;
      AnySetNone(&out);
      char* addr = reinterpret_cast<char*>(const_cast<Object*>(obj.get())) + f.offset;
      if (f.getter(addr, &out) != 0) throw Error::MoveFromRaised();
      return Any::MoveFromRaw(out);
    }
  }
  throw Error("AttributeError", obj->GetTypeKey() + " has no field '" + name + "'");
});

// Testing types: a variable and a binder, the smallest IR that exercises definition fields and variable binding.
// --------------------------------------------------------------------------------------------------------------

/*! \brief testing.Var: a variable; `name` is a hint that structural equality ignores. */
class TestingVarObj : public Object {
 public:
  std::string name;
  Any annotation;

  TVMLITE_DECLARE_FINAL_OBJECT("testing.Var", TestingVarObj, Object);
};

/*! \brief testing.Lambda: binds `params` (a definition field) in `body`. */
class TestingLambdaObj : public Object {
 public:
  Array<Any> params;
  Any body;

  TVMLITE_DECLARE_FINAL_OBJECT("testing.Lambda", TestingLambdaObj, Object);
};

TVMLITE_STATIC_INIT_BLOCK({
  refl::ObjectDef<TestingVarObj>()
      .def_ro("name", &TestingVarObj::name, kTVMLiteFieldNoCompare)
      .def_ro("annotation", &TestingVarObj::annotation);
  MarkVarType(TestingVarObj::RuntimeTypeIndex());
  refl::ObjectDef<TestingLambdaObj>()
      .def_ro("params", &TestingLambdaObj::params, kFieldDefinition)
      .def_ro("body", &TestingLambdaObj::body);
});

TVMLITE_REGISTER_GLOBAL("testing.Var").set_body_typed([](std::string name, Any annotation) {
  ObjectPtr<TestingVarObj> n = make_object<TestingVarObj>();
  n->name = std::move(name);
  n->annotation = std::move(annotation);
  return ObjectRef(std::move(n));
});

TVMLITE_REGISTER_GLOBAL("testing.Lambda").set_body_typed([](Array<Any> params, Any body) {
  ObjectPtr<TestingLambdaObj> n = make_object<TestingLambdaObj>();
  n->params = std::move(params);
  n->body = std::move(body);
  return ObjectRef(std::move(n));
});

/*! \brief Sleeps without the interpreter lock (long-running), so tests can see other threads run. */
TVMLITE_REGISTER_GLOBAL("testing.sleep_ms")
    .set_body_typed([](int64_t ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); })
    .set_long_running();

}  // namespace runtime
}  // namespace tvmlite
