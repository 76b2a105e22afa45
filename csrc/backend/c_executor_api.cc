/*!
 * \file c_executor_api.cc
 * \brief The deploy C API (tvmlite/c_executor_api.h): a model is the checked graph and params of an exported file,
 * an executor the graph executor (graph_executor.cc) reached through its registered functions.
 */
#include <tvmlite/c_executor_api.h>
#include <tvmlite/runtime/array.h>
#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/map.h>
#include <tvmlite/runtime/ndarray.h>
#include <tvmlite/runtime/registry.h>

#include <memory>
#include <string>
#include <vector>

#include "./module_file.h"

using tvmlite::runtime::Any;
using tvmlite::runtime::Array;
using tvmlite::runtime::DataType;
using tvmlite::runtime::Error;
using tvmlite::runtime::Function;
using tvmlite::runtime::Map;
using tvmlite::runtime::NDArray;
using tvmlite::runtime::ObjectRef;
using tvmlite::runtime::String;

namespace {

/*! \brief One input's or output's description, owning what TVMLiteTensorInfo points at. */
struct TensorDesc {
  std::string name;
  DLDataType dtype;
  std::vector<int64_t> shape;
};

Function Api(const char* name) {
  Function f = tvmlite::runtime::Registry::Get(std::string("graph_executor.") + name);
  TVMLITE_CHECK_KIND(f.defined(), RuntimeError) << "graph_executor." << name << " is not registered";
  return f;
}

std::vector<TensorDesc> Descs(const Array<Any>& list) {
  std::vector<TensorDesc> out;
  for (const Any& item : list) {
    auto row = item.cast<Array<Any>>();  // [name, dtype, shape]
    std::vector<int64_t> shape;
    for (const Any& d : row[2].cast<Array<Any>>()) shape.push_back(d.cast<int64_t>());
    out.push_back({std::string(row[0].cast<String>()), DataType(std::string(row[1].cast<String>())), shape});
  }
  return out;
}

}  // namespace

struct TVMLiteModel {
  Map<String, Any> graph, params;
  std::vector<TensorDesc> inputs, outputs;
};

struct TVMLiteExecutor {
  ObjectRef ex;
  std::vector<NDArray> outputs;  // what GetOutput handed out last, per index (keeps the DLTensor alive)
  std::vector<NDArray> bound;    // zero-copy inputs' views of caller memory, per index
};

#define API_BEGIN() try {
#define API_END() \
  }               \
  TVMLITE_CATCH_TO_RAISED(return -1) return 0

namespace {

template <typename T>
T* NotNull(T* p, const char* func, const char* arg) {
  TVMLITE_CHECK_KIND(p != nullptr, ValueError) << func << ": " << arg << " is NULL";
  return p;
}

int32_t Index(int32_t index, size_t n, const char* func, const char* what) {
  TVMLITE_CHECK_KIND(index >= 0 && static_cast<size_t>(index) < n, IndexError)
      << func << ": " << what << " index " << index << " out of range for " << n << " " << what << "s";
  return index;
}

/*! \brief Entry index of a model's inputs or outputs (list) into out: the info functions' body. */
void DescribeEntry(const TVMLiteModel* model, std::vector<TensorDesc> TVMLiteModel::* list, int32_t index,
                   TVMLiteTensorInfo* out, const char* func, const char* what) {
  NotNull(model, func, "model");
  NotNull(out, func, "out");
  const std::vector<TensorDesc>& entries = model->*list;
  const TensorDesc& d = entries[Index(index, entries.size(), func, what)];
  out->name = d.name.c_str();
  out->dtype = d.dtype;
  out->ndim = static_cast<int32_t>(d.shape.size());
  out->shape = d.shape.data();
}

/*! \brief A borrowed view of a caller's CPU tensor (NDArray::FromExternal copies the DLTensor, not the data). */
NDArray ViewOf(const DLTensor* t, const char* func) {
  NotNull(t, func, "value");
  TVMLITE_CHECK_KIND(t->device.device_type == kDLCPU, ValueError)
      << func << ": value must be a CPU tensor, got device type " << t->device.device_type;
  TVMLITE_CHECK_KIND(t->ndim >= 0 && (t->ndim == 0 || t->shape != nullptr), ValueError)
      << func << ": value has rank " << t->ndim << (t->shape ? "" : " and no shape");
  return NDArray::FromExternal(*t, nullptr, nullptr);
}

}  // namespace

extern "C" {

const char* TVMLiteGetLastErrorMessage(void) {
  static thread_local std::string text;
  TVMLiteObjectHandle err = nullptr;
  TVMLiteErrorMoveFromRaised(&err);
  if (err == nullptr) return "";
  const auto* cell = reinterpret_cast<const TVMLiteErrorCell*>(err + 1);  // c_api.h: the cell follows the header
  text.assign(cell->kind.data, static_cast<size_t>(cell->kind.size));
  text += ": ";
  text.append(cell->message.data, static_cast<size_t>(cell->message.size));
  TVMLiteErrorSetRaised(err);  // still pending
  TVMLiteObjectDecRef(err);
  return text.c_str();
}

int TVMLiteModelLoad(const char* path, TVMLiteModel** out) {
  API_BEGIN();
  const char* func = "TVMLiteModelLoad";
  NotNull(path, func, "path");
  NotNull(out, func, "out");
  tvmlite::backend::ModuleFile file = tvmlite::backend::ReadModuleFile(path, func);
  auto model = std::make_unique<TVMLiteModel>();
  const std::string invalid = std::string(func) + ": " + path + " is not a valid tvmlite module: ";
  try {
    model->graph = Api("parse")(file.graph_json).cast<Map<String, Any>>();
  } catch (const Error& e) {
    TVMLITE_THROW(ValueError) << invalid << e.message();
  }
  auto fallbacks = Api("fallbacks")(model->graph).cast<Map<String, Any>>().at(String("fallbacks")).cast<Array<Any>>();
  if (!fallbacks.empty()) {
    std::string list;
    for (const Any& f : fallbacks) {
      auto m = f.cast<Map<String, Any>>();
      std::string reason(m.at(String("reason")).cast<String>());
      list += "\n  " + std::string(m.at(String("name")).cast<String>()) + (reason.empty() ? "" : ": " + reason);
    }
    TVMLITE_THROW(ValueError) << func << ": " << path << " has " << fallbacks.size()
                              << " node(s) that run on the numpy reference, which needs Python (rebuild without "
                                 "them, or run the model from Python):"
                              << list;
  }
  model->params = file.params;
  Map<String, Any> desc;
  try {
    desc = Api("describe")(model->graph, model->params, Any()).cast<Map<String, Any>>();
  } catch (const Error& e) {
    if (e.kind() != "ValueError") throw;
    TVMLITE_THROW(ValueError) << invalid << e.message();
  }
  model->inputs = Descs(desc.at(String("inputs")).cast<Array<Any>>());
  model->outputs = Descs(desc.at(String("outputs")).cast<Array<Any>>());
  *out = model.release();
  API_END();
}

void TVMLiteModelFree(TVMLiteModel* model) { delete model; }

int TVMLiteModelNumInputs(const TVMLiteModel* model, int32_t* out) {
  API_BEGIN();
  NotNull(out, "TVMLiteModelNumInputs", "out");
  *out = static_cast<int32_t>(NotNull(model, "TVMLiteModelNumInputs", "model")->inputs.size());
  API_END();
}

int TVMLiteModelNumOutputs(const TVMLiteModel* model, int32_t* out) {
  API_BEGIN();
  NotNull(out, "TVMLiteModelNumOutputs", "out");
  *out = static_cast<int32_t>(NotNull(model, "TVMLiteModelNumOutputs", "model")->outputs.size());
  API_END();
}

int TVMLiteModelInputInfo(const TVMLiteModel* model, int32_t index, TVMLiteTensorInfo* out) {
  API_BEGIN();
  DescribeEntry(model, &TVMLiteModel::inputs, index, out, "TVMLiteModelInputInfo", "input");
  API_END();
}

int TVMLiteModelOutputInfo(const TVMLiteModel* model, int32_t index, TVMLiteTensorInfo* out) {
  API_BEGIN();
  DescribeEntry(model, &TVMLiteModel::outputs, index, out, "TVMLiteModelOutputInfo", "output");
  API_END();
}

int TVMLiteModelInputIndex(const TVMLiteModel* model, const char* name, int32_t* out) {
  API_BEGIN();
  const char* func = "TVMLiteModelInputIndex";
  NotNull(model, func, "model");
  NotNull(name, func, "name");
  NotNull(out, func, "out");
  std::string names;
  for (size_t i = 0; i < model->inputs.size(); ++i) {
    if (model->inputs[i].name == name) {
      *out = static_cast<int32_t>(i);
      return 0;
    }
    names += (i ? ", " : "") + model->inputs[i].name;
  }
  TVMLITE_THROW(KeyError) << func << ": the model has no input '" << name << "' (inputs: " << names << ")";
  API_END();
}

int TVMLiteExecutorCreate(const TVMLiteModel* model, TVMLiteExecutor** out) {
  API_BEGIN();
  NotNull(model, "TVMLiteExecutorCreate", "model");
  NotNull(out, "TVMLiteExecutorCreate", "out");
  auto ex = std::make_unique<TVMLiteExecutor>();
  ex->ex = Api("create")(model->graph, model->params, DLDevice{kDLCPU, 0}, Any()).cast<ObjectRef>();
  ex->outputs.resize(model->outputs.size());
  ex->bound.resize(model->inputs.size());
  *out = ex.release();
  API_END();
}

void TVMLiteExecutorFree(TVMLiteExecutor* ex) { delete ex; }

int TVMLiteExecutorSetInput(TVMLiteExecutor* ex, int32_t index, const DLTensor* value) {
  API_BEGIN();
  const char* func = "TVMLiteExecutorSetInput";
  NotNull(ex, func, "ex");
  Index(index, ex->bound.size(), func, "input");
  static const Function set_input = Api("set_input");
  set_input(ex->ex, static_cast<int64_t>(index), ViewOf(value, func));  // copies
  ex->bound[index] = NDArray();
  API_END();
}

int TVMLiteExecutorSetInputZeroCopy(TVMLiteExecutor* ex, int32_t index, const DLTensor* value) {
  API_BEGIN();
  const char* func = "TVMLiteExecutorSetInputZeroCopy";
  NotNull(ex, func, "ex");
  Index(index, ex->bound.size(), func, "input");
  NDArray view = ViewOf(value, func);
  TVMLITE_CHECK_KIND(view.IsContiguous(), ValueError) << func << ": value must be compact and row-major";
  TVMLITE_CHECK_KIND(reinterpret_cast<uintptr_t>(value->data) % 64 == 0 || view.NBytes() == 0, ValueError)
      << func << ": value's data must be 64-byte aligned (copy it with TVMLiteExecutorSetInput)";
  static const Function bind_input = Api("bind_input");
  bind_input(ex->ex, static_cast<int64_t>(index), view);
  ex->bound[index] = view;
  API_END();
}

int TVMLiteExecutorRun(TVMLiteExecutor* ex) {
  API_BEGIN();
  NotNull(ex, "TVMLiteExecutorRun", "ex");
  static const Function run = Api("run");
  for (NDArray& o : ex->outputs) o = NDArray();  // handed-out outputs end here (the documented lifetime)
  run(ex->ex);
  API_END();
}

int TVMLiteExecutorGetOutput(TVMLiteExecutor* ex, int32_t index, const DLTensor** out) {
  API_BEGIN();
  const char* func = "TVMLiteExecutorGetOutput";
  NotNull(ex, func, "ex");
  NotNull(out, func, "out");
  Index(index, ex->outputs.size(), func, "output");
  static const Function get_output = Api("get_output");
  Any value = get_output(ex->ex, static_cast<int64_t>(index));
  std::optional<NDArray> a = value.as<NDArray>();
  TVMLITE_CHECK_KIND(a.has_value(), TypeError) << func << ": output " << index << " is not a tensor";
  ex->outputs[index] = *a;
  *out = &(*a)->tensor;
  API_END();
}

}  // extern "C"
