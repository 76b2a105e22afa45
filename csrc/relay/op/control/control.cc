/*!
 * \file control.cc
 * \brief Control flow ops whose subgraphs are Function inputs: if, loop, scan, sequence_map; the type join.
 *
 * Each relation reads its subgraph's FuncType (arguments already typed by InferType, bodies included):
 *   if(cond, then: fn() -> T1, else: fn() -> T2)                         -> JoinTypes(T1, T2)
 *   if_call(cond, (a...), then: fn(a...) -> T1, else: fn(a...) -> T2)      -> JoinTypes(T1, T2)
 *   loop(M, cond, (v...), body: fn(i, cond, v...) -> (cond, v'..., s...)) -> (v''..., Tensor[(?, s.shape...)]...)
 *     where M and cond may be omitted (empty tuples) and v'' are the body's parameter types, which must hold both
 *     the initial values and what the body returns (the frontend widens them to that fixpoint with JoinTypes).
 *   scan((state...), (xs...), body: fn(state..., x...) -> (state'..., y...)) -> (state..., ys...)
 *     each x is a slice of xs along its scan axis, each ys stacks y along its output axis.
 *   sequence_map((inputs...), body: fn(elem...) -> (out...)) -> (Sequence[out]...)
 *     a sequence input gives the body its elements, a tensor input is passed whole to every call.
 *   raise_error() [message, ret_type]                                    -> ret_type (a tensor type)
 *     evaluating it raises ValueError(message): never folded or hoisted (TNonDeterministic: it has an effect).
 */
#include <tvmlite/relay/attrs/control.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/reflection.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/structural.h>

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(ScanAttrs, scan_input_axes, scan_input_directions, scan_output_axes, scan_output_directions,
                         batched);
  TVMLITE_REFLECT_FIELDS(RaiseErrorAttrs, message, ret_type);
});

namespace {

bool IsQuestion(const Any& d) {
  std::optional<SizeVar> v = d.as<SizeVar>();
  return v.has_value() && (*v)->name_hint == "?";
}

[[noreturn]] void JoinFail(const Type& a, const Type& b) {
  TVMLITE_THROW(TypeError) << "types " << TypeToString(a) << " and " << TypeToString(b) << " disagree";
}

const FuncTypeNode* FuncArg(const Array<Type>& args, size_t i, const char* what) {
  TVMLITE_CHECK_KIND(i < args.size(), TypeError) << "missing input " << i << " (" << what << ")";
  const auto* f = args[i].as<FuncTypeNode>();
  TVMLITE_CHECK_KIND(f != nullptr, TypeError)
      << "input " << i << " (" << what << ") must be a function, got " << TypeToString(args[i]);
  return f;
}

const TupleTypeNode* TupleArg(const Array<Type>& args, size_t i, const char* what) {
  TVMLITE_CHECK_KIND(i < args.size(), TypeError) << "missing input " << i << " (" << what << ")";
  const auto* t = args[i].as<TupleTypeNode>();
  TVMLITE_CHECK_KIND(t != nullptr, TypeError)
      << "input " << i << " (" << what << ") must be a tuple, got " << TypeToString(args[i]);
  return t;
}

bool IsAbsent(const Type& t) {
  const auto* tt = t.as<TupleTypeNode>();
  return tt != nullptr && tt->fields.empty();
}

/*! \brief A scalar (or 1-element) tensor of a dtype kind, or absent. */
void CheckScalarOrAbsent(const Type& t, const char* what, bool want_bool) {
  if (IsAbsent(t)) return;
  const auto* tt = t.as<TensorTypeNode>();
  TVMLITE_CHECK_KIND(tt != nullptr, TypeError) << what << " must be a tensor or omitted, got " << TypeToString(t);
  TVMLITE_CHECK_KIND(tt->ndim() == 0 || (tt->ndim() == 1 && DimIs(tt->shape[0], 1)), ValueError)
      << what << " must hold one value, got " << TypeToString(t);
  bool is_bool = tt->dtype == DataType::Bool();
  bool is_int = tt->dtype.code() == kDLInt || tt->dtype.code() == kDLUInt;
  TVMLITE_CHECK_KIND(want_bool ? is_bool : is_int, TypeError)
      << what << " must be " << (want_bool ? "bool" : "an integer") << ", got " << TypeToString(t);
}

bool TypeEqual(const Type& a, const Type& b) { return runtime::StructuralEqual(Any(a), Any(b)); }

}  // namespace

Type JoinTypes(const Type& a, const Type& b) {
  TVMLITE_CHECK_KIND(a.defined() && b.defined(), TypeError) << "JoinTypes: undefined type";
  if (a.same_as(b)) return a;
  const auto* ta = a.as<TensorTypeNode>();
  const auto* tb = b.as<TensorTypeNode>();
  const auto* da = a.as<DynTensorTypeNode>();
  const auto* db = b.as<DynTensorTypeNode>();
  if ((ta || da) && (tb || db)) {
    DataType dta = ta ? ta->dtype : da->dtype, dtb = tb ? tb->dtype : db->dtype;
    if (dta != dtb) JoinFail(a, b);
    if (da) return a;
    if (db) return b;
    if (ta->ndim() != tb->ndim()) return DynTensorType(dta);
    std::vector<Any> dims;
    bool same = true;
    for (size_t i = 0; i < ta->ndim(); ++i) {
      const Any& x = ta->shape[i];
      const Any& y = tb->shape[i];
      if (DimEqual(x, y) || (IsQuestion(x) && IsQuestion(y))) {
        dims.push_back(x);
      } else {
        dims.push_back(IsQuestion(x) ? x : Any(SizeVar::Any()));
        same = false;
      }
    }
    return same ? a : Type(TensorType(Array<Any>(dims), dta));
  }
  if (const auto* ua = a.as<TupleTypeNode>()) {
    const auto* ub = b.as<TupleTypeNode>();
    if (!ub || ua->fields.size() != ub->fields.size()) JoinFail(a, b);
    std::vector<Type> fields;
    for (size_t i = 0; i < ua->fields.size(); ++i) fields.push_back(JoinTypes(ua->fields[i], ub->fields[i]));
    return TupleType(Array<Type>(fields));
  }
  if (const auto* sa = a.as<SequenceTypeNode>()) {
    const auto* sb = b.as<SequenceTypeNode>();
    if (!sb) JoinFail(a, b);
    return SequenceType(JoinTypes(sa->elem_type, sb->elem_type));
  }
  if (const auto* oa = a.as<OptionalTypeNode>()) {
    const auto* ob = b.as<OptionalTypeNode>();
    if (ob) return OptionalType(JoinTypes(oa->elem_type, ob->elem_type));
    return OptionalType(JoinTypes(oa->elem_type, b));  // a value is a non-empty optional
  }
  if (const auto* ob = b.as<OptionalTypeNode>()) return OptionalType(JoinTypes(a, ob->elem_type));
  if (TypeEqual(a, b)) return a;
  JoinFail(a, b);
}

/*! \brief Whether `general` holds every value of `specific` (JoinTypes adds nothing). */
bool TypeHolds(const Type& general, const Type& specific) { return TypeEqual(JoinTypes(general, specific), general); }

Type IfRel(const Array<Type>& args, const Attrs&) {
  CheckScalarOrAbsent(args[0], "the condition", true);
  TVMLITE_CHECK_KIND(!IsAbsent(args[0]), TypeError) << "the condition is required";
  const FuncTypeNode* then_fn = FuncArg(args, 1, "then_branch");
  const FuncTypeNode* else_fn = FuncArg(args, 2, "else_branch");
  TVMLITE_CHECK_KIND(then_fn->arg_types.empty() && else_fn->arg_types.empty(), TypeError)
      << "branches take no parameters, got " << TypeToString(args[1]) << " and " << TypeToString(args[2]);
  try {
    return JoinTypes(then_fn->ret_type, else_fn->ret_type);
  } catch (const runtime::Error& err) {
    throw runtime::Error(err.kind(), "the branches' results disagree: " + err.message());
  }
}

Type RaiseErrorRel(const Array<Type>&, const RaiseErrorAttrs& a) {
  TVMLITE_CHECK_KIND(a.ret_type.defined() && a.ret_type.as<TensorTypeNode>(), TypeError)
      << "ret_type must be a tensor type, got " << (a.ret_type.defined() ? TypeToString(a.ret_type) : "none");
  return a.ret_type;
}

Type IfCallRel(const Array<Type>& args, const Attrs&) {
  CheckScalarOrAbsent(args[0], "the condition", true);
  TVMLITE_CHECK_KIND(!IsAbsent(args[0]), TypeError) << "the condition is required";
  const TupleTypeNode* given = TupleArg(args, 1, "args");
  const FuncTypeNode* then_fn = FuncArg(args, 2, "then_branch");
  const FuncTypeNode* else_fn = FuncArg(args, 3, "else_branch");
  TVMLITE_CHECK_KIND(
      then_fn->arg_types.size() == given->fields.size() && else_fn->arg_types.size() == given->fields.size(), TypeError)
      << "both branches must take the " << given->fields.size() << " args, they take " << then_fn->arg_types.size()
      << " and " << else_fn->arg_types.size();
  try {
    return JoinTypes(then_fn->ret_type, else_fn->ret_type);
  } catch (const runtime::Error& err) {
    throw runtime::Error(err.kind(), "the branches' results disagree: " + err.message());
  }
}

Type LoopRel(const Array<Type>& args, const Attrs&) {
  CheckScalarOrAbsent(args[0], "max_trip_count", false);
  CheckScalarOrAbsent(args[1], "cond", true);
  const TupleTypeNode* init = TupleArg(args, 2, "loop-carried initial values");
  const FuncTypeNode* body = FuncArg(args, 3, "body");
  size_t n = init->fields.size();
  TVMLITE_CHECK_KIND(body->arg_types.size() == n + 2, TypeError)
      << "the body must take (iteration, cond, " << n << " loop-carried values), it takes " << body->arg_types.size()
      << " parameters";
  const auto* iter = body->arg_types[0].as<TensorTypeNode>();
  TVMLITE_CHECK_KIND(iter && iter->ndim() <= 1 && iter->dtype == DataType::Int(64), TypeError)
      << "the body's iteration parameter must be an int64 scalar, got " << TypeToString(body->arg_types[0]);
  CheckScalarOrAbsent(body->arg_types[1], "the body's cond parameter", true);
  const auto* ret = body->ret_type.as<TupleTypeNode>();
  TVMLITE_CHECK_KIND(ret && ret->fields.size() >= n + 1, TypeError)
      << "the body must return (cond, " << n << " loop-carried values, scan outputs...), it returns "
      << TypeToString(body->ret_type);
  CheckScalarOrAbsent(ret->fields[0], "the body's cond result", true);
  std::vector<Type> out;
  for (size_t i = 0; i < n; ++i) {
    const Type& param = body->arg_types[i + 2];
    TVMLITE_CHECK_KIND(TypeHolds(param, init->fields[i]), TypeError)
        << "loop-carried value " << i << ": the initial value " << TypeToString(init->fields[i])
        << " does not fit the body's parameter " << TypeToString(param);
    TVMLITE_CHECK_KIND(TypeHolds(param, ret->fields[i + 1]), TypeError)
        << "loop-carried value " << i << ": the body returns " << TypeToString(ret->fields[i + 1])
        << ", which does not fit its parameter " << TypeToString(param) << " (annotate changing dims with ?)";
    out.push_back(param);
  }
  for (size_t i = n + 1; i < ret->fields.size(); ++i) {
    const Type& s = ret->fields[i];
    if (const auto* t = s.as<TensorTypeNode>()) {
      std::vector<Any> dims{Any(SizeVar::Any())};
      for (const Any& d : t->shape) dims.push_back(d);
      out.push_back(TensorType(Array<Any>(dims), t->dtype));
    } else if (const auto* d = s.as<DynTensorTypeNode>()) {
      out.push_back(DynTensorType(d->dtype));
    } else {
      TVMLITE_THROW(TypeError) << "scan output " << i - n - 1 << " must be a tensor, got " << TypeToString(s);
    }
  }
  return TupleType(Array<Type>(out));
}

namespace {

int64_t AxisOr0(const Array<int64_t>& axes, size_t i, const char* what, size_t count) {
  if (axes.empty()) return 0;
  TVMLITE_CHECK_KIND(axes.size() == count, ValueError)
      << what << " has " << axes.size() << " values for " << count << " tensors";
  return axes[i];
}

}  // namespace

Type ScanRel(const Array<Type>& args, const ScanAttrs& a) {
  const TupleTypeNode* states = TupleArg(args, 0, "initial states");
  const TupleTypeNode* xs = TupleArg(args, 1, "scan inputs");
  const FuncTypeNode* body = FuncArg(args, 2, "body");
  size_t n = states->fields.size(), m = xs->fields.size();
  TVMLITE_CHECK_KIND(m >= 1, ValueError) << "scan needs at least one scan input";
  TVMLITE_CHECK_KIND(body->arg_types.size() == n + m, TypeError)
      << "the body must take " << n << " states and " << m << " scan elements, it takes " << body->arg_types.size()
      << " parameters";
  const auto* ret = body->ret_type.as<TupleTypeNode>();
  TVMLITE_CHECK_KIND(ret && ret->fields.size() >= n, TypeError)
      << "the body must return (" << n << " states, scan outputs...), it returns " << TypeToString(body->ret_type);
  size_t k = ret->fields.size() - n;
  size_t lead = a.batched ? 1 : 0;
  for (size_t j = 0; j < a.scan_input_directions.size(); ++j) {
    TVMLITE_CHECK_KIND(a.scan_input_directions[j] == 0 || a.scan_input_directions[j] == 1, ValueError)
        << "scan_input_directions must be 0 or 1";
  }
  Any seq_len = SizeVar::Any();
  Any batch = SizeVar::Any();
  for (size_t j = 0; j < m; ++j) {
    const auto* x = xs->fields[j].as<TensorTypeNode>();
    TVMLITE_CHECK_KIND(x != nullptr, TypeError) << "scan input " << j << " must be a tensor";
    TVMLITE_CHECK_KIND(x->ndim() >= 1 + lead, ValueError) << "scan input " << j << " has rank 0";
    int64_t axis = NormalizeAxis(AxisOr0(a.scan_input_axes, j, "scan_input_axes", m), x->ndim() - lead) + lead;
    if (a.batched) {
      TVMLITE_CHECK_KIND(axis == 1, ValueError) << "batched scan takes scan axis 1";
    }
    if (j == 0) {
      seq_len = x->shape[axis];
      if (lead) batch = x->shape[0];
    }
    std::vector<Any> dims;
    for (size_t d = lead; d < x->ndim(); ++d) {
      if (static_cast<int64_t>(d) != axis) dims.push_back(x->shape[d]);
    }
    Type elem = TensorType(Array<Any>(dims), x->dtype);
    TVMLITE_CHECK_KIND(TypeHolds(body->arg_types[n + j], elem), TypeError)
        << "scan input " << j << ": its slices " << TypeToString(elem) << " do not fit the body's parameter "
        << TypeToString(body->arg_types[n + j]);
  }
  std::vector<Type> out;
  for (size_t i = 0; i < n; ++i) {
    Type state = states->fields[i];
    if (lead) {  // batched: the body sees one batch entry's state
      const auto* st = state.as<TensorTypeNode>();
      TVMLITE_CHECK_KIND(st && st->ndim() >= 1, TypeError)
          << "batched scan: state " << i << " must be a tensor with a batch axis, got " << TypeToString(state);
      std::vector<Any> dims;
      for (size_t d = 1; d < st->ndim(); ++d) dims.push_back(st->shape[d]);
      state = TensorType(Array<Any>(dims), st->dtype);
    }
    TVMLITE_CHECK_KIND(TypeHolds(body->arg_types[i], state) && TypeHolds(body->arg_types[i], ret->fields[i]), TypeError)
        << "state " << i << ": initial " << TypeToString(state) << ", body parameter "
        << TypeToString(body->arg_types[i]) << " and body result " << TypeToString(ret->fields[i]) << " disagree";
    out.push_back(states->fields[i]);
  }
  for (size_t i = 0; i < k; ++i) {
    const auto* y = ret->fields[n + i].as<TensorTypeNode>();
    TVMLITE_CHECK_KIND(y != nullptr, TypeError) << "scan output " << i << " must be a tensor";
    int64_t axis = NormalizeAxis(AxisOr0(a.scan_output_axes, i, "scan_output_axes", k), y->ndim() + 1);
    std::vector<Any> dims;
    if (lead) dims.push_back(batch);
    for (size_t d = 0; d < y->ndim(); ++d) {
      if (static_cast<int64_t>(d) == axis) dims.push_back(seq_len);
      dims.push_back(y->shape[d]);
    }
    if (axis == static_cast<int64_t>(y->ndim())) dims.push_back(seq_len);
    out.push_back(TensorType(Array<Any>(dims), y->dtype));
  }
  return TupleType(Array<Type>(out));
}

Type SequenceMapRel(const Array<Type>& args, const Attrs&) {
  const TupleTypeNode* ins = TupleArg(args, 0, "inputs");
  const FuncTypeNode* body = FuncArg(args, 1, "body");
  TVMLITE_CHECK_KIND(!ins->fields.empty() && ins->fields[0].as<SequenceTypeNode>(), TypeError)
      << "the first input must be a sequence";
  TVMLITE_CHECK_KIND(body->arg_types.size() == ins->fields.size(), TypeError)
      << "the body takes " << body->arg_types.size() << " parameters for " << ins->fields.size() << " inputs";
  for (size_t i = 0; i < ins->fields.size(); ++i) {
    const auto* s = ins->fields[i].as<SequenceTypeNode>();
    Type elem = s ? s->elem_type : ins->fields[i];
    TVMLITE_CHECK_KIND(TypeHolds(body->arg_types[i], elem), TypeError)
        << "input " << i << ": " << TypeToString(elem) << " does not fit the body's parameter "
        << TypeToString(body->arg_types[i]);
  }
  const auto* ret = body->ret_type.as<TupleTypeNode>();
  TVMLITE_CHECK_KIND(ret != nullptr, TypeError) << "the body must return a tuple";
  std::vector<Type> out;
  for (const Type& t : ret->fields) out.push_back(SequenceType(t));
  return TupleType(Array<Type>(out));
}

TVMLITE_REGISTER_OP("if")
    .describe("Evaluate then_branch() when cond is true, else else_branch() (ONNX If).")
    .add_argument("cond", "Tensor", "A bool scalar.")
    .add_argument("then_branch", "Function", "fn() -> T.")
    .add_argument("else_branch", "Function", "fn() -> T.")
    .add_type_rel("If", IfRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("if_call")
    .describe(
        "then_branch(*args) when cond is true, else else_branch(*args): an If whose branches take the outer "
        "values they read as parameters (the cpu build's form, so each branch optimises as a graph).")
    .add_argument("cond", "Tensor", "A bool scalar.")
    .add_argument("args", "Tuple", "The values the branches read.")
    .add_argument("then_branch", "Function", "fn(args...) -> T.")
    .add_argument("else_branch", "Function", "fn(args...) -> T.")
    .add_type_rel("IfCall", IfCallRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("raise_error")
    .describe(
        "A value of type ret_type whose evaluation raises ValueError(message) (an If branch that cannot be "
        "typed at the given shapes: the error comes when it is taken).")
    .set_num_inputs(0)
    .add_type_rel("RaiseError", RaiseErrorRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque)
    .set_attr<bool>("TNonDeterministic", true);  // an effect: never folded at build, never hoisted

TVMLITE_REGISTER_OP("loop")
    .describe("ONNX Loop: run body while i < max_trip_count and cond; carry values, stack scan outputs.")
    .add_argument("max_trip_count", "Tensor", "An int64 scalar, or () for no limit.")
    .add_argument("cond", "Tensor", "A bool scalar, or () to ignore the body's condition.")
    .add_argument("v_initial", "Tuple", "The loop-carried values' initial values.")
    .add_argument("body", "Function", "fn(i, cond, v...) -> (cond, v..., scan outputs...).")
    .add_type_rel("Loop", LoopRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("scan")
    .describe("ONNX Scan: run body over slices of the scan inputs, carrying states.")
    .add_argument("initial_states", "Tuple", "The states' initial values.")
    .add_argument("scan_inputs", "Tuple", "The tensors scanned.")
    .add_argument("body", "Function", "fn(state..., x...) -> (state..., y...).")
    .add_type_rel("Scan", ScanRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("sequence_map")
    .describe("ONNX SequenceMap: apply body to the elements of the input sequences.")
    .add_argument("inputs", "Tuple", "Sequences (iterated) and tensors (passed whole).")
    .add_argument("body", "Function", "fn(elem...) -> (out...).")
    .add_type_rel("SequenceMap", SequenceMapRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_GLOBAL("relay.op.control.JoinTypes").set_body_typed([](Type a, Type b) { return JoinTypes(a, b); });

}  // namespace relay
}  // namespace tvmlite
