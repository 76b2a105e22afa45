/*!
 * \file gemm.cc
 * \brief AVX2 + FMA micro-kernels of the GEMM family (tvmlite/topi/nn/gemm.h): a register tile of up to 6 rows x
 * 2 ymm (16 columns) over packed panels (12 accumulators of the 16 ymm), and the dot-product rows of nn.dense's
 * matrix-vector path. Same structure as the AVX-512 file; see there.
 */
#include <immintrin.h>

#include <tvmlite/topi/nn/gemm.h>

namespace tvmlite {
namespace topi {
namespace gemm {
namespace {

template <int R, int V>
void Micro(const Tile& t) {
  __m256 acc[R][V];
  const float* bp[V];
  for (int v = 0; v < V; ++v) bp[v] = t.b + (v * 8 / t.nb) * t.panel + (v * 8) % t.nb;
  const float* ap[R];
  for (int r = 0; r < R; ++r) ap[r] = t.a + r * t.lda;
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v) {
      acc[r][v] = t.accumulate ? _mm256_loadu_ps(t.c + r * t.ldc + v * 8) : _mm256_setzero_ps();
    }
  }
  const int64_t nb = t.nb;
  for (int64_t k = 0; k < t.k; ++k) {
    __m256 b[V];
    for (int v = 0; v < V; ++v) b[v] = _mm256_loadu_ps(bp[v] + k * nb);
    for (int r = 0; r < R; ++r) {
      __m256 a = _mm256_broadcast_ss(ap[r] + k);
      for (int v = 0; v < V; ++v) acc[r][v] = _mm256_fmadd_ps(a, b[v], acc[r][v]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v) _mm256_storeu_ps(t.c + r * t.ldc + v * 8, acc[r][v]);
  }
}

using MicroFn = void (*)(const Tile&);

template <int R>
constexpr MicroFn kRow[2] = {Micro<R, 1>, Micro<R, 2>};

constexpr const MicroFn* kTable[6] = {kRow<1>, kRow<2>, kRow<3>, kRow<4>, kRow<5>, kRow<6>};

float HSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

/*! \brief y[0:4] for one x row against the w rows w0..w3 (each k long), two accumulators per w row. */
void Dot1x4(const float* x, const float* w, int64_t k, float* y) {
  __m256 s[4][2];
  for (int j = 0; j < 4; ++j) s[j][0] = s[j][1] = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= k; i += 16) {
    __m256 a0 = _mm256_loadu_ps(x + i), a1 = _mm256_loadu_ps(x + i + 8);
    for (int j = 0; j < 4; ++j) {
      s[j][0] = _mm256_fmadd_ps(a0, _mm256_loadu_ps(w + j * k + i), s[j][0]);
      s[j][1] = _mm256_fmadd_ps(a1, _mm256_loadu_ps(w + j * k + i + 8), s[j][1]);
    }
  }
  for (; i + 8 <= k; i += 8) {
    __m256 a = _mm256_loadu_ps(x + i);
    for (int j = 0; j < 4; ++j) s[j][0] = _mm256_fmadd_ps(a, _mm256_loadu_ps(w + j * k + i), s[j][0]);
  }
  for (int j = 0; j < 4; ++j) {
    float tail = 0;
    for (int64_t q = i; q < k; ++q) tail += x[q] * w[j * k + q];
    y[j] = HSum(_mm256_add_ps(s[j][0], s[j][1])) + tail;
  }
}

float Dot(const float* x, const float* w, int64_t k) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= k; i += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(w + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(w + i + 8), s1);
  }
  float tail = 0;
  for (; i < k; ++i) tail += x[i] * w[i];
  return HSum(_mm256_add_ps(s0, s1)) + tail;
}

}  // namespace

void GemmTileAVX2(const Tile& t) { kTable[t.rows - 1][t.cols / 8 - 1](t); }

void DotRowsAVX2(const float* x, int64_t m, const float* w, int64_t n, int64_t k, float* y, int64_t ldy) {
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    for (int64_t i = 0; i < m; ++i) Dot1x4(x + i * k, w + j * k, k, y + i * ldy + j);
  }
  for (; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) y[i * ldy + j] = Dot(x + i * k, w + j * k, k);
  }
}

}  // namespace gemm
}  // namespace topi
}  // namespace tvmlite
