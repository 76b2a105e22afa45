/*!
 * \file layout_transform.cc
 * \brief topi.layout_transform: the kernel of relay's layout_transform (NCHW <-> NCHW{c}c, OIHW -> OIHW{i}i{o}o,
 * NK -> NK{n}n, ...), for any dtype (elements are moved by their size).
 *
 *   f = topi.layout_transform({"src_layout": "NCHW", "dst_layout": "NCHW16c"});  f(data, out)
 *   f = topi.layout_transform({..., "epilogue": "mul r0 in0 r0"});  f(data, scale, out)   (a float32 tail after it)
 *
 * Paths, picked per call from the layouts (fixed at the factory) and the element size:
 *  - NCHW -> NCHW{c}c and back (NCDHW <-> NCDHW{c}c likewise, D*H*W pixels): per (n, channel block) a
 *    (c, H*W) <-> (H*W, c) transpose, cut into tiles of kTile pixels so that both sides of a tile stay in L1; the c
 *    loop has a compile-time trip count for c = 4, 8, 16 (4-byte elements), which the compiler turns into vector
 *    loads / stores. Parallel over (n, block, tile).
 *    When c = 1 or H * W = 1 the two layouts are the same bytes: a parallel memcpy.
 *  - NCHW{a}c -> NCHW{b}c (NCDHW too): runs of gcd(a, b) channels per pixel, memcpy'd (a concatenate of mixed
 *    blocks).
 *  - anything else: the general index map (LayoutIndexMap, tvmlite/relay/layout.h): each output row (all dims
 *    but the last) computes its per-axis logical coordinates once, then the last dim walks one offset table, in
 *    runs of consecutive input elements when the map has them (re-blocking NCHW16c <-> NCHW8c copies runs of 8).
 *    Parallel over rows.
 * The output is written once, in order, so the kernel never reads what it writes (no aliasing assumptions).
 */
#include <tvmlite/relay/layout.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/kernel_accepts.h>

#include <algorithm>
#include <cstring>
#include <numeric>

namespace tvmlite {
namespace topi {

namespace {

using relay::Layout;
using relay::LayoutIndexMap;

constexpr int64_t kTile = 64;  // pixels per tile of the blocked fast paths

char* RawData(const TensorArg& t) { return static_cast<char*>(t.array()->tensor.data) + t.array()->tensor.byte_offset; }

/*!
 * \brief NCHW -> NCHW{c}c (to_blocked) or back, for one (n, block) pair and pixels [p0, p1). kC = 0: c at run
 * time. Both directions walk pixels outside and the c channels of a pixel inside (c contiguous values on the
 * blocked side; measured faster than the other order for both, single thread, 64 x 112 x 112: 0.34-0.37 ms packing,
 * 0.30 ms unpacking vs 0.29 ms for a plain copy of the same bytes) -- unless the c channel rows of the plain side
 * fall on a few L1 sets (channel_outer, see RowsAlias): then each pixel touches c lines of one set, evicting each
 * other before their next pixel, and the tile walks one channel row at a time instead (a 1-D conv's 128 x 2048
 * output: 0.46 -> 0.08 ms unpacking; 64 x 64 x 64: 1.06 -> 0.16 ms).
 */
template <typename T, int kC>
void BlockedTile(const T* in, T* out, int64_t c_rt, int64_t hw, int64_t p0, int64_t p1, bool to_blocked,
                 bool channel_outer) {
  const int64_t c = kC ? kC : c_rt;
  if (channel_outer) {
    for (int64_t ci = 0; ci < c; ++ci) {
      if (to_blocked) {
        const T* src = in + ci * hw;
        for (int64_t p = p0; p < p1; ++p) out[p * c + ci] = src[p];
      } else {
        T* dst = out + ci * hw;
        for (int64_t p = p0; p < p1; ++p) dst[p] = in[p * c + ci];
      }
    }
    return;
  }
  if (to_blocked) {
    for (int64_t p = p0; p < p1; ++p) {
      T* dst = out + p * c;
      for (int64_t ci = 0; ci < c; ++ci) dst[ci] = in[ci * hw + p];
    }
  } else {
    for (int64_t p = p0; p < p1; ++p) {
      const T* src = in + p * c;
      for (int64_t ci = 0; ci < c; ++ci) out[ci * hw + p] = src[ci];
    }
  }
}

/*!
 * \brief Whether c rows `stride` bytes apart crowd the L1's sets: more than 4 of them on one of its 64 sets of
 * 64-byte lines (the set index is address bits 6..11 on current x86 cores, whatever their size and ways). Plain
 * planes of 2^k pixels (and near them: 2047) put every row on one set; 56 x 56 spreads 16 rows over 16 sets.
 */
bool RowsAlias(int64_t c, int64_t stride) {
  int count[64] = {0};
  for (int64_t ci = 0; ci < c; ++ci) {
    if (++count[(ci * stride / 64) % 64] > 4) return true;
  }
  return false;
}

template <typename T>
void BlockedCopy(const char* in_raw, char* out_raw, int64_t pairs, int64_t c, int64_t hw, bool to_blocked) {
  const T* in = reinterpret_cast<const T*>(in_raw);
  T* out = reinterpret_cast<T*>(out_raw);
  const bool channel_outer = RowsAlias(c, hw * static_cast<int64_t>(sizeof(T)));
  auto body = [&](int64_t pair, int64_t p0, int64_t p1) {
    // Both layouts hold a (n, block) pair's c * hw elements contiguously, at the same place.
    const T* src = in + pair * c * hw;
    T* dst = out + pair * c * hw;
    if (sizeof(T) == 4 && c == 16) {
      BlockedTile<T, 16>(src, dst, c, hw, p0, p1, to_blocked, channel_outer);
    } else if (sizeof(T) == 4 && c == 8) {
      BlockedTile<T, 8>(src, dst, c, hw, p0, p1, to_blocked, channel_outer);
    } else if (sizeof(T) == 4 && c == 4) {
      BlockedTile<T, 4>(src, dst, c, hw, p0, p1, to_blocked, channel_outer);
    } else if (sizeof(T) == 4 && c == 3) {  // a stem's input (AlterOpLayout's NCHW3c)
      BlockedTile<T, 3>(src, dst, c, hw, p0, p1, to_blocked, channel_outer);
    } else {
      BlockedTile<T, 0>(src, dst, c, hw, p0, p1, to_blocked, channel_outer);
    }
  };
  runtime::ParallelTiles(pairs, hw, kTile, body, /*min_chunk=*/std::max<int64_t>(1, 16384 / (kTile * c)));
}

/*!
 * \brief The longest run r (a divisor of the last dst dim) such that every r consecutive elements of an output row,
 * from a multiple of r, are r consecutive elements of the input in every row: NCHW16c -> NCHW8c moves runs of 8,
 * NCHW8c -> NCHW16c runs of 8, NCHW -> NHWC runs of 1. Checked over every logical start a row can have (the
 * last primal axis's other dst axis, if any, gives them), so it is exact for the map, not a guess.
 */
int64_t RunLength(const LayoutIndexMap& map) {
  const std::vector<int64_t>& shape = map.dst_shape();
  const int nd = static_cast<int>(shape.size());
  const int64_t last = shape[nd - 1], step = map.dst_step()[nd - 1];
  const int primal = map.dst_primal()[nd - 1];
  const std::vector<int64_t>& table = map.tables()[primal];
  std::vector<int64_t> starts{0};
  for (int d = 0; d < nd - 1; ++d) {
    if (map.dst_primal()[d] != primal) continue;
    starts.clear();
    for (int64_t i = 0; i < shape[d]; ++i) starts.push_back(i * map.dst_step()[d]);
  }
  for (int64_t r = last; r >= 2; --r) {
    if (last % r != 0) continue;
    bool ok = true;
    for (size_t s = 0; ok && s < starts.size(); ++s) {
      for (int64_t j = 0; ok && j < last; ++j) {
        ok = j % r == 0 || table[starts[s] + j * step] == table[starts[s] + (j - 1) * step] + 1;
      }
    }
    if (ok) return r;
  }
  return 1;
}

/*! \brief The general path: out row by row through the index map, in runs of RunLength(map) elements. */
template <typename T>
void MappedCopy(const char* in_raw, char* out_raw, const LayoutIndexMap& map) {
  const std::vector<int64_t>& shape = map.dst_shape();
  const int nd = static_cast<int>(shape.size());
  const int64_t last = shape[nd - 1];
  int64_t rows = 1;
  for (int d = 0; d < nd - 1; ++d) rows *= shape[d];
  const int last_primal = map.dst_primal()[nd - 1];
  const int64_t last_step = map.dst_step()[nd - 1];
  const std::vector<std::vector<int64_t>>& tables = map.tables();
  const size_t num_primals = tables.size();
  const int64_t run = RunLength(map);
  auto body = [&](int64_t begin, int64_t end) {
    std::vector<int64_t> logical(num_primals), index(nd, 0);
    for (int64_t rest = begin, d = nd - 2; d >= 0; --d) {  // the first row's index; later rows count up
      index[d] = rest % shape[d];
      rest /= shape[d];
    }
    for (int64_t row = begin; row < end; ++row) {
      std::fill(logical.begin(), logical.end(), 0);
      for (int d = 0; d < nd - 1; ++d) logical[map.dst_primal()[d]] += index[d] * map.dst_step()[d];
      for (int d = nd - 2; d >= 0 && ++index[d] == shape[d]; --d) index[d] = 0;
      int64_t base = 0;
      for (size_t k = 0; k < num_primals; ++k) {
        if (static_cast<int>(k) != last_primal) base += tables[k][logical[k]];
      }
      const int64_t* table = tables[last_primal].data() + logical[last_primal];
      const T* in = reinterpret_cast<const T*>(in_raw) + base;
      T* out = reinterpret_cast<T*>(out_raw) + row * last;
      if (run == 1) {
        for (int64_t j = 0; j < last; ++j) out[j] = in[table[j * last_step]];
      } else {
        for (int64_t j = 0; j < last; j += run) std::memcpy(out + j, in + table[j * last_step], run * sizeof(T));
      }
    }
  };
  runtime::ParallelFor(rows, body, /*min_chunk=*/std::max<int64_t>(1, 16384 / std::max<int64_t>(1, last)));
}

/*! \brief Elements of other sizes: the same walk with memcpy. */
void MappedCopyBytes(const char* in, char* out, const LayoutIndexMap& map, size_t elem) {
  const std::vector<int64_t>& shape = map.dst_shape();
  int64_t total = 1;
  for (int64_t s : shape) total *= s;
  runtime::ParallelFor(
      total,
      [&](int64_t begin, int64_t end) {
        std::vector<int64_t> index(shape.size());
        for (int64_t flat = begin; flat < end; ++flat) {
          int64_t rest = flat;
          for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
            index[d] = rest % shape[d];
            rest /= shape[d];
          }
          std::memcpy(out + flat * elem, in + map.SrcOffset(index) * elem, elem);
        }
      },
      /*min_chunk=*/4096);
}

/*! \brief out = in, bytes long, in parallel chunks: the layouts that move nothing (NCHW1c, or H * W = 1). */
void ParallelCopy(const char* in, char* out, int64_t bytes) {
  constexpr int64_t kChunk = 1 << 16;
  runtime::ParallelFor((bytes + kChunk - 1) / kChunk,
                       [&](int64_t begin, int64_t end) {
                         int64_t lo = begin * kChunk, hi = std::min(bytes, end * kChunk);
                         std::memcpy(out + lo, in + lo, static_cast<size_t>(hi - lo));
                       },
                       /*min_chunk=*/4);
}

/*!
 * \brief NCHW{a}c -> NCHW{b}c: every output block of a pixel is b / r runs of r = gcd(a, b) consecutive input
 * channels of that pixel. Parallel over (n, output block) and pixel tiles.
 */
void Reblock(const char* in, char* out, int64_t batch, int64_t channels, int64_t hw, int64_t a, int64_t b,
             size_t elem) {
  const int64_t r = std::gcd(a, b), out_blocks = channels / b;
  const size_t run_bytes = static_cast<size_t>(r) * elem;
  runtime::ParallelTiles(
      batch * out_blocks, hw, kTile,
      [&](int64_t item, int64_t p0, int64_t p1) {
        int64_t n = item / out_blocks, ob = item % out_blocks;
        for (int64_t s = 0; s < b; s += r) {
          int64_t c = ob * b + s;  // the run's first channel
          const char* src = in + (((n * (channels / a) + c / a) * hw) * a + c % a) * elem;
          char* dst = out + (((n * out_blocks + ob) * hw) * b + s) * elem;
          for (int64_t p = p0; p < p1; ++p) std::memcpy(dst + p * b * elem, src + p * a * elem, run_bytes);
        }
      },
      /*min_chunk=*/std::max<int64_t>(1, 16384 / (kTile * b)));
}

/*!
 * \brief Which path a layout pair takes: the blocks of NCHW-family (or NCDHW-family: the same paths with D * H * W
 * pixels) layouts (0 = NCHW), or general.
 */
struct Plan {
  enum Kind { kGeneral, kPack, kUnpack, kReblock } kind = kGeneral;
  int64_t src_block = 0, dst_block = 0;
  int spatial = 2;  // spatial dims: 2 (NCHW) or 3 (NCDHW)
};

Plan MakePlan(const Layout& src, const Layout& dst) {
  for (const char* plain : {"NCHW", "NCDHW"}) {
    int64_t s = relay::ChannelFirstBlockOf(src.name(), plain), d = relay::ChannelFirstBlockOf(dst.name(), plain);
    Plan plan{Plan::kGeneral, s, d, static_cast<int>(std::strlen(plain)) - 2};
    if (s == 0 && d > 0) plan.kind = Plan::kPack;
    if (s > 0 && d == 0) plan.kind = Plan::kUnpack;
    if (s > 0 && d > 0 && s != d) plan.kind = Plan::kReblock;
    if (plan.kind != Plan::kGeneral) return plan;
  }
  return Plan{};
}

/*! \brief The pixels of one channel plane of an NCHW / NCDHW-family shape: the product of its spatial dims. */
int64_t Pixels(const std::vector<int64_t>& shape, int spatial) {
  int64_t p = 1;
  for (int i = 0; i < spatial; ++i) p *= shape[2 + i];
  return p;
}

/*! \brief The copy itself: data (in src) to out (in dst, of shape dst_shape), by the plan's path. */
void Transform(const Layout& src, const Layout& dst, const Plan& plan, const TensorArg& data, const TensorArg& out,
               const std::vector<int64_t>& dst_shape) {
  DLDataType dt = data.dtype();
  size_t elem = static_cast<size_t>(dt.bits / 8) * dt.lanes;
  const char* in = RawData(data);
  char* o = RawData(out);
  if (plan.kind == Plan::kReblock) {
    int64_t a = plan.src_block, b = plan.dst_block;
    return Reblock(in, o, data.dim(0), data.dim(1) * a, Pixels(data.shape(), plan.spatial), a, b, elem);
  }
  if (plan.kind != Plan::kGeneral) {
    bool to_blocked = plan.kind == Plan::kPack;
    int64_t c = to_blocked ? plan.dst_block : plan.src_block;
    const std::vector<int64_t>& blocked = to_blocked ? dst_shape : data.shape();
    int64_t pairs = blocked[0] * blocked[1], hw = Pixels(blocked, plan.spatial);
    if (c == 1 || hw == 1) return ParallelCopy(in, o, data.size() * static_cast<int64_t>(elem));
    switch (elem) {
      case 1: return BlockedCopy<uint8_t>(in, o, pairs, c, hw, to_blocked);
      case 2: return BlockedCopy<uint16_t>(in, o, pairs, c, hw, to_blocked);
      case 4: return BlockedCopy<uint32_t>(in, o, pairs, c, hw, to_blocked);
      case 8: return BlockedCopy<uint64_t>(in, o, pairs, c, hw, to_blocked);
      default: break;
    }
  }
  LayoutIndexMap map(src, dst, data.shape());
  switch (elem) {
    case 1: return MappedCopy<uint8_t>(in, o, map);
    case 2: return MappedCopy<uint16_t>(in, o, map);
    case 4: return MappedCopy<uint32_t>(in, o, map);
    case 8: return MappedCopy<uint64_t>(in, o, map);
    default: return MappedCopyBytes(in, o, map, elem);
  }
}

/*!
 * \brief A fused tail (an elementwise op after the transform, e.g. a squeeze-excite's multiply in the target
 * layout) over the n outputs at y, after the copy, in parallel blocks.
 */
void ApplyOver(const BoundEpilogue& epi, float* y, int64_t n) {
  constexpr int64_t kBlock = 4096;
  runtime::ParallelFor((n + kBlock - 1) / kBlock, [&](int64_t b0, int64_t b1) {
    int64_t begin = b0 * kBlock, end = std::min(n, b1 * kBlock);
    epi.Apply(y, begin, end - begin);
  });
}

}  // namespace

/*! \brief out has data's dtype, of whole bytes: what the copy takes. */
std::string DTypesReason(const std::string& kernel, DLDataType dt, DLDataType out) {
  if (!SameDType(dt, out)) return kernel + ": out must have data's dtype";
  if (dt.bits % 8 == 0 && dt.bits > 0) return "";
  return kernel + ": elements of " + std::to_string(dt.bits) + " bits are not supported (whole bytes only)";
}

TVMLITE_REGISTER_GLOBAL("topi.layout_transform").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.layout_transform";
  KernelAttrs attrs(kName, attrs_in);
  std::string src_name = attrs.GetString("src_layout"), dst_name = attrs.GetString("dst_layout");
  std::optional<Layout> src, dst;
  try {
    src.emplace(src_name);
    dst.emplace(dst_name);
    relay::CheckConvertible(*src, *dst);
  } catch (const runtime::Error& err) {
    throw runtime::Error(err.kind(), kName + ": " + err.message());
  }
  Plan plan = MakePlan(*src, *dst);
  Epilogue epi = attrs.GetEpilogue();
  return MakeKernel(kName, 2 + epi.num_inputs(), [src = *src, dst = *dst, plan, epi](const KernelArgs& args) {
    TVMLITE_CHECK_KIND(args.size() == 2 + epi.num_inputs(), TypeError)
        << args.kernel() << ": expected " << 2 + epi.num_inputs() << " tensor arguments (data, " << epi.num_inputs()
        << " epilogue inputs, out), got " << args.size();
    TensorArg data = args.Input(0, "data");
    TensorArg out = args.Output();
    const std::string reason = DTypesReason(args.kernel(), data.dtype(), out.dtype());
    TVMLITE_CHECK_KIND(reason.empty(), TypeError) << reason;
    if (data.ndim() != static_cast<int>(src.ndim())) {
      data.Fail("must have rank " + std::to_string(src.ndim()) + " (layout " + src.name() + ")");
    }
    std::vector<int64_t> dst_shape;
    try {
      dst_shape = relay::TransformShape(src, dst, data.shape());
    } catch (const runtime::Error& err) {
      throw runtime::Error(err.kind(), args.kernel() + ": " + err.message());
    }
    out.CheckShape(dst_shape);
    // Checked and bound before the copy: a bad epilogue input fails before out is written.
    float* y = epi.empty() ? nullptr : out.Data<float>();  // the epilogue computes in float32
    BoundEpilogue bound = epi.empty() ? BoundEpilogue() : epi.Bind(dst_shape, args.Rest(1), args.kernel());
    if (data.size() == 0) return;  // before any table: an empty tensor may have huge dims
    Transform(src, dst, plan, data, out, dst_shape);
    if (y != nullptr) ApplyOver(bound, y, out.size());
  });
});

// run(data, [epilogue inputs], out): the epilogue's checks, DTypesReason, and data of src_layout's rank.
std::string LayoutTransformAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  TVMLITE_ACCEPTS_CHECK(CheckArity(attrs, t, 1));
  TVMLITE_ACCEPTS_CHECK(DTypesReason(attrs.kernel(), t[0].dtype, t.back().dtype));
  const Layout src(attrs.GetString("src_layout"));
  if (t[0].ndim == static_cast<int64_t>(src.ndim())) return "";
  return attrs.kernel() + ": data must have rank " + std::to_string(src.ndim()) + " (layout " + src.name() + ")";
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.layout_transform", LayoutTransformAccepts);

}  // namespace topi
}  // namespace tvmlite
