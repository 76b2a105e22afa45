/*!
 * \file op.cc
 * \brief The op registry: ops by name, their attribute tables (with priority levels) and their makers.
 *
 * Ops are registered during static initialisation (one thread) and never removed, so an Op object lives for the
 * process and its fields are read without locks. Attribute tables change at run time (Python registers
 * "FReference" implementations), so they sit behind one mutex; readers copy a table once (OpAttrMap).
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/reflection.h>

#include <memory>
#include <mutex>
#include <unordered_map>

namespace tvmlite {
namespace ir {

namespace refl = runtime::refl;
using runtime::PackedArgs;

class OpRegistry {
 public:
  static OpRegistry* Global() {
    static OpRegistry* inst = new OpRegistry();  // never destroyed: ops outlive every static destructor
    return inst;
  }

  OpRegEntry& RegisterOrGet(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(name);
    if (it != entries_.end()) return *it->second;
    ObjectPtr<OpNode> n = make_object<OpNode>();
    n->name = name;
    n->registry_index = static_cast<uint32_t>(ops_.size());
    Op op(std::move(n));
    ops_.push_back(op);
    OpRegEntry* entry = new OpRegEntry(op);
    entries_.emplace(name, entry);
    RegisterMaker(op);
    return *entry;
  }

  Op Find(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(name);
    return it == entries_.end() ? Op() : it->second->op_;
  }

  std::vector<std::string> ListNames() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> names;
    for (const Op& op : ops_) names.push_back(op->name);
    return names;
  }

  void SetAttr(const Op& op_in, const std::string& key, Any value, int plevel) {
    Op op = op_in->registry_index == OpNode::kUnregistered ? Op::Get(op_in->name) : op_in;
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Slot>& table = attrs_[key];
    if (table.size() <= op->registry_index) table.resize(op->registry_index + 1);
    Slot& slot = table[op->registry_index];
    if (slot.set) {
      TVMLITE_CHECK_KIND(plevel != slot.plevel, ValueError)
          << "op " << op->name << " already has attribute " << key << " at level " << plevel
          << "; register at a higher level to override it";
      if (plevel < slot.plevel) return;
    }
    slot.value = std::move(value);
    slot.plevel = plevel;
    slot.set = true;
    snapshots_.erase(key);
  }

  void ResetAttr(const Op& op_in, const std::string& key) {
    Op op = op_in->registry_index == OpNode::kUnregistered ? Op::Get(op_in->name) : op_in;
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = attrs_.find(key);
    if (it != attrs_.end() && op->registry_index < it->second.size()) it->second[op->registry_index] = Slot();
    snapshots_.erase(key);
  }

  /*! \brief The value and its level, or nullopt. */
  std::optional<std::pair<Any, int>> GetAttr(const Op& op_in, const std::string& key) {
    Op op = op_in->registry_index == OpNode::kUnregistered ? Op::Get(op_in->name) : op_in;
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = attrs_.find(key);
    if (it == attrs_.end() || op->registry_index >= it->second.size()) return std::nullopt;
    const Slot& slot = it->second[op->registry_index];
    if (!slot.set) return std::nullopt;
    return std::make_pair(slot.value, slot.plevel);
  }

  /*! \brief The values of key per op; cached until the key's table changes. */
  std::shared_ptr<const std::vector<Any>> Snapshot(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::shared_ptr<const std::vector<Any>>& cached = snapshots_[key];
    if (cached) return cached;
    auto values = std::make_shared<std::vector<Any>>();
    auto it = attrs_.find(key);
    if (it != attrs_.end()) {
      for (const Slot& s : it->second) values->push_back(s.set ? s.value : Any());
    }
    cached = values;
    return cached;
  }

 private:
  struct Slot {
    Any value;
    int plevel = 0;
    bool set = false;
  };

  /*!
   * \brief Register TVM's maker for op: "nn.conv2d" -> relay.op.nn._make.conv2d(inputs..., attrs fields...).
   * It reads num_inputs and the attrs type when called, so the registration chain may set them after this.
   */
  static void RegisterMaker(const Op& op) {
    const std::string& name = op->name;
    size_t dot = name.rfind('.');
    std::string maker = dot == std::string::npos ? "relay.op._make." + name
                                                 : "relay.op." + name.substr(0, dot) + "._make." + name.substr(dot + 1);
    runtime::Registry::Set(
        maker, runtime::Function([op, maker](PackedArgs args, Any* rv) { *rv = MakeCall(op, args, maker); }),
        /*can_override=*/false);
  }

  static Call MakeCall(const Op& op, PackedArgs args, const std::string& maker) {
    std::vector<Expr> inputs;
    int64_t n_in = op->num_inputs;
    if (n_in < 0) {
      // Variadic: the inputs come as one list (optional inputs an op was given), the attrs after it.
      TVMLITE_CHECK_KIND(args.size() >= 1, TypeError) << maker << " takes a list of input expressions first";
      std::optional<Array<Expr>> list = args[0].as<Array<Expr>>();
      TVMLITE_CHECK_KIND(list.has_value(), TypeError)
          << maker << ": the first argument must be a list of relay expressions, got "
          << runtime::AnyTypeStr(*args[0].raw());
      for (const Expr& e : *list) {
        TVMLITE_CHECK_KIND(e.defined(), TypeError) << maker << ": an input is None";
        inputs.push_back(e);
      }
      n_in = 1;
    } else {
      TVMLITE_CHECK_KIND(static_cast<int64_t>(args.size()) >= n_in, TypeError)
          << maker << " takes " << n_in << " input expressions, got " << args.size() << " arguments";
      for (int64_t i = 0; i < n_in; ++i) inputs.push_back(InputExpr(op, args[i], i, maker));
    }
    std::vector<Any> values;
    for (int32_t i = static_cast<int32_t>(n_in); i < args.size(); ++i) values.emplace_back(args[i]);
    Attrs attrs;
    if (op->attrs_type_index >= 0) {
      attrs = MakeAttrs(op->attrs_type_index, values.data(), values.size(), maker);
    } else {
      TVMLITE_CHECK_KIND(values.empty(), TypeError)
          << maker << " takes " << n_in << " arguments (the op has no attributes), got " << args.size();
    }
    return Call(op, Array<Expr>(inputs), attrs);
  }

  /*! \brief Input i as an expression: a list of expressions becomes a Tuple. */
  static Expr InputExpr(const Op& op, const runtime::AnyView& arg, int64_t i, const std::string& maker) {
    if (std::optional<Expr> e = arg.as<Expr>()) return *e;
    if (std::optional<Array<Expr>> fields = arg.as<Array<Expr>>()) return Tuple(*fields);
    std::string arg_name;
    if (static_cast<size_t>(i) < op->arguments.size()) {
      arg_name = " (" + op->arguments[i].as<OpArgumentNode>()->name + ")";
    }
    TVMLITE_THROW(TypeError) << maker << ": input " << i << arg_name << " must be a relay expression, got "
                             << runtime::AnyTypeStr(*arg.raw());
  }

  std::mutex mutex_;
  std::vector<Op> ops_;
  std::unordered_map<std::string, OpRegEntry*> entries_;
  std::unordered_map<std::string, std::vector<Slot>> attrs_;
  std::unordered_map<std::string, std::shared_ptr<const std::vector<Any>>> snapshots_;
};

Op Op::Get(const std::string& name) {
  Op op = OpRegistry::Global()->Find(name);
  TVMLITE_CHECK_KIND(op.defined(), ValueError) << "no op is registered under the name '" << name << "'";
  return op;
}
Op Op::Find(const std::string& name) { return OpRegistry::Global()->Find(name); }
std::vector<std::string> Op::ListNames() { return OpRegistry::Global()->ListNames(); }

OpAttrMapBase::OpAttrMapBase(const std::string& key) : values_(OpRegistry::Global()->Snapshot(key)) {}

uint32_t OpAttrMapBase::IndexOf(const Op& op) {
  if (op->registry_index != OpNode::kUnregistered) return op->registry_index;
  Op registered = Op::Find(op->name);  // a copy made by load_json: the registered op of that name
  return registered.defined() ? registered->registry_index : OpNode::kUnregistered;
}

void OpSetAttr(const Op& op, const std::string& key, Any value, int plevel) {
  OpRegistry::Global()->SetAttr(op, key, std::move(value), plevel);
}

OpRegEntry& OpRegEntry::RegisterOrGet(const std::string& name) { return OpRegistry::Global()->RegisterOrGet(name); }
OpRegEntry& OpRegEntry::describe(const std::string& text) {
  node()->description = text;
  return *this;
}
OpRegEntry& OpRegEntry::set_num_inputs(int64_t n) {
  node()->num_inputs = n;
  num_inputs_set_ = true;
  return *this;
}
OpRegEntry& OpRegEntry::add_argument(const std::string& name, const std::string& type, const std::string& description) {
  ObjectPtr<OpArgumentNode> a = make_object<OpArgumentNode>();
  a->name = name, a->type_info = type, a->description = description;
  node()->arguments.push_back(ObjectRef(std::move(a)));
  if (!num_inputs_set_) node()->num_inputs = static_cast<int64_t>(node()->arguments.size());
  return *this;
}
OpRegEntry& OpRegEntry::set_support_level(int64_t level) {
  node()->support_level = level;
  return *this;
}
OpRegEntry& OpRegEntry::set_attrs_type_index(int32_t index, const char* key) {
  node()->attrs_type_index = index;
  node()->attrs_type_key = key;
  return *this;
}
OpRegEntry& OpRegEntry::SetTypeRelation(const std::string& rel_name,
                                        std::function<Type(const Array<Type>&, const Attrs&)> fn) {
  std::string what = op_->name + " type relation " + rel_name;
  // The op's arity is checked here, once for every relation (a variadic op's relation checks its own).
  const OpNode* op = op_.get();
  runtime::Function f = runtime::Function::FromTyped(
      [fn, op](Array<Type> arg_types, Optional<Attrs> attrs) {
        TVMLITE_CHECK_KIND(op->num_inputs < 0 || static_cast<int64_t>(arg_types.size()) == op->num_inputs, TypeError)
            << "expected " << op->num_inputs << " inputs, got " << arg_types.size();
        return fn(arg_types, attrs.value_or(Attrs()));
      },
      what);
  OpSetAttr(op_, "FTypeRelation", Any(std::move(f)), 10);
  return *this;
}

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(OpArgumentNode, name, type_info, description);
  TVMLITE_REFLECT_FIELDS(OpNode, name)
      .def_ro("description", &OpNode::description, kTVMLiteFieldNoCompare)
      .def_ro("arguments", &OpNode::arguments, kTVMLiteFieldNoCompare)
      .def_ro("num_inputs", &OpNode::num_inputs, kTVMLiteFieldNoCompare)
      .def_ro("attrs_type_key", &OpNode::attrs_type_key, kTVMLiteFieldNoCompare)
      .def_ro("support_level", &OpNode::support_level, kTVMLiteFieldNoCompare);
});

TVMLITE_REGISTER_GLOBAL("ir.GetOp").set_body_typed([](std::string name) { return Op::Get(name); });
TVMLITE_REGISTER_GLOBAL("ir.ListOpNames").set_body_typed([]() {
  std::vector<std::string> names = Op::ListNames();
  return Array<String>(names.begin(), names.end());
});
/*! \brief The attribute's value, or None. */
TVMLITE_REGISTER_GLOBAL("ir.OpGetAttr").set_body_typed([](Op op, std::string key) {
  auto v = OpRegistry::Global()->GetAttr(op, key);
  return v.has_value() ? v->first : Any();
});
/*! \brief The attribute's level, or None when it is not set. */
TVMLITE_REGISTER_GLOBAL("ir.OpGetAttrLevel").set_body_typed([](Op op, std::string key) {
  auto v = OpRegistry::Global()->GetAttr(op, key);
  return v.has_value() ? Any(static_cast<int64_t>(v->second)) : Any();
});
TVMLITE_REGISTER_GLOBAL("ir.OpSetAttr").set_body_typed([](Op op, std::string key, Any value, int64_t plevel) {
  TVMLITE_CHECK_KIND(plevel >= 0 && plevel <= (1 << 20), ValueError)
      << "ir.OpSetAttr: level must be in [0, 2**20], got " << plevel;
  OpSetAttr(op, key, std::move(value), static_cast<int>(plevel));
});
TVMLITE_REGISTER_GLOBAL("ir.OpResetAttr").set_body_typed([](Op op, std::string key) {
  OpRegistry::Global()->ResetAttr(op, key);
});

}  // namespace ir
}  // namespace tvmlite
