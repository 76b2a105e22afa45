/*!
 * \file attention.cc
 * \brief nn.attention (ONNX Attention) and nn.rotary_embedding (ONNX RotaryEmbedding).
 *
 * nn.attention(q, k, v, attn_mask, past_key, past_value, nonpad_kv_seqlen) -> (y, present_key, present_value,
 * qk_matmul_output); absent optional inputs are (). Layouts (Sq/Skv: query/key lengths, P: past length,
 * T = P + Skv, D: q/k head size, Dv: v head size, Hq % Hkv == 0 (grouped-query attention)):
 *   4-D  q (B, Hq, Sq, D)      k (B, Hkv, Skv, D)      v (B, Hkv, Skv, Dv)      y (B, Hq, Sq, Dv)
 *   3-D  q (B, Sq, Hq * D)     k (B, Skv, Hkv * D)     v (B, Skv, Hkv * Dv)     y (B, Sq, Hq * Dv)
 *        (heads from q_num_heads / kv_num_heads)
 *   past_key (B, Hkv, P, D), past_value (B, Hkv, P, Dv); present_key (B, Hkv, T, D), present_value (B, Hkv, T, Dv)
 *   attn_mask: bool (true = attend) or additive, broadcast to (B, Hq, Sq, T); a last dim < T is padded as masked
 *   nonpad_kv_seqlen (B,) int64; qk_matmul_output (B, Hq, Sq, T)
 *
 * nn.rotary_embedding(x, cos_cache, sin_cache, position_ids) -> x's type:
 *   x (B, H, S, D) or (B, S, H * D) (num_heads given); R = rotary_embedding_dim or D, even and <= D;
 *   with position_ids (B, S): caches (max_position, R / 2); without: caches (B, S, R / 2).
 */
#include <tvmlite/relay/attrs/norm.h>
#include <tvmlite/runtime/reflection.h>

#include "op_common.h"

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(AttentionAttrs, q_num_heads, kv_num_heads, is_causal, scale, softcap, softmax_precision,
                         qk_matmul_output_mode, left_window_size, right_window_size);
  TVMLITE_REFLECT_FIELDS(RotaryEmbeddingAttrs, interleaved, num_heads, rotary_embedding_dim);
});

namespace {

bool Static(const Any& d) { return d.type_index() == kTVMLiteInt; }

/*! \brief dim / n (n > 0); ValueError when a static dim does not divide. */
Any DimDiv(const Any& dim, int64_t n, const char* what, const Array<Any>& shape) {
  if (!Static(dim)) return Any(SizeVar::Any());
  int64_t v = dim.cast<int64_t>();
  TVMLITE_CHECK_KIND(v % n == 0, ValueError)
      << what << " " << ShapeToString(shape) << ": last dim " << v << " does not split into " << n << " heads";
  return Any(v / n);
}

/*! \brief ValueError unless the dims agree (symbolic dims pass). */
void ExpectDim(const Any& got, const Any& want, const std::string& what) {
  TVMLITE_CHECK_KIND(!Static(got) || !Static(want) || DimEqual(got, want), ValueError)
      << what << ": got " << DimToString(got) << ", expected " << DimToString(want);
}

/*! \brief (batch, heads, seq, head_size) of q/k/v in the 4-D view. */
struct Heads {
  Any batch, heads, seq, head_size;
};

Heads View(const TensorTypeNode* t, int64_t num_heads, const char* what) {
  if (t->shape.size() == 4) return {t->shape[0], t->shape[1], t->shape[2], t->shape[3]};
  return {t->shape[0], Any(num_heads), t->shape[1], DimDiv(t->shape[2], num_heads, what, t->shape)};
}

}  // namespace

Type AttentionRel(const Array<Type>& args, const AttentionAttrs& a) {
  auto [q, k, v] = FloatTensorArgs<3>(args, "q");
  size_t rank = q->shape.size();
  TVMLITE_CHECK_KIND((rank == 3 || rank == 4) && k->shape.size() == rank && v->shape.size() == rank, ValueError)
      << "q, k and v must all be 3-D (batch, seq, hidden) or all 4-D (batch, heads, seq, head_size), got "
      << ShapeToString(q->shape) << ", " << ShapeToString(k->shape) << ", " << ShapeToString(v->shape);
  if (rank == 3) {
    TVMLITE_CHECK_KIND(a.q_num_heads > 0 && a.kv_num_heads > 0, ValueError)
        << "3-D inputs need positive q_num_heads and kv_num_heads, got " << a.q_num_heads << " and " << a.kv_num_heads;
  } else {
    TVMLITE_CHECK_KIND(a.q_num_heads >= 0 && a.kv_num_heads >= 0, ValueError)
        << "q_num_heads and kv_num_heads must not be negative";
  }
  TVMLITE_CHECK_KIND(a.qk_matmul_output_mode >= 0 && a.qk_matmul_output_mode <= 3, ValueError)
      << "qk_matmul_output_mode must be 0..3, got " << a.qk_matmul_output_mode;
  TVMLITE_CHECK_KIND(a.left_window_size >= -1 && a.right_window_size >= -1, ValueError)
      << "window sizes must be -1 or non-negative, got " << a.left_window_size << " and " << a.right_window_size;
  TVMLITE_CHECK_KIND(a.softcap >= 0.0, ValueError) << "softcap must be >= 0, got " << a.softcap;
  TVMLITE_CHECK_KIND(a.softmax_precision.empty() || a.softmax_precision == "float32" ||
                         a.softmax_precision == "float64" || a.softmax_precision == "float16" ||
                         a.softmax_precision == "bfloat16",
                     ValueError)
      << "softmax_precision must be a float dtype, got '" << a.softmax_precision << "'";
  Heads hq = View(q, a.q_num_heads, "q");
  Heads hk = View(k, a.kv_num_heads, "k");
  Heads hv = View(v, a.kv_num_heads, "v");
  ExpectDim(hk.batch, hq.batch, "k batch");
  ExpectDim(hv.batch, hq.batch, "v batch");
  ExpectDim(hk.head_size, hq.head_size,
            "k head size (q " + ShapeToString(q->shape) + ", k " + ShapeToString(k->shape) + ")");
  ExpectDim(hv.heads, hk.heads, "v heads");
  ExpectDim(hv.seq, hk.seq, "v sequence length");
  if (Static(hq.heads) && Static(hk.heads)) {
    int64_t nq = hq.heads.cast<int64_t>(), nk = hk.heads.cast<int64_t>();
    TVMLITE_CHECK_KIND(nk > 0 && nq % nk == 0, ValueError)
        << "q heads (" << nq << ") must be a multiple of kv heads (" << nk << ")";
  }
  const TensorTypeNode* past_k = OptionalTensorArg(args, 4);
  const TensorTypeNode* past_v = OptionalTensorArg(args, 5);
  TVMLITE_CHECK_KIND((past_k == nullptr) == (past_v == nullptr), ValueError)
      << "past_key and past_value must be given together";
  Any total = hk.seq;
  if (past_k != nullptr) {
    MatchDtype(q, past_k);
    MatchDtype(q, past_v);
    TVMLITE_CHECK_KIND(past_k->shape.size() == 4 && past_v->shape.size() == 4, ValueError)
        << "past_key and past_value must be 4-D (batch, kv_heads, past, head_size), got "
        << ShapeToString(past_k->shape) << " and " << ShapeToString(past_v->shape);
    ExpectDim(past_k->shape[0], hq.batch, "past_key batch");
    ExpectDim(past_k->shape[1], hk.heads, "past_key heads");
    ExpectDim(past_k->shape[3], hk.head_size, "past_key head size");
    ExpectDim(past_v->shape[1], hk.heads, "past_value heads");
    ExpectDim(past_v->shape[2], past_k->shape[2], "past_value length");
    ExpectDim(past_v->shape[3], hv.head_size, "past_value head size");
    total = DimAddChecked(past_k->shape[2], hk.seq);
  }
  if (const TensorTypeNode* nonpad = OptionalTensorArg(args, 6)) {
    TVMLITE_CHECK_KIND(past_k == nullptr, ValueError) << "nonpad_kv_seqlen cannot be combined with past_key";
    TVMLITE_CHECK_KIND(nonpad->dtype.is_int() && nonpad->shape.size() == 1, TypeError)
        << "nonpad_kv_seqlen must be a 1-D integer tensor (batch,), got " << TypeToString(args[6]);
    ExpectDim(nonpad->shape[0], hq.batch, "nonpad_kv_seqlen length");
  }
  Array<Any> scores{hq.batch, hq.heads, hq.seq, total};
  if (const TensorTypeNode* mask = OptionalTensorArg(args, 3)) {
    TVMLITE_CHECK_KIND(mask->dtype.is_bool() || mask->dtype == q->dtype, TypeError)
        << "attn_mask must be bool or q's dtype " << q->dtype.str() << ", got " << mask->dtype.str();
    TVMLITE_CHECK_KIND(!mask->shape.empty() && mask->shape.size() <= 4, ValueError)
        << "attn_mask must have rank 1..4, got shape " << ShapeToString(mask->shape);
    const Any& last = mask->shape[mask->shape.size() - 1];
    TVMLITE_CHECK_KIND(!Static(last) || !Static(total) || last.cast<int64_t>() <= total.cast<int64_t>(), ValueError)
        << "attn_mask " << ShapeToString(mask->shape) << " is longer than the " << DimToString(total) << " keys";
    std::vector<Any> head;
    for (size_t i = 0; i + 1 < mask->shape.size(); ++i) head.push_back(mask->shape[i]);
    head.push_back(total);
    CheckUnidirectional(Array<Any>(head), scores, "attn_mask (padded to the keys)", "the scores");
  }
  Array<Any> y_shape = rank == 4 ? Array<Any>{hq.batch, hq.heads, hq.seq, hv.head_size}
                                 : Array<Any>{hq.batch, hq.seq, DimMulChecked(hq.heads, hv.head_size)};
  return TupleType(
      {TensorType(y_shape, q->dtype), TensorType(Array<Any>{hq.batch, hk.heads, total, hk.head_size}, q->dtype),
       TensorType(Array<Any>{hq.batch, hk.heads, total, hv.head_size}, q->dtype), TensorType(scores, q->dtype)});
}

Type RotaryEmbeddingRel(const Array<Type>& args, const RotaryEmbeddingAttrs& a) {
  auto [x, cos, sin] = FloatTensorArgs<3>(args, "x");
  TVMLITE_CHECK_KIND(x->shape.size() == 3 || x->shape.size() == 4, ValueError)
      << "x must be 4-D (batch, heads, seq, head_size) or 3-D (batch, seq, hidden), got " << ShapeToString(x->shape);
  Any batch = x->shape[0], seq, head_size;
  if (x->shape.size() == 4) {
    seq = x->shape[2];
    head_size = x->shape[3];
  } else {
    TVMLITE_CHECK_KIND(a.num_heads > 0, ValueError)
        << "3-D x " << ShapeToString(x->shape) << " needs a positive num_heads, got " << a.num_heads;
    seq = x->shape[1];
    head_size = DimDiv(x->shape[2], a.num_heads, "x", x->shape);
  }
  TVMLITE_CHECK_KIND(a.rotary_embedding_dim >= 0 && a.rotary_embedding_dim % 2 == 0, ValueError)
      << "rotary_embedding_dim must be even and >= 0, got " << a.rotary_embedding_dim;
  Any rot = a.rotary_embedding_dim > 0 ? Any(a.rotary_embedding_dim) : head_size;
  if (Static(rot) && Static(head_size)) {
    TVMLITE_CHECK_KIND(rot.cast<int64_t>() <= head_size.cast<int64_t>() && rot.cast<int64_t>() % 2 == 0, ValueError)
        << "rotary_embedding_dim " << rot.cast<int64_t>() << " must be even and at most the head size "
        << head_size.cast<int64_t>();
  }
  Any half = Static(rot) ? Any(rot.cast<int64_t>() / 2) : Any(SizeVar::Any());
  TVMLITE_CHECK_KIND(cos->shape.size() == sin->shape.size(), ValueError)
      << "cos_cache " << ShapeToString(cos->shape) << " and sin_cache " << ShapeToString(sin->shape)
      << " differ in rank";
  if (const TensorTypeNode* pos = OptionalTensorArg(args, 3)) {
    TVMLITE_CHECK_KIND(pos->dtype.is_int() && pos->shape.size() == 2, TypeError)
        << "position_ids must be a 2-D integer tensor (batch, seq), got " << TypeToString(args[3]);
    ExpectDim(pos->shape[0], batch, "position_ids batch");
    ExpectDim(pos->shape[1], seq, "position_ids sequence length");
    TVMLITE_CHECK_KIND(cos->shape.size() == 2, ValueError)
        << "with position_ids the caches are 2-D (max_position, rotary_dim / 2), got " << ShapeToString(cos->shape);
  } else {
    TVMLITE_CHECK_KIND(cos->shape.size() == 3, ValueError)
        << "without position_ids the caches are 3-D (batch, seq, rotary_dim / 2), got " << ShapeToString(cos->shape);
    ExpectDim(cos->shape[0], batch, "cos_cache batch");
    ExpectDim(cos->shape[1], seq, "cos_cache sequence length");
  }
  for (size_t i = 0; i + 1 < cos->shape.size(); ++i) ExpectDim(sin->shape[i], cos->shape[i], "sin_cache dims");
  ExpectDim(cos->shape[cos->shape.size() - 1], half, "cos_cache last dim (rotary_dim / 2)");
  ExpectDim(sin->shape[sin->shape.size() - 1], half, "sin_cache last dim (rotary_dim / 2)");
  return args[0];
}

TVMLITE_REGISTER_OP("nn.attention")
    .describe(
        "Scaled dot-product attention (ONNX Attention): grouped-query heads, masks, causal and window "
        "masking, a key/value cache and softcap; returns (y, present_key, present_value, qk_matmul_output).")
    .add_argument("q", "Tensor", "Queries.")
    .add_argument("k", "Tensor", "Keys.")
    .add_argument("v", "Tensor", "Values.")
    .add_argument("attn_mask", "Tensor or ()", "Bool (true = attend) or additive mask.")
    .add_argument("past_key", "Tensor or ()", "Cached keys (B, Hkv, P, D).")
    .add_argument("past_value", "Tensor or ()", "Cached values (B, Hkv, P, Dv).")
    .add_argument("nonpad_kv_seqlen", "Tensor or ()", "Valid key count per batch (B,).")
    .add_type_rel("Attention", AttentionRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("nn.rotary_embedding")
    .describe("Rotary position embedding (ONNX RotaryEmbedding), halves or interleaved pairs.")
    .add_argument("x", "Tensor", "The input.")
    .add_argument("cos_cache", "Tensor", "Cosines.")
    .add_argument("sin_cache", "Tensor", "Sines.")
    .add_argument("position_ids", "Tensor or ()", "Positions (B, S) indexing the caches.")
    .add_type_rel("RotaryEmbedding", RotaryEmbeddingRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

}  // namespace relay
}  // namespace tvmlite
