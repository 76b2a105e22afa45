/*!
 * \file tvmlite/relay/attrs/signal.h
 * \brief Attrs of the signal ops: signal.dft, signal.stft, signal.window, signal.mel_weight_matrix.
 *
 * Complex tensors are real tensors with a trailing dim of 2 (real, imaginary); real signals have a trailing 1.
 *
 *   signal.dft(data, dft_length, axis)              data (..., n, ..., 1|2) -> (..., m, ..., 2)
 *   signal.stft(signal, frame_step, window, frame_length)   (B, L, 1|2) -> (B, frames, bins, 2)
 *   signal.window(size)                             scalar -> (size,)
 *   signal.mel_weight_matrix(num_mel_bins, dft_length, sample_rate, lower_edge_hertz, upper_edge_hertz)
 *                                                   scalars -> (dft_length // 2 + 1, num_mel_bins)
 *
 * Scalar inputs that set a size are data-dependent: the dims they set are symbolic unless the builder passes
 * their static values in the attrs (the frontend does when they are constants). An omitted optional tensor
 * input is an empty 1-D tensor (shape (0,)).
 */
#ifndef TVMLITE_RELAY_ATTRS_SIGNAL_H_
#define TVMLITE_RELAY_ATTRS_SIGNAL_H_

#include <tvmlite/ir/attrs.h>
#include <tvmlite/runtime/reflection.h>

#include <string>

namespace tvmlite {
namespace relay {

using runtime::Optional;

/*! \brief signal.dft: ONNX DFT. */
struct DFTAttrs : public ir::AttrsNode {
  bool inverse = false;
  bool onesided = false;
  /*! \brief The axis when static (else read from the axis input at run time). */
  Optional<int64_t> axis;
  /*! \brief dft_length when static and given. */
  Optional<int64_t> dft_length;

  TVMLITE_DECLARE_ATTRS(DFTAttrs, "relay.attrs.DFTAttrs");
};

/*! \brief signal.stft: ONNX STFT. */
struct STFTAttrs : public ir::AttrsNode {
  bool onesided = true;
  Optional<int64_t> frame_step;
  Optional<int64_t> frame_length;

  TVMLITE_DECLARE_ATTRS(STFTAttrs, "relay.attrs.STFTAttrs");
};

/*! \brief signal.window: ONNX HannWindow / HammingWindow / BlackmanWindow. */
struct WindowAttrs : public ir::AttrsNode {
  /*! \brief "hann", "hamming" or "blackman". */
  std::string kind = "hann";
  bool periodic = true;
  runtime::DataType dtype = runtime::DataType::Float(32);
  Optional<int64_t> size;

  TVMLITE_DECLARE_ATTRS(WindowAttrs, "relay.attrs.WindowAttrs");
};

/*! \brief signal.mel_weight_matrix: ONNX MelWeightMatrix. */
struct MelWeightMatrixAttrs : public ir::AttrsNode {
  runtime::DataType dtype = runtime::DataType::Float(32);
  Optional<int64_t> num_mel_bins;
  Optional<int64_t> dft_length;

  TVMLITE_DECLARE_ATTRS(MelWeightMatrixAttrs, "relay.attrs.MelWeightMatrixAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_SIGNAL_H_
