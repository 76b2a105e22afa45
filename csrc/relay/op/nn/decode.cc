/*!
 * \file decode.cc
 * \brief Ops for autoregressive decoding with carried state.
 *
 *   nn.causal_conv_with_state(x: (B, C, L), w: (C, 1, K)[, bias: (C,)][, past: (B, C, K-1)])
 *       -> (y: (B, C, L), present: (B, C, K-1))          depthwise, causal; past (or zeros) precedes x
 *   nn.linear_attention(q: (B, T, Hq*dk), k: (B, T, Hkv*dk), v: (B, T, Hkv*dv)[, past: (B, Hkv, dk, dv)]
 *                       [, decay: (B, T, Hkv*dk | Hkv)][, beta: (B, T, Hkv | 1)])
 *       -> (out: (B, T, Hq*dv), present: (B, Hkv, dk, dv))
 *   tensor_scatter(past: (B, ..., S, ...), update: (B, ..., s, ...)[, write_indices: (B,)]) -> past's type
 */
#include <tvmlite/relay/attrs/decode.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/reflection.h>
#include <tvmlite/runtime/structural.h>

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(CausalConvWithStateAttrs, activation, has_bias, has_past_state);
  TVMLITE_REFLECT_FIELDS(LinearAttentionAttrs, q_num_heads, kv_num_heads, scale, update_rule, chunk_size,
                         has_past_state, has_decay, has_beta);
  TVMLITE_REFLECT_FIELDS(FlexAttentionAttrs, scale, softmax_dtype, has_score_mod, has_prob_mod);
  TVMLITE_REFLECT_FIELDS(TensorScatterAttrs, mode, axis, has_write_indices);
});

namespace {

const TensorTypeNode* RankedArg(const Array<Type>& args, size_t i, size_t rank, const char* what) {
  const TensorTypeNode* t = TensorArg(args, i);
  TVMLITE_CHECK_KIND(t->ndim() == rank, ValueError)
      << what << " must have rank " << rank << ", got " << ShapeToString(t->shape);
  return t;
}

void CheckDim(const Any& got, const Any& want, const char* what) {
  TVMLITE_CHECK_KIND(!(got.type_index() == kTVMLiteInt && want.type_index() == kTVMLiteInt) || DimEqual(got, want),
                     ValueError)
      << what << ": " << DimToString(got) << " vs " << DimToString(want);
}

Type CausalConvWithStateRel(const Array<Type>& args, const CausalConvWithStateAttrs& a) {
  TVMLITE_CHECK_KIND(a.activation == "none" || a.activation == "silu" || a.activation == "swish", ValueError)
      << "activation must be none, silu or swish, got '" << a.activation << "'";
  CheckNumArgs(args, 2 + a.has_bias + a.has_past_state);
  const TensorTypeNode* x = RankedArg(args, 0, 3, "input");
  const TensorTypeNode* w = RankedArg(args, 1, 3, "weight");
  MatchDtype(x, w);
  CheckDim(w->shape[0], x->shape[1], "weight channels vs input channels");
  CheckDim(w->shape[1], Any(int64_t(1)), "weight's second dim (depthwise)");
  std::optional<int64_t> k = w->static_dim(2);
  TVMLITE_CHECK_KIND(!k.has_value() || *k >= 1, ValueError) << "the kernel size must be at least 1";
  size_t next = 2;
  if (a.has_bias) {
    const TensorTypeNode* b = RankedArg(args, next++, 1, "bias");
    MatchDtype(x, b);
    CheckDim(b->shape[0], x->shape[1], "bias length vs channels");
  }
  Array<Any> state{x->shape[0], x->shape[1], k ? Any(*k - 1) : Any(SizeVar::Any())};
  if (a.has_past_state) {
    const TensorTypeNode* p = RankedArg(args, next++, 3, "past_state");
    MatchDtype(x, p);
    for (size_t i = 0; i < 3; ++i) CheckDim(p->shape[i], state[i], "past_state shape");
  }
  return TupleType({TensorType(x->shape, x->dtype), TensorType(state, x->dtype)});
}

/*! \brief n / d for a dim, checking divisibility when static. */
Any DimDiv(const Any& n, int64_t d, const char* what) {
  TVMLITE_CHECK_KIND(d > 0, ValueError) << what << ": the head count must be positive, got " << d;
  if (n.type_index() != kTVMLiteInt) return Any(SizeVar::Any());
  int64_t v = n.cast<int64_t>();
  TVMLITE_CHECK_KIND(v % d == 0, ValueError) << what << ": " << v << " is not a multiple of " << d;
  return Any(v / d);
}

Type LinearAttentionRel(const Array<Type>& args, const LinearAttentionAttrs& a) {
  const std::string& rule = a.update_rule;
  TVMLITE_CHECK_KIND(rule == "linear" || rule == "gated" || rule == "delta" || rule == "gated_delta", ValueError)
      << "update_rule must be linear, gated, delta or gated_delta, got '" << rule << "'";
  TVMLITE_CHECK_KIND(a.q_num_heads > 0 && a.kv_num_heads > 0 && a.q_num_heads % a.kv_num_heads == 0, ValueError)
      << "q_num_heads (" << a.q_num_heads << ") must be a positive multiple of kv_num_heads (" << a.kv_num_heads << ")";
  bool gated = rule == "gated" || rule == "gated_delta";
  bool delta = rule == "delta" || rule == "gated_delta";
  TVMLITE_CHECK_KIND(!gated || a.has_decay, ValueError) << "update_rule '" << rule << "' needs the decay input";
  TVMLITE_CHECK_KIND(!delta || a.has_beta, ValueError) << "update_rule '" << rule << "' needs the beta input";
  CheckNumArgs(args, 3 + a.has_past_state + a.has_decay + a.has_beta);
  const TensorTypeNode* q = RankedArg(args, 0, 3, "query");
  const TensorTypeNode* k = RankedArg(args, 1, 3, "key");
  const TensorTypeNode* v = RankedArg(args, 2, 3, "value");
  MatchDtype(q, k);
  MatchDtype(q, v);
  Any dk = DimDiv(q->shape[2], a.q_num_heads, "query's last dim / q_num_heads");
  CheckDim(DimDiv(k->shape[2], a.kv_num_heads, "key's last dim / kv_num_heads"), dk, "key head size vs query's");
  Any dv = DimDiv(v->shape[2], a.kv_num_heads, "value's last dim / kv_num_heads");
  for (const TensorTypeNode* t : {k, v}) {
    CheckDim(t->shape[0], q->shape[0], "batch");
    CheckDim(t->shape[1], q->shape[1], "sequence length");
  }
  Array<Any> state{q->shape[0], Any(a.kv_num_heads), dk, dv};
  DataType state_dtype = q->dtype;
  size_t next = 3;
  if (a.has_past_state) {
    const TensorTypeNode* p = RankedArg(args, next++, 4, "past_state");
    for (size_t i = 0; i < 4; ++i) CheckDim(p->shape[i], state[i], "past_state shape");
    state_dtype = p->dtype;
  }
  TVMLITE_CHECK_KIND(gated || !a.has_decay, ValueError) << "update_rule '" << rule << "' takes no decay input";
  TVMLITE_CHECK_KIND(delta || !a.has_beta, ValueError) << "update_rule '" << rule << "' takes no beta input";
  if (a.has_decay) {
    const TensorTypeNode* g = RankedArg(args, next++, 3, "decay");
    Any per_key = dk.type_index() == kTVMLiteInt && dk.cast<int64_t>() <= (int64_t(1) << 40)
                      ? Any(dk.cast<int64_t>() * a.kv_num_heads)
                      : Any(SizeVar::Any());
    TVMLITE_CHECK_KIND(g->shape[2].type_index() != kTVMLiteInt || DimIs(g->shape[2], a.kv_num_heads) ||
                           DimEqual(g->shape[2], per_key) || per_key.type_index() != kTVMLiteInt,
                       ValueError)
        << "decay's last dim must be kv_num_heads or kv_num_heads * d_k, got " << DimToString(g->shape[2]);
  }
  if (a.has_beta) {
    const TensorTypeNode* b = RankedArg(args, next++, 3, "beta");
    TVMLITE_CHECK_KIND(
        b->shape[2].type_index() != kTVMLiteInt || DimIs(b->shape[2], a.kv_num_heads) || DimIs(b->shape[2], 1),
        ValueError)
        << "beta's last dim must be kv_num_heads or 1, got " << DimToString(b->shape[2]);
  }
  Any out_last = Any(SizeVar::Any());
  if (dv.type_index() == kTVMLiteInt) {
    int64_t n;
    TVMLITE_CHECK_KIND(!__builtin_mul_overflow(dv.cast<int64_t>(), a.q_num_heads, &n), ValueError)
        << "the output's last dim overflows int64";
    out_last = Any(n);
  }
  return TupleType(
      {TensorType(Array<Any>{q->shape[0], q->shape[1], out_last}, q->dtype), TensorType(state, state_dtype)});
}

/*! \brief The softmax's dtype: explicit, else float64 for float64 inputs and float32 for the rest. */
DataType SoftmaxDtype(const FlexAttentionAttrs* a, DataType input) {
  if (!a->softmax_dtype.empty()) {
    DataType t(a->softmax_dtype);
    TVMLITE_CHECK_KIND(t.is_float() || t.code() == kDLBfloat, TypeError)
        << "softmax_dtype must be a float type, got " << a->softmax_dtype;
    return t;
  }
  return input == DataType::Float(64) ? input : DataType::Float(32);
}

Type FlexAttentionRel(const Array<Type>& args, const FlexAttentionAttrs& a) {
  CheckNumArgs(args, 3 + a.has_score_mod + a.has_prob_mod);
  const TensorTypeNode* q = RankedArg(args, 0, 4, "Q");
  const TensorTypeNode* k = RankedArg(args, 1, 4, "K");
  const TensorTypeNode* v = RankedArg(args, 2, 4, "V");
  MatchDtype(q, k);
  MatchDtype(q, v);
  CheckDim(k->shape[3], q->shape[3], "K's head size vs Q's");
  CheckDim(v->shape[1], k->shape[1], "V's heads vs K's");
  CheckDim(v->shape[2], k->shape[2], "V's sequence length vs K's");
  std::optional<int64_t> hq = q->static_dim(1), hkv = k->static_dim(1);
  TVMLITE_CHECK_KIND(!hq || !hkv || (*hkv > 0 && *hq % *hkv == 0), ValueError)
      << "Q's heads (" << *hq << ") must be a multiple of K's (" << *hkv << ")";
  TensorType scores(Array<Any>{q->shape[0], q->shape[1], q->shape[2], k->shape[2]}, SoftmaxDtype(&a, q->dtype));
  for (size_t i = 3; i < args.size(); ++i) {
    const auto* f = args[i].as<FuncTypeNode>();
    TVMLITE_CHECK_KIND(f != nullptr && f->arg_types.size() == 1, TypeError)
        << "input " << i << " must be a function of one tensor, got " << TypeToString(args[i]);
    for (const Type& t : {f->arg_types[0], f->ret_type}) {
      TVMLITE_CHECK_KIND(runtime::StructuralEqual(Any(t), Any(Type(scores))), TypeError)
          << "the modifier at input " << i << " must map " << TypeToString(scores) << " to itself, it has type "
          << TypeToString(args[i]);
    }
  }
  return TensorType(Array<Any>{q->shape[0], q->shape[1], q->shape[2], v->shape[3]}, v->dtype);
}

Type TensorScatterRel(const Array<Type>& args, const TensorScatterAttrs& a) {
  TVMLITE_CHECK_KIND(a.mode == "linear" || a.mode == "circular", ValueError)
      << "mode must be linear or circular, got '" << a.mode << "'";
  CheckNumArgs(args, 2 + a.has_write_indices);
  const TensorTypeNode* past = TensorArg(args, 0);
  const TensorTypeNode* update = TensorArg(args, 1);
  MatchDtype(past, update);
  int64_t ndim = static_cast<int64_t>(past->ndim());
  TVMLITE_CHECK_KIND(update->ndim() == past->ndim(), ValueError)
      << "update " << ShapeToString(update->shape) << " and past_cache " << ShapeToString(past->shape)
      << " differ in rank";
  int64_t axis = NormalizeAxis(a.axis, ndim);
  TVMLITE_CHECK_KIND(axis != 0, ValueError) << "axis cannot be the batch axis 0";
  for (int64_t i = 0; i < ndim; ++i) {
    if (i != axis) CheckDim(update->shape[i], past->shape[i], "update vs past_cache");
  }
  if (a.has_write_indices) {
    const TensorTypeNode* w = RankedArg(args, 2, 1, "write_indices");
    TVMLITE_CHECK_KIND(w->dtype == DataType::Int(64), TypeError) << "write_indices must be int64";
  }
  return TensorType(past->shape, past->dtype);
}

}  // namespace

TVMLITE_REGISTER_OP("nn.causal_conv_with_state")
    .describe("Causal depthwise 1D convolution over a carried state (ONNX CausalConvWithState).")
    .set_num_inputs(-1)
    .add_argument("data", "Tensor", "(B, C, L)")
    .add_argument("weight", "Tensor", "(C, 1, K)")
    .add_type_rel("CausalConvWithState", CausalConvWithStateRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("nn.linear_attention")
    .describe("Linear attention recurrence (ONNX LinearAttention): linear, gated, delta and gated_delta rules.")
    .set_num_inputs(-1)
    .add_argument("query", "Tensor", "(B, T, Hq*dk)")
    .add_argument("key", "Tensor", "(B, T, Hkv*dk)")
    .add_argument("value", "Tensor", "(B, T, Hkv*dv)")
    .add_type_rel("LinearAttention", LinearAttentionRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("nn.flex_attention")
    .describe(
        "Scaled dot-product attention with optional score and probability modifier functions (ONNX "
        "FlexAttention).")
    .set_num_inputs(-1)
    .add_argument("q", "Tensor", "(B, Hq, L, E)")
    .add_argument("k", "Tensor", "(B, Hkv, S, E)")
    .add_argument("v", "Tensor", "(B, Hkv, S, Ev)")
    .add_type_rel("FlexAttention", FlexAttentionRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("tensor_scatter")
    .describe("Write update into past_cache along axis at per-batch write indices (ONNX TensorScatter).")
    .set_num_inputs(-1)
    .add_argument("past_cache", "Tensor", "(B, ..., S, ...)")
    .add_argument("update", "Tensor", "(B, ..., s, ...)")
    .add_type_rel("TensorScatter", TensorScatterRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

}  // namespace relay
}  // namespace tvmlite
