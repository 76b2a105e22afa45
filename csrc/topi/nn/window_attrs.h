/*!
 * \file window_attrs.h
 * \brief What the windowed kernels of csrc/topi/nn share: relay's window attrs read from a kernel's attrs and
 * normalised by relay's own NormalizeWindow (csrc/relay/op/nn/window.h), errors naming the kernel, and the
 * blocked-layout names ("NCHW" or "NCHW16c").
 *
 *   relay::Window<2> w = KernelWindow(attrs);      // strides, padding (1, 2 or 4 values), dilation
 *   int64_t block = LayoutBlock(attrs, "layout");  // 0 for "NCHW", 16 for "NCHW16c"
 */
#ifndef TVMLITE_TOPI_NN_WINDOW_ATTRS_H_
#define TVMLITE_TOPI_NN_WINDOW_ATTRS_H_

#include <tvmlite/topi/kernel.h>

#include <cctype>
#include <string>
#include <vector>

#include "../../relay/op/nn/window.h"

namespace tvmlite {
namespace topi {

/*! \brief strides / padding / dilation of attrs as relay normalises them; ValueError naming the kernel. */
inline relay::Window<2> KernelWindow(const KernelAttrs& attrs) {
  Array<int64_t> strides(attrs.GetInts("strides", {}));
  Array<int64_t> padding(attrs.GetInts("padding", {}));
  Array<int64_t> dilation(attrs.GetInts("dilation", {}));
  try {
    return relay::NormalizeWindow<2>(strides, padding, dilation);
  } catch (const runtime::Error& e) {
    TVMLITE_THROW(ValueError) << attrs.kernel() << ": " << e.message();
  }
}

/*! \brief The block of a layout attr: 0 for "NCHW" (or absent / ""), c for "NCHW{c}c"; ValueError otherwise. */
inline int64_t LayoutBlock(const KernelAttrs& attrs, const char* key) {
  std::string layout = attrs.GetString(key, "NCHW");
  if (layout.empty() || layout == "NCHW") return 0;
  int64_t block = 0;
  bool ok = layout.size() > 5 && layout.compare(0, 4, "NCHW") == 0 && layout.back() == 'c' && layout.size() < 12;
  for (size_t i = 4; ok && i + 1 < layout.size(); ++i) {
    ok = std::isdigit(static_cast<unsigned char>(layout[i])) != 0;
    block = block * 10 + (layout[i] - '0');
  }
  TVMLITE_CHECK_KIND(ok && block >= 1, ValueError)
      << attrs.kernel() << ": " << key << " '" << layout << "' is not supported (NCHW or NCHW<c>c, e.g. NCHW16c)";
  return block;
}

/*! \brief ValueError unless the optional "out_dtype" attr is absent, "" or "float32". */
inline void CheckFloat32OutDtype(const KernelAttrs& attrs) {
  const Any* v = attrs.map().get()->Find(Any(String("out_dtype")));
  if (v == nullptr) return;
  std::optional<String> s = v->as<String>();
  if (!s) return;  // a DataType object or None: the relation already checked it
  std::string dtype(*s);
  TVMLITE_CHECK_KIND(dtype.empty() || dtype == "float32", ValueError)
      << attrs.kernel() << ": out_dtype '" << dtype << "' is not supported (float32 only)";
}

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_NN_WINDOW_ATTRS_H_
