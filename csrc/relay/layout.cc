/*!
 * \file layout.cc
 * \brief Layout parsing and the src -> dst shape and index mapping (tvmlite/relay/layout.h), plus the globals
 * Python reaches them through: relay._layout.ParseLayout (name -> [(axis, factor)...]) and
 * relay._layout.TransformShape (src, dst, shape -> shape).
 */
#include <tvmlite/relay/layout.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/reflection.h>

#include <algorithm>

namespace tvmlite {
namespace relay {

using runtime::Any;
using runtime::Array;

namespace {

bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

/*! \brief Factors beyond this are refused (keeps every product of factors and dims in int64). */
constexpr int64_t kMaxFactor = int64_t(1) << 31;

}  // namespace

Layout::Layout(std::string name) : name_(std::move(name)) {
  const std::string& s = name_;
  TVMLITE_CHECK_KIND(!s.empty(), ValueError) << "layout: the layout string is empty";
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (IsUpper(c)) {
      axes_.push_back({c, 0});
      ++i;
      continue;
    }
    TVMLITE_CHECK_KIND(IsDigit(c), ValueError)
        << "layout '" << s << "': unknown character '" << c << "' at position " << i
        << " (axes are uppercase letters, sub-axes <factor><lowercase letter>)";
    int64_t factor = 0;
    size_t start = i;
    while (i < s.size() && IsDigit(s[i])) {
      factor = factor * 10 + (s[i] - '0');
      TVMLITE_CHECK_KIND(factor <= kMaxFactor, ValueError)
          << "layout '" << s << "': the factor at position " << start << " is larger than " << kMaxFactor;
      ++i;
    }
    TVMLITE_CHECK_KIND(i < s.size() && IsLower(s[i]), ValueError)
        << "layout '" << s << "': the factor at position " << start
        << " must be followed by a lowercase sub-axis letter";
    TVMLITE_CHECK_KIND(factor > 0, ValueError)
        << "layout '" << s << "': sub-axis '" << s[i] << "' has factor " << factor << ", must be > 0";
    axes_.push_back({s[i], factor});
    ++i;
  }
  for (size_t a = 0; a < axes_.size(); ++a) {
    for (size_t b = a + 1; b < axes_.size(); ++b) {
      TVMLITE_CHECK_KIND(axes_[a].name != axes_[b].name, ValueError)
          << "layout '" << s << "': axis '" << axes_[a].name << "' appears twice";
    }
    if (!axes_[a].primal()) {
      TVMLITE_CHECK_KIND(IndexOf(axes_[a].primal_name()) >= 0, ValueError)
          << "layout '" << s << "': sub-axis '" << axes_[a].name << "' has no primal axis '" << axes_[a].primal_name()
          << "'";
    }
  }
}

int Layout::IndexOf(char axis) const {
  for (size_t i = 0; i < axes_.size(); ++i) {
    if (axes_[i].name == axis) return static_cast<int>(i);
  }
  return -1;
}

int64_t Layout::FactorOf(char primal) const {
  int i = IndexOf(static_cast<char>(primal - 'A' + 'a'));
  return i < 0 ? 0 : axes_[i].factor;
}

std::string Layout::PrimalAxes() const {
  std::string out;
  for (const LayoutAxis& a : axes_) {
    if (a.primal()) out.push_back(a.name);
  }
  return out;
}

void CheckConvertible(const Layout& src, const Layout& dst) {
  std::string a = src.PrimalAxes(), b = dst.PrimalAxes();
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  TVMLITE_CHECK_KIND(a == b, ValueError) << "layouts '" << src.name() << "' and '" << dst.name()
                                         << "' do not have the same primal axes";
}

std::vector<int64_t> LogicalExtents(const Layout& layout, const std::vector<int64_t>& shape) {
  TVMLITE_CHECK_KIND(shape.size() == layout.ndim(), ValueError)
      << "a tensor of rank " << shape.size() << " cannot have layout '" << layout.name() << "' (" << layout.ndim()
      << " axes)";
  std::string primals = layout.PrimalAxes();
  std::vector<int64_t> out;
  for (char p : primals) {
    int64_t outer = shape[layout.IndexOf(p)];
    int64_t factor = layout.FactorOf(p);
    if (factor == 0 || outer < 0) {
      out.push_back(outer);
      continue;
    }
    int64_t inner = shape[layout.IndexOf(static_cast<char>(p - 'A' + 'a'))];
    TVMLITE_CHECK_KIND(inner < 0 || inner == factor, ValueError)
        << "sub-axis '" << static_cast<char>(p - 'A' + 'a') << "' of layout '" << layout.name() << "' has factor "
        << factor << " but the tensor's dim is " << inner;
    int64_t logical;
    TVMLITE_CHECK_KIND(!__builtin_mul_overflow(outer, factor, &logical), ValueError)
        << "the logical extent of axis '" << p << "' overflows int64";
    out.push_back(logical);
  }
  return out;
}

std::vector<int64_t> TransformShape(const Layout& src, const Layout& dst, const std::vector<int64_t>& shape) {
  CheckConvertible(src, dst);
  std::vector<int64_t> logical = LogicalExtents(src, shape);
  std::string primals = src.PrimalAxes();
  std::vector<int64_t> out;
  for (const LayoutAxis& a : dst.axes()) {
    char p = a.primal_name();
    int64_t extent = logical[primals.find(p)];
    int64_t factor = dst.FactorOf(p);
    if (!a.primal()) {
      out.push_back(a.factor);
    } else if (factor == 0 || extent < 0) {
      out.push_back(extent);
    } else {
      TVMLITE_CHECK_KIND(extent % factor == 0, ValueError)
          << "axis '" << p << "' of extent " << extent << " (layout '" << src.name()
          << "', shape dim) is not divisible by the factor " << factor << " of layout '" << dst.name() << "'";
      out.push_back(extent / factor);
    }
  }
  return out;
}

LayoutIndexMap::LayoutIndexMap(const Layout& src, const Layout& dst, const std::vector<int64_t>& src_shape) {
  dst_shape_ = TransformShape(src, dst, src_shape);
  std::string primals = src.PrimalAxes();
  std::vector<int64_t> logical = LogicalExtents(src, src_shape);
  std::vector<int64_t> strides(src_shape.size(), 1);
  for (int i = static_cast<int>(src_shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * src_shape[i + 1];
  tables_.resize(primals.size());
  for (size_t k = 0; k < primals.size(); ++k) {
    char p = primals[k];
    int64_t factor = src.FactorOf(p);
    int64_t outer_stride = strides[src.IndexOf(p)];
    int64_t inner_stride = factor ? strides[src.IndexOf(static_cast<char>(p - 'A' + 'a'))] : 0;
    std::vector<int64_t>& t = tables_[k];
    t.resize(static_cast<size_t>(logical[k]));
    for (int64_t l = 0; l < logical[k]; ++l) {
      t[l] = factor ? (l / factor) * outer_stride + (l % factor) * inner_stride : l * outer_stride;
    }
  }
  for (const LayoutAxis& a : dst.axes()) {
    dst_primal_.push_back(static_cast<int>(primals.find(a.primal_name())));
    int64_t factor = dst.FactorOf(a.primal_name());
    dst_step_.push_back(a.primal() && factor ? factor : 1);
  }
}

int64_t LayoutIndexMap::SrcOffset(const std::vector<int64_t>& dst_index) const {
  std::vector<int64_t> logical(tables_.size(), 0);
  for (size_t d = 0; d < dst_index.size(); ++d) logical[dst_primal_[d]] += dst_index[d] * dst_step_[d];
  int64_t off = 0;
  for (size_t k = 0; k < tables_.size(); ++k) off += tables_[k][logical[k]];
  return off;
}

std::string BlockedNCHW(int64_t block) { return BlockedChannelFirst("NCHW", block); }

int64_t NCHWBlockOf(const std::string& layout) { return ChannelFirstBlockOf(layout, "NCHW"); }

std::string BlockedChannelFirst(const std::string& plain, int64_t block) {
  return block > 0 ? plain + std::to_string(block) + "c" : plain;
}

int64_t ChannelFirstBlockOf(const std::string& layout, const std::string& plain) {
  if (layout == plain) return 0;
  const size_t n = plain.size();
  if (layout.size() < n + 2 || layout.compare(0, n, plain) != 0 || layout.back() != 'c') return -1;
  int64_t block = 0;
  for (size_t i = n; i + 1 < layout.size(); ++i) {
    if (!IsDigit(layout[i]) || block > kMaxFactor) return -1;
    block = block * 10 + (layout[i] - '0');
  }
  return block > 0 ? block : -1;
}

TVMLITE_STATIC_INIT_BLOCK({ TVMLITE_REFLECT_FIELDS(LayoutTransformAttrs, src_layout, dst_layout); });

TVMLITE_REGISTER_GLOBAL("relay._layout.ParseLayout").set_body_typed([](std::string name) {
  Layout layout(std::move(name));
  Array<Any> out;
  for (const LayoutAxis& a : layout.axes()) {
    out.push_back(Array<Any>{Any(runtime::String(std::string(1, a.name))), Any(a.factor)});
  }
  return out;
});

TVMLITE_REGISTER_GLOBAL("relay._layout.TransformShape")
    .set_body_typed([](std::string src, std::string dst, Array<int64_t> shape) {
      std::vector<int64_t> s;
      for (size_t i = 0; i < shape.size(); ++i) s.push_back(shape[i]);
      for (int64_t d : s) TVMLITE_CHECK_KIND(d >= 0, ValueError) << "negative dim " << d;
      std::vector<int64_t> out = TransformShape(Layout(src), Layout(dst), s);
      return Array<int64_t>(out.begin(), out.end());
    });

}  // namespace relay
}  // namespace tvmlite
