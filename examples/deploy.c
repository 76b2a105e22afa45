/*
 * Run a model exported from Python on .npy inputs, from C, without Python (tvmlite/c_executor_api.h).
 *
 *   python:  lib = tvmlite.build(mod, target="cpu", params=params); lib.export_library("model.tvmlite")
 *   build:   gcc -O2 examples/deploy.c -Icsrc/include -Ltvmlite/lib -ltvmlite -Wl,-rpath,$PWD/tvmlite/lib -o deploy
 *   run:     ./deploy model.tvmlite OUT_DIR input0.npy [input1.npy ...]
 *
 * Inputs are the model's, in order, as .npy files (little-endian, C order, the input's dtype; their shapes give the
 * model's dynamic dims). Each output is written to OUT_DIR/output<i>.npy, and its name, dtype and shape printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvmlite/c_executor_api.h"

/* The .npy dtype string of a DLDataType ("<f4"), or NULL for one .npy cannot spell. */
static const char* NpyDescr(DLDataType t) {
  if (t.lanes != 1) return NULL;
  if (t.code == kDLFloat && t.bits == 32) return "<f4";
  if (t.code == kDLFloat && t.bits == 64) return "<f8";
  if (t.code == kDLFloat && t.bits == 16) return "<f2";
  if (t.code == kDLInt && t.bits == 64) return "<i8";
  if (t.code == kDLInt && t.bits == 32) return "<i4";
  if (t.code == kDLInt && t.bits == 16) return "<i2";
  if (t.code == kDLInt && t.bits == 8) return "|i1";
  if (t.code == kDLUInt && t.bits == 8) return "|u1";
  if (t.code == kDLBool && t.bits == 8) return "|b1";
  return NULL;
}

static int64_t NumBytes(const DLTensor* t) {
  int64_t n = (t->dtype.bits + 7) / 8;
  for (int i = 0; i < t->ndim; ++i) n *= t->shape[i];
  return n;
}

/* Read a .npy file into a tensor (data and shape malloc'ed); 0 on success, else prints why and returns -1. */
static int ReadNpy(const char* path, DLDataType want, DLTensor* out) {
  FILE* f = fopen(path, "rb");
  unsigned char pre[10];
  if (!f || fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0 || pre[6] != 1) {
    fprintf(stderr, "%s: not a version 1 .npy file\n", path);
    if (f) fclose(f);
    return -1;
  }
  size_t hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
  char* header = (char*)calloc(hlen + 1, 1);
  int ok = header && fread(header, 1, hlen, f) == hlen;
  const char* descr = NpyDescr(want);
  const char* d = ok ? strstr(header, "'descr': '") : NULL;
  const char* s = ok ? strstr(header, "'shape': (") : NULL;
  ok = d && s && descr && strncmp(d + 10, descr, 3) == 0 && strstr(header, "'fortran_order': False");
  if (!ok) {
    fprintf(stderr, "%s: expected a C-order array of dtype %s\n", path, descr ? descr : "(unsupported)");
    free(header);
    fclose(f);
    return -1;
  }
  int64_t* shape = (int64_t*)malloc(32 * sizeof(int64_t));
  int ndim = 0;
  for (char* p = (char*)s + 10; *p != ')' && ndim < 32;) {
    char* end;
    long long v = strtoll(p, &end, 10);
    if (end == p) break;
    shape[ndim++] = v;
    p = end;
    while (*p == ',' || *p == ' ' || *p == 'L') ++p;
  }
  free(header);
  memset(out, 0, sizeof(*out));
  out->device.device_type = kDLCPU;
  out->dtype = want;
  out->ndim = ndim;
  out->shape = shape;
  int64_t nbytes = NumBytes(out);
  out->data = malloc(nbytes ? (size_t)nbytes : 1);
  if (fread(out->data, 1, (size_t)nbytes, f) != (size_t)nbytes) {
    fprintf(stderr, "%s: truncated\n", path);
    fclose(f);
    return -1;
  }
  fclose(f);
  return 0;
}

static int WriteNpy(const char* path, const DLTensor* t) {
  char header[256], dims[200] = "";
  for (int i = 0; i < t->ndim; ++i) {
    size_t len = strlen(dims);
    snprintf(dims + len, sizeof(dims) - len, "%lld%s", (long long)t->shape[i], t->ndim == 1 ? "," : ", ");
  }
  if (t->ndim > 1) dims[strlen(dims) - 2] = '\0';
  int n = snprintf(header, sizeof(header), "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                   NpyDescr(t->dtype), dims);
  int total = (10 + n + 1 + 63) / 64 * 64; /* header padded with spaces, ending in '\n' */
  FILE* f = fopen(path, "wb");
  if (!f) return -1;
  unsigned char pre[10] = {
      0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)((total - 10) & 255), (unsigned char)((total - 10) >> 8)};
  fwrite(pre, 1, 10, f);
  fwrite(header, 1, (size_t)n, f);
  for (int i = 10 + n; i < total - 1; ++i) fputc(' ', f);
  fputc('\n', f);
  size_t nbytes = (size_t)NumBytes(t);
  int ok = fwrite(t->data, 1, nbytes, f) == nbytes;
  return fclose(f) == 0 && ok ? 0 : -1;
}

#define CHECK(call)                                                          \
  if ((call) != 0) {                                                         \
    fprintf(stderr, "%s failed: %s\n", #call, TVMLiteGetLastErrorMessage()); \
    return 1;                                                                \
  }

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MODEL OUT_DIR [INPUT.npy ...]\n", argv[0]);
    return 2;
  }
  TVMLiteModel* model;
  TVMLiteExecutor* ex;
  int32_t num_inputs, num_outputs;
  CHECK(TVMLiteModelLoad(argv[1], &model));
  CHECK(TVMLiteModelNumInputs(model, &num_inputs));
  CHECK(TVMLiteModelNumOutputs(model, &num_outputs));
  if (argc - 3 != num_inputs) {
    fprintf(stderr, "%s takes %d inputs, got %d\n", argv[1], num_inputs, argc - 3);
    return 2;
  }
  CHECK(TVMLiteExecutorCreate(model, &ex));
  for (int32_t i = 0; i < num_inputs; ++i) {
    TVMLiteTensorInfo info;
    DLTensor x;
    CHECK(TVMLiteModelInputInfo(model, i, &info));
    if (ReadNpy(argv[3 + i], info.dtype, &x) != 0) return 1;
    CHECK(TVMLiteExecutorSetInput(ex, i, &x)); /* copied: x may go */
    free(x.data);
    free(x.shape);
  }
  CHECK(TVMLiteExecutorRun(ex));
  for (int32_t i = 0; i < num_outputs; ++i) {
    const DLTensor* y;
    char path[4096];
    CHECK(TVMLiteExecutorGetOutput(ex, i, &y));
    snprintf(path, sizeof(path), "%s/output%d.npy", argv[2], (int)i);
    if (!NpyDescr(y->dtype) || WriteNpy(path, y) != 0) {
      fprintf(stderr, "cannot write output %d to %s\n", (int)i, path);
      return 1;
    }
    printf("output%d %s (", (int)i, NpyDescr(y->dtype));
    for (int d = 0; d < y->ndim; ++d) printf("%s%lld", d ? ", " : "", (long long)y->shape[d]);
    printf(")\n");
  }
  TVMLiteExecutorFree(ex);
  TVMLiteModelFree(model);
  return 0;
}
