/*!
 * \file graph_executor_loop.cc
 * \brief The graph executor's Loop and Scan nodes ("__loop" / "__scan"; graph_executor.cc's comment, "Loop and
 * Scan"): parsing a node's kernel_attrs and making its body's child executor, and running it as the numpy references
 * do (tvmlite/relay/op/_control.py: _loop, _scan, with their error messages).
 */
#include "./graph_executor.h"

namespace tvmlite {
namespace backend {

void GraphExecutorObj::ParseLoop(const Map<String, Any>& nattrs, const std::vector<int64_t>& sids,
                                 const std::unordered_set<int64_t>& param_entries, const Map<String, Any>* py_factories,
                                 bool check_only, Node* n) {
  auto spec = std::make_shared<LoopSpec>();
  spec->is_loop = n->func_name == "__loop";
  Map<String, Any> ka = GraphField<Map<String, Any>>(nattrs, "kernel_attrs");
  auto num = [&](const char* key) {
    const Any* v = ka.get()->Find(Any(String(key)));
    std::optional<int64_t> i = v && v->type_index() == kTVMLiteInt ? v->as<int64_t>() : std::nullopt;
    TVMLITE_CHECK_KIND(i && *i >= 0, ValueError)
        << "graph executor: " << n->name << "'s kernel_attrs." << key << " must be an int >= 0";
    return *i;
  };
  auto ints = [&](const char* key) {
    const Any* v = ka.get()->Find(Any(String(key)));
    TVMLITE_CHECK_KIND(v != nullptr, ValueError) << "graph executor: " << n->name << " has no kernel_attrs." << key;
    return IntList(*v, key);
  };
  auto strings = [&](const char* key) {
    const Any* v = ka.get()->Find(Any(String(key)));
    std::optional<Array<Any>> a = v ? v->as<Array<Any>>() : std::nullopt;
    TVMLITE_CHECK_KIND(a.has_value(), ValueError)
        << "graph executor: " << n->name << "'s kernel_attrs." << key << " must be a list of strings";
    std::vector<std::string> out;
    for (const Any& x : *a) {
      std::optional<String> s = x.as<String>();
      TVMLITE_CHECK_KIND(s.has_value(), ValueError)
          << "graph executor: " << n->name << "'s kernel_attrs." << key << " must be a list of strings";
      out.push_back(std::string(*s));
    }
    return out;
  };
  int64_t operands;
  if (spec->is_loop) {
    spec->has_trip = num("has_trip_count") != 0;
    spec->has_cond = num("has_cond") != 0;
    spec->n = num("num_carried");
    operands = spec->has_trip + spec->has_cond + spec->n;
  } else {
    spec->n = num("num_states");
    spec->m = num("num_scan_inputs");
    spec->in_axes = ints("scan_input_axes");
    spec->in_dirs = ints("scan_input_directions");
    spec->out_axes = ints("scan_output_axes");
    spec->out_dirs = ints("scan_output_directions");
    spec->batched = num("batched") != 0;
    TVMLITE_CHECK_KIND(spec->m >= 1 && (spec->in_axes.empty() || spec->in_axes.size() == size_t(spec->m)) &&
                           (spec->in_dirs.empty() || spec->in_dirs.size() == size_t(spec->m)),
                       ValueError)
        << "graph executor: scan " << n->name << " needs a scan input and one axis and direction per scan input";
    operands = spec->n + spec->m;
  }
  spec->outer = num("num_outer");
  spec->scan_types = strings("scan_types");
  std::vector<std::string> body_params = strings("body_params");
  const size_t want_inputs = static_cast<size_t>(operands + spec->outer) + body_params.size();
  TVMLITE_CHECK_KIND(n->inputs.size() == want_inputs, ValueError)
      << "graph executor: " << n->name << " reads " << n->inputs.size() << " entries, its kernel_attrs say "
      << want_inputs;
  Map<String, Any> params;
  for (size_t k = 0; k < body_params.size(); ++k) {
    const int64_t e = n->inputs[operands + spec->outer + k];
    TVMLITE_CHECK_KIND(param_entries.count(e), ValueError)
        << "graph executor: " << n->name << "'s body param " << body_params[k] << " is not a param of the graph";
    params.Set(String(body_params[k]), values_[e]);
  }
  auto child = runtime::make_object<GraphExecutorObj>();
  child->Init(GraphField<Map<String, Any>>(nattrs, "body"), params, py_factories, check_only);
  const size_t body_inputs = (spec->is_loop ? 2 : spec->m) + spec->n + spec->outer;
  TVMLITE_CHECK_KIND(child->input_nodes.size() == body_inputs, ValueError)
      << "graph executor: " << n->name << "'s body takes " << child->input_nodes.size() << " inputs, the node gives "
      << body_inputs;
  const size_t heads_before = spec->is_loop ? 1 : 0;
  TVMLITE_CHECK_KIND(child->heads.size() >= heads_before + spec->n &&
                         n->outputs.size() == child->heads.size() - heads_before &&
                         spec->scan_types.size() == n->outputs.size() - spec->n,
                     ValueError)
      << "graph executor: " << n->name << " has " << n->outputs.size() << " outputs, its body " << child->heads.size()
      << " results";
  if (!spec->is_loop) {
    const size_t k = n->outputs.size() - spec->n;
    TVMLITE_CHECK_KIND((spec->out_axes.empty() || spec->out_axes.size() == k) &&
                           (spec->out_dirs.empty() || spec->out_dirs.size() == k),
                       ValueError)
        << "graph executor: scan " << n->name << " needs one axis and direction per scan output";
  }
  for (int64_t e : n->outputs) {
    TVMLITE_CHECK_KIND(sids[e] < 0 && !is_object[e], ValueError)
        << "graph executor: " << n->name << " returns its outputs, tensors: they have no storage";
    in_place[e] = true;  // may be a param of the body: get_output copies
  }
  spec->body_ref = ObjectRef(child);
  spec->body = child.get();
  n->loop = spec;
}

double GraphExecutorObj::ScalarOf(const Any& v, const std::string& what) {
  std::optional<NDArray> a = v.as<NDArray>();
  TVMLITE_CHECK_KIND(a.has_value(), ValueError) << what << " must be a tensor";
  TVMLITE_CHECK_KIND(a->NumElements() == 1, ValueError)
      << what << " must hold one value, got shape " << ShapeStr(a->Shape());
  const DLTensor& t = (*a)->tensor;
  const char* p = static_cast<const char*>(t.data) + t.byte_offset;
  switch (t.dtype.code * 100 + t.dtype.bits) {
    case kDLBool * 100 + 8:
    case kDLUInt * 100 + 8: return *reinterpret_cast<const uint8_t*>(p);
    case kDLInt * 100 + 8: return *reinterpret_cast<const int8_t*>(p);
    case kDLInt * 100 + 16: return *reinterpret_cast<const int16_t*>(p);
    case kDLInt * 100 + 32: return *reinterpret_cast<const int32_t*>(p);
    case kDLInt * 100 + 64: return static_cast<double>(*reinterpret_cast<const int64_t*>(p));
    case kDLUInt * 100 + 16: return *reinterpret_cast<const uint16_t*>(p);
    case kDLUInt * 100 + 32: return *reinterpret_cast<const uint32_t*>(p);
    case kDLUInt * 100 + 64: return static_cast<double>(*reinterpret_cast<const uint64_t*>(p));
    case kDLFloat * 100 + 32: return *reinterpret_cast<const float*>(p);
    case kDLFloat * 100 + 64: return *reinterpret_cast<const double*>(p);
    default:
      TVMLITE_THROW(TypeError) << what << " must be bool, an integer or float32/64, got " << DataType(t.dtype).str();
  }
}

NDArray GraphExecutorObj::TensorOf(const Any& v, const std::string& what) {
  std::optional<NDArray> a = v.as<NDArray>();
  TVMLITE_CHECK_KIND(a && a->IsContiguous() && DataType(a->dtype()).bits() % 8 == 0, ValueError)
      << what << " must be a contiguous tensor of whole bytes per element";
  return *a;
}

NDArray GraphExecutorObj::Owned(int64_t e, const std::string& what) const {
  NDArray a = TensorOf(values_[e], what);
  return in_place[e] ? Copy(a) : a;
}

NDArray GraphExecutorObj::Copy(const NDArray& a) {
  NDArray c = NDArray::Empty(a.Shape(), a.dtype());
  c.CopyFrom(a);
  return c;
}

NDArray GraphExecutorObj::Take(const NDArray& x, int64_t axis, int64_t idx, NDArray out) {
  std::vector<int64_t> shape = x.Shape();
  TVMLITE_CHECK_KIND(axis < static_cast<int64_t>(shape.size()), ValueError)
      << "scan: a tensor of rank " << shape.size() << " has no axis " << axis;
  const int64_t len = shape[axis];
  TVMLITE_CHECK_KIND(idx < len, IndexError)
      << "scan: index " << idx << " is out of bounds for axis " << axis << " with size " << len;
  int64_t outer = 1, inner = DataType(x.dtype()).bytes();
  for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  shape.erase(shape.begin() + axis);
  if (!out.defined()) out = NDArray::Empty(shape, x.dtype());
  if (inner == 0 || outer == 0) return out;
  const char* src = Data(x);
  char* dst = Data(out);
  for (int64_t o = 0; o < outer; ++o) std::memcpy(dst + o * inner, src + (o * len + idx) * inner, inner);
  return out;
}

NDArray GraphExecutorObj::Stack(const std::vector<NDArray>& items, int64_t axis) {
  std::vector<int64_t> shape = items[0].Shape();
  const int64_t count = static_cast<int64_t>(items.size());
  int64_t outer = 1, inner = DataType(items[0].dtype()).bytes();
  for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis; d < shape.size(); ++d) inner *= shape[d];
  shape.insert(shape.begin() + axis, count);
  NDArray out = NDArray::Empty(shape, items[0].dtype());
  if (inner == 0 || outer == 0) return out;
  char* dst = Data(out);
  for (int64_t t = 0; t < count; ++t) {
    const char* src = Data(items[t]);
    for (int64_t o = 0; o < outer; ++o) std::memcpy(dst + (o * count + t) * inner, src + o * inner, inner);
  }
  return out;
}

void GraphExecutorObj::SetBodyInput(GraphExecutorObj* body, size_t k, const NDArray& a, const std::string& node) {
  const int64_t e = body->nodes[body->input_nodes[k]].outputs[0];
  DataType want(body->dtypes[e]), got(a.dtype());
  const std::string& name = body->nodes[body->input_nodes[k]].name;
  TVMLITE_CHECK_KIND(want == got, ValueError)
      << node << ": the body's input " << name << " is " << want.str() << ", got " << got.str();
  const auto& declared = body->shapes[e];
  bool fits = body->is_static[e] ? declared == a.Shape() : declared.empty() || declared.size() == a.Shape().size();
  for (size_t d = 0; fits && !body->is_static[e] && d < declared.size(); ++d) {
    fits = declared[d] < 0 || declared[d] == a.Shape()[d];
  }
  TVMLITE_CHECK_KIND(fits, ValueError) << node << ": the body's input " << name << " has shape " << ShapeStr(declared)
                                       << ", got shape " << ShapeStr(a.Shape());
  if (body->is_static[e]) {
    body->values_[e].cast<NDArray>().CopyFrom(a);
  } else {
    body->values_[e] = a;
  }
  body->input_set_.insert(e);
}

std::vector<NDArray> GraphExecutorObj::RunBody(GraphExecutorObj* body, const std::string& node) {
  body->Run();
  std::vector<NDArray> out;
  for (int64_t h : body->heads) out.push_back(TensorOf(body->Snapshot(h), node + ": a body result"));
  return out;
}

NDArray GraphExecutorObj::EmptyStack(int64_t e, size_t axis, bool batched, const std::string& what,
                                     const std::string& type) const {
  std::vector<int64_t> shape = shapes[e];
  if (batched && !shape.empty()) shape.erase(shape.begin());
  TVMLITE_CHECK_KIND(axis < shape.size(), ValueError) << what << ": output axis out of range";
  shape[axis] = 0;
  for (int64_t d : shape) {
    TVMLITE_CHECK_KIND(d >= 0, ValueError)
        << what << ": no iteration ran, and the stacked output's element type " << type << " has symbolic dims";
  }
  return NDArray::Empty(shape, dtypes[e]);
}

void GraphExecutorObj::RunLoop(const Node& n) {
  const LoopSpec& s = *n.loop;
  GraphExecutorObj* body = s.body;
  size_t pos = 0;
  int64_t limit = -1;
  bool bounded = false;
  if (s.has_trip) {
    limit = static_cast<int64_t>(ScalarOf(values_[n.inputs[pos++]], "loop: max_trip_count"));
    bounded = true;
  }
  bool keep_going = true;
  if (s.has_cond) keep_going = ScalarOf(values_[n.inputs[pos++]], "loop: cond") != 0;
  std::vector<NDArray> carried;
  for (int64_t k = 0; k < s.n; ++k) carried.push_back(Owned(n.inputs[pos++], n.name + ": a carried value"));
  for (int64_t j = 0; j < s.outer; ++j) {
    SetBodyInput(body, 2 + s.n + j, Owned(n.inputs[pos++], n.name + ": an outer value"), n.name);
  }
  const size_t k_scans = n.outputs.size() - s.n;
  std::vector<std::vector<NDArray>> scans(k_scans);
  NDArray iter = NDArray::Empty({}, DataType::Int(64)), cond = NDArray::Empty({}, DataType::Bool());
  int64_t i = 0;
  for (; (!bounded || i < limit) && keep_going; ++i) {
    *reinterpret_cast<int64_t*>(Data(iter)) = i;
    *reinterpret_cast<uint8_t*>(Data(cond)) = keep_going;
    SetBodyInput(body, 0, iter, n.name);
    SetBodyInput(body, 1, cond, n.name);
    for (int64_t k = 0; k < s.n; ++k) SetBodyInput(body, 2 + k, carried[k], n.name);
    std::vector<NDArray> out = RunBody(body, n.name);
    for (int64_t k = 0; k < s.n; ++k) carried[k] = out[1 + k];
    for (size_t k = 0; k < k_scans; ++k) scans[k].push_back(out[1 + s.n + k]);
    if (s.has_cond) keep_going = ScalarOf(Any(out[0]), "loop: the body's cond") != 0;
  }
  for (int64_t k = 0; k < s.n; ++k) values_[n.outputs[k]] = carried[k];
  for (size_t k = 0; k < k_scans; ++k) {
    const int64_t e = n.outputs[s.n + k];
    if (i == 0) {
      values_[e] = EmptyStack(e, 0, false, "loop", s.scan_types[k]);
      continue;
    }
    bool same = true;
    for (const NDArray& a : scans[k]) same = same && a.Shape() == scans[k][0].Shape();
    if (!same) {
      std::string shapes_seen;
      for (const NDArray& a : scans[k]) shapes_seen += (shapes_seen.empty() ? "" : ", ") + ShapeStr(a.Shape());
      TVMLITE_THROW(ValueError) << "loop: loop scan outputs changed shape across iterations: " << shapes_seen;
    }
    values_[e] = Stack(scans[k], 0);
  }
}

void GraphExecutorObj::RunScan(const Node& n) {
  const LoopSpec& s = *n.loop;
  std::vector<NDArray> states, xs;
  size_t pos = 0;
  for (int64_t k = 0; k < s.n; ++k) states.push_back(Owned(n.inputs[pos++], n.name + ": a state"));
  for (int64_t k = 0; k < s.m; ++k) xs.push_back(TensorOf(values_[n.inputs[pos++]], n.name + ": a scan input"));
  for (int64_t j = 0; j < s.outer; ++j) {
    SetBodyInput(s.body, s.n + s.m + j, Owned(n.inputs[pos++], n.name + ": an outer value"), n.name);
  }
  std::vector<NDArray> result;
  if (!s.batched) {
    result = ScanOne(n, states, xs, /*batched=*/false);
  } else {
    TVMLITE_CHECK_KIND(!xs[0].Shape().empty() && xs[0].Shape()[0] > 0, ValueError)
        << n.name << ": a batched scan of no batch rows";
    const int64_t batch = xs[0].Shape()[0];
    std::vector<std::vector<NDArray>> per(n.outputs.size());
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<NDArray> sb, xb;
      for (const NDArray& a : states) sb.push_back(Take(a, 0, b));
      for (const NDArray& a : xs) xb.push_back(Take(a, 0, b));
      std::vector<NDArray> r = ScanOne(n, sb, xb, true);
      for (size_t k = 0; k < r.size(); ++k) per[k].push_back(r[k]);
    }
    for (auto& items : per) {
      for (const NDArray& a : items) {
        TVMLITE_CHECK_KIND(a.Shape() == items[0].Shape(), ValueError)
            << "scan: all input arrays must have the same shape";
      }
      result.push_back(Stack(items, 0));
    }
  }
  for (size_t k = 0; k < result.size(); ++k) values_[n.outputs[k]] = result[k];
}

std::vector<NDArray> GraphExecutorObj::ScanOne(const Node& n, std::vector<NDArray> states,
                                               const std::vector<NDArray>& xs, bool batched) {
  const LoopSpec& s = *n.loop;
  GraphExecutorObj* body = s.body;
  const size_t m = xs.size();
  std::vector<int64_t> axes(m), dirs(m);
  for (size_t j = 0; j < m; ++j) {
    const int64_t ndim = static_cast<int64_t>(xs[j].Shape().size());
    int64_t a = batched || s.in_axes.empty() ? 0 : s.in_axes[j];
    a = a < 0 ? a + ndim : a;
    TVMLITE_CHECK_KIND(a >= 0 && a < ndim, ValueError) << n.name << ": scan input " << j << " has no axis " << a;
    axes[j] = a;
    dirs[j] = s.in_dirs.empty() ? 0 : s.in_dirs[j];
  }
  const int64_t seq_len = xs[0].Shape()[axes[0]];
  for (size_t j = 0; j < m; ++j) {
    TVMLITE_CHECK_KIND(xs[j].Shape()[axes[j]] == seq_len, ValueError)
        << "scan: scan inputs differ in sequence length: " << xs[j].Shape()[axes[j]] << " vs " << seq_len;
  }
  const size_t n_states = states.size(), k_outs = n.outputs.size() - n_states;
  std::vector<std::vector<NDArray>> outs(k_outs);
  for (int64_t t = 0; t < seq_len; ++t) {
    for (size_t k = 0; k < n_states; ++k) SetBodyInput(body, k, states[k], n.name);
    for (size_t j = 0; j < m; ++j) {
      const int64_t idx = dirs[j] ? seq_len - 1 - t : t;
      const int64_t e = body->nodes[body->input_nodes[n_states + j]].outputs[0];
      NDArray buf = body->is_static[e] ? body->values_[e].cast<NDArray>() : NDArray();
      std::vector<int64_t> elem = xs[j].Shape();
      elem.erase(elem.begin() + axes[j]);
      if (buf.defined() && (buf.Shape() != elem || DataType(buf.dtype()) != DataType(xs[j].dtype()))) {
        buf = NDArray();
      }
      NDArray slice = Take(xs[j], axes[j], idx, buf);
      if (!buf.defined()) SetBodyInput(body, n_states + j, slice, n.name);
      else body->input_set_.insert(e);
    }
    std::vector<NDArray> res = RunBody(body, n.name);
    for (size_t k = 0; k < n_states; ++k) states[k] = res[k];
    for (size_t k = 0; k < k_outs; ++k) outs[k].push_back(res[n_states + k]);
  }
  std::vector<NDArray> result;
  for (size_t k = 0; k < n_states; ++k) result.push_back(states[k]);
  for (size_t k = 0; k < k_outs; ++k) {
    const int64_t e = n.outputs[n_states + k];
    const int64_t rank = static_cast<int64_t>(shapes[e].size()) - (batched ? 1 : 0);
    int64_t a = s.out_axes.empty() ? 0 : s.out_axes[k];
    a = a < 0 ? a + rank : a;
    TVMLITE_CHECK_KIND(a >= 0 && a < rank, ValueError) << n.name << ": scan output " << k << " has no axis " << a;
    if (seq_len == 0) {
      result.push_back(EmptyStack(e, a, batched, "scan", s.scan_types[k]));
      continue;
    }
    std::vector<NDArray>& acc = outs[k];
    for (const NDArray& y : acc) {
      TVMLITE_CHECK_KIND(y.Shape() == acc[0].Shape(), ValueError) << "scan: all input arrays must have the same shape";
    }
    if (!s.out_dirs.empty() && s.out_dirs[k]) std::reverse(acc.begin(), acc.end());
    result.push_back(Stack(acc, a));
  }
  return result;
}

}  // namespace backend
}  // namespace tvmlite
