/*!
 * \file tvmlite/relay/attrs/control.h
 * \brief Control flow (if, loop, scan, sequence_map), sequences and optionals: attrs, the type join and
 * DynTensorType (a tensor whose rank is known only at run time).
 *
 *   Function then_fn({}, x), else_fn({}, y);
 *   Call(Op::Get("if"), {cond, then_fn, else_fn});          // type: JoinTypes(type(x), type(y))
 *   Call(Op::Get("loop"), {max_trip_count, cond, Tuple({v0}), body});   // body(i, cond, v) -> (cond, v, scans...)
 *
 * Subgraphs are Functions given to the op as inputs; their type (FuncType) is what the relations read. An omitted
 * optional input is an empty Tuple (type `()`), in these ops and in rnn/qnn ops alike.
 *
 * JoinTypes(a, b) is the most specific type holding values of both: equal dims stay, differing dims become `?`,
 * differing ranks give DynTensorType(dtype); tuples, sequences and optionals join field-wise. Dtypes and kinds must
 * agree (TypeError naming both types otherwise). Loop bodies and If branches are typed with it.
 */
#ifndef TVMLITE_RELAY_ATTRS_CONTROL_H_
#define TVMLITE_RELAY_ATTRS_CONTROL_H_

#include <tvmlite/ir/attrs.h>

namespace tvmlite {
namespace relay {

using ir::AttrsNode;
using runtime::Array;
using runtime::DataType;

using ir::DynTensorType;
using ir::DynTensorTypeNode;

/*! \brief The most specific type of values of type a or b (see the file comment); TypeError when none. */
ir::Type JoinTypes(const ir::Type& a, const ir::Type& b);

/*! \brief ONNX Scan (opset >= 9; `batched` selects opset 8's leading batch axis). */
struct ScanAttrs : public AttrsNode {
  Array<int64_t> scan_input_axes;        // empty: all 0
  Array<int64_t> scan_input_directions;  // 0 forward, 1 reverse; empty: all forward
  Array<int64_t> scan_output_axes;
  Array<int64_t> scan_output_directions;
  bool batched = false;
  TVMLITE_DECLARE_ATTRS(ScanAttrs, "relay.attrs.ScanAttrs");
};

struct SequenceEmptyAttrs : public AttrsNode {
  DataType dtype = DataType::Float(32);
  TVMLITE_DECLARE_ATTRS(SequenceEmptyAttrs, "relay.attrs.SequenceEmptyAttrs");
};

struct SplitToSequenceAttrs : public AttrsNode {
  int64_t axis = 0;
  bool keepdims = true;  // only when split is omitted (chunks of 1)
  TVMLITE_DECLARE_ATTRS(SplitToSequenceAttrs, "relay.attrs.SplitToSequenceAttrs");
};

struct ConcatFromSequenceAttrs : public AttrsNode {
  int64_t axis = 0;
  bool new_axis = false;
  TVMLITE_DECLARE_ATTRS(ConcatFromSequenceAttrs, "relay.attrs.ConcatFromSequenceAttrs");
};

/*! \brief An empty optional of elem_type. */
struct OptionalEmptyAttrs : public AttrsNode {
  ir::Type elem_type;
  TVMLITE_DECLARE_ATTRS(OptionalEmptyAttrs, "relay.attrs.OptionalEmptyAttrs");
};

/*!
 * \brief raise_error: a value of type ret_type that is never made: evaluating it raises ValueError(message). An If
 * branch that cannot be typed at the shapes given becomes one (frontend/onnx/control.py): the error is raised
 * when the branch is taken, not when the model is imported.
 */
struct RaiseErrorAttrs : public AttrsNode {
  runtime::String message;
  ir::Type ret_type;
  TVMLITE_DECLARE_ATTRS(RaiseErrorAttrs, "relay.attrs.RaiseErrorAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_CONTROL_H_
