/*!
 * \file c_api.cc
 * \brief The C ABI (see tvmlite/c_api.h): thin wrappers that turn C++ exceptions into the per-thread error.
 */
#include <tvmlite/c_api.h>
#include <tvmlite/runtime/map.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>

#include "./type_registry.h"

using namespace tvmlite::runtime;  // NOLINT(*)

#define API_BEGIN() try {
#define API_END() \
  }               \
  TVMLITE_CATCH_TO_RAISED(return -1) return 0

namespace {
TVMLiteObjectHandle Release(ObjectPtr<Object> p) { return p.release()->header(); }
template <typename RefT>
TVMLiteObjectHandle Release(RefT ref) {
  return Release(std::move(ref.ObjectPtrRef()));
}
Object* Obj(TVMLiteObjectHandle h) { return Object::FromHeader(h); }

void CheckType(TVMLiteObjectHandle h, int32_t type_index, const char* what) {
  TVMLITE_CHECK_KIND(h != nullptr && h->type_index == type_index, TypeError)
      << what << " expects a " << TypeIndexToKey(type_index) << " handle, got "
      << (h ? TypeIndexToKey(h->type_index) : std::string("NULL"));
}

int RejectFunctionCall(TVMLiteObjectHandle func, int32_t num_args) {
  API_BEGIN();
  CheckType(func, kTVMLiteFunction, "TVMLiteFunctionCall");
  TVMLITE_THROW(ValueError) << "TVMLiteFunctionCall: num_args must be >= 0, got " << num_args;
  API_END();
}
}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Objects and values
// ---------------------------------------------------------------------------------------------------------------

void TVMLiteObjectIncRef(TVMLiteObjectHandle h) {
  if (h) Obj(h)->IncRef();
}
void TVMLiteObjectDecRef(TVMLiteObjectHandle h) {
  if (h) Obj(h)->DecRef();
}
int64_t TVMLiteObjectLiveCount(void) { return details::LiveCount(); }

int TVMLiteAnyViewToOwned(const TVMLiteAny* view, TVMLiteAny* out) {
  API_BEGIN();
  Any(AnyView::FromRaw(*view)).MoveToRaw(out);
  API_END();
}

void TVMLiteAnyRelease(TVMLiteAny* value) {
  if (value->type_index >= kTVMLiteStaticObjectBegin) Obj(value->v_obj)->DecRef();
  AnySetNone(value);
}

// ---------------------------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------------------------

int TVMLiteTypeKeyToIndex(const char* type_key, int32_t* out) {
  API_BEGIN();
  int32_t index = TypeRegistry::Global()->KeyToIndex(type_key);
  TVMLITE_CHECK_KIND(index >= 0, KeyError) << "type key '" << type_key << "' is not registered";
  *out = index;
  API_END();
}

const TVMLiteTypeInfo* TVMLiteGetTypeInfo(int32_t type_index) {
  const TypeEntry* e = TypeRegistry::Global()->Get(type_index);
  return e ? &e->info : nullptr;
}

int TVMLiteTypeIsInstance(int32_t derived_index, int32_t base_index) {
  return TypeIsDerivedFrom(derived_index, base_index) ? 1 : 0;
}

int TVMLiteTypeDefineDynamic(const char* type_key, int32_t parent_type_index, const TVMLiteDynFieldSpec* fields,
                             int32_t num_fields, int32_t* out) {
  API_BEGIN();
  TVMLITE_CHECK_KIND(type_key != nullptr && num_fields >= 0 && (num_fields == 0 || fields != nullptr), ValueError)
      << "TVMLiteTypeDefineDynamic: a type key and num_fields >= 0 field specs are required";
  *out = DynTypeDefine(type_key, parent_type_index, std::vector<TVMLiteDynFieldSpec>(fields, fields + num_fields));
  API_END();
}

int TVMLiteTypeIsDynamic(int32_t type_index) { return IsDynType(type_index) ? 1 : 0; }

int TVMLiteObjectSetField(TVMLiteObjectHandle obj, const TVMLiteFieldInfo* field, const TVMLiteAny* value) {
  API_BEGIN();
  SetFieldChecked(Obj(obj), field, *value);
  API_END();
}

int TVMLiteDynObjectCreate(int32_t type_index, const TVMLiteAny* values, int32_t num_values, TVMLiteObjectHandle* out) {
  API_BEGIN();
  *out = Release(DynObjectCreate(type_index, values, num_values));
  API_END();
}

// ---------------------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------------------

int TVMLiteErrorCreate(const char* kind, const char* message, const char* backtrace, TVMLiteObjectHandle* out) {
  API_BEGIN();
  *out = Release(Error(kind, message, backtrace ? backtrace : ""));
  API_END();
}

void TVMLiteErrorSetPayload(TVMLiteObjectHandle error, void* payload, void (*payload_deleter)(void*)) {
  auto* cell = TVMLITE_OBJECT_CELL(TVMLiteErrorCell, error);
  if (cell->payload_deleter) cell->payload_deleter(cell->payload);
  cell->payload = payload;
  cell->payload_deleter = payload_deleter;
}

void TVMLiteErrorSetRaised(TVMLiteObjectHandle error) {
  details::SetRaised(ObjectPtr<Object>::CopyFromRaw(Obj(error)));
}

void TVMLiteErrorSetRaisedFromCStr(const char* kind, const char* message) {
  details::SetRaised(Error(kind, message).ObjectPtrRef());
}

void TVMLiteErrorMoveFromRaised(TVMLiteObjectHandle* out) {
  Error e = Error::MoveFromRaised();
  *out = Release(std::move(e.ObjectPtrRef()));
}

// ---------------------------------------------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------------------------------------------

int TVMLiteFunctionCall(TVMLiteObjectHandle func, const TVMLiteAny* args, int32_t num_args, TVMLiteAny* result) {
  // One compare guards every foreign caller: a handle of another type has no safe_call to jump to.
  if (func == nullptr || func->type_index != kTVMLiteFunction || num_args < 0) {
    return RejectFunctionCall(func, num_args);
  }
  return TVMLITE_OBJECT_CELL(TVMLiteFunctionCell, func)->safe_call(func, args, num_args, result);
}

int TVMLiteFunctionCreate(void* resource, TVMLiteSafeCall safe_call, void (*deleter)(void*), TVMLiteObjectHandle* out) {
  API_BEGIN();
  ObjectPtr<FunctionObj> f;
  try {
    f = make_object<FunctionObj>();
  } catch (...) {
    if (deleter) deleter(resource);  // ownership was handed to us
    throw;
  }
  f->cell.safe_call = safe_call;
  f->cell.resource = resource;
  f->resource_deleter = deleter;
  *out = Release(ObjectPtr<Object>(std::move(f)));
  API_END();
}

void* TVMLiteFunctionGetResource(TVMLiteObjectHandle func) {
  return static_cast<FunctionObj*>(Obj(func))->cell.resource;
}

void TVMLiteFunctionSetFlags(TVMLiteObjectHandle func, int32_t flags) {
  TVMLITE_OBJECT_CELL(TVMLiteFunctionCell, func)->flags = flags;
}

int TVMLiteFunctionSetGlobal(const char* name, TVMLiteObjectHandle func, int can_override) {
  API_BEGIN();
  CheckType(func, kTVMLiteFunction, "TVMLiteFunctionSetGlobal");
  Registry::Set(name, Function(ObjectPtr<Object>::CopyFromRaw(Obj(func))), can_override != 0);
  API_END();
}

int TVMLiteFunctionGetGlobal(const char* name, TVMLiteObjectHandle* out) {
  API_BEGIN();
  Function f = Registry::Get(name);
  *out = f.defined() ? Release(std::move(f)) : nullptr;
  API_END();
}

int TVMLiteFunctionRemoveGlobal(const char* name) {
  API_BEGIN();
  Registry::Remove(name);
  API_END();
}

int TVMLiteFunctionListGlobalNames(TVMLiteObjectHandle* out) {
  API_BEGIN();
  std::vector<std::string> names = Registry::ListNames();
  Array<String> arr(names.begin(), names.end());
  *out = Release(std::move(arr));
  API_END();
}

// ---------------------------------------------------------------------------------------------------------------
// Containers
// ---------------------------------------------------------------------------------------------------------------

int TVMLiteStringCreate(int32_t type_index, const char* data, int64_t size, TVMLiteObjectHandle* out) {
  API_BEGIN();
  if (type_index == kTVMLiteString) {
    *out = Release(String(data, static_cast<size_t>(size)));
  } else {
    TVMLITE_CHECK_KIND(type_index == kTVMLiteBytes, ValueError) << "TVMLiteStringCreate makes String or Bytes";
    *out = Release(Bytes(data, static_cast<size_t>(size)));
  }
  API_END();
}

int TVMLiteArrayCreate(const TVMLiteAny* items, int64_t num_items, TVMLiteObjectHandle* out) {
  API_BEGIN();
  ObjectPtr<ArrayObj> n = ArrayObj::Empty(num_items);
  for (int64_t i = 0; i < num_items; ++i) n->EmplaceBack(Any(AnyView::FromRaw(items[i])));
  *out = Release(ObjectPtr<Object>(std::move(n)));
  API_END();
}

int TVMLiteMapCreate(const TVMLiteAny* kv, int64_t num_pairs, TVMLiteObjectHandle* out) {
  API_BEGIN();
  ObjectPtr<MapObj> n = make_object<MapObj>();
  for (int64_t i = 0; i < num_pairs; ++i) {
    n->Set(Any(AnyView::FromRaw(kv[2 * i])), Any(AnyView::FromRaw(kv[2 * i + 1])));
  }
  *out = Release(ObjectPtr<Object>(std::move(n)));
  API_END();
}

int64_t TVMLiteMapSize(TVMLiteObjectHandle map) { return static_cast<MapObj*>(Obj(map))->size(); }

int TVMLiteMapGet(TVMLiteObjectHandle map, const TVMLiteAny* key, TVMLiteAny* out) {
  API_BEGIN();
  CheckType(map, kTVMLiteMap, "TVMLiteMapGet");
  const Any* v = static_cast<MapObj*>(Obj(map))->Find(Any(AnyView::FromRaw(*key)));
  if (v == nullptr) return 1;
  Any(*v).MoveToRaw(out);
  API_END();
}

int TVMLiteMapItemAt(TVMLiteObjectHandle map, int64_t index, TVMLiteAny* key, TVMLiteAny* value) {
  API_BEGIN();
  CheckType(map, kTVMLiteMap, "TVMLiteMapItemAt");
  const auto& items = static_cast<MapObj*>(Obj(map))->items();
  TVMLITE_CHECK_KIND(index >= 0 && index < static_cast<int64_t>(items.size()), IndexError)
      << "Map item index " << index << " out of range for size " << items.size();
  Any(items[index].first).MoveToRaw(key);
  Any(items[index].second).MoveToRaw(value);
  API_END();
}

int TVMLiteShapeCreate(const int64_t* dims, int64_t ndim, TVMLiteObjectHandle* out) {
  API_BEGIN();
  *out = Release(ShapeTuple(dims, static_cast<size_t>(ndim)));
  API_END();
}

// ---------------------------------------------------------------------------------------------------------------
// NDArray
// ---------------------------------------------------------------------------------------------------------------

int TVMLiteNDArrayEmpty(const int64_t* shape, int32_t ndim, DLDataType dtype, DLDevice device,
                        TVMLiteObjectHandle* out) {
  API_BEGIN();
  *out = Release(NDArray::Empty(std::vector<int64_t>(shape, shape + ndim), dtype, device));
  API_END();
}

int TVMLiteNDArrayFromExternal(const DLTensor* tensor, uint64_t flags, void* manager_ctx, void (*deleter)(void*),
                               TVMLiteObjectHandle* out) {
  API_BEGIN();
  *out = Release(NDArray::FromExternal(*tensor, manager_ctx, deleter, flags));
  API_END();
}

int TVMLiteNDArrayFromDLPack(DLManagedTensor* managed, TVMLiteObjectHandle* out) {
  API_BEGIN();
  *out = Release(NDArray::FromDLPack(managed));
  API_END();
}

int TVMLiteNDArrayFromDLPackVersioned(DLManagedTensorVersioned* managed, TVMLiteObjectHandle* out) {
  API_BEGIN();
  *out = Release(NDArray::FromDLPackVersioned(managed));
  API_END();
}

int TVMLiteNDArrayToDLPack(TVMLiteObjectHandle array, DLManagedTensor** out) {
  API_BEGIN();
  CheckType(array, kTVMLiteNDArray, "TVMLiteNDArrayToDLPack");
  *out = NDArray(ObjectPtr<Object>::CopyFromRaw(Obj(array))).ToDLPack();
  API_END();
}

int TVMLiteNDArrayToDLPackVersioned(TVMLiteObjectHandle array, DLManagedTensorVersioned** out) {
  API_BEGIN();
  CheckType(array, kTVMLiteNDArray, "TVMLiteNDArrayToDLPackVersioned");
  *out = NDArray(ObjectPtr<Object>::CopyFromRaw(Obj(array))).ToDLPackVersioned();
  API_END();
}

// ---------------------------------------------------------------------------------------------------------------
// Data types
// ---------------------------------------------------------------------------------------------------------------

int TVMLiteDataTypeFromString(const char* str, DLDataType* out) {
  API_BEGIN();
  *out = StringToDLDataType(str);
  API_END();
}

int TVMLiteDeviceCreate(int64_t device_type, int64_t device_id, DLDevice* out) {
  API_BEGIN();
  *out = MakeDevice(device_type, device_id);
  API_END();
}

int TVMLiteDataTypeToString(DLDataType dtype, TVMLiteObjectHandle* out) {
  API_BEGIN();
  *out = Release(String(DLDataTypeToString(dtype)));
  API_END();
}
