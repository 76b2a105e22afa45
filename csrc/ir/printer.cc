/*!
 * \file printer.cc
 * \brief The text form, TVM's:
 *
 *   def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) -> Tensor[...] {
 *     %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], kernel_size=[3, 3]);
 *     nn.relu(%0)
 *   }
 *
 * Once typed, each binding also shows its type in a "ty=" comment, as TVM's does.
 * Every call, tuple and projection gets a numbered binding in topological order (the last one is the result);
 * attributes print when they differ from their default; scalar constants print inline (1f, 2i64) and others as
 * meta[relay.Constant][k]. A nested Function (a subgraph) prints as a block bound like any other value. The walk
 * is iterative, so deep graphs print without recursion (only nested subgraphs recurse, one level each).
 */
#include <tvmlite/ir/expr_functor.h>
#include <tvmlite/ir/module.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/structural.h>

#include <cstring>
#include <iomanip>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace tvmlite {
namespace ir {

namespace {

std::string AnyToText(const Any& v);

std::string ArrayToText(const runtime::ArrayObj* a) {
  std::ostringstream os;
  os << "[";
  for (int64_t i = 0; i < a->size(); ++i) os << (i ? ", " : "") << AnyToText(a->at(i));
  os << "]";
  return os.str();
}

std::string AnyToText(const Any& v) {
  switch (v.type_index()) {
    case kTVMLiteNone: return "None";
    case kTVMLiteBool: return v.cast<bool>() ? "True" : "False";
    case kTVMLiteInt: return std::to_string(v.cast<int64_t>());
    case kTVMLiteFloat: {
      std::ostringstream os;
      os << std::setprecision(9) << v.cast<double>();
      return os.str();
    }
    case kTVMLiteDataType: return "\"" + v.cast<DataType>().str() + "\"";
    default: break;
  }
  if (std::optional<String> s = v.as<String>()) return "\"" + std::string(*s) + "\"";
  if (const auto* a = v.as<ObjectRef>()->as<runtime::ArrayObj>()) return ArrayToText(a);
  if (std::optional<Type> t = v.as<Type>()) return TypeToString(*t);
  if (std::optional<SizeVar> d = v.as<SizeVar>()) return (*d)->name_hint;
  return "<" + runtime::AnyTypeStr(*v.raw()) + ">";
}

/*! \brief A default attrs object per attrs type, to print only what differs. */
const Object* DefaultAttrs(int32_t type_index) {
  static std::mutex mutex;
  static std::unordered_map<int32_t, ObjectRef>* cache = new std::unordered_map<int32_t, ObjectRef>();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache->find(type_index);
  if (it != cache->end()) return it->second.get();
  const TVMLiteTypeInfo* info = TVMLiteGetTypeInfo(type_index);
  ObjectRef made;
  TVMLiteObjectHandle h = nullptr;
  if (info && info->creator) {
    if (info->creator(&h) == 0) {
      made = ObjectRef(ObjectPtr<Object>::MoveFromRaw(Object::FromHeader(h)));
    } else {
      (void)runtime::Error::MoveFromRaised();  // no default to compare with: print every field
    }
  }
  return cache->emplace(type_index, made).first->second.get();
}

std::string AttrsToText(const Attrs& attrs) {
  if (!attrs.defined()) return "";
  std::ostringstream os;
  if (const auto* d = attrs.as<DictAttrsNode>()) {
    for (const auto& kv : d->dict.get()->items()) os << ", " << kv.first.cast<String>() << "=" << AnyToText(kv.second);
    return os.str();
  }
  const TVMLiteTypeInfo* own = TVMLiteGetTypeInfo(attrs->type_index());
  const Object* defaults = DefaultAttrs(attrs->type_index());
  std::vector<int32_t> chain(own->ancestors, own->ancestors + own->type_depth);
  chain.push_back(own->type_index);
  for (int32_t t : chain) {
    const TVMLiteTypeInfo* info = TVMLiteGetTypeInfo(t);
    for (int32_t i = 0; i < info->num_fields; ++i) {
      const TVMLiteFieldInfo& f = info->fields[i];
      Any value = runtime::details::ReadField(attrs.get(), f);
      if (defaults && runtime::StructuralEqual(value, runtime::details::ReadField(defaults, f))) continue;
      os << ", " << std::string(f.name.data, f.name.size) << "=" << AnyToText(value);
    }
  }
  return os.str();
}

/*! \brief A scalar constant inline (1f, 2i64, True), or "" when it is not a printable scalar. */
std::string ScalarText(const ConstantNode* c) {
  const DLTensor* t = c->data.mutable_tensor();
  if (t->ndim != 0 || t->dtype.lanes != 1) return "";
  const char* p = static_cast<const char*>(t->data) + t->byte_offset;
  std::ostringstream os;
  DataType dt = t->dtype;
  if (dt.is_float() && dt.bits() == 32) {
    float v;
    std::memcpy(&v, p, 4);
    os << std::setprecision(9) << v << "f";
  } else if (dt.is_float() && dt.bits() == 64) {
    double v;
    std::memcpy(&v, p, 8);
    os << std::setprecision(17) << v << "f64";
  } else if (dt.is_int() && dt.bits() == 64) {
    int64_t v;
    std::memcpy(&v, p, 8);
    os << v << "i64";
  } else if (dt.is_int() && dt.bits() == 32) {
    int32_t v;
    std::memcpy(&v, p, 4);
    os << v;
  } else if (dt.is_bool()) {
    os << (*p ? "True" : "False");
  } else {
    return "";
  }
  return os.str();
}

class TextPrinter {
 public:
  std::string Module(const IRModule& mod) {
    for (const auto& kv : mod->functions.get()->items()) {
      out_ << "def @" << kv.first.cast<String>();
      FunctionBlock(kv.second.cast<Function>(), 0);
      out_ << "\n";
    }
    return out_.str();
  }

  std::string Expression(const Expr& expr) {
    if (const auto* f = expr.as<FunctionNode>()) {
      out_ << "fn ";
      FunctionBlock(GetRef<Function>(f), 0);
    } else {
      out_ << Body(expr, 0);
    }
    return out_.str();
  }

 private:
  template <typename R, typename N>
  static R GetRef(const N* n) {
    return R(ObjectPtr<Object>::CopyFromRaw(const_cast<N*>(n)));
  }

  void FunctionBlock(const Function& f, int indent) {
    out_ << "(";
    for (size_t i = 0; i < f->params.size(); ++i) {
      Var p = f->params[i];
      out_ << (i ? ", " : "") << VarName(p.get());
      if (p->type_annotation.has_value()) out_ << ": " << TypeToString(*p->type_annotation);
    }
    out_ << ")";
    Type ret = f->ret_type.has_value() ? *f->ret_type : Type();
    if (!ret.defined() && f->checked_type_.defined()) {
      if (const auto* ft = f->checked_type_.as<FuncTypeNode>()) ret = ft->ret_type;
    }
    if (ret.defined()) out_ << " -> " << TypeToString(ret);
    out_ << " {\n";
    std::string result = Body(f->body, indent + 2);
    out_ << std::string(indent + 2, ' ') << result << "\n" << std::string(indent, ' ') << "}";
  }

  /*! \brief Print the bindings of body's graph (stopping at nested functions); return the result's text. */
  std::string Body(const Expr& body, int indent) {
    std::vector<std::pair<Expr, size_t>> stack{{body, 0}};
    std::unordered_set<const Object*> entered{body.get()};
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      Array<Expr> children = node.as<FunctionNode>() ? Array<Expr>() : ExprChildren(node);
      if (next < children.size()) {
        Expr child = children[next++];
        if (child.defined() && !names_.count(child.get()) && entered.insert(child.get()).second) {
          stack.emplace_back(child, 0);
        }
        continue;
      }
      Expr done = node;
      stack.pop_back();
      Emit(done, indent, stack.empty());
    }
    return names_.count(body.get()) ? names_.at(body.get()) : last_text_;
  }

  /*! \brief Name a leaf, or print a binding for an inner node (the root's text is kept, not bound). */
  void Emit(const Expr& node, int indent, bool is_root) {
    if (const auto* v = node.as<VarNode>()) {
      names_[v] = VarName(v);
      return;
    }
    if (const auto* op = node.as<OpNode>()) {
      names_[op] = op->name;
      return;
    }
    if (const auto* c = node.as<ConstantNode>()) {
      std::string s = ScalarText(c);
      if (s.empty()) s = "meta[relay.Constant][" + std::to_string(num_constants_++) + "]";
      names_[c] = s;
      if (is_root) last_text_ = s;
      return;
    }
    std::ostringstream text;
    if (const auto* call = node.as<CallNode>()) {
      text << Name(call->op) << "(";
      for (size_t i = 0; i < call->args.size(); ++i) text << (i ? ", " : "") << Name(call->args[i]);
      std::string attrs = AttrsToText(call->attrs);
      if (call->args.empty() && !attrs.empty()) attrs = attrs.substr(2);
      text << attrs << ")";
    } else if (const auto* t = node.as<TupleNode>()) {
      text << "(";
      for (size_t i = 0; i < t->fields.size(); ++i) text << (i ? ", " : "") << Name(t->fields[i]);
      text << (t->fields.size() == 1 ? ",)" : ")");
    } else if (const auto* g = node.as<TupleGetItemNode>()) {
      text << Name(g->tuple) << "." << g->index;
    } else if (const auto* f = node.as<FunctionNode>()) {
      std::ostringstream saved;
      saved << out_.str();
      out_.str("");
      out_ << "fn ";
      FunctionBlock(GetRef<Function>(f), indent);
      text << out_.str();
      out_.str("");
      out_ << saved.str();
    } else {
      text << "<" << node->GetTypeKey() << ">";
    }
    if (node->checked_type_.defined() && !node.as<FunctionNode>()) {
      text << " /* ty=" << TypeToString(node->checked_type_) << " */";
    }
    if (is_root) {
      last_text_ = text.str();
      return;
    }
    std::string name = "%" + std::to_string(num_values_++);
    out_ << std::string(indent, ' ') << name << " = " << text.str() << ";\n";
    names_[node.get()] = name;
  }

  std::string Name(const Expr& e) {
    auto it = names_.find(e.get());
    return it != names_.end() ? it->second : "<unprinted>";
  }

  std::string VarName(const VarNode* v) {
    auto it = var_names_.find(v);
    if (it != var_names_.end()) return it->second;
    std::string base = v->name_hint.empty() ? "v" : v->name_hint;
    std::string name = "%" + base;
    for (int k = 1; used_var_names_.count(name); ++k) name = "%" + base + "_" + std::to_string(k);
    used_var_names_.insert(name);
    return var_names_[v] = name;
  }

  std::ostringstream out_;
  std::unordered_map<const Object*, std::string> names_;
  std::unordered_map<const Object*, std::string> var_names_;
  std::unordered_set<std::string> used_var_names_;
  std::string last_text_;
  int num_values_ = 0;
  int num_constants_ = 0;
};

}  // namespace

/*! \brief The text of a module, an expression or a type. */
std::string AsText(const ObjectRef& node) {
  if (const auto* m = node.as<IRModuleNode>()) {
    return TextPrinter().Module(IRModule(ObjectPtr<Object>::CopyFromRaw(const_cast<IRModuleNode*>(m))));
  }
  if (node.as<RelayExprNode>()) return TextPrinter().Expression(Downcast<Expr>(node));
  if (node.as<TypeNode>()) return TypeToString(Downcast<Type>(node));
  TVMLITE_THROW(TypeError) << "ir.AsText: cannot print a " << (node.defined() ? node->GetTypeKey() : "None");
}

TVMLITE_REGISTER_GLOBAL("ir.AsText").set_body_typed([](ObjectRef node) { return AsText(node); });

}  // namespace ir
}  // namespace tvmlite
