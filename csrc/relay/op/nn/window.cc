/*!
 * \file window.cc
 * \brief SymbolicWindowOut (window.h): the output dims of strided windows over symbolic dims, shared by the windows
 * that compute the same size.
 */
#include "window.h"

#include <map>
#include <mutex>
#include <tuple>
#include <utility>

namespace tvmlite {
namespace relay {

Any SymbolicWindowOut(const Any& in, int64_t offset, int64_t stride, bool ceil_mode) {
  std::optional<SizeVar> var = in.as<SizeVar>();
  if (!var) return Any(SizeVar::Any());
  using Key = std::tuple<const Object*, int64_t, int64_t, bool>;
  // Never destroyed: type inference may run while other statics are torn down. Each entry keeps its input alive, so
  // no other SizeVar can take its address.
  static std::mutex* mutex = new std::mutex;
  static auto* memo = new std::map<Key, std::pair<SizeVar, SizeVar>>;
  std::lock_guard<std::mutex> lock(*mutex);
  const Key key{var->get(), offset, stride, ceil_mode};
  auto it = memo->find(key);
  if (it != memo->end()) return Any(it->second.second);
  // Bounded: a forgotten entry only gives a later window a dim of its own (a fusion missed), never a wrong one.
  if (memo->size() >= 4096) memo->clear();
  SizeVar out = SizeVar::Any();
  memo->emplace(key, std::make_pair(*var, out));
  return Any(out);
}

}  // namespace relay
}  // namespace tvmlite
