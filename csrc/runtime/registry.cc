/*!
 * \file registry.cc
 * \brief Function calls and the global function registry.
 *
 * The registry is an open-addressing table of immutable entries. Writers (registration) hold a mutex, build the
 * new entry and publish it; readers probe without any lock, only announcing themselves in a counter. A replaced
 * or removed entry (and the function it holds, maybe a Python closure) is freed once no reader is in flight, so a
 * reader never sees freed memory and nothing leaks. Outgrown tables are kept (a few KB over a process).
 */
#include <tvmlite/runtime/registry.h>

#include <atomic>
#include <memory>
#include <mutex>

namespace tvmlite {
namespace runtime {

TVMLITE_REGISTER_OBJECT_TYPE(FunctionObj);

void FunctionObj::ThrowRaised() { throw Error::MoveFromRaised(); }

namespace {

struct Entry {
  std::string name;
  Function func;                // undefined: the name was removed
  bool kernel_factory = false;  // set only by Registry::set_kernel_factory (C++), never by a re-registration
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

  Function Find(const std::string& name, bool kernel_factory_only = false) const {
    ReaderScope reading(this);
    const Table* t = current_.load(std::memory_order_seq_cst);
    for (size_t i = StringHash(name) & t->mask;; i = (i + 1) & t->mask) {
      const Entry* e = t->slots[i].load(std::memory_order_seq_cst);
      if (e == nullptr) return Function();
      if (e->name == name) return !kernel_factory_only || e->kernel_factory ? e->func : Function();
    }
  }

  /*! \brief Publish func under name (undefined func removes). Returns whether a live entry was there. */
  bool Put(const std::string& name, Function func, bool can_override, bool kernel_factory = false) {
    std::vector<std::unique_ptr<Entry>> to_free;  // destroyed after the lock: a Python deleter may re-enter
    bool live = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      Table* t = current_.load(std::memory_order_relaxed);
      size_t i = StringHash(name) & t->mask;
      Entry* old = nullptr;
      for (;; i = (i + 1) & t->mask) {
        old = t->slots[i].load(std::memory_order_relaxed);
        if (old == nullptr || old->name == name) break;
      }
      live = old != nullptr && old->func.defined();
      TVMLITE_CHECK_KIND(!live || can_override || !func.defined(), ValueError)
          << "Global function '" << name << "' is already registered; pass override=True to replace it";
      if (old == nullptr && !func.defined()) return false;
      Entry* e = new Entry{name, std::move(func), kernel_factory};
      // seq_cst store then seq_cst load of readers_: a reader that we do not count started after the store
      // and can only find the new entry.
      t->slots[i].store(e, std::memory_order_seq_cst);
      if (old != nullptr) {
        retired_.emplace_back(old);
      } else if (++t->used * 2 > t->mask + 1) {
        Grow(t);
      }
      if (readers_.load(std::memory_order_seq_cst) == 0) to_free.swap(retired_);
    }
    return live;
  }

  std::vector<std::string> Names() const {
    ReaderScope reading(this);
    std::vector<std::string> names;
    const Table* t = current_.load(std::memory_order_seq_cst);
    for (size_t i = 0; i <= t->mask; ++i) {
      const Entry* e = t->slots[i].load(std::memory_order_acquire);
      if (e != nullptr && e->func.defined()) names.push_back(e->name);
    }
    return names;
  }

 private:
  GlobalTable() { current_.store(RetainTable(new Table(1024)), std::memory_order_relaxed); }
  // Entries live in the tables (never destroyed: the registry lives for the process).

  /*! \brief Counts a lock-free reader for as long as it may hold a pointer into the table. */
  struct ReaderScope {
    explicit ReaderScope(const GlobalTable* g) : g(g) { g->readers_.fetch_add(1, std::memory_order_seq_cst); }
    ~ReaderScope() { g->readers_.fetch_sub(1, std::memory_order_seq_cst); }
    const GlobalTable* g;
  };

  Table* RetainTable(Table* t) {
    tables_.emplace_back(t);
    return t;
  }

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
    current_.store(t, std::memory_order_seq_cst);
  }

  std::atomic<Table*> current_;
  mutable std::atomic<int64_t> readers_{0};
  std::mutex mu_;
  std::vector<std::unique_ptr<Entry>> retired_;  // unpublished, freed when no reader is in flight
  std::vector<std::unique_ptr<Table>> tables_;
};

}  // namespace

Registry& Registry::Register(const std::string& name, bool can_override) {
  return *new Registry(name, can_override);  // lives for the process, like the registration it describes
}

Registry& Registry::set_body(Function f) {
  func_ = f;
  GlobalTable::Get()->Put(name_, std::move(f), can_override_, kernel_factory_);
  return *this;
}

Registry& Registry::set_long_running() {
  const_cast<FunctionObj*>(func_.get())->cell.flags |= kTVMLiteFunctionLongRunning;
  return *this;
}

void Registry::Set(const std::string& name, Function f, bool can_override) {
  GlobalTable::Get()->Put(name, std::move(f), can_override);
}

Registry& Registry::set_kernel_factory() {
  kernel_factory_ = true;
  // After set_body*: republish the same function with the mark (a reader finds the entry before or after, with the
  // same function); before it, set_body publishes it marked.
  if (func_.defined()) GlobalTable::Get()->Put(name_, func_, true, true);
  return *this;
}

Function Registry::Get(const std::string& name) { return GlobalTable::Get()->Find(name); }

Function Registry::GetKernelFactory(const std::string& name) { return GlobalTable::Get()->Find(name, true); }

bool Registry::Remove(const std::string& name) { return GlobalTable::Get()->Put(name, Function(), true); }

std::vector<std::string> Registry::ListNames() { return GlobalTable::Get()->Names(); }

}  // namespace runtime
}  // namespace tvmlite
