/*!
 * \file tvmlite/relay/attrs/rnn.h
 * \brief Attrs of nn.rnn: ONNX RNN, GRU and LSTM in one op (mode "RNN" / "GRU" / "LSTM").
 *
 *   nn.rnn(X, W, R, B, sequence_lens, initial_h, initial_c, P)   // omitted inputs are empty tuples
 *   -> (Y, Y_h) for RNN and GRU, (Y, Y_h, Y_c) for LSTM
 *
 * layout 0: X [seq, batch, input], Y [seq, dirs, batch, hidden], Y_h/Y_c [dirs, batch, hidden];
 * layout 1: X [batch, seq, input], Y [batch, seq, dirs, hidden], Y_h/Y_c [batch, dirs, hidden].
 * W [dirs, gates*hidden, input], R [dirs, gates*hidden, hidden], B [dirs, 2*gates*hidden], P [dirs, 3*hidden].
 */
#ifndef TVMLITE_RELAY_ATTRS_RNN_H_
#define TVMLITE_RELAY_ATTRS_RNN_H_

#include <tvmlite/ir/attrs.h>

#include <string>

namespace tvmlite {
namespace relay {

struct RNNAttrs : public ir::AttrsNode {
  std::string mode = "LSTM";
  int64_t hidden_size = 0;
  std::string direction = "forward";  // forward, reverse, bidirectional
  std::string activations;            // comma-separated ONNX names; empty: the mode's defaults
  runtime::Array<double> activation_alpha;
  runtime::Array<double> activation_beta;
  double clip = 0;  // <= 0: no clipping
  bool linear_before_reset = false;
  bool input_forget = false;
  int64_t layout = 0;
  TVMLITE_DECLARE_ATTRS(RNNAttrs, "relay.attrs.RNNAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_RNN_H_
