/*!
 * \file tvmlite/topi/epilogue_ops.h
 * \brief The epilogue opcode table: the one place an opcode of the epilogue programs (topi/epilogue.h) is spelled.
 *
 * One row per opcode:  X(Name, "text", arity, scalar form, vector form)
 *   Name    the enumerator EpiOp::kName
 *   "text"  the opcode in the text form ("relu r0 r0")
 *   arity   the sources it reads: 1 (x) or 2 (x, z)
 *   scalar  one lane's value, a float expression of the floats x, z, alpha, beta (an instruction's immediates,
 *           0 when absent) over <cmath>/<algorithm> and epilogue.cc's helpers (Sigmoid, Clamp01, Softplus)
 *   vector  W lanes' value, a V expression of the same names and the splats zero, one, over the primitives of
 *           x86/vec_ops.inc and the math of x86/vec_math.inc (ExpV, GeluV, ...); or PortableLoop() for an opcode
 *           that runs its scalar form on every ISA
 * Each expansion sees only its own column; the other columns are tokens it drops. They expand into: the enum EpiOp
 * and its name and arity (epilogue.h, epilogue.cc: parse, print), the portable loops (EpiRun in epilogue.cc) and
 * the AVX2 / AVX-512 loops (x86/epilogue_vec.inc, compiled once per ISA folder with that folder's flags). Each
 * loop switches once per instruction over a tile and runs its row's form per element (per W lanes).
 *
 * Adding an opcode: add its row here, and when a relay op fuses into it, its rule in backend/epilogue_rules.cc;
 * nothing else (a form too long for a row is a helper: scalar in epilogue.cc, vector in x86/vec_math.inc). The
 * scalar and vector forms must agree with the op's numpy reference (tests/python/topi/test_epilogue.py checks
 * every row on every ISA). Comma-free at the top level: a form is one macro argument.
 */
#ifndef TVMLITE_TOPI_EPILOGUE_OPS_H_
#define TVMLITE_TOPI_EPILOGUE_OPS_H_

// clang-format off
#define TVMLITE_EPILOGUE_OPS(X)                                                                                    \
  /* binary: x op z */                                                                                              \
  X(Add,   "add",   2, x + z,                                                                                       \
                       Add(x, z))                                                                                   \
  X(Sub,   "sub",   2, x - z,                                                                                       \
                       Sub(x, z))                                                                                   \
  X(Mul,   "mul",   2, x * z,                                                                                       \
                       Mul(x, z))                                                                                   \
  X(Div,   "div",   2, x / z,                                                                                       \
                       Div(x, z))                                                                                   \
  /* NaN if either is (numpy's maximum/minimum; the instructions return the second operand) */                     \
  X(Max,   "max",   2, std::isnan(x) || std::isnan(z) ? NAN : std::max(x, z),                                       \
                       Select(Unord(x, z), Set1(NAN), Max(x, z)))                                                   \
  X(Min,   "min",   2, std::isnan(x) || std::isnan(z) ? NAN : std::min(x, z),                                       \
                       Select(Unord(x, z), Set1(NAN), Min(x, z)))                                                   \
  /* libm's powf, the accurate one, on every ISA */                                                                \
  X(Pow,   "pow",   2, std::pow(x, z),                                                                              \
                       PortableLoop())                                                                              \
  /* z is the slope below zero */                                                                                   \
  X(PRelu, "prelu", 2, x < 0 ? x * z : x,                                                                           \
                       Select(Lt(x, zero), Mul(x, z), x))                                                           \
  /* unary */                                                                                                       \
  X(Copy, "copy", 1, x,                                                                                             \
                     x)                                                                                             \
  X(Relu, "relu", 1, x < 0 ? 0.0f : x,                                                                              \
                     Select(Lt(x, zero), zero, x))                                                                  \
  /* alpha = min, beta = max */                                                                                     \
  X(Clip, "clip", 1, x < alpha ? alpha : (x > beta ? beta : x),                                                     \
                     Select(Lt(x, alpha), alpha, Select(Gt(x, beta), beta, x)))                                     \
  X(Sigmoid, "sigmoid", 1, Sigmoid(x),                                                                              \
                           SigmoidV(x))                                                                             \
  X(Tanh, "tanh", 1, std::tanh(x),                                                                                  \
                     TanhV(x))                                                                                      \
  X(Exp,  "exp",  1, std::exp(x),                                                                                   \
                     ExpV(x))                                                                                       \
  X(Log,  "log",  1, std::log(x),                                                                                   \
                     LogV(x))                                                                                       \
  X(Sqrt, "sqrt", 1, std::sqrt(x),                                                                                  \
                     Sqrt(x))                                                                                       \
  X(Rsqrt, "rsqrt", 1, 1.0f / std::sqrt(x),                                                                         \
                       Div(one, Sqrt(x)))                                                                           \
  X(Neg,  "neg",  1, -x,                                                                                            \
                     Xor(x, Set1(-0.0f)))                                                                           \
  X(Abs,  "abs",  1, std::fabs(x),                                                                                  \
                     Abs(x))                                                                                        \
  X(Erf,  "erf",  1, std::erf(x),                                                                                   \
                     ErfV(x))                                                                                       \
  /* 1 + erf(z) = erfc(-z): no cancellation in the left tail */                                                     \
  X(Gelu, "gelu", 1, 0.5f * x * std::erfc(x * -0.70710678118654752f),                                               \
                     GeluV(x))                                                                                      \
  X(GeluTanh, "gelu_tanh", 1, 0.5f * x * (1.0f + std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x))),     \
                              Mul(Mul(Set1(0.5f), x),                                                               \
                                  Add(one, TanhV(Mul(Set1(0.7978845608028654f),                                     \
                                                     Fmadd(Mul(Set1(0.044715f), x), Mul(x, x), x))))))              \
  X(Silu, "silu", 1, x * Sigmoid(x),                                                                                \
                     Mul(x, SigmoidV(x)))                                                                           \
  /* alpha = the slope below zero */                                                                                \
  X(LeakyRelu, "leaky_relu", 1, x < 0 ? alpha * x : x,                                                              \
                                Select(Lt(x, zero), Mul(alpha, x), x))                                              \
  /* alpha */                                                                                                       \
  X(Elu, "elu", 1, x < 0 ? alpha * std::expm1(x) : x,                                                               \
                   Select(Lt(x, zero), Mul(alpha, Expm1V(x)), x))                                                   \
  /* alpha, beta = SELU's gamma */                                                                                  \
  X(Selu, "selu", 1, beta * (x <= 0 ? alpha * std::expm1(x) : x),                                                   \
                     Mul(beta, Select(Le(x, zero), Mul(alpha, Expm1V(x)), x)))                                      \
  /* alpha * x + beta clamped to [0, 1] */                                                                          \
  X(HardSigmoid, "hard_sigmoid", 1, Clamp01(alpha * x + beta),                                                      \
                                    ClampNan(Fmadd(alpha, x, beta), 0.0f, 1.0f))                                    \
  X(HardSwish, "hard_swish", 1, x * Clamp01(x * (1.0f / 6.0f) + 0.5f),                                              \
                                Mul(x, ClampNan(Fmadd(x, Set1(1.0f / 6.0f), Set1(0.5f)), 0.0f, 1.0f)))              \
  X(Softplus, "softplus", 1, Softplus(x),                                                                           \
                             SoftplusV(x))                                                                          \
  X(Floor, "floor", 1, std::floor(x),                                                                               \
                       Floor(x))                                                                                    \
  X(Ceil,  "ceil",  1, std::ceil(x),                                                                                \
                       Ceil(x))                                                                                     \
  /* half to even */                                                                                                \
  X(Round, "round", 1, std::nearbyint(x),                                                                           \
                       RoundEven(x))                                                                                \
  X(Reciprocal, "reciprocal", 1, 1.0f / x,                                                                          \
                                 Div(one, x))                                                                       \
  /* keeps NaN and the zero's sign */                                                                               \
  X(Sign, "sign", 1, x > 0 ? 1.0f : (x < 0 ? -1.0f : x),                                                            \
                     Select(Gt(x, zero), one, Select(Lt(x, zero), Set1(-1.0f), x)))                                 \
  X(Mish, "mish", 1, x * std::tanh(Softplus(x)),                                                                    \
                     MishV(x))
// clang-format on

#endif  // TVMLITE_TOPI_EPILOGUE_OPS_H_
