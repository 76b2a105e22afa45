/*!
 * \file tvmlite/ir/op.h
 * \brief Op: a primitive operator, registered once with its inputs, attrs type, type relation and attributes.
 *
 *   TVMLITE_REGISTER_OP("nn.conv2d")
 *       .describe("2D convolution (NCHW data, OIHW weight).")
 *
 *       .add_argument("data", "Tensor", "The input.")
 *       .add_argument("weight", "Tensor", "The filters.")
 *       .add_type_rel("Conv2D", ConvRel<2>)      // Type ConvRel<2>(const Array<Type>&, const Conv2DAttrs&)
 *       .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);
 *
 * Registering an op also registers its maker, TVM's `relay.op._make.*`: "nn.conv2d" gets
 * `relay.op.nn._make.conv2d(data, weight, <attrs fields in declaration order>...)`, which checks the inputs are
 * expressions (a list becomes a Tuple) and fills the attrs through the checked reflection setters. An op takes
 * as many inputs as it has arguments unless set_num_inputs says otherwise: one with set_num_inputs(-1) takes a
 * variable number of inputs (ONNX's optional inputs): its maker takes them as one list first,
 * `relay.op._make.foo([a, b], attrs...)`, and its attrs say which optional inputs are present.
 *
 * Attributes ("TOpPattern", "FTypeRelation", "FReference", ...) are values keyed by name, each with a priority
 * level: a registration at a higher level replaces a lower one (TVM's plevel), one at the same level is a
 * ValueError, a lower one is ignored. Python registers them too (tvmlite.ir.register_op_attr). Readers take an
 * OpAttrMap once (one locked copy) and then look ops up without locks, as a pass does.
 */
#ifndef TVMLITE_IR_OP_H_
#define TVMLITE_IR_OP_H_

#include <tvmlite/ir/expr.h>
#include <tvmlite/runtime/registry.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tvmlite {
namespace ir {

/*! \brief TVM's fusion patterns, an op's "TOpPattern" attribute. */
enum OpPatternKind : int {
  kElemWise = 0,
  kBroadcast = 1,
  kInjective = 2,
  kCommReduce = 3,
  kOutEWiseFusable = 4,
  kTuple = 7,
  kOpaque = 8,
};
using TOpPattern = int;

/*! \brief An input an op takes (documentation and the maker's error messages). */
class OpArgumentNode : public Object {
 public:
  std::string name;
  std::string type_info;
  std::string description;

  TVMLITE_DECLARE_FINAL_OBJECT("ir.OpArgument", OpArgumentNode, Object);
};

class OpNode : public RelayExprNode {
 public:
  std::string name;
  std::string description;
  Array<ObjectRef> arguments;  // OpArgument
  int64_t num_inputs = -1;     // -1: variadic (the maker takes a list)
  std::string attrs_type_key;  // "" for ops without attrs
  int64_t support_level = 10;

  int32_t attrs_type_index = -1;
  /*!
   * \brief Position in the registry: the index of its slot in every attribute table. A copy load_json made is
   * kUnregistered and stands for the registered op of its name (equal by name, found by name).
   */
  uint32_t registry_index = kUnregistered;
  static constexpr uint32_t kUnregistered = 0xFFFFFFFFu;

  TVMLITE_DECLARE_FINAL_OBJECT("ir.Op", OpNode, RelayExprNode);
};

class Op : public Expr {
 public:
  /*! \brief The op registered under name; ValueError naming it when there is none. */
  static Op Get(const std::string& name);
  /*! \brief The op, or an undefined Op. */
  static Op Find(const std::string& name);
  static std::vector<std::string> ListNames();
  TVMLITE_DEFINE_OBJECT_REF_METHODS(Op, Expr, OpNode);
};

/*!
 * \brief A snapshot of one attribute for every op: built once (under the registry lock), read without locks.
 * Registrations made after the snapshot are not seen by it.
 */
class OpAttrMapBase {
 public:
  OpAttrMapBase() = default;
  explicit OpAttrMapBase(const std::string& key);
  /*! \brief The value for op, or nullptr. */
  const Any* Find(const Op& op) const {
    uint32_t i = op->registry_index != OpNode::kUnregistered ? op->registry_index : IndexOf(op);
    return i < values_->size() && !(*values_)[i].is_none() ? &(*values_)[i] : nullptr;
  }
  bool count(const Op& op) const { return Find(op) != nullptr; }

 private:
  static uint32_t IndexOf(const Op& op);
  std::shared_ptr<const std::vector<Any>> values_;  // shared with the registry's cache until the key changes
};

template <typename T>
class OpAttrMap : public OpAttrMapBase {
 public:
  using OpAttrMapBase::OpAttrMapBase;
  T get(const Op& op, T default_value) const {
    const Any* v = Find(op);
    return v ? v->cast<T>() : default_value;
  }
  T operator[](const Op& op) const {
    const Any* v = Find(op);
    TVMLITE_CHECK_KIND(v != nullptr, KeyError) << "op " << op->name << " has no attribute of this kind";
    return v->cast<T>();
  }
};

/*! \brief The forward type relation of an op: argument types and attrs -> the call's type. */
using TypeRelFn = Type (*)(const Array<Type>& arg_types, const Attrs& attrs);

/*! \brief Set attribute key of op at plevel (see the file comment for the rules). */
void OpSetAttr(const Op& op, const std::string& key, Any value, int plevel);

class OpRegEntry {
 public:
  static OpRegEntry& RegisterOrGet(const std::string& name);

  OpRegEntry& describe(const std::string& text);
  OpRegEntry& set_num_inputs(int64_t n);
  OpRegEntry& add_argument(const std::string& name, const std::string& type, const std::string& description);
  OpRegEntry& set_support_level(int64_t level);
  template <typename AttrsT>
  OpRegEntry& set_attrs_type() {
    return set_attrs_type_index(AttrsT::RuntimeTypeIndex(), AttrsT::_type_key);
  }
  /*! \brief The relation InferType runs (stored as the "FTypeRelation" attribute at level 10). */
  OpRegEntry& add_type_rel(const std::string& rel_name, TypeRelFn fn) {
    return SetTypeRelation(rel_name, [fn](const Array<Type>& args, const Attrs& attrs) { return fn(args, attrs); });
  }
  /*!
   * \brief A relation of the op's attrs type, Type (*)(const Array<Type>& args, const AttrsT& attrs): it also sets
   * the op's attrs type (no set_attrs_type), and a call carrying other attrs is a TypeError before it runs.
   */
  template <typename AttrsT>
  OpRegEntry& add_type_rel(const std::string& rel_name, Type (*fn)(const Array<Type>&, const AttrsT&)) {
    set_attrs_type<AttrsT>();
    return SetTypeRelation(
        rel_name, [fn](const Array<Type>& args, const Attrs& attrs) { return fn(args, *AttrsAs<AttrsT>(attrs)); });
  }
  template <typename V>
  OpRegEntry& set_attr(const std::string& key, V value, int plevel = 10) {
    OpSetAttr(op_, key, Any(std::move(value)), plevel);
    return *this;
  }

 private:
  explicit OpRegEntry(Op op) : op_(std::move(op)) {}
  OpNode* node() { return const_cast<OpNode*>(op_.get()); }
  OpRegEntry& set_attrs_type_index(int32_t index, const char* key);
  OpRegEntry& SetTypeRelation(const std::string& rel_name, std::function<Type(const Array<Type>&, const Attrs&)> fn);
  Op op_;
  bool num_inputs_set_ = false;  // set_num_inputs was called: add_argument no longer counts the inputs
  friend class OpRegistry;
};

}  // namespace ir
}  // namespace tvmlite

#define TVMLITE_REGISTER_OP(OpName)                                                                       \
  static TVMLITE_ATTRIBUTE_UNUSED ::tvmlite::ir::OpRegEntry& TVMLITE_CONCAT(__tvmlite_op_, __COUNTER__) = \
      ::tvmlite::ir::OpRegEntry::RegisterOrGet(OpName)

#endif  // TVMLITE_IR_OP_H_
