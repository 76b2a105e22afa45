/*!
 * \file tvmlite/runtime/threading.h
 * \brief The one thread pool every kernel uses.
 *
 *   runtime::ParallelFor(rows, [&](int64_t begin, int64_t end) { for (int64_t r = begin; r < end; ++r) ...; });
 *
 * [0, n) is cut into at most NumThreads() contiguous ranges, one per thread, the calling thread included, and each
 * range into at most 8 pieces; f runs once per piece, a thread's own pieces in order (consecutive calls on a thread
 * usually continue each other), and a thread done with its range runs the last pieces of another's (so a thread the
 * OS stalls holds up the call by its current piece only). The call returns when every piece is done. The pool
 * starts at first use with TVMLITE_NUM_THREADS threads (default: the cores this process may run on). A ParallelFor
 * issued from inside a piece, or while another thread's ParallelFor holds the pool, runs inline on its caller:
 * concurrent callers are correct and never wait on each other. An exception thrown by a piece is rethrown by
 * ParallelFor (the first one; other pieces still run to completion).
 */
#ifndef TVMLITE_RUNTIME_THREADING_H_
#define TVMLITE_RUNTIME_THREADING_H_

#include <cstdint>

namespace tvmlite {
namespace runtime {

/*! \brief Threads a ParallelFor uses now (>= 1). */
int NumThreads();
/*!
 * \brief Use n threads from now on (n >= 1; 0 restores the default). Benchmarks compare thread counts in one run
 * with it; it waits for a ParallelFor in flight to finish.
 */
void SetNumThreads(int n);
/*! \brief Threads the machine offers this process (its CPU affinity), the default of NumThreads(). */
int MaxConcurrency();

namespace detail {
using ChunkFn = void (*)(void* ctx, int64_t begin, int64_t end);
void ParallelLaunch(int64_t n, ChunkFn fn, void* ctx, int64_t min_chunk);
}  // namespace detail

/*!
 * \brief Run f(begin, end) over a partition of [0, n) on the pool.
 * \param min_chunk the least items worth a thread, and of a piece: fewer than 2 * min_chunk items run inline.
 */
template <typename F>
void ParallelFor(int64_t n, const F& f, int64_t min_chunk = 1) {
  if (n <= 0) return;
  detail::ParallelLaunch(
      n, [](void* ctx, int64_t begin, int64_t end) { (*static_cast<const F*>(ctx))(begin, end); }, const_cast<F*>(&f),
      min_chunk);
}

/*!
 * \brief ParallelFor over rows of len items each, every row cut into tiles of tile items (the last one shorter): the
 * rows * ceil(len / tile) tiles are the pool's items, and f(row, begin, end) runs once per tile ([begin, end) within
 * the row), a piece's tiles in order. For kernels whose rows are too few, or too long, to share the threads alone.
 *
 *   runtime::ParallelTiles(outer, inner, 512, [&](int64_t o, int64_t i0, int64_t i1) { ... }, min_chunk);
 *
 * \param min_chunk as ParallelFor's, in tiles.
 */
template <typename F>
void ParallelTiles(int64_t rows, int64_t len, int64_t tile, const F& f, int64_t min_chunk = 1) {
  if (len <= 0 || tile <= 0) return;
  const int64_t tiles = (len + tile - 1) / tile;
  ParallelFor(
      rows * tiles,
      [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t row = t / tiles, begin = (t % tiles) * tile;
          f(row, begin, begin + tile < len ? begin + tile : len);
        }
      },
      min_chunk);
}

}  // namespace runtime
}  // namespace tvmlite
#endif  // TVMLITE_RUNTIME_THREADING_H_
