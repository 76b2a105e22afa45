/*!
 * \file registry.cc
 * \brief Function calls and the global function registry.
 *
 * The registry is an open-addressing table of immutable entries. Writers (registration) hold a mutex, build the
 * new entry and publish it with a release store; readers probe without any lock. Replaced entries and outgrown
 * tables are retired, never freed, so a reader can never see freed memory: the cost is a few bytes per override.
 */
#include <tvmlite/runtime/registry.h>

#include <atomic>
#include <memory>
#include <mutex>

namespace tvmlite {
namespace runtime {

TVMLITE_REGISTER_OBJECT_TYPE(FunctionObj);

void FunctionObj::CallPacked(const AnyView* args, int32_t num_args, Any* rv) const {
  TVMLiteAny result;
  AnySetNone(&result);
  if (cell.safe_call(const_cast<FunctionObj*>(this)->header(), reinterpret_cast<const TVMLiteAny*>(args), num_args,
                     &result) != 0) {
    throw Error::MoveFromRaised();
  }
  *rv = Any::MoveFromRaw(result);
}

namespace {

struct Entry {
  std::string name;
  Function func;  // undefined: the name was removed
};

struct Table {
  explicit Table(size_t capacity) : mask(capacity - 1), slots(new std::atomic<Entry*>[capacity]) {
    for (size_t i = 0; i < capacity; ++i) slots[i].store(nullptr, std::memory_order_relaxed);
  }
  size_t mask;
  std::unique_ptr<std::atomic<Entry*>[]> slots;
  size_t used = 0;
};

class GlobalTable {
 public:
  static GlobalTable* Get() {
    static GlobalTable* inst = new GlobalTable();  // leaked: functions may be called during static destruction
    return inst;
  }

  Function Find(const std::string& name) const {
    const Table* t = current_.load(std::memory_order_acquire);
    for (size_t i = StringHash(name) & t->mask;; i = (i + 1) & t->mask) {
      const Entry* e = t->slots[i].load(std::memory_order_acquire);
      if (e == nullptr) return Function();
      if (e->name == name) return e->func;
    }
  }

  /*! \brief Publish func under name (undefined func removes). Returns whether a live entry was there. */
  bool Put(const std::string& name, Function func, bool can_override) {
    std::lock_guard<std::mutex> lock(mu_);
    Table* t = current_.load(std::memory_order_relaxed);
    size_t i = StringHash(name) & t->mask;
    for (;; i = (i + 1) & t->mask) {
      Entry* e = t->slots[i].load(std::memory_order_relaxed);
      if (e == nullptr) break;
      if (e->name == name) {
        bool live = e->func.defined();
        TVMLITE_CHECK_KIND(!live || can_override || !func.defined(), ValueError)
            << "Global function '" << name << "' is already registered; pass override=True to replace it";
        t->slots[i].store(Retain(new Entry{name, std::move(func)}), std::memory_order_release);
        return live;
      }
    }
    if (!func.defined()) return false;
    t->slots[i].store(Retain(new Entry{name, std::move(func)}), std::memory_order_release);
    if (++t->used * 2 > t->mask + 1) Grow(t);
    return false;
  }

  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    const Table* t = current_.load(std::memory_order_acquire);
    for (size_t i = 0; i <= t->mask; ++i) {
      const Entry* e = t->slots[i].load(std::memory_order_acquire);
      if (e != nullptr && e->func.defined()) names.push_back(e->name);
    }
    return names;
  }

 private:
  GlobalTable() { current_.store(RetainTable(new Table(1024)), std::memory_order_relaxed); }

  Entry* Retain(Entry* e) { entries_.emplace_back(e); return e; }
  Table* RetainTable(Table* t) { tables_.emplace_back(t); return t; }

  void Grow(Table* old) {
    Table* t = RetainTable(new Table((old->mask + 1) * 2));
    for (size_t i = 0; i <= old->mask; ++i) {
      Entry* e = old->slots[i].load(std::memory_order_relaxed);
      if (e == nullptr) continue;
      size_t j = StringHash(e->name) & t->mask;
      while (t->slots[j].load(std::memory_order_relaxed) != nullptr) j = (j + 1) & t->mask;
      t->slots[j].store(e, std::memory_order_relaxed);
      ++t->used;
    }
    current_.store(t, std::memory_order_release);
  }

  std::atomic<Table*> current_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Entry>> entries_;
  std::vector<std::unique_ptr<Table>> tables_;
};

}  // namespace

Registry& Registry::Register(const std::string& name, bool can_override) {
  return *new Registry(name, can_override);  // lives for the process, like the registration it describes
}

Registry& Registry::set_body(Function f) {
  func_ = f;
  Set(name_, std::move(f), can_override_);
  return *this;
}

Registry& Registry::set_long_running() {
  const_cast<FunctionObj*>(func_.get())->cell.flags |= kTVMLiteFunctionLongRunning;
  return *this;
}

void Registry::Set(const std::string& name, Function f, bool can_override) {
  GlobalTable::Get()->Put(name, std::move(f), can_override);
}

Function Registry::Get(const std::string& name) { return GlobalTable::Get()->Find(name); }

bool Registry::Remove(const std::string& name) { return GlobalTable::Get()->Put(name, Function(), true); }

std::vector<std::string> Registry::ListNames() { return GlobalTable::Get()->Names(); }

}  // namespace runtime
}  // namespace tvmlite
