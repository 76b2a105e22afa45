/*!
 * \file module_file.h
 * \brief The file lib.export_library() writes, read in C++ (Python's load_module and the C API's TVMLiteModelLoad
 * both use it). The layout (little-endian; tvmlite/runtime/module.py writes it):
 *
 *   magic    16 bytes  "TVMLITE-GRAPHLIB"
 *   version  u32       2 (version 1, without the padding, still loads, by copy)
 *   graph    u64 n, then n bytes of UTF-8 graph JSON
 *   params   u32 count, then per param: u32 n + name (UTF-8), u32 n + dtype name, u32 ndim + ndim x i64 dims,
 *            u64 nbytes, zero bytes up to a multiple of 64 of the file offset, the raw row-major bytes
 *   end      8 bytes   "TVMLEND\0"
 *
 * The file is read whole with one read into a 64-byte aligned buffer, and each param is an NDArray viewing its bytes
 * there (aligned, as the kernels' vector loads like; the buffer lives as long as any param does). Anything else
 * (wrong magic or version, truncation, sizes that disagree with the dims, dtypes an NDArray does not hold as
 * written, a param named twice, trailing bytes) is a ValueError "<who>: <path> is not a valid tvmlite module: ...".
 */
#ifndef TVMLITE_BACKEND_MODULE_FILE_H_
#define TVMLITE_BACKEND_MODULE_FILE_H_

#include <tvmlite/runtime/map.h>
#include <tvmlite/runtime/string.h>

#include <string>

namespace tvmlite {
namespace backend {

/*! \brief An exported model: its graph JSON and its params by name. */
struct ModuleFile {
  std::string graph_json;
  runtime::Map<runtime::String, runtime::Any> params;
};

/*! \brief Read path (who: the caller's name, for errors). */
ModuleFile ReadModuleFile(const std::string& path, const std::string& who);

}  // namespace backend
}  // namespace tvmlite
#endif  // TVMLITE_BACKEND_MODULE_FILE_H_
