/*!
 * \file rnn.cc
 * \brief nn.rnn: ONNX RNN / GRU / LSTM (mode attr) over a whole sequence; see tvmlite/relay/attrs/rnn.h.
 *
 * Gates per mode: RNN 1, GRU 3 (z, r, h), LSTM 4 (i, o, f, c). The relation checks W/R/B/P/initial states
 * against (directions, gates * hidden, input) and returns (Y, Y_h) or (Y, Y_h, Y_c) in the attr's layout.
 */
#include <tvmlite/relay/attrs/rnn.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/reflection.h>

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(RNNAttrs, mode, hidden_size, direction, activations, activation_alpha, activation_beta, clip,
                         linear_before_reset, input_forget, layout);
});

namespace {

bool Absent(const Type& t) {
  const auto* tt = t.as<TupleTypeNode>();
  return tt != nullptr && tt->fields.empty();
}

void CheckShape(const Array<Type>& args, size_t i, const char* name, const std::vector<Any>& want, DataType dtype) {
  if (Absent(args[i])) return;
  const TensorTypeNode* t = TensorArg(args, i);
  bool ok = t->ndim() == want.size() && t->dtype == dtype;
  for (size_t d = 0; ok && d < want.size(); ++d) {
    ok = DimEqual(t->shape[d], want[d]) || t->shape[d].type_index() != kTVMLiteInt ||
         want[d].type_index() != kTVMLiteInt;
  }
  TVMLITE_CHECK_KIND(ok, ValueError) << name << " must be " << ShapeToString(Array<Any>(want)) << " of " << dtype
                                     << ", got " << TypeToString(args[i]);
}

}  // namespace

Type RNNRel(const Array<Type>& args, const RNNAttrs& a) {
  int64_t gates = a.mode == "RNN" ? 1 : a.mode == "GRU" ? 3 : a.mode == "LSTM" ? 4 : 0;
  TVMLITE_CHECK_KIND(gates > 0, ValueError) << "mode must be RNN, GRU or LSTM, got '" << a.mode << "'";
  int64_t dirs = a.direction == "bidirectional" ? 2 : (a.direction == "forward" || a.direction == "reverse") ? 1 : 0;
  TVMLITE_CHECK_KIND(dirs > 0, ValueError)
      << "direction must be forward, reverse or bidirectional, got '" << a.direction << "'";
  TVMLITE_CHECK_KIND(a.layout == 0 || a.layout == 1, ValueError) << "layout must be 0 or 1";
  TVMLITE_CHECK_KIND(a.hidden_size > 0 && a.hidden_size < (int64_t(1) << 31), ValueError)
      << "hidden_size must be positive, got " << a.hidden_size;
  const TensorTypeNode* x = TensorArg(args, 0);
  TVMLITE_CHECK_KIND(x->ndim() == 3, ValueError) << "X must be 3-D, got " << TypeToString(args[0]);
  TVMLITE_CHECK_KIND(x->dtype.code() == kDLFloat, TypeError) << "X must be float, got " << TypeToString(args[0]);
  Any seq = x->shape[a.layout ? 1 : 0], batch = x->shape[a.layout ? 0 : 1], input = x->shape[2];
  Any h = a.hidden_size, g = gates * a.hidden_size;
  TVMLITE_CHECK_KIND(!Absent(args[1]) && !Absent(args[2]), TypeError) << "W and R are required";
  CheckShape(args, 1, "W", {Any(dirs), g, input}, x->dtype);
  CheckShape(args, 2, "R", {Any(dirs), g, h}, x->dtype);
  CheckShape(args, 3, "B", {Any(dirs), Any(2 * gates * a.hidden_size)}, x->dtype);
  if (!Absent(args[4])) {
    const TensorTypeNode* sl = TensorArg(args, 4);
    TVMLITE_CHECK_KIND(sl->ndim() == 1 && sl->dtype == DataType::Int(32), TypeError)
        << "sequence_lens must be 1-D int32, got " << TypeToString(args[4]);
  }
  std::vector<Any> state = a.layout ? std::vector<Any>{batch, Any(dirs), h} : std::vector<Any>{Any(dirs), batch, h};
  CheckShape(args, 5, "initial_h", state, x->dtype);
  if (gates == 4) {
    CheckShape(args, 6, "initial_c", state, x->dtype);
    CheckShape(args, 7, "P", {Any(dirs), Any(3 * a.hidden_size)}, x->dtype);
  } else {
    TVMLITE_CHECK_KIND(Absent(args[6]) && Absent(args[7]), TypeError) << "initial_c and P are LSTM inputs";
  }
  std::vector<Any> y =
      a.layout ? std::vector<Any>{batch, seq, Any(dirs), h} : std::vector<Any>{seq, Any(dirs), batch, h};
  std::vector<Type> out{TensorType(Array<Any>(y), x->dtype), TensorType(Array<Any>(state), x->dtype)};
  if (gates == 4) out.push_back(TensorType(Array<Any>(state), x->dtype));
  return TupleType(Array<Type>(out));
}

TVMLITE_REGISTER_OP("nn.rnn")
    .describe("ONNX RNN/GRU/LSTM over a sequence (mode attr); optional inputs omitted as empty tuples.")
    .add_argument("data", "Tensor", "X.")
    .add_argument("weight", "Tensor", "W: input weights.")
    .add_argument("recurrence", "Tensor", "R: recurrence weights.")
    .add_argument("bias", "Tensor", "B: Wb and Rb, or ().")
    .add_argument("sequence_lens", "Tensor", "int32 [batch], or ().")
    .add_argument("initial_h", "Tensor", "The initial hidden state, or ().")
    .add_argument("initial_c", "Tensor", "LSTM's initial cell state, or ().")
    .add_argument("peepholes", "Tensor", "LSTM's P, or ().")
    .add_type_rel("RNN", RNNRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

}  // namespace relay
}  // namespace tvmlite
