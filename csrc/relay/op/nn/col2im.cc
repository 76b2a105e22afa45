/*!
 * \file col2im.cc
 * \brief nn.col2im (ONNX Col2Im): rearrange sliding-block columns (B, C * prod(block), L) into an image
 * (B, C, *image_shape), summing overlaps; the adjoint of im2col. The relation is templated over the spatial rank
 * N = len(image_shape) and dispatched once on it.
 */
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/runtime/reflection.h>

#include "window.h"

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

namespace {

template <int N>
Type Col2ImShape(const TensorTypeNode* data, const Col2ImAttrs* a) {
  TVMLITE_CHECK_KIND(a->block_shape.size() == static_cast<size_t>(N), ValueError)
      << "block_shape has " << a->block_shape.size() << " values, image_shape " << N;
  std::array<int64_t, N> image = PerDim<N>(a->image_shape, "image_shape", 1, 1);
  std::array<int64_t, N> block = PerDim<N>(a->block_shape, "block_shape", 1, 1);
  Window<N> w = NormalizeWindow<N>(a->strides, a->padding, a->dilation);
  int64_t block_size = 1, blocks = 1;
  for (int i = 0; i < N; ++i) {
    block_size = BoundedMul(block_size, block[i], "the block size");
    int64_t n = WindowOut<N>(Any(image[i]), Any(block[i]), w, i, false).template cast<int64_t>();
    blocks = BoundedMul(blocks, n, "the number of blocks");
  }
  Any channels = Any(SizeVar::Any());
  if (std::optional<int64_t> c = data->shape[1].as<int64_t>()) {
    TVMLITE_CHECK_KIND(*c % block_size == 0, ValueError)
        << "dim 1 of data " << ShapeToString(data->shape) << " is not divisible by the block size " << block_size;
    channels = Any(*c / block_size);
  }
  std::optional<int64_t> length = data->shape[2].as<int64_t>();
  TVMLITE_CHECK_KIND(!length || *length == blocks, ValueError)
      << "dim 2 of data " << ShapeToString(data->shape) << " must be the number of sliding blocks, " << blocks;
  std::vector<Any> out{data->shape[0], channels};
  for (int i = 0; i < N; ++i) out.push_back(Any(image[i]));
  return TensorType(Array<Any>(out), data->dtype);
}

Type Col2ImRel(const Array<Type>& args, const Col2ImAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  CheckRank(data, 3, "data (batch, channels * prod(block_shape), blocks)");
  switch (a.image_shape.size()) {
    case 1: return Col2ImShape<1>(data, &a);
    case 2: return Col2ImShape<2>(data, &a);
    case 3: return Col2ImShape<3>(data, &a);
    default: TVMLITE_THROW(ValueError) << "image_shape needs 1 to 3 values, got " << a.image_shape.size();
  }
}

}  // namespace

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(Col2ImAttrs, image_shape, block_shape, strides, dilation, padding);
});

TVMLITE_REGISTER_OP("nn.col2im")
    .describe("Sliding-block columns (B, C * prod(block_shape), L) -> image (B, C, *image_shape), overlaps summed.")
    .add_argument("data", "Tensor", "The columns, (batch, channels * prod(block_shape), blocks).")
    .add_type_rel("Col2Im", Col2ImRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

}  // namespace relay
}  // namespace tvmlite
