/*!
 * \file window.h
 * \brief The one place sliding-window parameters are normalised and window output sizes computed (conv, conv
 * transpose, pooling).
 *
 *   Window<2> w = NormalizeWindow<2>(a->strides, a->padding, a->dilation);   // ValueError on bad values
 *   Any out = WindowOut(data->shape[2], kernel, w, 0, false);              // symbolic in -> a SizeVar
 *
 * Values are bounded (kMaxWindowValue) so that the size arithmetic cannot overflow int64 whatever a caller sends.
 */
#ifndef TVMLITE_RELAY_OP_NN_WINDOW_H_
#define TVMLITE_RELAY_OP_NN_WINDOW_H_

#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/relay/type_rel.h>

#include <array>
#include <string>

namespace tvmlite {
namespace relay {

/*! \brief Largest stride / dilation / padding / kernel extent accepted (keeps window arithmetic in int64). */
constexpr int64_t kMaxWindowValue = int64_t(1) << 40;

template <int N>
struct Window {
  std::array<int64_t, N> stride, dilation, pad_begin, pad_end;
};

/*!
 * \brief Expand a per-dim attribute: empty -> fill, 1 value -> every dim, N values -> as is; ValueError otherwise
 * or when a value is below min_value.
 */
template <int N>
std::array<int64_t, N> PerDim(const Array<int64_t>& values, const char* name, int64_t fill, int64_t min_value) {
  std::array<int64_t, N> out;
  size_t n = values.size();
  TVMLITE_CHECK_KIND(n == 0 || n == 1 || n == static_cast<size_t>(N), ValueError)
      << name << " needs 1 or " << N << " values for a " << N << "-D window, got " << n;
  for (int i = 0; i < N; ++i) {
    int64_t v = n == 0 ? fill : values[n == 1 ? 0 : i];
    TVMLITE_CHECK_KIND(v >= min_value && v <= kMaxWindowValue, ValueError)
        << name << "[" << i << "] = " << v << " is out of range [" << min_value << ", " << kMaxWindowValue << "]";
    out[i] = v;
  }
  return out;
}

/*! \brief strides, padding (empty / 1 / N / 2N values: begin..., end...) and dilation as N values each. */
template <int N>
Window<N> NormalizeWindow(const Array<int64_t>& strides, const Array<int64_t>& padding,
                          const Array<int64_t>& dilation) {
  Window<N> w;
  w.stride = PerDim<N>(strides, "strides", 1, 1);
  w.dilation = PerDim<N>(dilation, "dilation", 1, 1);
  if (padding.size() == static_cast<size_t>(2 * N)) {
    for (int i = 0; i < N; ++i) {
      w.pad_begin[i] = padding[i];
      w.pad_end[i] = padding[N + i];
      TVMLITE_CHECK_KIND(w.pad_begin[i] >= 0 && w.pad_begin[i] <= kMaxWindowValue && w.pad_end[i] >= 0 &&
                             w.pad_end[i] <= kMaxWindowValue,
                         ValueError)
          << "padding of dim " << i << " is (" << w.pad_begin[i] << ", " << w.pad_end[i] << "), must be in [0, "
          << kMaxWindowValue << "]";
    }
  } else {
    TVMLITE_CHECK_KIND(padding.size() <= 1 || padding.size() == static_cast<size_t>(N), ValueError)
        << "padding needs 1, " << N << " or " << 2 * N << " values for a " << N << "-D window, got " << padding.size();
    w.pad_begin = w.pad_end = PerDim<N>(padding, "padding", 0, 0);
  }
  return w;
}

/*! \brief A static dim in [0, kMaxWindowValue], or nullopt when it is symbolic. ValueError beyond the bound. */
inline std::optional<int64_t> BoundedDim(const Any& dim, const char* what) {
  std::optional<int64_t> v =
      dim.type_index() == kTVMLiteInt ? std::optional<int64_t>(dim.cast<int64_t>()) : std::nullopt;
  TVMLITE_CHECK_KIND(!v || *v <= kMaxWindowValue, ValueError)
      << what << " " << *v << " is larger than the supported " << kMaxWindowValue;
  return v;
}

/*!
 * \brief The dim a strided window makes of the symbolic dim in, offset = pads - dilated kernel extent: one SizeVar per
 * (in, offset, stride, ceil_mode), so two windows computing the same size over the same dim give the same dim (ResNet's
 * 3x3 stride-2 conv, padded 1, and its 1x1 stride-2 shortcut: their residual add stays an epilogue of the conv). A
 * fresh SizeVar::Any() when in is not a SizeVar. window.cc.
 */
Any SymbolicWindowOut(const Any& in, int64_t offset, int64_t stride, bool ceil_mode);

/*!
 * \brief Output size of a sliding window over one dim: floor (or ceil, dropping a last window that would start in
 * the end padding) of (in + pads - dilation * (kernel - 1) - 1) / stride, plus 1. SizeVar::Any() when in or
 * kernel is symbolic (in itself for a "same" window over a symbolic in). ValueError when the dilated kernel is
 * larger than the padded input.
 */
template <int N>
Any WindowOut(const Any& in, const Any& kernel, const Window<N>& w, int i, bool ceil_mode) {
  std::optional<int64_t> x = BoundedDim(in, "input dim"), k = BoundedDim(kernel, "kernel size");
  if (k) {
    TVMLITE_CHECK_KIND(*k >= 1, ValueError) << "kernel size of spatial dim " << i << " is " << *k << ", must be >= 1";
  }
  if (!x || !k) {
    // A "same" window (stride 1, pads adding up to the dilated kernel's extent - 1) keeps a symbolic dim: the
    // output is the input's own SizeVar, so a residual add over it still fuses (ResNet over symbolic H, W).
    if (!x && k && w.stride[i] == 1 && !ceil_mode &&
        static_cast<__int128>(w.pad_begin[i]) + w.pad_end[i] == static_cast<__int128>(w.dilation[i]) * (*k - 1)) {
      return in;
    }
    if (!x && k) {
      const __int128 extent = static_cast<__int128>(w.dilation[i]) * (*k - 1) + 1;  // each factor <= 2^40
      const __int128 offset = static_cast<__int128>(w.pad_begin[i]) + w.pad_end[i] - extent;
      if (offset >= -kMaxWindowValue * 4) {
        return SymbolicWindowOut(in, static_cast<int64_t>(offset), w.stride[i], ceil_mode);
      }
    }
    return Any(SizeVar::Any());
  }
  int64_t padded = *x + w.pad_begin[i] + w.pad_end[i];  // each <= 2^40: fits
  __int128 wide_extent = static_cast<__int128>(w.dilation[i]) * (*k - 1) + 1;
  int64_t extent = wide_extent > kMaxWindowValue * 4 ? kMaxWindowValue * 4 : static_cast<int64_t>(wide_extent);
  TVMLITE_CHECK_KIND(extent <= padded, ValueError)
      << "the kernel (extent " << extent << " = dilation " << w.dilation[i] << " * (" << *k
      << " - 1) + 1) is larger than the padded input (" << *x << " + " << w.pad_begin[i] << " + " << w.pad_end[i]
      << " = " << padded << ") in spatial dim " << i;
  int64_t span = padded - extent;
  int64_t out = (ceil_mode ? (span + w.stride[i] - 1) / w.stride[i] : span / w.stride[i]) + 1;
  if (ceil_mode && (out - 1) * w.stride[i] >= *x + w.pad_begin[i]) --out;
  return Any(out);
}

/*! \brief A shape's dims as a vector (Array's iterator is input-only). */
inline std::vector<Any> ToVector(const Array<Any>& shape) {
  std::vector<Any> v;
  v.reserve(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) v.push_back(shape[i]);
  return v;
}

/*! \brief a * b, or ValueError naming what when it leaves [0, kMaxWindowValue]. */
inline int64_t BoundedMul(int64_t a, int64_t b, const char* what) {
  __int128 r = static_cast<__int128>(a) * b;
  TVMLITE_CHECK_KIND(r >= 0 && r <= kMaxWindowValue, ValueError)
      << what << " (" << a << " * " << b << ") is out of range [0, " << kMaxWindowValue << "]";
  return static_cast<int64_t>(r);
}

/*! \brief NotImplementedError unless layout is one of the accepted names ("" when empty_ok). */
inline void CheckLayout(const std::string& layout, const char* field, const char* expected, bool empty_ok = false) {
  TVMLITE_CHECK_KIND(layout == expected || (empty_ok && layout.empty()), NotImplementedError)
      << field << " '" << layout << "' is not supported (only " << expected << (empty_ok ? " or ''" : "") << ")";
}

/*!
 * \brief k of a packed transposed-conv kernel layout plain + "{k}i" ("IOHW8i"), 0 for plain itself;
 * NotImplementedError for anything else.
 */
inline int64_t PackedInputBlock(const std::string& layout, const std::string& plain) {
  if (layout == plain) return 0;
  bool ok = layout.size() > plain.size() + 1 && layout.compare(0, plain.size(), plain) == 0 && layout.back() == 'i';
  int64_t k = 0;
  for (size_t i = plain.size(); ok && i + 1 < layout.size(); ++i) {
    ok = layout[i] >= '0' && layout[i] <= '9' && k <= kMaxWindowValue;
    k = k * 10 + (layout[i] - '0');
  }
  TVMLITE_CHECK_KIND(ok && k >= 1, NotImplementedError)
      << "kernel_layout '" << layout << "' is not supported (only " << plain << " or " << plain << "{k}i)";
  return k;
}

/*! \brief The dtype of a result: out_dtype when given, else fallback. */
inline DataType OutDtype(const Optional<DataType>& out_dtype, DataType fallback) {
  return out_dtype.has_value() ? *out_dtype : fallback;
}

/*! \brief TypeError unless the tensor has rank n (names the op's input and its shape). */
inline void CheckRank(const TensorTypeNode* t, size_t n, const char* what) {
  TVMLITE_CHECK_KIND(t->ndim() == n, ValueError)
      << what << " must have rank " << n << ", got shape " << ShapeToString(t->shape);
}

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_OP_NN_WINDOW_H_
