/*
 * tvmlite deploy API: run a model exported from Python, from C or C++, without Python.
 *
 *   # Python, once:  lib = tvmlite.build(mod, target="cpu", params=params); lib.export_library("model.tvmlite")
 *
 *   TVMLiteModel* model;  TVMLiteExecutor* ex;
 *   if (TVMLiteModelLoad("model.tvmlite", &model) != 0) { ... TVMLiteGetLastErrorMessage() ... }
 *   TVMLiteExecutorCreate(model, &ex);
 *   TVMLiteExecutorSetInput(ex, 0, &input);          // a DLTensor over your memory: copied
 *   TVMLiteExecutorRun(ex);
 *   const DLTensor* y;  TVMLiteExecutorGetOutput(ex, 0, &y);
 *   TVMLiteExecutorFree(ex);  TVMLiteModelFree(model);
 *
 * Link with -ltvmlite (tvmlite/lib/libtvmlite.so: the runtime, the kernels and the executor). examples/deploy.c is a
 * complete program.
 *
 * Conventions are c_api.h's: functions returning int return 0 on success and -1 on failure, with the error stored
 * for the calling thread (TVMLiteGetLastErrorMessage reads it; TVMLiteErrorMoveFromRaised takes it as an object);
 * a function that fails leaves its out-parameters untouched. Every error is one of tvmlite's kinds (ValueError,
 * TypeError, IndexError, KeyError, ...) with a message naming the function. Nothing here crashes on bad input that
 * these signatures can express (a NULL handle, an index out of range, a tensor of the wrong dtype or shape).
 *
 * Models. A model is an exported file's graph and params; the params are read once and shared, read only, by every
 * executor made from the model. A model whose graph has nodes running on the numpy reference (ops without a native
 * kernel: Python only) fails to load, with an error naming those nodes and why they are not native
 * (lib.fallbacks() in Python lists the same).
 *
 * Executors. Each executor owns its intermediate memory: executors made from one model run in parallel from
 * several threads. One executor may also be shared (each call locks it), though a sequence of calls is not atomic.
 * Kernels use TVMLITE_NUM_THREADS threads (read once, at the first run; default: the cores this process may use).
 *
 * Shapes. A model built with symbolic dims (ONNX dynamic axes: batch_size, sequence_length) reports them as -1 in
 * its TVMLiteTensorInfo; any size is taken at run time, and the outputs' shapes follow the inputs'.
 */
#ifndef TVMLITE_C_EXECUTOR_API_H_
#define TVMLITE_C_EXECUTOR_API_H_

#include "tvmlite/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief A loaded model: an exported file's graph and params (opaque). */
typedef struct TVMLiteModel TVMLiteModel;

/*! \brief An executor of a model: its memory, inputs and outputs (opaque). */
typedef struct TVMLiteExecutor TVMLiteExecutor;

/*! \brief What a model's input or output is. All pointers are owned by the model and live as long as it does. */
typedef struct {
  const char* name;     /*!< NUL-terminated UTF-8: the input's name in the model (outputs: "output<i>"). */
  DLDataType dtype;     /*!< e.g. {kDLFloat, 32, 1}. */
  int32_t ndim;         /*!< Rank. */
  const int64_t* shape; /*!< ndim dims; -1 for a dim known only at run time. */
} TVMLiteTensorInfo;

/*!
 * \brief The message of this thread's pending error ("<Kind>: <message>"), or "" when there is none. The pointer
 * stays valid until the thread's next call into tvmlite. The error stays pending.
 */
TVMLITE_DLL const char* TVMLiteGetLastErrorMessage(void);

/*!
 * \brief Load a file lib.export_library() wrote (one read; params are views of it, 64-byte aligned).
 * ValueError names the file for anything malformed or unsupported, and names the reference nodes of a model that
 * needs Python.
 */
TVMLITE_DLL int TVMLiteModelLoad(const char* path, TVMLiteModel** out);

/*! \brief Release a model (NULL: nothing). Executors made from it stay usable. */
TVMLITE_DLL void TVMLiteModelFree(TVMLiteModel* model);

/*! \brief The number of inputs (params excluded) and outputs of a model. */
TVMLITE_DLL int TVMLiteModelNumInputs(const TVMLiteModel* model, int32_t* out);
TVMLITE_DLL int TVMLiteModelNumOutputs(const TVMLiteModel* model, int32_t* out);

/*! \brief Input / output index's name, dtype and shape (IndexError when out of range). */
TVMLITE_DLL int TVMLiteModelInputInfo(const TVMLiteModel* model, int32_t index, TVMLiteTensorInfo* out);
TVMLITE_DLL int TVMLiteModelOutputInfo(const TVMLiteModel* model, int32_t index, TVMLiteTensorInfo* out);

/*! \brief The index of the input called name (KeyError, listing the inputs, when there is none). */
TVMLITE_DLL int TVMLiteModelInputIndex(const TVMLiteModel* model, const char* name, int32_t* out);

/*! \brief Make an executor of model (its memory is allocated here, its kernels bound). */
TVMLITE_DLL int TVMLiteExecutorCreate(const TVMLiteModel* model, TVMLiteExecutor** out);

/*! \brief Release an executor (NULL: nothing). */
TVMLITE_DLL void TVMLiteExecutorFree(TVMLiteExecutor* ex);

/*!
 * \brief Set input index to a copy of value: a CPU tensor of the input's dtype and shape (-1 dims: any size),
 * strided or not. The caller's memory is not used after the call.
 */
TVMLITE_DLL int TVMLiteExecutorSetInput(TVMLiteExecutor* ex, int32_t index, const DLTensor* value);

/*!
 * \brief Set input index to value without a copy: every later run reads the caller's memory, which must stay valid
 * and hold the input until the input is set again or the executor is freed. value must be a compact row-major CPU
 * tensor whose data is 64-byte aligned (what the kernels' vector loads want); otherwise ValueError (use
 * TVMLiteExecutorSetInput).
 */
TVMLITE_DLL int TVMLiteExecutorSetInputZeroCopy(TVMLiteExecutor* ex, int32_t index, const DLTensor* value);

/*! \brief Run every node (ValueError when an input was never set). */
TVMLITE_DLL int TVMLiteExecutorRun(TVMLiteExecutor* ex);

/*!
 * \brief Output index of the last completed run: a compact row-major CPU tensor owned by the executor, valid until
 * the next TVMLiteExecutorGetOutput of this index, TVMLiteExecutorRun or TVMLiteExecutorFree.
 */
TVMLITE_DLL int TVMLiteExecutorGetOutput(TVMLiteExecutor* ex, int32_t index, const DLTensor** out);

#ifdef __cplusplus
}  // extern "C"
#endif
#endif /* TVMLITE_C_EXECUTOR_API_H_ */
