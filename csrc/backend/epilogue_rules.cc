/*!
 * \file epilogue_rules.cc
 * \brief "FTVMLiteEpilogue": how each elementwise/broadcast relay op is written as epilogue instructions.
 *
 *   rule = OpAttrMap<Function>("FTVMLiteEpilogue")[op];
 *   String text = rule(call, "r3", "r1");          // nn.relu        -> "relu r3 r1"
 *   String text = rule(call, "r2", "r0", "0", "6");  // clip(x, 0, 6)  -> "clip r2 r0 0 6"
 *
 * A rule takes the call (for its attrs and types), the destination register and one source per argument of the
 * call: a register "r<k>", an extra input "in<k>", a float immediate, or "()" for an omitted optional argument
 * (clip's absent bound). It returns the instruction text (docs/compiler.md, topi/epilogue.h), or "" when this call
 * cannot be written as a program (e.g. a clip bound that is not a scalar). The lowering (graph_codegen.cc) checks
 * dtypes (float32 only) before asking; FuseOps groups ops by the presence of this attribute.
 *
 * Rules that expand to several instructions (nn.swish with alpha != 1, clip with tensor bounds) use the destination
 * as scratch, so they need a destination distinct from their sources; given one of their sources as destination,
 * they return "" and the lowering asks again with a fresh register.
 *
 * Semantics follow the ops' numpy references (tvmlite/relay/op): round is half to even (nearbyint), sign keeps
 * NaN and zero, leaky_relu/prelu take the slope below zero, selu's beta is SELU's gamma.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/relay/attrs/norm.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace tvmlite {
namespace relay {
namespace {

using ir::Call;
using ir::CallNode;
using ir::Op;
using runtime::Any;
using runtime::Downcast;
using runtime::Function;
using runtime::PackedArgs;
using runtime::String;

/*! \brief The call and its sources, unpacked from a rule's packed arguments. */
struct RuleArgs {
  const CallNode* call;
  std::string dst;
  std::vector<std::string> srcs;
};

RuleArgs Unpack(const char* op, PackedArgs args, size_t num_srcs) {
  TVMLITE_CHECK_KIND(args.size() == static_cast<int32_t>(2 + num_srcs), TypeError)
      << "FTVMLiteEpilogue of " << op << ": expected (call, dst, " << num_srcs << " sources), got " << args.size()
      << " arguments";
  RuleArgs r;
  Call call = args[0].cast<Call>();
  r.call = call.get();
  r.dst = std::string(args[1].cast<String>());
  for (size_t i = 0; i < num_srcs; ++i) r.srcs.push_back(std::string(args[2 + i].cast<String>()));
  return r;
}

std::string Num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

/*! \brief Whether a source is a float immediate (not a register r<k> nor an input in<k>). */
bool IsImmediate(const std::string& s) {
  bool input = s.size() > 2 && s[0] == 'i' && s[1] == 'n' && std::isdigit(static_cast<unsigned char>(s[2]));
  return !s.empty() && s[0] != 'r' && !input;
}

template <typename AttrsT>
const AttrsT* AttrsOf(const CallNode* call) {
  const AttrsT* a = call->attrs.as<AttrsT>();
  TVMLITE_CHECK_KIND(a != nullptr, TypeError)
      << "FTVMLiteEpilogue of " << Downcast<Op>(call->op)->name << ": the call has no " << AttrsT::_type_key;
  return a;
}

/*! \brief Register rule(call_args) -> text as op's "FTVMLiteEpilogue". */
template <typename F>
void SetRule(const char* op_name, size_t num_srcs, F rule) {
  Function f(
      [op_name, num_srcs, rule](PackedArgs args, Any* rv) { *rv = String(rule(Unpack(op_name, args, num_srcs))); });
  // RegisterOrGet: this file may initialise before the op's own registration (static init order across files).
  ir::OpRegEntry::RegisterOrGet(op_name).set_attr("FTVMLiteEpilogue", f);
}

void Unary(const char* op_name, const char* opcode) {
  std::string code = opcode;
  SetRule(op_name, 1, [code](const RuleArgs& r) { return code + " " + r.dst + " " + r.srcs[0]; });
}

void Binary(const char* op_name, const char* opcode) {
  std::string code = opcode;
  SetRule(op_name, 2, [code](const RuleArgs& r) { return code + " " + r.dst + " " + r.srcs[0] + " " + r.srcs[1]; });
}

std::string Clip(const RuleArgs& r) {
  const std::string &x = r.srcs[0], &lo = r.srcs[1], &hi = r.srcs[2];
  bool lo_imm = lo == "()" || IsImmediate(lo), hi_imm = hi == "()" || IsImmediate(hi);
  if (lo_imm && hi_imm) {
    return "clip " + r.dst + " " + x + " " + (lo == "()" ? "-inf" : lo) + " " + (hi == "()" ? "inf" : hi);
  }
  if (r.dst == x || r.dst == lo || r.dst == hi) return "";  // needs the destination as scratch
  std::string text = "copy " + r.dst + " " + x;
  if (lo != "()") text += "; max " + r.dst + " " + r.dst + " " + lo;
  if (hi != "()") text += "; min " + r.dst + " " + r.dst + " " + hi;
  return text;
}

void RegisterRules() {
  static const char* kUnary[][2] = {{"nn.relu", "relu"}, {"sigmoid", "sigmoid"},
                                    {"tanh", "tanh"},    {"exp", "exp"},
                                    {"log", "log"},      {"sqrt", "sqrt"},
                                    {"rsqrt", "rsqrt"},  {"negative", "neg"},
                                    {"abs", "abs"},      {"erf", "erf"},
                                    {"floor", "floor"},  {"ceil", "ceil"},
                                    {"round", "round"},  {"reciprocal", "reciprocal"},
                                    {"sign", "sign"},    {"nn.softplus", "softplus"},
                                    {"nn.mish", "mish"}, {"nn.hard_swish", "hard_swish"},
                                    {"copy", "copy"}};
  for (const auto& u : kUnary) Unary(u[0], u[1]);
  // Registers hold values over the group's output shape, which the target shape broadcasts to: a copy (an input
  // is bound broadcasting against that shape).
  Unary("broadcast_to", "copy");
  static const char* kBinary[][2] = {{"add", "add"},    {"subtract", "sub"},  {"multiply", "mul"},
                                     {"divide", "div"}, {"maximum", "max"},   {"minimum", "min"},
                                     {"power", "pow"},  {"nn.prelu", "prelu"}};
  for (const auto& b : kBinary) Binary(b[0], b[1]);
  // The bias broadcasts along `axis`: the lowering hands it over as (C, 1, ..., 1) (graph_codegen.cc, BiasInput),
  // which numpy-broadcasts like that.
  Binary("nn.bias_add", "add");

  SetRule("nn.leaky_relu", 1, [](const RuleArgs& r) {
    return "leaky_relu " + r.dst + " " + r.srcs[0] + " " + Num(AttrsOf<ActivationAttrs>(r.call)->alpha);
  });
  SetRule("nn.elu", 1, [](const RuleArgs& r) {
    return "elu " + r.dst + " " + r.srcs[0] + " " + Num(AttrsOf<ActivationAttrs>(r.call)->alpha);
  });
  SetRule("nn.selu", 1, [](const RuleArgs& r) {
    const auto* a = AttrsOf<ActivationAttrs>(r.call);
    return "selu " + r.dst + " " + r.srcs[0] + " " + Num(a->alpha) + " " + Num(a->beta);
  });
  SetRule("nn.hard_sigmoid", 1, [](const RuleArgs& r) {
    const auto* a = AttrsOf<ActivationAttrs>(r.call);
    return "hard_sigmoid " + r.dst + " " + r.srcs[0] + " " + Num(a->alpha) + " " + Num(a->beta);
  });
  SetRule("nn.gelu", 1, [](const RuleArgs& r) -> std::string {
    const std::string& approx = AttrsOf<GeluAttrs>(r.call)->approximate;
    if (approx == "none") return "gelu " + r.dst + " " + r.srcs[0];
    if (approx == "tanh") return "gelu_tanh " + r.dst + " " + r.srcs[0];
    return "";
  });
  SetRule("nn.swish", 1, [](const RuleArgs& r) -> std::string {
    double alpha = AttrsOf<ActivationAttrs>(r.call)->alpha;
    const std::string &d = r.dst, &x = r.srcs[0];
    if (alpha == 1.0) return "silu " + d + " " + x;
    if (d == x) return "";  // d is scratch
    return "mul " + d + " " + x + " " + Num(alpha) + "; sigmoid " + d + " " + d + "; mul " + d + " " + x + " " + d;
  });
  SetRule("clip", 3, Clip);
}

TVMLITE_STATIC_INIT_BLOCK({ RegisterRules(); });

}  // namespace
}  // namespace relay
}  // namespace tvmlite
