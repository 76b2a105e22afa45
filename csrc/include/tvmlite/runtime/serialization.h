/*!
 * \file tvmlite/runtime/serialization.h
 * \brief Save any value or object graph as JSON and load it back (pickling of tvmlite objects uses this).
 *
 * The format is one JSON object:
 *
 *   {"format": "tvmlite-json", "version": 1, "root": VALUE, "nodes": [NODE, ...]}
 *
 * Every object except String and Bytes is a NODE, saved once however often it is referenced, and always after the
 * nodes it refers to; a reference is {"$ref": index}, so loading rebuilds the same DAG in one forward pass.
 *   {"type": "runtime.Array", "items": [VALUE, ...]}
 *   {"type": "runtime.Map", "items": [[KEY, VALUE], ...]}
 *   {"type": "runtime.ShapeTuple", "dims": [int, ...]}
 *   {"type": "runtime.NDArray", "dtype": DTYPE, "shape": [int, ...], "data": "<base64 of the compact bytes>"}
 *   {"type": "<type key>", "fields": {"<name>": VALUE, ...}}   any other type, by its reflected fields
 * A VALUE is null, true/false, an integer (no '.' or exponent: int64), a number with '.' or an exponent (float), a
 * string (a String object), or a one-member object: {"$ref": i}, {"$float": "nan" | "inf" | "-inf"},
 * {"$dtype": "float32" | [code, bits, lanes]}, {"$device": [type, id]}, {"$bytes": "<base64>"} or
 * {"$str_b64": "<base64>"} (a String that is not valid UTF-8).
 *
 * Loading makes objects with the type's creator (or, for types defined at run time, a default object) and fills
 * fields with the checks of construction: a value of the wrong type is a TypeError naming the type and field. A
 * missing field keeps what a C++ type's constructor set, or takes the default a Python-defined type's class declares
 * (registered with it); a Python-defined field without a default is required (ValueError). Everything else that is
 * not what SaveJSON writes (bad references, devices, data types, shapes, malformed text) is a ValueError, and
 * SaveJSON refuses to write what LoadJSON would reject.
 */
#ifndef TVMLITE_RUNTIME_SERIALIZATION_H_
#define TVMLITE_RUNTIME_SERIALIZATION_H_

#include <tvmlite/runtime/any.h>

#include <string>

namespace tvmlite {
namespace runtime {

/*!
 * \brief Save root as JSON text (UTF-8).
 * Throws TypeError for what cannot be saved: opaque objects (Function, Module: no fields and no creator), types
 * with fields but no creator, opaque pointers; ValueError for a cycle.
 */
std::string SaveJSON(const Any& root);

/*! \brief Load what SaveJSON wrote. Throws ValueError (never crashes) on malformed text or unknown type keys. */
Any LoadJSON(const std::string& json);

}  // namespace runtime
}  // namespace tvmlite
#endif  // TVMLITE_RUNTIME_SERIALIZATION_H_
