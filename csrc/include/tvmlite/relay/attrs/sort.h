/*!
 * \file tvmlite/relay/attrs/sort.h
 * \brief Attrs of the scans and sorts: cumsum / cumprod, topk, argsort / sort, unique.
 *
 *   cumsum(data, axis=1, exclusive=false, reverse=false)   same shape; axis None: over the flattened data (1-D)
 *   topk(data, k=2, axis=-1)                              (values, int64 indices), k along axis
 *   unique(data, sorted=true, axis=None)                  (Y, indices, inverse_indices, counts), counts unknown
 * dyn.cumsum / dyn.cumprod / dyn.topk take the axis / k as a run-time scalar tensor instead of the attribute.
 */
#ifndef TVMLITE_RELAY_ATTRS_SORT_H_
#define TVMLITE_RELAY_ATTRS_SORT_H_

#include <tvmlite/ir/attrs.h>
#include <tvmlite/runtime/reflection.h>

#include <string>

namespace tvmlite {
namespace relay {

using runtime::DataType;
using runtime::Optional;

/*! \brief cumsum / cumprod (TVM's ScanopAttrs plus ONNX's reverse). */
struct ScanopAttrs : public ir::AttrsNode {
  /*! \brief The scanned axis; None: the flattened data. Unused by the dyn.* variants. */
  Optional<int64_t> axis;
  /*! \brief Output dtype; void: the input's. */
  DataType dtype = DataType(kDLOpaqueHandle, 0, 0);
  /*! \brief Each output excludes its own element (starts from the identity). */
  bool exclusive = false;
  /*! \brief Scan from the end of the axis. */
  bool reverse = false;

  TVMLITE_DECLARE_ATTRS(ScanopAttrs, "relay.attrs.ScanopAttrs");
};

/*! \brief topk: the k largest (or smallest) along axis, sorted, ties broken by the lower index. */
struct TopKAttrs : public ir::AttrsNode {
  /*! \brief How many; unused by dyn.topk. */
  int64_t k = 1;
  int64_t axis = -1;
  /*! \brief "both" (values, indices), "values" or "indices". */
  std::string ret_type = "both";
  /*! \brief The k smallest, ascending, instead of the k largest, descending. */
  bool is_ascend = false;
  /*! \brief The indices' integer dtype. */
  DataType dtype = DataType::Int(64);

  TVMLITE_DECLARE_ATTRS(TopKAttrs, "relay.attrs.TopKAttrs");
};

/*! \brief argsort / sort along axis (stable). */
struct ArgsortAttrs : public ir::AttrsNode {
  int64_t axis = -1;
  bool is_ascend = true;
  /*! \brief argsort's index dtype. */
  DataType dtype = DataType::Int(64);

  TVMLITE_DECLARE_ATTRS(ArgsortAttrs, "relay.attrs.ArgsortAttrs");
};

/*! \brief unique (ONNX Unique): unique values or slices along axis. */
struct UniqueAttrs : public ir::AttrsNode {
  /*! \brief Ascending order; false: order of first occurrence. */
  bool sorted = true;
  /*! \brief Unique slices along this axis; None: unique elements of the flattened data. */
  Optional<int64_t> axis;

  TVMLITE_DECLARE_ATTRS(UniqueAttrs, "relay.attrs.UniqueAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_SORT_H_
