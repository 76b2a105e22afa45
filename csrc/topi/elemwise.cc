/*!
 * \file elemwise.cc
 * \brief topi.elemwise: a fused elementwise group with no anchor, i.e. an epilogue program run over the whole
 * output (its first instruction writes r0 from an input). Also the way tests reach the interpreter directly.
 *
 *   f = topi.elemwise({"epilogue": "copy r0 in0; add r0 r0 in1; relu r0 r0"});  f(x, y, out)
 */
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/kernel.h>

#include <string>

namespace tvmlite {
namespace topi {

TVMLITE_REGISTER_GLOBAL("topi.elemwise").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.elemwise";
  KernelAttrs attrs(kName, attrs_in);
  Epilogue program = Epilogue::Parse(attrs.GetString("epilogue"), kName);
  TVMLITE_CHECK_KIND(!program.empty(), ValueError) << kName << ": the epilogue program is empty";
  return MakeKernel(kName, program.num_inputs() + 1, [program](const KernelArgs& args) {
    TensorArg out = args.Output();
    float* y = out.Data<float>();
    BoundEpilogue bound = program.Bind(out.shape(), args.Rest(0), args.kernel());
    runtime::ParallelFor(
        out.size(), [&](int64_t begin, int64_t end) { bound.Apply(y, begin, end - begin); },
        /*min_chunk=*/16384);
  });
});

/*! \brief The canonical text of a program (Parse then ToString): what a program round-trips to. */
TVMLITE_REGISTER_GLOBAL("topi.epilogue_canonical").set_body_typed([](String text) {
  return String(Epilogue::Parse(std::string(text), "topi.epilogue_canonical").ToString());
});

}  // namespace topi
}  // namespace tvmlite
