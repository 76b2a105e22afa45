/*!
 * \file conv2d_winograd_per_shape.cc
 * \brief topi.nn.conv2d_winograd_per_shape: the kernel of nn.contrib_conv2d_winograd_per_shape, a blocked 3x3 conv
 * whose output plane is known only at run time (a model exported with symbolic height and width). Winograd pays
 * only above some plane (tvmlite/topi/nn/winograd_tile.h), so each call asks WinogradTile for its own output plane
 * and runs topi.nn.conv2d_winograd_nchwc with the filters transformed for that tile, or topi.nn.conv2d_nchwc with the
 * packed filters when WinogradTile says 0: the kernel a build specialised to the shape would have run.
 *
 *   f = topi.nn.conv2d_winograd_per_shape({conv2d_nchwc's attrs, e.g. "padding": [1, 1], "epilogue": "relu r0 r0"})
 *   f(data, weight, u_1, ..., u_k, epilogue inputs..., out)
 *
 * data NCHW{ic}c, weight OIHW{ic}i{oc}o (the direct conv's), u_i HWOI{oc}o: the filters transformed for one tile
 * size each, (alpha, alpha, O / oc, C, oc) (stride 2: 4C), alpha = m + 2 (stride 2: m + 1); AlterOpLayout gives one
 * per tile WinogradTilesOfAnyPlane names whose filters fold at build; without F(4x4)'s, F(2x2) serves its planes.
 * The attrs must suit Winograd (3x3, stride 1 or 2, dilation 1, ungrouped): the factory binds both kernels and fails
 * as theirs do.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/nn/winograd_tile.h>

#include <string>
#include <vector>

#include "window_attrs.h"

namespace tvmlite {
namespace topi {
namespace {

const char kName[] = "topi.nn.conv2d_winograd_per_shape";

struct PerShapeConv {
  Function direct;
  Function winograd2, winograd4;  // F(2x2) and F(4x4) (stride 2: F(m x m, 2 x 2))
  int64_t stride;
  int num_epilogue_inputs;
};

void Run(const PerShapeConv& conv, runtime::PackedArgs args) {
  static const std::string kKernel = kName;
  const KernelArgs checked(&kKernel, args);
  const int transformed = args.size() - 3 - conv.num_epilogue_inputs;  // u_1..u_k: between weight and the epilogue's
  TVMLITE_CHECK_KIND(transformed >= 1 && transformed <= 2, TypeError)
      << kName << ": expected data, weight, one or two transformed weights, " << conv.num_epilogue_inputs
      << " epilogue input(s) and out, got " << args.size() << " arguments";
  TensorArg data = checked.Input(0, "data"), out = checked.Output();
  data.CheckNDim(5);
  out.CheckNDim(5);
  // Channels as the blocked conv sees them; an empty tensor's dims may be anything: a product past int64 is no tile.
  int64_t in_channels = 0, out_channels = 0, tile = 0;
  if (!__builtin_mul_overflow(data.dim(1), data.dim(4), &in_channels) &&
      !__builtin_mul_overflow(out.dim(1), out.dim(4), &out_channels)) {
    tile = WinogradTile(in_channels, out_channels, out.dim(2), out.dim(3), conv.stride);
  }
  int with_tile[5] = {0, 0, 0, 0, 0};  // the argument holding each tile's filters
  for (int i = 2; i < 2 + transformed; ++i) {
    TensorArg u = checked.Input(i, "transformed weight");
    u.CheckNDim(5);
    const int64_t m = u.dim(0) - (conv.stride == 2 ? 1 : 2);
    if (m != 2 && m != 4) u.Fail("must be (alpha, alpha, O / oc, C, oc) for tile size 2 or 4");
    with_tile[m] = i;
  }
  // F(4x4)'s filters are left out where they would be too large to fold at build (AlterOpLayout); a static build
  // takes F(2x2) there, and so does this kernel.
  if (tile == 4 && with_tile[4] == 0) tile = 2;
  const int chosen = tile > 0 && with_tile[tile] != 0 ? with_tile[tile] : 1;  // 1: the packed weight, the direct conv
  std::vector<runtime::AnyView> forwarded{args[0], args[chosen]};
  for (int i = 2 + transformed; i < args.size(); ++i) forwarded.push_back(args[i]);
  const Function& kernel = chosen == 1 ? conv.direct : tile == 2 ? conv.winograd2 : conv.winograd4;
  Any unused;
  kernel.CallPacked(runtime::PackedArgs(forwarded.data(), static_cast<int32_t>(forwarded.size())), &unused);
}

}  // namespace

TVMLITE_REGISTER_GLOBAL("topi.nn.conv2d_winograd_per_shape")
    .set_kernel_factory()
    .set_body_typed([](Map<String, Any> attrs_in) {
      static const Function make_direct = runtime::Registry::Get("topi.nn.conv2d_nchwc");
      static const Function make_winograd = runtime::Registry::Get("topi.nn.conv2d_winograd_nchwc");
      KernelAttrs attrs(kName, attrs_in);
      auto winograd = [&](int64_t tile) {
        Map<String, Any> with_tile = attrs_in;
        with_tile.Set(String("tile_size"), Any(tile));
        // relay leaves kernel_size empty when the weight tells it; the per-shape conv's weight is 3x3 (its relation)
        if (attrs.GetInts("kernel_size", {}).empty()) with_tile.Set(String("kernel_size"), Any(Array<int64_t>{3, 3}));
        return make_winograd(with_tile).cast<Function>();
      };
      PerShapeConv conv;
      try {  // the errors of the two kernels it binds, named as this one's
        conv.direct = make_direct(attrs_in).cast<Function>();
        conv.winograd2 = winograd(2);
        conv.winograd4 = winograd(4);
      } catch (const runtime::Error& e) {
        throw runtime::Error(e.kind(), std::string(kName) + ": " + e.message());
      }
      conv.stride = KernelWindow(attrs).stride[0];  // 1 or 2: the Winograd kernel checked it
      conv.num_epilogue_inputs = attrs.GetEpilogue().num_inputs();
      Function f([conv](runtime::PackedArgs args, Any*) { Run(conv, args); });
      const_cast<runtime::FunctionObj*>(f.get())->cell.flags |= kTVMLiteFunctionLongRunning;
      return f;
    });

TVMLITE_REGISTER_OP_KERNEL("nn.contrib_conv2d_winograd_per_shape", "topi.nn.conv2d_winograd_per_shape");

}  // namespace topi
}  // namespace tvmlite
