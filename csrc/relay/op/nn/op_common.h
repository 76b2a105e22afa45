/*!
 * \file op_common.h
 * \brief Relation helpers shared by the nn op files in this directory (not a public header).
 *
 *   if (const TensorTypeNode* beta = OptionalTensorArg(args, 2)) { ... }   // () = absent
 *   CheckFloating(data->dtype, "data");
 *   auto [q, k, v] = FloatTensorArgs<3>(args, "q");   // one floating dtype
 */
#ifndef TVMLITE_RELAY_OP_NN_OP_COMMON_H_
#define TVMLITE_RELAY_OP_NN_OP_COMMON_H_

#include <tvmlite/relay/type_rel.h>

#include <array>
#include <string>

namespace tvmlite {
namespace relay {

/*! \brief Argument i as a tensor, or nullptr when it is the empty tuple (an absent optional input). */
inline const TensorTypeNode* OptionalTensorArg(const Array<Type>& args, size_t i) {
  TVMLITE_CHECK_KIND(i < args.size(), TypeError) << "expected at least " << i + 1 << " inputs, got " << args.size();
  Type t = args[i];
  if (const auto* tup = t.as<TupleTypeNode>()) {
    TVMLITE_CHECK_KIND(tup->fields.empty(), TypeError)
        << "input " << i << " must be a tensor or () (absent), got " << TypeToString(t);
    return nullptr;
  }
  return TensorArg(args, i);
}

/*! \brief TypeError unless dtype is a floating type (float*, bfloat16, float8 ...). */
inline void CheckFloating(DataType dtype, const char* what) {
  TVMLITE_CHECK_KIND(!dtype.is_int() && !dtype.is_uint() && !dtype.is_bool() && dtype.bits() > 0, TypeError)
      << what << " must have a floating dtype, got " << dtype.str();
}

/*! \brief Arguments 0..N-1 as tensors of one floating dtype, the first's (`first` names it in the error). */
template <size_t N>
inline std::array<const TensorTypeNode*, N> FloatTensorArgs(const Array<Type>& args, const char* first) {
  std::array<const TensorTypeNode*, N> t;
  for (size_t i = 0; i < N; ++i) t[i] = TensorArg(args, i);
  CheckFloating(t[0]->dtype, first);
  for (size_t i = 1; i < N; ++i) MatchDtype(t[0], t[i]);
  return t;
}

/*! \brief ValueError unless t is 1-D with dim equal to `channels` (symbolic dims pass). */
inline void CheckChannelParam(const TensorTypeNode* t, const Any& channels, const char* what,
                              const Array<Any>& data_shape) {
  TVMLITE_CHECK_KIND(t->shape.size() == 1, ValueError)
      << what << " must be 1-D with " << DimToString(channels) << " elements (the channels of data "
      << ShapeToString(data_shape) << "), got shape " << ShapeToString(t->shape);
  const Any& d = t->shape[0];
  bool symbolic = d.type_index() != kTVMLiteInt || channels.type_index() != kTVMLiteInt;
  TVMLITE_CHECK_KIND(symbolic || DimEqual(d, channels), ValueError)
      << what << " has shape " << ShapeToString(t->shape) << " but data " << ShapeToString(data_shape) << " has "
      << DimToString(channels) << " channels";
}

/*! \brief ValueError unless `param` broadcasts to `target` without growing it (ONNX unidirectional broadcasting). */
inline void CheckUnidirectional(const Array<Any>& param, const Array<Any>& target, const char* what,
                                const char* target_what) {
  bool ok = param.size() <= target.size();
  for (size_t i = 0; ok && i < param.size(); ++i) {
    const Any& p = param[param.size() - 1 - i];
    const Any& t = target[target.size() - 1 - i];
    ok = DimIs(p, 1) || DimEqual(p, t) || p.type_index() != kTVMLiteInt || t.type_index() != kTVMLiteInt;
  }
  TVMLITE_CHECK_KIND(ok, ValueError) << what << " of shape " << ShapeToString(param) << " does not broadcast to "
                                     << target_what << " " << ShapeToString(target);
}

/*! \brief a * b for dims: symbolic when either is; ValueError when the product overflows int64. */
inline Any DimMulChecked(const Any& a, const Any& b) {
  if (a.type_index() != kTVMLiteInt || b.type_index() != kTVMLiteInt) return Any(SizeVar::Any());
  int64_t out;
  TVMLITE_CHECK_KIND(!__builtin_mul_overflow(a.cast<int64_t>(), b.cast<int64_t>(), &out), ValueError)
      << "the dim " << a.cast<int64_t>() << " * " << b.cast<int64_t>() << " overflows int64";
  return Any(out);
}

/*! \brief a + b for dims: symbolic when either is (unless the other is 0); ValueError on int64 overflow. */
inline Any DimAddChecked(const Any& a, const Any& b) {
  if (DimIs(a, 0)) return b;
  if (DimIs(b, 0)) return a;
  if (a.type_index() != kTVMLiteInt || b.type_index() != kTVMLiteInt) return Any(SizeVar::Any());
  int64_t out;
  TVMLITE_CHECK_KIND(!__builtin_add_overflow(a.cast<int64_t>(), b.cast<int64_t>(), &out), ValueError)
      << "the dim " << a.cast<int64_t>() << " + " << b.cast<int64_t>() << " overflows int64";
  return Any(out);
}

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_OP_NN_OP_COMMON_H_
