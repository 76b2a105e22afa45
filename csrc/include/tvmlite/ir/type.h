/*!
 * \file tvmlite/ir/type.h
 * \brief The IR's types: TensorType (shape, dtype), DynTensorType (rank unknown), TupleType, FuncType,
 * SequenceType and OptionalType.
 *
 *   TensorType t({1, 3, SizeVar("n")}, DataType::Float(32));   // Tensor[(1, 3, n), float32]
 *   TensorType u({1, SizeVar::Any()}, DataType::Int(64));       // Tensor[(1, ?), int64]: a dim known at run time
 *
 * A dim is an int (>= 0) or a SizeVar. Two named SizeVars with the same name are the same dim (ONNX's dim_param);
 * SizeVar::Any() ("?") is a fresh unknown that equals only itself in shape checks (structural equality compares
 * SizeVars by name). Types are immutable.
 */
#ifndef TVMLITE_IR_TYPE_H_
#define TVMLITE_IR_TYPE_H_

#include <tvmlite/runtime/array.h>
#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/string.h>

#include <optional>
#include <string>

namespace tvmlite {
namespace ir {

using runtime::Any;
using runtime::Array;
using runtime::DataType;
using runtime::Downcast;
using runtime::make_object;
using runtime::Object;
using runtime::ObjectPtr;
using runtime::ObjectRef;
using runtime::Optional;
using runtime::String;

/*! \brief A symbolic dim: a named size ("batch") or, named "?", one only known at run time. */
class SizeVarNode : public Object {
 public:
  std::string name_hint;

  SizeVarNode() = default;
  explicit SizeVarNode(std::string name) : name_hint(std::move(name)) {}

  TVMLITE_DECLARE_FINAL_OBJECT("ir.SizeVar", SizeVarNode, Object);
};

class SizeVar : public ObjectRef {
 public:
  explicit SizeVar(std::string name) : ObjectRef(make_object<SizeVarNode>(std::move(name))) {}
  /*! \brief A fresh unknown dim (printed "?"). */
  static SizeVar Any() { return SizeVar("?"); }
  TVMLITE_DEFINE_OBJECT_REF_METHODS(SizeVar, ObjectRef, SizeVarNode);
};

/*! \brief Base of all types. */
class TypeNode : public Object {
 public:
  static constexpr const char* _type_key = "ir.Type";
  TVMLITE_DYNAMIC_TYPE_INDEX;
  static constexpr int32_t _type_child_slots = 8;
  static constexpr bool _type_child_slots_can_overflow = true;
  TVMLITE_DECLARE_BASE_OBJECT_INFO(TypeNode, Object);
};

class Type : public ObjectRef {
 public:
  TVMLITE_DEFINE_OBJECT_REF_METHODS(Type, ObjectRef, TypeNode);
};

/*! \brief A tensor's type. shape holds ints and SizeVars; rank 0 is a scalar. */
class TensorTypeNode : public TypeNode {
 public:
  Array<Any> shape;
  DataType dtype;

  TensorTypeNode() = default;
  TensorTypeNode(Array<Any> shape, DataType dtype);

  size_t ndim() const { return shape.size(); }
  /*! \brief Dim i as an int, or nullopt when it is symbolic. */
  std::optional<int64_t> static_dim(size_t i) const;
  /*! \brief All dims as ints, or nullopt when one is symbolic. */
  std::optional<std::vector<int64_t>> static_shape() const;

  TVMLITE_DECLARE_FINAL_OBJECT("ir.TensorType", TensorTypeNode, TypeNode);
};

class TensorType : public Type {
 public:
  /*! \brief Checks every dim (an int >= 0 or a SizeVar): ValueError / TypeError otherwise. */
  TensorType(Array<Any> shape, DataType dtype);
  TensorType(const std::vector<int64_t>& shape, DataType dtype);
  TVMLITE_DEFINE_OBJECT_REF_METHODS(TensorType, Type, TensorTypeNode);
};

class TupleTypeNode : public TypeNode {
 public:
  Array<Type> fields;

  TupleTypeNode() = default;
  explicit TupleTypeNode(Array<Type> fields) : fields(std::move(fields)) {}

  TVMLITE_DECLARE_FINAL_OBJECT("ir.TupleType", TupleTypeNode, TypeNode);
};

class TupleType : public Type {
 public:
  explicit TupleType(Array<Type> fields) : Type(make_object<TupleTypeNode>(std::move(fields))) {}
  TVMLITE_DEFINE_OBJECT_REF_METHODS(TupleType, Type, TupleTypeNode);
};

/*! \brief A tensor of dtype whose rank (and shape) is known only at run time: an ONNX tensor without a shape, a
 * sequence element whose rank varies. Printed Tensor[..., dtype]. */
class DynTensorTypeNode : public TypeNode {
 public:
  DataType dtype;

  DynTensorTypeNode() = default;
  explicit DynTensorTypeNode(DataType dtype) : dtype(dtype) {}

  TVMLITE_DECLARE_FINAL_OBJECT("ir.DynTensorType", DynTensorTypeNode, TypeNode);
};

class DynTensorType : public Type {
 public:
  explicit DynTensorType(DataType dtype) : Type(make_object<DynTensorTypeNode>(dtype)) {}
  TVMLITE_DEFINE_OBJECT_REF_METHODS(DynTensorType, Type, DynTensorTypeNode);
};

/*! \brief A function's type: what a Function (a subgraph, a loop body) takes and returns. */
class FuncTypeNode : public TypeNode {
 public:
  Array<Type> arg_types;
  Type ret_type;

  FuncTypeNode() = default;
  FuncTypeNode(Array<Type> arg_types, Type ret_type) : arg_types(std::move(arg_types)), ret_type(std::move(ret_type)) {}

  TVMLITE_DECLARE_FINAL_OBJECT("ir.FuncType", FuncTypeNode, TypeNode);
};

class FuncType : public Type {
 public:
  FuncType(Array<Type> arg_types, Type ret_type)
      : Type(make_object<FuncTypeNode>(std::move(arg_types), std::move(ret_type))) {}
  TVMLITE_DEFINE_OBJECT_REF_METHODS(FuncType, Type, FuncTypeNode);
};

/*! \brief A run-time list of values of one type (ONNX sequences). */
class SequenceTypeNode : public TypeNode {
 public:
  Type elem_type;

  SequenceTypeNode() = default;
  explicit SequenceTypeNode(Type elem_type) : elem_type(std::move(elem_type)) {}

  TVMLITE_DECLARE_FINAL_OBJECT("ir.SequenceType", SequenceTypeNode, TypeNode);
};

class SequenceType : public Type {
 public:
  explicit SequenceType(Type elem_type) : Type(make_object<SequenceTypeNode>(std::move(elem_type))) {}
  TVMLITE_DEFINE_OBJECT_REF_METHODS(SequenceType, Type, SequenceTypeNode);
};

/*! \brief A value of elem_type or none (ONNX optionals). */
class OptionalTypeNode : public TypeNode {
 public:
  Type elem_type;

  OptionalTypeNode() = default;
  explicit OptionalTypeNode(Type elem_type) : elem_type(std::move(elem_type)) {}

  TVMLITE_DECLARE_FINAL_OBJECT("ir.OptionalType", OptionalTypeNode, TypeNode);
};

class OptionalType : public Type {
 public:
  explicit OptionalType(Type elem_type) : Type(make_object<OptionalTypeNode>(std::move(elem_type))) {}
  TVMLITE_DEFINE_OBJECT_REF_METHODS(OptionalType, Type, OptionalTypeNode);
};

/*! \brief A dim as text: "224", "n", "?". */
std::string DimToString(const Any& dim);
/*! \brief A type as text: "Tensor[(1, 3), float32]", "(Tensor[...], Tensor[...])", "fn (...) -> ...". */
std::string TypeToString(const Type& type);

}  // namespace ir
}  // namespace tvmlite
#endif  // TVMLITE_IR_TYPE_H_
