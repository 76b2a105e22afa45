/*!
 * \file decode.cc
 * \brief image.decode (ONNX ImageDecoder): encoded file bytes (1-D uint8) -> an (H, W, C) uint8 image whose
 *        height and width are known only at run time; C is 3 for RGB/BGR and 1 for Grayscale.
 */
#include <tvmlite/relay/attrs/image.h>
#include <tvmlite/relay/type_rel.h>

#include <vector>

namespace tvmlite {
namespace relay {

Type ImageDecodeRel(const Array<Type>& args, const ImageDecodeAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  TVMLITE_CHECK_KIND(data->shape.size() == 1, ValueError)
      << "the encoded stream must be 1-D, got shape " << ShapeToString(data->shape);
  TVMLITE_CHECK_KIND(data->dtype == DataType::UInt(8), TypeError)
      << "the encoded stream must be uint8, got " << data->dtype.str();
  TVMLITE_CHECK_KIND(a.pixel_format == "RGB" || a.pixel_format == "BGR" || a.pixel_format == "Grayscale", ValueError)
      << "pixel_format must be RGB, BGR or Grayscale, got '" << a.pixel_format << "'";
  int64_t channels = a.pixel_format == "Grayscale" ? 1 : 3;
  std::vector<Any> out{Any(SizeVar::Any()), Any(SizeVar::Any()), Any(channels)};
  return TensorType(Array<Any>(out), DataType::UInt(8));
}

TVMLITE_STATIC_INIT_BLOCK({
  namespace refl = ::tvmlite::runtime::refl;
  TVMLITE_REFLECT_FIELDS(ImageDecodeAttrs, pixel_format);
});

TVMLITE_REGISTER_OP("image.decode")
    .describe("Decode an encoded image file (ONNX ImageDecoder) into (H, W, C) uint8.")
    .add_argument("encoded", "Tensor", "1-D uint8: the file's bytes.")
    .add_type_rel("ImageDecode", ImageDecodeRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

}  // namespace relay
}  // namespace tvmlite
