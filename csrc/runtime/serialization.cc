/*!
 * \file serialization.cc
 * \brief SaveJSON / LoadJSON (the format is described in tvmlite/runtime/serialization.h), over the JSON reader and
 * writer of tvmlite/runtime/json.h.
 */
#include <tvmlite/runtime/json.h>
#include <tvmlite/runtime/map.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/serialization.h>
#include <tvmlite/runtime/structural.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "./type_registry.h"

namespace tvmlite {
namespace runtime {

namespace {

constexpr const char* kFormat = "tvmlite-json";
constexpr int64_t kVersion = 1;

using json::IsValidUTF8;
using json::WriteString;
using JValue = json::Value;

[[noreturn]] void Malformed(const std::string& what) { TVMLITE_THROW(ValueError) << "LoadJSON: " << what; }

constexpr const char* kBase64Chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void Base64Encode(std::string_view in, std::string* out) {
  out->reserve(out->size() + (in.size() + 2) / 3 * 4);
  size_t i = 0;
  auto byte = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(in[k])); };
  for (; i + 3 <= in.size(); i += 3) {
    uint32_t v = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    for (int k = 3; k >= 0; --k) out->push_back(kBase64Chars[(v >> (6 * k)) & 63]);
  }
  if (size_t rest = in.size() - i) {
    uint32_t v = byte(i) << 16 | (rest == 2 ? byte(i + 1) << 8 : 0);
    out->push_back(kBase64Chars[(v >> 18) & 63]);
    out->push_back(kBase64Chars[(v >> 12) & 63]);
    out->push_back(rest == 2 ? kBase64Chars[(v >> 6) & 63] : '=');
    out->push_back('=');
  }
}

std::string Base64Decode(std::string_view in) {
  static const auto table = [] {  // character -> 6-bit value, -1 for characters outside the alphabet
    std::array<int8_t, 256> t;
    t.fill(-1);
    for (int k = 0; k < 64; ++k) t[static_cast<unsigned char>(kBase64Chars[k])] = static_cast<int8_t>(k);
    return t;
  }();
  if (in.size() % 4 != 0) Malformed("base64 text length is not a multiple of 4");
  size_t pad = 0;
  if (!in.empty() && in.back() == '=') pad = in[in.size() - 2] == '=' ? 2 : 1;
  std::string out;
  out.reserve(in.size() / 4 * 3);
  for (size_t i = 0; i < in.size(); i += 4) {
    const bool last = i + 4 == in.size();
    uint32_t v = 0;
    for (size_t k = 0; k < 4; ++k) {
      int8_t x = table[static_cast<unsigned char>(in[i + k])];
      if (x < 0 && !(last && k >= 4 - pad)) Malformed("bad base64 text");
      v = v << 6 | static_cast<uint32_t>(x < 0 ? 0 : x);
    }
    out.push_back(static_cast<char>(v >> 16));
    if (!last || pad < 2) out.push_back(static_cast<char>((v >> 8) & 255));
    if (!last || pad < 1) out.push_back(static_cast<char>(v & 255));
  }
  return out;
}

// --------------------------------------------------------------------------------------------------------------
// Save
// --------------------------------------------------------------------------------------------------------------

bool SameDType(DLDataType a, DLDataType b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }

/*! \brief A data type by name when the name parses back to it, else as [code, bits, lanes] ("void", "boolx4"). */
void WriteDType(DLDataType t, std::string* out) {
  // What LoadJSON would reject is never written (DLPack imports and DataType names are checked; C++ may not be).
  TVMLITE_CHECK_KIND(IsValidDLDataType(t), ValueError)
      << "SaveJSON: invalid data type (code " << static_cast<int>(t.code) << ", bits " << static_cast<int>(t.bits)
      << ", lanes " << t.lanes << ")";
  std::string name = DLDataTypeToString(t);
  bool by_name = false;
  try {
    by_name = SameDType(StringToDLDataType(name), t);
  } catch (const Error&) {
  }
  if (by_name) return WriteString(name, out);
  *out += "[" + std::to_string(t.code) + "," + std::to_string(t.bits) + "," + std::to_string(t.lanes) + "]";
}

/*! \brief Objects written inline as values rather than as nodes. */
bool IsInline(int32_t tindex) { return tindex == kTVMLiteString || tindex == kTVMLiteBytes; }

class JSONSaver {
 public:
  std::string Run(const Any& root) {
    if (const Object* obj = root.object(); obj != nullptr && !IsInline(obj->type_index())) Visit(obj);
    std::string out =
        "{\"format\":\"" + std::string(kFormat) + "\",\"version\":" + std::to_string(kVersion) + ",\"root\":";
    WriteValue(root, &out);
    out += ",\"nodes\":[";
    out += nodes_;
    out += "]}";
    return out;
  }

 private:
  struct Frame {
    const Object* obj;
    std::vector<Any> values;  // items, interleaved map keys and values, or field values (owned: getters copy)
    bool expanded;
  };

  // Post-order with an explicit stack: a node is written after every node it refers to (the loader relies on
  // it), and a deep graph cannot overflow the C stack.
  void Visit(const Object* root) {
    stack_.push_back(Frame{root, {}, false});
    while (!stack_.empty()) {
      Frame& f = stack_.back();
      if (f.expanded) {
        WriteNode(f);
        on_path_.erase(f.obj);
        stack_.pop_back();
      } else if (index_.count(f.obj)) {
        stack_.pop_back();
      } else {
        TVMLITE_CHECK_KIND(on_path_.insert(f.obj).second, ValueError)
            << "SaveJSON: the object graph has a cycle through a " << f.obj->GetTypeKey();
        Expand(&f);
      }
    }
  }

  void Expand(Frame* f) {
    const Object* obj = f->obj;
    const int32_t tindex = obj->type_index();
    if (tindex == kTVMLiteArray) {
      auto* arr = static_cast<const ArrayObj*>(obj);
      f->values.assign(arr->data(), arr->data() + arr->size());
    } else if (tindex == kTVMLiteMap) {
      for (const auto& kv : static_cast<const MapObj*>(obj)->items()) {
        f->values.push_back(kv.first);
        f->values.push_back(kv.second);
      }
    } else if (tindex != kTVMLiteShape && tindex != kTVMLiteNDArray) {
      const TVMLiteTypeInfo* info = TVMLiteGetTypeInfo(tindex);
      if (!IsDynType(tindex) && (info == nullptr || info->creator == nullptr)) {
        TVMLITE_THROW(TypeError) << "SaveJSON: objects of type " << obj->GetTypeKey() << " are not serializable ("
                                 << (details::HasReflectedStructure(tindex) ? "it is not default-constructible"
                                                                            : "it has no reflected fields")
                                 << ")";
      }
      details::ForEachReflectedField(
          tindex, [&](const TVMLiteFieldInfo& fi) { f->values.push_back(details::ReadField(obj, fi)); });
    }
    f->expanded = true;
    std::vector<const Object*> todo;  // pushing may move the frames, f with them
    for (const Any& v : f->values) {
      const Object* c = v.object();
      if (c != nullptr && !IsInline(c->type_index()) && !index_.count(c)) todo.push_back(c);
    }
    for (auto it = todo.rbegin(); it != todo.rend(); ++it) stack_.push_back(Frame{*it, {}, false});
  }

  void WriteNode(const Frame& f) {
    const Object* obj = f.obj;
    const int32_t tindex = obj->type_index();
    std::string& out = nodes_;
    if (!index_.empty()) out.push_back(',');
    index_.emplace(obj, static_cast<int64_t>(index_.size()));
    out += "{\"type\":";
    WriteString(obj->GetTypeKey(), &out);
    if (tindex == kTVMLiteArray) {
      out += ",\"items\":[";
      for (size_t i = 0; i < f.values.size(); ++i) {
        if (i) out.push_back(',');
        WriteValue(f.values[i], &out);
      }
      out += "]";
    } else if (tindex == kTVMLiteMap) {
      out += ",\"items\":[";
      for (size_t i = 0; i < f.values.size(); i += 2) {
        out += i ? ",[" : "[";
        WriteValue(f.values[i], &out);
        out.push_back(',');
        WriteValue(f.values[i + 1], &out);
        out.push_back(']');
      }
      out += "]";
    } else if (tindex == kTVMLiteShape) {
      const TVMLiteShapeCell& c = static_cast<const ShapeTupleObj*>(obj)->cell;
      out += ",\"dims\":";
      WriteInts(c.data, c.size, &out);
    } else if (tindex == kTVMLiteNDArray) {
      const DLTensor& t = static_cast<const NDArrayObj*>(obj)->tensor;
      out += ",\"dtype\":";
      WriteDType(t.dtype, &out);
      out += ",\"shape\":";
      WriteInts(t.shape, t.ndim, &out);
      std::string scratch;
      out += ",\"data\":\"";
      Base64Encode(details::TensorBytes(t, &scratch), &out);
      out += "\"";
    } else {
      out += ",\"fields\":{";
      size_t i = 0;
      details::ForEachReflectedField(tindex, [&](const TVMLiteFieldInfo& fi) {
        if (i) out.push_back(',');
        WriteString(std::string_view(fi.name.data, static_cast<size_t>(fi.name.size)), &out);
        out.push_back(':');
        WriteValue(f.values[i++], &out);
      });
      out += "}";
    }
    out += "}";
  }

  static void WriteInts(const int64_t* data, int64_t n, std::string* out) {
    out->push_back('[');
    for (int64_t i = 0; i < n; ++i) *out += (i ? "," : "") + std::to_string(data[i]);
    out->push_back(']');
  }

  void WriteValue(const Any& v, std::string* out) {
    const TVMLiteAny& a = *v.raw();
    switch (a.type_index) {
      case kTVMLiteNone: *out += "null"; return;
      case kTVMLiteBool: *out += a.v_int64 ? "true" : "false"; return;
      case kTVMLiteInt: *out += std::to_string(a.v_int64); return;
      case kTVMLiteFloat: {
        double d = a.v_float64;
        if (std::isnan(d)) return void(*out += "{\"$float\":\"nan\"}");
        if (std::isinf(d)) return void(*out += d > 0 ? "{\"$float\":\"inf\"}" : "{\"$float\":\"-inf\"}");
        char buf[64];
        char* end = std::to_chars(buf, buf + sizeof(buf), d).ptr;  // shortest text that reads back exactly
        std::string_view text(buf, static_cast<size_t>(end - buf));
        *out += text;
        if (text.find_first_of(".e") == std::string_view::npos) *out += ".0";  // never mistaken for an int
        return;
      }
      case kTVMLiteDataType:
        *out += "{\"$dtype\":";
        WriteDType(a.v_dtype, out);
        *out += "}";
        return;
      case kTVMLiteDevice: {
        DLDevice d;
        try {
          d = MakeDevice(DeviceTypeCode(a.v_device), a.v_device.device_id);
        } catch (const Error& e) {
          TVMLITE_THROW(ValueError) << "SaveJSON: " << e.message();
        }
        *out += "{\"$device\":[" + std::to_string(d.device_type) + "," + std::to_string(d.device_id) + "]}";
        return;
      }
      case kTVMLiteString: {
        std::string_view s = static_cast<const StringObj*>(v.object())->view();
        if (IsValidUTF8(s)) return WriteString(s, out);
        *out += "{\"$str_b64\":\"";
        Base64Encode(s, out);
        *out += "\"}";
        return;
      }
      case kTVMLiteBytes:
        *out += "{\"$bytes\":\"";
        Base64Encode(static_cast<const BytesObj*>(v.object())->view(), out);
        *out += "\"}";
        return;
      default: break;
    }
    TVMLITE_CHECK_KIND(a.type_index >= kTVMLiteStaticObjectBegin, TypeError)
        << "SaveJSON: a value of type " << AnyTypeStr(a) << " is not serializable";
    *out += "{\"$ref\":" + std::to_string(index_.at(v.object())) + "}";
  }

  std::vector<Frame> stack_;
  std::unordered_map<const Object*, int64_t> index_;
  std::unordered_set<const Object*> on_path_;
  std::string nodes_;
};

// --------------------------------------------------------------------------------------------------------------
// Load
// --------------------------------------------------------------------------------------------------------------

const char* KindName(JValue::Kind k) {
  static const char* names[] = {"null", "a boolean", "an integer", "a float", "a string", "an array", "an object"};
  return names[k];
}

const JValue& Member(const JValue& obj, std::string_view key, JValue::Kind kind) {
  const JValue* v = obj.Get(key);
  if (v == nullptr) Malformed("missing \"" + std::string(key) + "\"");
  if (v->kind != kind) {
    Malformed("\"" + std::string(key) + "\" must be " + KindName(kind) + ", not " + KindName(v->kind));
  }
  return *v;
}

std::vector<int64_t> Ints(const JValue& arr, const char* what) {
  std::vector<int64_t> out;
  for (const JValue& x : arr.items) {
    if (x.kind != JValue::kInt) Malformed(std::string(what) + " must hold integers");
    out.push_back(x.i);
  }
  return out;
}

DLDataType DecodeDType(const JValue& v) {
  if (v.kind == JValue::kString) return StringToDLDataType(v.s);
  if (v.kind == JValue::kArray && v.items.size() == 3) {
    std::vector<int64_t> t = Ints(v, "a data type");
    if (t[0] >= 0 && t[0] < 256 && t[1] >= 0 && t[1] < 256 && t[2] >= 0 && t[2] < 65536) {
      DLDataType dt{static_cast<uint8_t>(t[0]), static_cast<uint8_t>(t[1]), static_cast<uint16_t>(t[2])};
      if (IsValidDLDataType(dt)) return dt;
    }
  }
  Malformed("bad data type");
}

class JSONLoader {
 public:
  Any Run(const std::string& text) {
    JValue doc = json::Parse(text, "LoadJSON");
    if (doc.kind != JValue::kObject) Malformed("the document must be a JSON object");
    if (Member(doc, "format", JValue::kString).s != kFormat) Malformed("not a tvmlite JSON document");
    int64_t version = Member(doc, "version", JValue::kInt).i;
    TVMLITE_CHECK_KIND(version >= 1 && version <= kVersion, ValueError)
        << "LoadJSON: format version " << version << " is not supported (this tvmlite reads 1 to " << kVersion << ")";
    const JValue& nodes = Member(doc, "nodes", JValue::kArray);
    const JValue* root = doc.Get("root");
    if (root == nullptr) Malformed("missing \"root\"");
    objects_.reserve(nodes.items.size());
    for (const JValue& node : nodes.items) objects_.push_back(BuildNode(node));
    return Decode(*root);
  }

 private:
  /*! \brief A value; references may only name nodes already built (the saver writes children first). */
  Any Decode(const JValue& v) {
    switch (v.kind) {
      case JValue::kNull: return Any();
      case JValue::kBool: return Any(v.b);
      case JValue::kInt: return Any(v.i);
      case JValue::kFloat: return Any(v.d);
      case JValue::kString: return Any(String(v.s));
      case JValue::kArray: Malformed("a JSON array is not a value (containers are nodes)");
      case JValue::kObject: break;
    }
    if (v.keys.size() != 1) Malformed("a tagged value must have exactly one member");
    const std::string& tag = v.keys[0];
    const JValue& x = v.items[0];
    if (tag == "$ref") {
      if (x.kind != JValue::kInt || x.i < 0 || x.i >= static_cast<int64_t>(objects_.size())) {
        Malformed("bad reference: nodes may only refer to nodes before them");
      }
      return objects_[static_cast<size_t>(x.i)];
    }
    if (tag == "$float" && x.kind == JValue::kString) {
      if (x.s == "nan") return Any(std::nan(""));
      if (x.s == "inf") return Any(HUGE_VAL);
      if (x.s == "-inf") return Any(-HUGE_VAL);
    }
    if (tag == "$dtype") return Any(DataType(DecodeDType(x)));
    if (tag == "$device" && x.kind == JValue::kArray && x.items.size() == 2) {
      std::vector<int64_t> d = Ints(x, "a device");
      try {
        return Any(MakeDevice(d[0], d[1]));
      } catch (const Error& e) {
        Malformed("bad device: " + e.message());
      }
    }
    if (tag == "$bytes" && x.kind == JValue::kString) return Any(Bytes(Base64Decode(x.s)));
    if (tag == "$str_b64" && x.kind == JValue::kString) return Any(String(Base64Decode(x.s)));
    Malformed("bad tagged value \"" + tag + "\"");
  }

  Any BuildNode(const JValue& node) {
    const size_t index = objects_.size();
    std::string key = "?";
    try {
      if (node.kind != JValue::kObject) Malformed("a node must be a JSON object");
      key = Member(node, "type", JValue::kString).s;
      return BuildNodeOfType(node, key);
    } catch (const Error& e) {
      // A field value of the wrong type stays a TypeError (as in construction); anything else is a ValueError.
      if (e.kind() == "MemoryError" || e.kind() == "InternalError") throw;
      std::string msg = e.message();
      if (msg.rfind("LoadJSON: ", 0) == 0) msg = msg.substr(10);
      msg = "LoadJSON: node " + std::to_string(index) + " (" + key + "): " + msg;
      throw Error(e.kind() == "TypeError" ? "TypeError" : "ValueError", msg);
    }
  }

  Any BuildNodeOfType(const JValue& node, const std::string& key) {
    if (key == ArrayObj::_type_key) {
      const JValue& items = Member(node, "items", JValue::kArray);
      ObjectPtr<ArrayObj> n = ArrayObj::Empty(static_cast<int64_t>(items.items.size()));
      for (const JValue& x : items.items) n->EmplaceBack(Decode(x));
      return Any(Array<Any>(ObjectPtr<Object>(std::move(n))));
    }
    if (key == MapObj::_type_key) {
      ObjectPtr<MapObj> n = make_object<MapObj>();
      for (const JValue& kv : Member(node, "items", JValue::kArray).items) {
        if (kv.kind != JValue::kArray || kv.items.size() != 2) Malformed("Map items must be [key, value] pairs");
        n->Set(Decode(kv.items[0]), Decode(kv.items[1]));
      }
      return Any(Map<Any, Any>(ObjectPtr<Object>(std::move(n))));
    }
    if (key == ShapeTupleObj::_type_key) return Any(ShapeTuple(Ints(Member(node, "dims", JValue::kArray), "dims")));
    if (key == NDArrayObj::_type_key) return BuildNDArray(node);
    if (key == StringObj::_type_key || key == BytesObj::_type_key) Malformed("strings and bytes are values, not nodes");

    const int32_t tindex = TypeRegistry::Global()->KeyToIndex(key);
    if (tindex < 0) Malformed("unknown type key '" + key + "' (is the module that registers it imported?)");
    ObjectPtr<Object> obj;
    if (IsDynType(tindex)) {
      obj = DynObjectCreateDefault(tindex);
    } else {
      const TVMLiteTypeInfo* info = TVMLiteGetTypeInfo(tindex);
      if (info->creator == nullptr) Malformed("objects of type '" + key + "' cannot be created from JSON");
      TVMLiteObjectHandle h = nullptr;
      if (info->creator(&h) != 0) throw Error::MoveFromRaised();
      obj = ObjectPtr<Object>::MoveFromRaw(Object::FromHeader(h));
    }
    const JValue* fields = node.Get("fields");
    if (fields != nullptr && fields->kind != JValue::kObject) Malformed("\"fields\" must be an object");
    std::vector<const TVMLiteFieldInfo*> infos;
    details::ForEachReflectedField(tindex, [&](const TVMLiteFieldInfo& f) { infos.push_back(&f); });
    std::vector<bool> given(infos.size(), false);
    for (size_t k = 0; fields != nullptr && k < fields->keys.size(); ++k) {
      const std::string& name = fields->keys[k];
      auto it =
          std::find_if(infos.begin(), infos.end(), [&](const TVMLiteFieldInfo* f) { return FieldName(*f) == name; });
      if (it == infos.end()) Malformed("type '" + key + "' has no field '" + name + "'");
      if (given[it - infos.begin()]) Malformed("field '" + name + "' is given twice");
      given[it - infos.begin()] = true;
      // The checks of construction: a value of the wrong type is a TypeError naming the type and the field.
      InitFieldChecked(obj.get(), *it, *Decode(fields->items[k]).raw());
    }
    // A missing field takes its default: a C++ type's is what its constructor left, a Python-defined type's is the
    // one its class declares (registered with DynTypeSetDefaults). A Python field without one is required.
    for (size_t k = 0; k < infos.size() && IsDynType(tindex); ++k) {
      if (given[k]) continue;
      std::optional<Any> dflt = DynFieldDefault(tindex, FieldName(*infos[k]));
      if (!dflt) Malformed("missing field '" + std::string(FieldName(*infos[k])) + "', which has no default");
      InitFieldChecked(obj.get(), infos[k], *dflt->raw());
    }
    return Any(ObjectRef(std::move(obj)));
  }

  static std::string_view FieldName(const TVMLiteFieldInfo& f) {
    return std::string_view(f.name.data, static_cast<size_t>(f.name.size));
  }

  Any BuildNDArray(const JValue& node) {
    const JValue* dtype_value = node.Get("dtype");
    if (dtype_value == nullptr) Malformed("missing \"dtype\"");
    DLDataType dtype = DecodeDType(*dtype_value);
    std::vector<int64_t> shape = Ints(Member(node, "shape", JValue::kArray), "shape");
    std::string data = Base64Decode(Member(node, "data", JValue::kString).s);
    int64_t numel = 1;
    for (int64_t d : shape) {
      if (d < 0 || __builtin_mul_overflow(numel, d, &numel)) Malformed("bad NDArray shape");
    }
    int64_t nbytes = 0;
    if (__builtin_mul_overflow(numel, static_cast<int64_t>(DataType(dtype).bytes()), &nbytes) ||
        nbytes != static_cast<int64_t>(data.size())) {
      Malformed("NDArray data has " + std::to_string(data.size()) + " bytes, its shape and dtype need " +
                std::to_string(nbytes));
    }
    NDArray arr = NDArray::Empty(shape, dtype);
    if (nbytes) std::memcpy(arr->tensor.data, data.data(), data.size());
    return Any(arr);
  }

  std::vector<Any> objects_;
};

}  // namespace

std::string SaveJSON(const Any& root) { return JSONSaver().Run(root); }

Any LoadJSON(const std::string& json) { return JSONLoader().Run(json); }

TVMLITE_REGISTER_GLOBAL("runtime.SaveJSON").set_body_typed([](Any value) { return SaveJSON(value); });
TVMLITE_REGISTER_GLOBAL("runtime.LoadJSON").set_body_typed([](std::string json) { return LoadJSON(json); });

}  // namespace runtime
}  // namespace tvmlite
