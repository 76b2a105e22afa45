/*!
 * \file topi/transform/injective.h
 * \brief What the injective kernels (concatenate, transpose, take, strided_slice, pad, copy, cast, where) share:
 * moving elements by their byte size (the dtype only matters for checks), the optional epilogue on float32
 * outputs, and the walk of the output by rows on the thread pool.
 *
 *   Epilogue epi = attrs.GetEpilogue();                                 // factory
 *   BoundEpilogue bound = injective::BindEpilogue(epi, out, args, k);   // call: extra inputs start at args[k]
 *   injective::ForRows(rows, row_elems, esize, out, bound, [&](int64_t r0, int64_t r1) { ...rows r0..r1... });
 *
 * Every kernel writes its output row-major and contiguous, so a range of output rows is a flat range the epilogue
 * can run on while it is in cache (ForRows applies it every ~16 KB).
 */
#ifndef TVMLITE_TOPI_TRANSFORM_INJECTIVE_H_
#define TVMLITE_TOPI_TRANSFORM_INJECTIVE_H_

#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/kernel_accepts.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tvmlite {
namespace topi {
namespace injective {

/*! \brief Bytes per element of t: 1, 2, 4 or 8 (TypeError naming the kernel for other dtypes). */
int ElemBytes(const TensorArg& t, const std::string& kernel);
/*! \brief A 0-d or 1-d int32/int64 tensor's values (a shape, bounds): ValueError / TypeError naming the kernel. */
std::vector<int64_t> IntValues(const TensorArg& t, const std::string& kernel);
/*! \brief t's data as bytes (no dtype check). */
inline char* Bytes(const TensorArg& t) {
  const DLTensor& d = t.array()->tensor;
  return static_cast<char*>(d.data) + d.byte_offset;
}
/*! \brief TypeError unless a and b have the same dtype. */
void CheckSameDType(const TensorArg& a, const TensorArg& b, const std::string& kernel);
/*! \brief Whether indices is int64 (else int32); TypeError naming the kernel for other dtypes (IndexReason). */
bool WideIndices(const TensorArg& indices, const std::string& kernel);
/*! \brief ValueError naming the kernel unless data and indices agree on their first batch_dims dims. */
void CheckBatchDims(const std::vector<int64_t>& data_shape, const std::vector<int64_t>& indices_shape,
                    int64_t batch_dims, const std::string& kernel);
/*! \brief axis in [-ndim, ndim) made non-negative; ValueError naming the kernel otherwise. */
int NormalizeAxis(int64_t axis, int ndim, const std::string& kernel, const char* what = "axis");
int64_t Product(const std::vector<int64_t>& shape, size_t begin, size_t end);

/*! \brief Bind to this call's out (float32 required when the program is not empty) and args[first_extra..]. */
BoundEpilogue BindEpilogue(const Epilogue& epi, const TensorArg& out, const KernelArgs& args, int first_extra);

/*!
 * \brief The bound kernel of an indexing kernel (gather, gather_nd, take), run(data, indices, [epilogue inputs], out):
 * checks out has data's dtype and indices are int32 or int64, then body(args, data, indices, out, wide), wide for
 * int64 indices. The epilogue's inputs are counted here; body binds it.
 */
template <typename F>
Function MakeIndexingKernel(const std::string& kernel, const Epilogue& epi, F body) {
  return MakeKernel(kernel, 3 + epi.num_inputs(), [kernel, body](const KernelArgs& args) {
    TensorArg data = args.Input(0, "data"), indices = args.Input(1, "indices"), out = args.Output();
    CheckSameDType(data, out, kernel);
    body(args, data, indices, out, WideIndices(indices, kernel));
  });
}

/*! \brief Why a kernel that moves in's elements into out refuses them: out's dtype is not in's, or not 1-8 bytes. */
std::string MovedDTypeReason(const std::string& kernel, DLDataType in, DLDataType out);
/*! \brief Why an indexing kernel refuses t, run(data, indices, [epilogue inputs], out): MakeIndexingKernel's checks. */
std::string IndexingReason(const KernelAttrs& attrs, const std::vector<TensorSig>& t);

/*! \brief n elements of esize bytes, src stepping by src_stride bytes, to contiguous dst. */
void GatherElems(char* dst, const char* src, int64_t n, int64_t src_stride, int esize);

/*!
 * \brief ParallelFor over rows output rows of row_elems elements (esize bytes each): body(r0, r1) writes rows
 * [r0, r1); the epilogue (if any) then runs on them while they are in cache.
 */
template <typename F>
void ForRows(int64_t rows, int64_t row_elems, int esize, const TensorArg& out, const BoundEpilogue& epi,
             const F& body) {
  constexpr int64_t kBlockBytes = 16384;
  const int64_t row_bytes = std::max<int64_t>(row_elems * esize, 1);
  const int64_t block = std::max<int64_t>(1, kBlockBytes / row_bytes);
  float* y = epi.empty() ? nullptr : reinterpret_cast<float*>(Bytes(out));
  runtime::ParallelFor(
      rows,
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; r += block) {
          int64_t e = std::min(r1, r + block);
          body(r, e);
          if (y) epi.Apply(y, r * row_elems, (e - r) * row_elems);
        }
      },
      /*min_chunk=*/std::max<int64_t>(1, 4 * kBlockBytes / row_bytes));
}

/*! \brief ForRows over a flat range of n elements: body(begin, end) writes elements [begin, end). */
template <typename F>
void ForFlat(int64_t n, int esize, const TensorArg& out, const BoundEpilogue& epi, const F& body) {
  constexpr int64_t kBlock = 4096;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  float* y = epi.empty() ? nullptr : reinterpret_cast<float*>(Bytes(out));
  runtime::ParallelFor(
      blocks,
      [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          int64_t begin = b * kBlock, end = std::min(n, begin + kBlock);
          body(begin, end);
          if (y) epi.Apply(y, begin, end - begin);
        }
      },
      /*min_chunk=*/std::max<int64_t>(1, 16 / esize));
}

/*!
 * \brief Merge dim d into d - 1 when every operand walks the two as one (strides[k][d - 1] == strides[k][d] *
 * shape[d], both broadcast counting as one too) and drop unit dims; the output itself is contiguous, so always
 * merges. Leaves at least one dim. Returns false when a dim is 0 (nothing to do).
 */
bool CollapseDims(std::vector<int64_t>* shape, std::vector<std::vector<int64_t>*> strides);

/*!
 * \brief t's element strides over out_shape (numpy broadcasting, aligned right; 0 on broadcast dims); ValueError
 * naming the kernel and the argument when t does not broadcast.
 */
std::vector<int64_t> BroadcastStrides(const TensorArg& t, const std::vector<int64_t>& out_shape,
                                      const std::string& kernel, const char* name);

/*!
 * \brief out (contiguous, shape) = the elements of src at byte offsets sum_d i_d * src_strides[d]; dims that are
 * contiguous in src merge first, and a unit inner stride copies rows with memcpy. A stride may be negative or 0.
 */
void StridedCopy(const TensorArg& out, const char* src, std::vector<int64_t> shape, std::vector<int64_t> src_strides,
                 int esize, const BoundEpilogue& epi);

}  // namespace injective
}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_TRANSFORM_INJECTIVE_H_
