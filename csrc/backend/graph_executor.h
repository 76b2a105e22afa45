/*!
 * \file graph_executor.h
 * \brief The graph executor's object (GraphExecutorObj), shared by graph_executor.cc (parsing and checking the graph,
 * memory, running nodes, inputs and outputs, the registered functions) and graph_executor_loop.cc (Loop and Scan
 * nodes: their bodies' child executors). graph_executor.cc's comment describes the executor.
 */
#ifndef TVMLITE_BACKEND_GRAPH_EXECUTOR_H_
#define TVMLITE_BACKEND_GRAPH_EXECUTOR_H_

#include <tvmlite/runtime/array.h>
#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/json.h>
#include <tvmlite/runtime/map.h>
#include <tvmlite/runtime/ndarray.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/serialization.h>
#include <tvmlite/runtime/shape.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "./shape_func.h"

namespace tvmlite {
namespace backend {

using runtime::Any;
using runtime::AnyView;
using runtime::Array;
using runtime::DataType;
using runtime::Function;
using runtime::Map;
using runtime::NDArray;
using runtime::Object;
using runtime::ObjectRef;
using runtime::String;

/*! \brief graph[key] as a T; ValueError naming key when it is missing or of another kind. */
template <typename T>
T GraphField(const Map<String, Any>& m, const char* key) {
  const Any* v = m.get()->Find(Any(String(key)));
  TVMLITE_CHECK_KIND(v != nullptr, ValueError) << "graph executor: the graph has no '" << key << "'";
  std::optional<T> t = v->as<T>();
  TVMLITE_CHECK_KIND(t.has_value(), ValueError) << "graph executor: the graph's '" << key << "' is malformed";
  return *t;
}

/*! \brief "(2, 3)", "(4,)", "()": a shape as Python prints it (the executor's messages). */
std::string ShapeStr(const std::vector<int64_t>& shape);

/*! \brief v as a list of ints; ValueError "<what> must be a list of ints" otherwise. */
std::vector<int64_t> IntList(const Any& v, const char* what);

class GraphExecutorObj : public Object {
 public:
  enum Kind { kInput, kParam, kKernel, kReference, kNop, kReturns, kSelect, kLoop };
  /*! \brief A "__loop" / "__scan" node: what its kernel_attrs say, and its body's executor. */
  struct LoopSpec {
    bool is_loop = true, has_trip = false, has_cond = false, batched = false;
    int64_t n = 0, m = 0, outer = 0;  // carried values (states), scan inputs, outer values
    std::vector<int64_t> in_axes, in_dirs, out_axes, out_dirs;
    std::vector<std::string> scan_types;  // the scan outputs' element types (an empty loop's error names them)
    ObjectRef body_ref;
    GraphExecutorObj* body = nullptr;
  };
  struct Node {
    Kind kind;
    std::string name, func_name;
    Function factory, fn;  // fn: the bound kernel (not made by a check)
    Map<String, Any> kernel_attrs;
    std::vector<int64_t> inputs, outputs;          // entry ids
    bool view_fixed = false;                       // kNop: made at creation
    ir::Function shape_func;                       // outputs of symbolic shape: their shapes per run (see above)
    std::vector<std::pair<int64_t, bool>> guard;   // runs only when each entry (a bool scalar) holds the value
    std::vector<std::vector<int64_t>> shape_args;  // per shape_func param: its entries
    bool per_shape = false;                        // its outputs follow from the inputs' shapes ("Per shape")
    std::shared_ptr<LoopSpec> loop;                // kLoop
  };
  /*! \brief A node's output shapes per leaf-shape signature (the last one first). */
  struct ShapeCache {
    std::vector<int64_t> last_key;
    const std::vector<std::vector<int64_t>>* last = nullptr;
    std::map<std::vector<int64_t>, std::vector<std::vector<int64_t>>> all;
  };

  // Fixed at Init (read without the lock).
  std::vector<Node> nodes;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<DLDataType> dtypes;
  std::vector<bool> is_static, is_object;
  std::vector<bool> in_place;     // per entry: an NDArray the executor rewrites (get_output copies it)
  std::vector<NDArray> storages;  // a dynamic one is (re)allocated by Run, under the lock
  std::vector<bool> storage_dynamic;
  std::vector<int64_t> storage_of_;  // per entry: its storage id (-1: none)
  std::vector<int64_t> heads;
  std::vector<int64_t> input_nodes;  // node ids of the inputs, in order
  std::unordered_map<std::string, int64_t> input_index;

  TVMLITE_DECLARE_FINAL_OBJECT("runtime.GraphExecutor", GraphExecutorObj, Object);

  /*! \brief Parse and check the graph; unless check_only, also allocate its memory and bind its kernels. */
  void Init(const Map<String, Any>& graph, const Map<String, Any>& params, const Map<String, Any>* py_factories,
            bool check_only);

  /*!
   * \brief Read a "__loop" / "__scan" node (see "Loop and Scan" above): its kernel_attrs and its body, a graph of its
   * own whose params are the last len(body_params) inputs of the node (params of this graph). The child executor is
   * made (or, for a check, checked) here.
   */
  void ParseLoop(const Map<String, Any>& nattrs, const std::vector<int64_t>& sids,
                 const std::unordered_set<int64_t>& param_entries, const Map<String, Any>* py_factories,
                 bool check_only, Node* n);

  /*! \brief One element of a tensor of one element, as a double (a trip count, a cond). */
  static double ScalarOf(const Any& v, const std::string& what);

  static NDArray TensorOf(const Any& v, const std::string& what);

  /*!
   * \brief Entry e as a tensor the node may return: a copy when the executor rewrites it in place (a body that
   * passes a value through returns what it was given, and the node's outputs outlive that entry's storage).
   */
  NDArray Owned(int64_t e, const std::string& what) const;

  static NDArray Copy(const NDArray& a);

  static char* Data(const NDArray& a) { return static_cast<char*>(a->tensor.data) + a->tensor.byte_offset; }

  /*! \brief x's slice at idx along axis (np.take(x, idx, axis)), written to out (of that shape) or a new array. */
  static NDArray Take(const NDArray& x, int64_t axis, int64_t idx, NDArray out = NDArray());

  /*! \brief np.stack(items, axis) of tensors of one shape (checked by the caller). */
  static NDArray Stack(const std::vector<NDArray>& items, int64_t axis);

  /*! \brief Body input k (a body's executor) set to a: a static input copied into its buffer, any other shared. */
  static void SetBodyInput(GraphExecutorObj* body, size_t k, const NDArray& a, const std::string& node);

  /*! \brief Run the body once; its results (copies of what it rewrites in place). */
  static std::vector<NDArray> RunBody(GraphExecutorObj* body, const std::string& node);

  /*!
   * \brief An empty stack (length 0 at axis) of the elements of output entry e (less its leading batch axis when
   * batched), or the reference's error when the elements' shape is not known.
   */
  NDArray EmptyStack(int64_t e, size_t axis, bool batched, const std::string& what, const std::string& type) const;

  /*! \brief ONNX Loop as tvmlite/relay/op/_control.py's _loop runs it. */
  void RunLoop(const Node& n);

  /*! \brief ONNX Scan as _control.py's _scan runs it (opset 8's batched form: one scan per batch row). */
  void RunScan(const Node& n);

  std::vector<NDArray> ScanOne(const Node& n, std::vector<NDArray> states, const std::vector<NDArray>& xs,
                               bool batched);

  /*! \brief A per_shape node's output keeps its value between runs: a storage no other entry shares. */
  void GivePrivateStorage(int64_t e, bool check_only);

  /*! \brief Read a node's "per_shape" (0 or 1, or absent). */
  static void ParsePerShape(const Map<String, Any>& nattrs, Node* n);

  /*! \brief A param must be what the graph's entry says: its dtype and (static) shape. */
  void CheckParam(const std::string& name, int64_t e, const Any& value) const;

  NDArray MakeView(const Node& n, const NDArray& in, const std::vector<int64_t>& shape) const;

  /*! \brief Read a node's "shape_func" and "shape_args" (both or neither); every arg an entry computed before it. */
  static void ParseShapeFunc(const Map<String, Any>& nattrs, const std::vector<int64_t>& row_ptr, size_t i, Node* n);

  /*! \brief Read a node's "guard": [[node, index, 0 or 1], ...], each an entry computed before it. */
  static void ParseGuard(const Map<String, Any>& nattrs, const std::vector<int64_t>& row_ptr, size_t i, Node* n);

  /*! \brief The truth of a condition entry: a tensor of one bool or integer element. */
  bool Truth(int64_t e, const Node& n) const;

  /*! \brief A param type like declared with the concrete shapes of arrays (consumed from *pos, in order). */
  static ir::Type ConcreteType(const ir::Type& declared, const std::vector<NDArray>& arrays, size_t* pos);

  /*! \brief The output shapes of node id (which has a shape_func) for its leaves' current values. */
  const std::vector<std::vector<int64_t>>& OutShapes(size_t id, const Node& n);

  /*! \brief Entry e (a kernel's output in dynamic storage sid) as a tensor of this shape: the storage grown when
   * needed, the view kept when it already is one. */
  void BindDynamicOutput(int64_t e, int64_t sid, const std::vector<int64_t>& shape);

  void Run();

  /*! \brief A new generation when the dynamic inputs' shapes differ from the last run's (per_shape nodes rerun). */
  void NoteSignature();

  /*! \brief Whether node n runs this time: every guard holds (nodes outside If branches have none). */
  bool Taken(const Node& n) const;

  Array<Any> Profile();

  int64_t InputEntry(const Any& key) const;

  /*!
   * \brief Set an input to a copy of value, or with borrow (the C API's zero-copy input) to value itself: the
   * executor reads that memory on every run until the input is set again.
   */
  void SetInput(const Any& key, const Any& value, bool borrow = false);

  /*! \brief Remake the views fixed at creation that read static input entry e, directly or through other views
   * (its buffer changed: a borrowed array, or the executor's own again). Call with the lock held. */
  void RemakeFixedViews(int64_t e);

  /*! \brief [name, dtype, shape] of each input and output (-1: a symbolic dim; dtype "object": not a tensor). */
  Map<String, Any> Describe() const;

  const std::string& EntryName(int64_t e) const;

  Any GetOutput(int64_t i);

  Any GetInput(const Any& key);

 private:
  static constexpr const char* kReferenceFactory = "relay.backend.reference";

  /*! \brief Entry e's value, copied when the executor rewrites it in place (call with the lock held). */
  Any Snapshot(int64_t e) const;

  /*!
   * \brief Run node id unless a guard says its If branch is not taken, or it is per_shape and ran with these
   * shapes already; whether it ran.
   */
  bool RunNode(size_t id, std::vector<AnyView>* args);

  bool Execute(size_t id, const Node& n, std::vector<AnyView>* args);

  void CheckInputsSet() const;

  static constexpr size_t kMaxShapesPerNode = 1024;

  // Changed by calls: guarded by mu_.
  std::mutex mu_;
  std::vector<ShapeCache> shape_cache_;              // per node
  std::vector<int64_t> key_;                         // scratch: a node's leaf-shape signature
  bool has_per_shape_ = false;                       // fixed at Init
  uint64_t generation_ = 0;                          // counts the signatures seen, one after another (NoteSignature)
  std::vector<uint64_t> computed_at_;                // per node: the generation its per_shape values are of (0: none)
  std::vector<int64_t> signature_, last_signature_;  // the dynamic inputs' shapes, scratch and the last run's
  std::vector<Any> values_;                          // per entry
  std::unordered_set<int64_t> input_set_;
  std::unordered_set<int64_t> bound_;  // static inputs set with borrow (their values are the caller's arrays)
  bool has_run_ = false;
};

}  // namespace backend
}  // namespace tvmlite
#endif  // TVMLITE_BACKEND_GRAPH_EXECUTOR_H_
