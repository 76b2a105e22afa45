/*!
 * \file layout_transform.cc
 * \brief layout_transform(data, src_layout, dst_layout): the same tensor in another layout (TVM's op and attrs).
 *
 *   NCHW (1, 32, 7, 7) -> NCHW16c (1, 2, 7, 7, 16);  OIHW (64, 32, 3, 3) -> OIHW16i16o (4, 2, 3, 3, 16, 16)
 *
 * The shape comes from the Layout code (tvmlite/relay/layout.h): the layouts must parse and have the same primal
 * axes, the data's rank must be the source layout's, and every destination factor must divide its logical dim
 * (ValueError otherwise). A symbolic dim stays symbolic. Injective (an index remapping); its native kernel is
 * topi.layout_transform (csrc/topi/layout_transform.cc), its reference tvmlite/relay/op/_layout.py.
 */
#include <tvmlite/relay/layout.h>
#include <tvmlite/relay/type_rel.h>

namespace tvmlite {
namespace relay {

namespace {

Type LayoutTransformRel(const Array<Type>& args, const LayoutTransformAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  Layout src(a.src_layout), dst(a.dst_layout);
  std::vector<int64_t> dims;
  for (size_t i = 0; i < data->ndim(); ++i) {
    std::optional<int64_t> v = data->shape[i].as<int64_t>();
    dims.push_back(v ? *v : -1);
  }
  std::vector<int64_t> out = TransformShape(src, dst, dims);
  Array<Any> shape;
  for (size_t i = 0; i < out.size(); ++i) {
    const LayoutAxis& axis = dst[i];
    if (out[i] >= 0) {
      shape.push_back(Any(out[i]));
    } else if (axis.primal() && dst.FactorOf(axis.name) == 0 && src.FactorOf(axis.name) == 0) {
      shape.push_back(data->shape[src.IndexOf(axis.name)]);  // the same symbolic dim, moved
    } else {
      shape.push_back(Any(SizeVar::Any()));
    }
  }
  return TensorType(shape, data->dtype);
}

/*!
 * \brief layout_transform's "FTVMLiteIsView" (op_facts.h): a transform that only adds or drops sub-axes of factor 1
 * (NCHW -> NCHW1c) keeps the memory order: a reshape.
 */
bool SameMemoryOrder(const Call& call) {
  const auto* a = call->attrs.as<LayoutTransformAttrs>();
  if (a == nullptr) return false;
  auto strip = [](const std::string& layout) {
    std::string out;
    for (size_t i = 0; i < layout.size(); ++i) {
      if (layout[i] == '1' && i + 1 < layout.size() && layout[i + 1] >= 'a' && layout[i + 1] <= 'z' &&
          (i == 0 || !(layout[i - 1] >= '0' && layout[i - 1] <= '9'))) {
        ++i;  // "1c": a factor-1 sub-axis
        continue;
      }
      out += layout[i];
    }
    return out;
  };
  return strip(a->src_layout) == strip(a->dst_layout);
}

}  // namespace

TVMLITE_REGISTER_OP("layout_transform")
    .describe("The same tensor in another layout (NCHW <-> NCHW16c, OIHW -> OIHW16i16o, NK -> NK16n, ...).")
    .add_argument("data", "Tensor", "The tensor, in src_layout.")
    .add_type_rel("LayoutTransform", LayoutTransformRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective)
    .set_attr<runtime::String>("FTVMLiteKernel", runtime::String("topi.layout_transform"))
    .set_attr("FTVMLiteIsView", runtime::Function::FromTyped(SameMemoryOrder, "FTVMLiteIsView of layout_transform"));

}  // namespace relay
}  // namespace tvmlite
