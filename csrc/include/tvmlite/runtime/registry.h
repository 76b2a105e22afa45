/*!
 * \file tvmlite/runtime/registry.h
 * \brief The global function registry and TVMLITE_REGISTER_GLOBAL.
 *
 *   TVMLITE_REGISTER_GLOBAL("testing.add").set_body_typed([](int64_t a, int64_t b) { return a + b; });
 *   TVMLITE_REGISTER_GLOBAL("topi.sum").set_kernel_factory().set_body_typed([](Map<String, Any> attrs) { ... });
 *
 * Lookups take no lock: the table is published through an atomic pointer and entries are never freed.
 *
 * Kernel factories (attrs -> a bound kernel) are marked as such where C++ registers them: the graph executor calls
 * only those by the name a graph file gives (GetKernelFactory), so a file cannot call any other registered function.
 * The mark belongs to the registration: registering the name again (from Python, with override) drops it.
 */
#ifndef TVMLITE_RUNTIME_REGISTRY_H_
#define TVMLITE_RUNTIME_REGISTRY_H_

#include <tvmlite/runtime/function.h>

#include <string>
#include <vector>

namespace tvmlite {
namespace runtime {

class Registry {
 public:
  /*! \brief Start a registration; it takes effect at set_body*. */
  static Registry& Register(const std::string& name, bool can_override = false);
  /*! \brief The function registered under name, or an undefined Function. Lock-free. */
  static Function Get(const std::string& name);
  /*! \brief The function registered under name if its registration marked it a kernel factory, else undefined. */
  static Function GetKernelFactory(const std::string& name);
  /*! \brief Remove name; returns whether it was there. */
  static bool Remove(const std::string& name);
  static std::vector<std::string> ListNames();

  /*! \brief Register f under name; fails with ValueError when taken and can_override is false. */
  static void Set(const std::string& name, Function f, bool can_override);

  Registry& set_body(Function f);
  /*! \brief Body with the packed signature void(PackedArgs, Any*). */
  template <typename TCallable>
  Registry& set_body_packed(TCallable f) {
    return set_body(Function(std::move(f)));
  }
  /*! \brief Body with a typed signature; arguments are checked (see Function::FromTyped). */
  template <typename TCallable>
  Registry& set_body_typed(TCallable f) {
    return set_body(Function::FromTyped(std::move(f), name_));
  }
  /*! \brief Mark the body long-running: bindings release their interpreter lock around calls. */
  Registry& set_long_running();
  /*! \brief Mark the body a kernel factory (see GetKernelFactory), before or after set_body*. */
  Registry& set_kernel_factory();

 private:
  explicit Registry(std::string name, bool can_override) : name_(std::move(name)), can_override_(can_override) {}
  std::string name_;
  bool can_override_;
  bool kernel_factory_ = false;
  Function func_;
};

}  // namespace runtime
}  // namespace tvmlite

#define TVMLITE_REGISTER_GLOBAL(OpName)                                                                       \
  static TVMLITE_ATTRIBUTE_UNUSED ::tvmlite::runtime::Registry& TVMLITE_CONCAT(__tvmlite_reg_, __COUNTER__) = \
      ::tvmlite::runtime::Registry::Register(OpName)

#define TVMLITE_ATTRIBUTE_UNUSED __attribute__((unused))

/*! \brief Run a block once at library load: TVMLITE_STATIC_INIT_BLOCK({ ... }); */
#define TVMLITE_STATIC_INIT_BLOCK(body)                                                         \
  static TVMLITE_ATTRIBUTE_UNUSED const int TVMLITE_CONCAT(__tvmlite_init_, __COUNTER__) = [] { \
    body;                                                                                       \
    return 0;                                                                                   \
  }()

#endif  // TVMLITE_RUNTIME_REGISTRY_H_
