/*!
 * \file signal.cc
 * \brief Signal ops: signal.dft, signal.stft, signal.window, signal.mel_weight_matrix (ONNX DFT, STFT,
 *        Hann/Hamming/BlackmanWindow, MelWeightMatrix).
 *
 * A complex tensor is a real one with a trailing dim of 2 (real, imaginary); a real signal has a trailing 1.
 * Sizes set by scalar inputs are symbolic unless the attrs carry their static values; an omitted optional input
 * is an empty 1-D tensor.
 *
 *   dft(data (..., n_axis, ..., 1|2), dft_length, axis)  -> (..., m, ..., 2), m = dft_length, or
 *       dft_length // 2 + 1 (onesided forward); (..., dft_length, ..., 1) for the inverse of a onesided one.
 *   stft(signal (B, L, 1|2), frame_step, window, frame_length) -> (B, (L - fl) // step + 1, bins, 2)
 *   window(size) -> (size,);  mel_weight_matrix(bins, dft_length, rate, lo, hi) -> (dft_length // 2 + 1, bins)
 */
#include <tvmlite/relay/attrs/signal.h>
#include <tvmlite/relay/type_rel.h>

#include <vector>

namespace tvmlite {
namespace relay {

namespace {

/*! \brief Whether t is an empty 1-D tensor: an omitted optional input. */
bool IsOmitted(const TensorTypeNode* t) { return t->shape.size() == 1 && DimIs(t->shape[0], 0); }

void CheckScalarLike(const TensorTypeNode* t, const char* name) {
  TVMLITE_CHECK_KIND(t->shape.empty() || (t->shape.size() == 1 && !DimIs(t->shape[0], 0)), ValueError)
      << name << " must be a scalar, got shape " << ShapeToString(t->shape);
}

void CheckScalarOrOmitted(const TensorTypeNode* t, const char* name) {
  TVMLITE_CHECK_KIND(t->shape.empty() || t->shape.size() == 1, ValueError)
      << name << " must be a scalar (or omitted), got shape " << ShapeToString(t->shape);
}

std::optional<int64_t> StaticDim(const Any& d) {
  if (d.type_index() == kTVMLiteInt) return d.cast<int64_t>();
  return std::nullopt;
}

Any DimOrAny(std::optional<int64_t> v) { return v ? Any(*v) : Any(SizeVar::Any()); }

void CheckPositive(const Optional<int64_t>& v, const char* name) {
  TVMLITE_CHECK_KIND(!v.has_value() || *v >= 1, ValueError) << name << " must be >= 1, got " << *v;
}

}  // namespace

Type DFTRel(const Array<Type>& args, const DFTAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* length = TensorArg(args, 1);
  const TensorTypeNode* axis_t = TensorArg(args, 2);
  const int64_t r = static_cast<int64_t>(data->shape.size());
  TVMLITE_CHECK_KIND(r >= 2, ValueError)
      << "data must be (..., 1) real or (..., 2) complex with at least one signal dim, got shape "
      << ShapeToString(data->shape);
  const Any& last = data->shape[r - 1];
  TVMLITE_CHECK_KIND(last.type_index() != kTVMLiteInt || DimIs(last, 1) || DimIs(last, 2), ValueError)
      << "the last dim must be 1 (real) or 2 (complex), got shape " << ShapeToString(data->shape);
  TVMLITE_CHECK_KIND(data->dtype.is_float(), TypeError) << "data must be float, got " << data->dtype.str();
  CheckScalarOrOmitted(length, "dft_length");
  CheckScalarOrOmitted(axis_t, "axis");
  CheckPositive(a.dft_length, "dft_length");
  const bool irfft = a.inverse && a.onesided;
  if (a.onesided && !a.inverse) {
    TVMLITE_CHECK_KIND(last.type_index() != kTVMLiteInt || DimIs(last, 1), ValueError)
        << "onesided forward DFT needs a real input (..., 1), got shape " << ShapeToString(data->shape);
  }
  if (irfft) {
    TVMLITE_CHECK_KIND(last.type_index() != kTVMLiteInt || DimIs(last, 2), ValueError)
        << "onesided inverse DFT needs a complex input (..., 2), got shape " << ShapeToString(data->shape);
  }
  std::vector<Any> out;
  for (size_t i = 0; i < data->shape.size(); ++i) out.push_back(data->shape[i]);
  out[r - 1] = Any(int64_t(irfft ? 1 : 2));
  std::optional<int64_t> axis;
  if (a.axis.has_value()) {
    int64_t ax = *a.axis;
    TVMLITE_CHECK_KIND((ax >= -r && ax <= -2) || (ax >= 0 && ax <= r - 2), ValueError)
        << "axis " << ax << " is out of range [" << -r << ", -2] U [0, " << r - 2 << "] for shape "
        << ShapeToString(data->shape);
    axis = ax < 0 ? ax + r : ax;
  } else {
    TVMLITE_CHECK_KIND(!IsOmitted(axis_t), ValueError) << "no axis given";
  }
  std::optional<int64_t> n;  // the DFT length
  if (a.dft_length.has_value()) {
    n = *a.dft_length;
  } else if (IsOmitted(length) && axis) {
    std::optional<int64_t> dim = StaticDim(data->shape[*axis]);
    if (dim) n = irfft ? 2 * (*dim - 1) : *dim;
  }
  if (!axis) {
    // The axis is known only at run time: a dim keeps its size only when no dim changes size.
    bool same = !a.onesided && IsOmitted(length) && !a.dft_length.has_value();
    if (!same) {
      for (int64_t i = 0; i + 1 < r; ++i) out[i] = Any(SizeVar::Any());
    }
    return TensorType(Array<Any>(out), data->dtype);
  }
  if (n) {
    TVMLITE_CHECK_KIND(*n >= 1, ValueError)
        << "dft_length " << *n << " must be >= 1 for shape " << ShapeToString(data->shape);
    out[*axis] = Any(a.onesided && !a.inverse ? *n / 2 + 1 : *n);
  } else if (!(IsOmitted(length) && !a.onesided)) {
    out[*axis] = Any(SizeVar::Any());
  }
  return TensorType(Array<Any>(out), data->dtype);
}

Type STFTRel(const Array<Type>& args, const STFTAttrs& a) {
  const TensorTypeNode* sig = TensorArg(args, 0);
  const TensorTypeNode* step = TensorArg(args, 1);
  const TensorTypeNode* window = TensorArg(args, 2);
  const TensorTypeNode* length = TensorArg(args, 3);
  TVMLITE_CHECK_KIND(sig->shape.size() == 3 && (sig->shape[2].type_index() != kTVMLiteInt || DimIs(sig->shape[2], 1) ||
                                                DimIs(sig->shape[2], 2)),
                     ValueError)
      << "signal must be (batch, length, 1|2), got shape " << ShapeToString(sig->shape);
  TVMLITE_CHECK_KIND(sig->dtype.is_float(), TypeError) << "signal must be float, got " << sig->dtype.str();
  CheckScalarLike(step, "frame_step");
  CheckScalarOrOmitted(length, "frame_length");
  TVMLITE_CHECK_KIND(window->shape.size() == 1, ValueError)
      << "window must be 1-D, got shape " << ShapeToString(window->shape);
  CheckPositive(a.frame_step, "frame_step");
  CheckPositive(a.frame_length, "frame_length");
  if (a.onesided) {
    TVMLITE_CHECK_KIND(sig->shape[2].type_index() != kTVMLiteInt || DimIs(sig->shape[2], 1), ValueError)
        << "onesided output needs a real signal (batch, length, 1), got shape " << ShapeToString(sig->shape);
  }
  std::optional<int64_t> fl;
  if (a.frame_length.has_value()) {
    fl = *a.frame_length;
  } else if (IsOmitted(length)) {
    fl = IsOmitted(window) ? StaticDim(sig->shape[1]) : StaticDim(window->shape[0]);
  }
  if (fl && !IsOmitted(window) && window->shape[0].type_index() == kTVMLiteInt) {
    TVMLITE_CHECK_KIND(DimIs(window->shape[0], *fl), ValueError)
        << "window length " << DimToString(window->shape[0]) << " differs from frame_length " << *fl;
  }
  std::optional<int64_t> sl = StaticDim(sig->shape[1]);
  std::optional<int64_t> frames;
  if (fl && sl && a.frame_step.has_value()) {
    TVMLITE_CHECK_KIND(*fl <= *sl, ValueError) << "frame_length " << *fl << " exceeds the signal length " << *sl;
    frames = (*sl - *fl) / *a.frame_step + 1;
  }
  std::optional<int64_t> bins;
  if (fl) bins = a.onesided ? *fl / 2 + 1 : *fl;
  std::vector<Any> out{sig->shape[0], DimOrAny(frames), DimOrAny(bins), Any(int64_t(2))};
  return TensorType(Array<Any>(out), sig->dtype);
}

Type WindowRel(const Array<Type>& args, const WindowAttrs& a) {
  const TensorTypeNode* size = TensorArg(args, 0);
  CheckScalarLike(size, "size");
  TVMLITE_CHECK_KIND(a.kind == "hann" || a.kind == "hamming" || a.kind == "blackman", ValueError)
      << "kind must be hann, hamming or blackman, got '" << a.kind << "'";
  TVMLITE_CHECK_KIND(!a.size.has_value() || *a.size >= 0, ValueError) << "size must be >= 0, got " << *a.size;
  TVMLITE_CHECK_KIND(a.dtype.is_float() || a.dtype.is_int() || a.dtype.is_uint(), TypeError)
      << "dtype must be numeric, got " << a.dtype.str();
  std::optional<int64_t> n;
  if (a.size.has_value()) n = *a.size;
  return TensorType(Array<Any>(std::vector<Any>{DimOrAny(n)}), a.dtype);
}

Type MelWeightMatrixRel(const Array<Type>& args, const MelWeightMatrixAttrs& a) {
  const char* names[] = {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"};
  for (size_t i = 0; i < 5; ++i) CheckScalarLike(TensorArg(args, i), names[i]);
  CheckPositive(a.num_mel_bins, "num_mel_bins");
  CheckPositive(a.dft_length, "dft_length");
  TVMLITE_CHECK_KIND(a.dtype.is_float() || a.dtype.is_int() || a.dtype.is_uint(), TypeError)
      << "dtype must be numeric, got " << a.dtype.str();
  std::optional<int64_t> rows, cols;
  if (a.dft_length.has_value()) rows = *a.dft_length / 2 + 1;
  if (a.num_mel_bins.has_value()) cols = *a.num_mel_bins;
  return TensorType(Array<Any>(std::vector<Any>{DimOrAny(rows), DimOrAny(cols)}), a.dtype);
}

TVMLITE_STATIC_INIT_BLOCK({
  namespace refl = ::tvmlite::runtime::refl;
  TVMLITE_REFLECT_FIELDS(DFTAttrs, inverse, onesided, axis, dft_length);
  TVMLITE_REFLECT_FIELDS(STFTAttrs, onesided, frame_step, frame_length);
  TVMLITE_REFLECT_FIELDS(WindowAttrs, kind, periodic, dtype, size);
  TVMLITE_REFLECT_FIELDS(MelWeightMatrixAttrs, dtype, num_mel_bins, dft_length);
});

TVMLITE_REGISTER_OP("signal.dft")
    .describe("Discrete Fourier transform along one axis (ONNX DFT); complex values as a trailing dim of 2.")
    .add_argument("data", "Tensor", "(..., 1) real or (..., 2) complex.")
    .add_argument("dft_length", "Tensor", "int scalar, or empty (0,) for the default length.")
    .add_argument("axis", "Tensor", "int scalar, or empty (0,) when the attrs carry the axis.")
    .add_type_rel("DFT", DFTRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("signal.stft")
    .describe("Short-time Fourier transform (ONNX STFT).")
    .add_argument("signal", "Tensor", "(batch, length, 1|2).")
    .add_argument("frame_step", "Tensor", "int scalar.")
    .add_argument("window", "Tensor", "1-D window, or empty (0,) for a rectangular one.")
    .add_argument("frame_length", "Tensor", "int scalar, or empty (0,).")
    .add_type_rel("STFT", STFTRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("signal.window")
    .describe("A Hann, Hamming or Blackman window (ONNX HannWindow, HammingWindow, BlackmanWindow).")
    .add_argument("size", "Tensor", "int scalar: the window length.")
    .add_type_rel("Window", WindowRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("signal.mel_weight_matrix")
    .describe("The mel filterbank matrix of a onesided spectrum (ONNX MelWeightMatrix).")
    .add_argument("num_mel_bins", "Tensor", "int scalar.")
    .add_argument("dft_length", "Tensor", "int scalar.")
    .add_argument("sample_rate", "Tensor", "int scalar.")
    .add_argument("lower_edge_hertz", "Tensor", "float scalar.")
    .add_argument("upper_edge_hertz", "Tensor", "float scalar.")
    .add_type_rel("MelWeightMatrix", MelWeightMatrixRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

}  // namespace relay
}  // namespace tvmlite
