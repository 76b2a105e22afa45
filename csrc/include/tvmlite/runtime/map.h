/*!
 * \file tvmlite/runtime/map.h
 * \brief Map<K, V>: an insertion-ordered hash map of Any with copy-on-write mutation.
 *
 * Keys compare by value for None, numbers and strings, by identity for every other object (as in TVM), so a
 * Python dict with str or int keys round-trips, and IR nodes can key a Map.
 */
#ifndef TVMLITE_RUNTIME_MAP_H_
#define TVMLITE_RUNTIME_MAP_H_

#include <tvmlite/runtime/string.h>

#include <unordered_map>
#include <utility>
#include <vector>

namespace tvmlite {
namespace runtime {

struct AnyKeyHash {
  size_t operator()(const Any& a) const;
};
struct AnyKeyEqual {
  bool operator()(const Any& a, const Any& b) const;
};

class MapObj : public Object {
 public:
  using Items = std::vector<std::pair<Any, Any>>;

  int64_t size() const { return static_cast<int64_t>(items_.size()); }
  const Items& items() const { return items_; }
  /*! \brief The value for key, or nullptr. */
  const Any* Find(const Any& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].second;
  }
  /*! \brief Insert or overwrite (in place; Map<K,V> copies first when shared). */
  void Set(Any key, Any value);
  ObjectPtr<MapObj> Copy() const;

  static constexpr const char* _type_key = "runtime.Map";
  static constexpr int32_t _type_index = kTVMLiteMap;
  TVMLITE_DECLARE_FINAL_OBJECT_INFO(MapObj, Object);

 private:
  Items items_;
  std::unordered_map<Any, size_t, AnyKeyHash, AnyKeyEqual> index_;
};

template <typename K, typename V>
class Map : public ObjectRef {
 public:
  Map() : ObjectRef(make_object<MapObj>()) {}
  Map(std::initializer_list<std::pair<K, V>> init) : Map() {
    for (const auto& kv : init) Set(kv.first, kv.second);
  }
  explicit Map(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}

  const MapObj* get() const { return static_cast<const MapObj*>(data_.get()); }
  size_t size() const { return static_cast<size_t>(get()->size()); }
  bool empty() const { return size() == 0; }
  size_t count(const K& key) const { return get()->Find(Any(key)) ? 1 : 0; }

  V at(const K& key) const {
    const Any* v = get()->Find(Any(key));
    TVMLITE_CHECK_KIND(v != nullptr, KeyError) << "key is not in Map";
    return v->template cast<V>();
  }
  V operator[](const K& key) const { return at(key); }
  Optional<V> Get(const K& key) const {
    const Any* v = get()->Find(Any(key));
    if (v == nullptr) return Optional<V>();
    return v->template cast<V>();
  }
  /*! \brief Insert or overwrite; copies the storage first when it is shared (copy-on-write). */
  void Set(const K& key, const V& value) {
    if (data_->use_count() != 1) data_ = get()->Copy();
    static_cast<MapObj*>(data_.get())->Set(Any(key), Any(value));
  }

  class iterator {
   public:
    explicit iterator(MapObj::Items::const_iterator it) : it_(it) {}
    std::pair<K, V> operator*() const { return {it_->first.template cast<K>(), it_->second.template cast<V>()}; }
    iterator& operator++() {
      ++it_;
      return *this;
    }
    bool operator!=(const iterator& o) const { return it_ != o.it_; }
    bool operator==(const iterator& o) const { return it_ == o.it_; }

   private:
    MapObj::Items::const_iterator it_;
  };
  iterator begin() const { return iterator(get()->items().begin()); }
  iterator end() const { return iterator(get()->items().end()); }

  static constexpr bool _type_is_nullable = false;
  using ContainerType = MapObj;
};

template <typename K, typename V>
struct ObjectRefConvert<Map<K, V>> {
  static bool Check(const Object* obj) {
    if (obj->type_index() != kTVMLiteMap) return false;
    if constexpr (std::is_same_v<K, Any> && std::is_same_v<V, Any>) {
      return true;
    } else {
      for (const auto& kv : static_cast<const MapObj*>(obj)->items()) {
        if (!kv.first.template as<K>().has_value() || !kv.second.template as<V>().has_value()) return false;
      }
      return true;
    }
  }
  static std::optional<Map<K, V>> FromValue(const TVMLiteAny*) { return std::nullopt; }
  static std::string TypeStr() { return "Map<" + TypeTraits<K>::TypeStr() + ", " + TypeTraits<V>::TypeStr() + ">"; }
};

}  // namespace runtime
}  // namespace tvmlite
#endif  // TVMLITE_RUNTIME_MAP_H_
