/*!
 * \file type.cc
 * \brief The IR's types: construction checks, reflection and text.
 */
#include <tvmlite/ir/type.h>
#include <tvmlite/runtime/reflection.h>
#include <tvmlite/runtime/registry.h>

#include <sstream>

namespace tvmlite {
namespace ir {

namespace refl = runtime::refl;

TensorTypeNode::TensorTypeNode(Array<Any> shape_in, DataType dtype_in) : dtype(dtype_in) {
  TVMLITE_CHECK_KIND(shape_in.size() <= static_cast<size_t>(kTVMLiteMaxNDim), ValueError)
      << "TensorType: rank " << shape_in.size() << " is more than " << kTVMLiteMaxNDim;
  for (size_t i = 0; i < shape_in.size(); ++i) {
    Any dim = shape_in[i];
    if (std::optional<int64_t> n = dim.as<int64_t>(); n.has_value() && dim.type_index() == kTVMLiteInt) {
      TVMLITE_CHECK_KIND(*n >= 0, ValueError) << "TensorType: dim " << i << " is negative (" << *n << ")";
    } else {
      TVMLITE_CHECK_KIND(dim.as<SizeVar>().has_value(), TypeError)
          << "TensorType: dim " << i << " must be an int or a SizeVar, got " << runtime::AnyTypeStr(*dim.raw());
    }
  }
  shape = std::move(shape_in);
}

std::optional<int64_t> TensorTypeNode::static_dim(size_t i) const {
  const Any& dim = shape->at(static_cast<int64_t>(i));
  if (dim.type_index() != kTVMLiteInt) return std::nullopt;
  return dim.as<int64_t>();
}

std::optional<std::vector<int64_t>> TensorTypeNode::static_shape() const {
  std::vector<int64_t> out(ndim());
  for (size_t i = 0; i < out.size(); ++i) {
    std::optional<int64_t> d = static_dim(i);
    if (!d.has_value()) return std::nullopt;
    out[i] = *d;
  }
  return out;
}

TensorType::TensorType(Array<Any> shape, DataType dtype) : Type(make_object<TensorTypeNode>(std::move(shape), dtype)) {}

TensorType::TensorType(const std::vector<int64_t>& shape, DataType dtype)
    : TensorType(Array<Any>(shape.begin(), shape.end()), dtype) {}

std::string DimToString(const Any& dim) {
  if (dim.type_index() == kTVMLiteInt) return std::to_string(dim.cast<int64_t>());
  if (std::optional<SizeVar> v = dim.as<SizeVar>()) return (*v)->name_hint;
  return "<" + runtime::AnyTypeStr(*dim.raw()) + ">";
}

std::string TypeToString(const Type& type) {
  std::ostringstream os;
  if (!type.defined()) return "?";
  if (const auto* t = type.as<TensorTypeNode>()) {
    os << "Tensor[(";
    for (size_t i = 0; i < t->ndim(); ++i) os << (i ? ", " : "") << DimToString(t->shape->at(i));
    os << (t->ndim() == 1 ? ",), " : "), ") << t->dtype.str() << "]";
  } else if (const auto* t = type.as<DynTensorTypeNode>()) {
    os << "Tensor[..., " << t->dtype.str() << "]";
  } else if (const auto* t = type.as<TupleTypeNode>()) {
    os << "(";
    for (size_t i = 0; i < t->fields.size(); ++i) os << (i ? ", " : "") << TypeToString(t->fields[i]);
    os << (t->fields.size() == 1 ? ",)" : ")");
  } else if (const auto* t = type.as<FuncTypeNode>()) {
    os << "fn (";
    for (size_t i = 0; i < t->arg_types.size(); ++i) os << (i ? ", " : "") << TypeToString(t->arg_types[i]);
    os << ") -> " << TypeToString(t->ret_type);
  } else if (const auto* t = type.as<SequenceTypeNode>()) {
    os << "Sequence[" << TypeToString(t->elem_type) << "]";
  } else if (const auto* t = type.as<OptionalTypeNode>()) {
    os << "Optional[" << TypeToString(t->elem_type) << "]";
  } else {
    os << type->GetTypeKey();
  }
  return os.str();
}

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(SizeVarNode, name_hint).def(refl::init<std::string>());
  refl::ObjectDef<TypeNode>();
  TVMLITE_REFLECT_FIELDS(TensorTypeNode, shape, dtype).def(refl::init<Array<Any>, DataType>());
  TVMLITE_REFLECT_FIELDS(DynTensorTypeNode, dtype).def(refl::init<DataType>());
  TVMLITE_REFLECT_FIELDS(TupleTypeNode, fields).def(refl::init<Array<Type>>());
  TVMLITE_REFLECT_FIELDS(FuncTypeNode, arg_types, ret_type).def(refl::init<Array<Type>, Type>());
  TVMLITE_REFLECT_FIELDS(SequenceTypeNode, elem_type).def(refl::init<Type>());
  TVMLITE_REFLECT_FIELDS(OptionalTypeNode, elem_type).def(refl::init<Type>());
});

}  // namespace ir
}  // namespace tvmlite
