/*!
 * \file raise_error.cc
 * \brief topi.raise_error (relay raise_error): the kernel of a value that is never made. Running it raises
 * ValueError(message); an If branch that cannot be typed at the shapes a build was given holds one, so the error
 * comes when that branch is taken (relay/attrs/control.h). It makes no output, so it is a returning kernel: the
 * memory plan holds nothing for it.
 *
 *   topi.raise_error({"message": "..."})   run() -> raises ValueError(message)
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/topi/kernel.h>

namespace tvmlite {
namespace topi {

TVMLITE_REGISTER_GLOBAL("topi.raise_error").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.raise_error";
  KernelAttrs attrs(kName, attrs_in);
  const std::string message = attrs.GetString("message", "");
  TVMLITE_CHECK_KIND(!message.empty(), ValueError) << kName << ": message is required";
  return MakeReturningKernel(kName, 0, [message](const KernelArgs&) -> NDArray {
    throw runtime::Error("ValueError", message);  // no "raised at" line: the error is the import's, not this file's
  });
});

TVMLITE_REGISTER_OP_KERNEL("raise_error", "topi.raise_error").set_attr<bool>("TVMLiteReturnsOutputs", true);

}  // namespace topi
}  // namespace tvmlite
