/*!
 * \file container_api.cc
 * \brief Global functions that build and read containers (used by the Python API and the ctypes backend).
 */
#include <tvmlite/runtime/map.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>

namespace tvmlite {
namespace runtime {

TVMLITE_REGISTER_GLOBAL("runtime.Array").set_body_packed([](PackedArgs args, Any* rv) {
  ObjectPtr<ArrayObj> n = ArrayObj::Empty(args.size());
  for (int32_t i = 0; i < args.size(); ++i) n->EmplaceBack(Any(args[i]));
  *rv = Any(Array<Any>(ObjectPtr<Object>(std::move(n))));
});

TVMLITE_REGISTER_GLOBAL("runtime.Map").set_body_packed([](PackedArgs args, Any* rv) {
  TVMLITE_CHECK_KIND(args.size() % 2 == 0, ValueError) << "runtime.Map takes key, value pairs";
  ObjectPtr<MapObj> n = make_object<MapObj>();
  for (int32_t i = 0; i < args.size(); i += 2) n->Set(Any(args[i]), Any(args[i + 1]));
  *rv = Any(Map<Any, Any>(ObjectPtr<Object>(std::move(n))));
});

TVMLITE_REGISTER_GLOBAL("runtime.ShapeTuple").set_body_packed([](PackedArgs args, Any* rv) {
  std::vector<int64_t> dims;
  for (int32_t i = 0; i < args.size(); ++i) dims.push_back(args[i].cast<int64_t>());
  *rv = Any(ShapeTuple(dims));
});

TVMLITE_REGISTER_GLOBAL("runtime.GetTypeKey").set_body_typed([](ObjectRef obj) {
  return std::string(obj->GetTypeKey());
});

}  // namespace runtime
}  // namespace tvmlite
