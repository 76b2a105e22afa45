/*!
 * \file tvmlite/relay/attrs/training.h
 * \brief Attrs of the optimizer steps (ONNX ai.onnx.preview.training Adagrad, Adam, Momentum): one struct for the
 * three, each reads the coefficients it defines.
 */
#ifndef TVMLITE_RELAY_ATTRS_TRAINING_H_
#define TVMLITE_RELAY_ATTRS_TRAINING_H_

#include <tvmlite/ir/attrs.h>

#include <string>

namespace tvmlite {
namespace relay {

struct OptimizerAttrs : public ir::AttrsNode {
  double norm_coefficient = 0.0;
  double norm_coefficient_post = 0.0;  // Adam
  double alpha = 0.9;                  // Adam, Momentum
  double beta = 0.999;                 // Adam, Momentum
  double epsilon = 1e-6;               // Adagrad, Adam
  double decay_factor = 0.0;           // Adagrad
  std::string mode = "standard";       // Momentum: "standard" or "nesterov"

  TVMLITE_DECLARE_ATTRS(OptimizerAttrs, "relay.attrs.OptimizerAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_TRAINING_H_
