/*!
 * \file thread_pool.cc
 * \brief runtime::ParallelFor's pool. The launcher cuts [0, n) into one contiguous range per thread and each range
 * into a few pieces, publishes the job (a generation number), then it and the workers claim ranges from one atomic
 * word and run their pieces front to back; a thread whose range is done takes pieces from the back of the others'.
 * The launcher spins until every piece is done. So a thread the OS has not scheduled yet, or has taken its core from
 * (the cores are shared: a host preempts a VM's CPU for a millisecond at a time), holds up the job by at most the
 * piece it is in, not by the rest of its range; with every thread running, each runs its own range, in order, as a
 * static split would. Every claim word is tagged with the job's generation, so a late worker never claims from a
 * job that is over, and the job is never rewritten under a reader.
 *
 * Workers spin for a short while after a job (kernels of one model run back to back), then sleep on a condition
 * variable. One launcher at a time holds the pool (an atomic flag, not a mutex: a second launcher does not wait,
 * it runs its loop inline). The pool is never destroyed, so workers cannot outlive it at exit; a forked child
 * starts a fresh pool (the parent's workers do not exist there).
 *
 * Workers are pinned, one per CPU of the process's affinity mask, the first CPU left to the launcher, as TVM
 * (TVM_BIND_THREADS) and oneDNN do; TVMLITE_BIND_THREADS=0 leaves placement to the OS. Unpinned, a scheduler that
 * packs busy threads onto few CPUs (this project's VMs boot with sched_vcpu_pack) kept the worker on the launcher's
 * CPU for whole runs: two threads ran a kernel no faster than one. The launcher is the user's thread and is not
 * pinned, so when the OS moves it onto a worker's CPU, the next launch moves that worker to the CPU it left.
 */
#include <tvmlite/runtime/error.h>
#include <tvmlite/runtime/float_mode.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/threading.h>

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TVMLITE_CPU_RELAX() _mm_pause()
#else
#define TVMLITE_CPU_RELAX() std::this_thread::yield()
#endif

namespace tvmlite {
namespace runtime {
namespace {

thread_local bool t_inside_chunk = false;
constexpr auto kSpinBeforeSleep = std::chrono::microseconds(300);
// Pieces a range is cut into (at most; each at least min_chunk items): a stalled thread holds up its job by at most
// 1/8 of its range, at a cost of a few ns per piece.
constexpr int64_t kPiecesPerRange = 8;
constexpr int kMaxThreads = 1024;  // SetNumThreads's limit

/*! \brief A range's claim word, [generation tag : 32][front piece : 16][end piece : 16], a cache line of its own. */
struct alignas(64) RangeClaim {
  std::atomic<uint64_t> word{0};
};

bool BindThreads() {
  const char* env = std::getenv("TVMLITE_BIND_THREADS");
  return env == nullptr || std::strcmp(env, "0") != 0;
}

/*! \brief The CPUs this process may run on, ascending (empty when the mask cannot be read). */
std::vector<int> AllowedCpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

/*! \brief Pin a thread to one CPU; false when the system refuses (the thread then runs where the OS puts it). */
bool PinThread(pthread_t thread, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(thread, sizeof(set), &set) == 0;
}

int DefaultThreads() {
  if (const char* env = std::getenv("TVMLITE_NUM_THREADS")) {
    char* end = nullptr;
    long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n >= 1 && n <= 1024) return static_cast<int>(n);
  }
  return MaxConcurrency();
}

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads) : num_threads_(num_threads) {
    if (BindThreads()) cpus_ = AllowedCpus();
    if (!cpus_.empty()) free_cpu_ = cpus_[0];
  }

  static ThreadPool*& Global() {
    static ThreadPool* pool = [] {
      // A forked child has only the forking thread: the old pool's workers (and any job or lock they held) are
      // gone, so the child starts a fresh pool with the parent's thread count. The old one is leaked on purpose.
      pthread_atfork(nullptr, nullptr, [] { Global() = new ThreadPool(Global()->num_threads()); });
      return new ThreadPool(DefaultThreads());
    }();
    return pool;
  }

  int num_threads() const { return num_threads_.load(std::memory_order_relaxed); }

  void SetNumThreads(int n) {
    // Launch reads num_threads_ once, before it cuts the job, so the store never disturbs a job in flight; waiting
    // for that job only makes the change take effect at a clear point. From inside a piece the job in flight may be
    // this thread's own: waiting for it would never end.
    bool wait = !t_inside_chunk;
    if (wait) Acquire();
    num_threads_.store(n <= 0 ? DefaultThreads() : n, std::memory_order_relaxed);
    if (wait) busy_.clear(std::memory_order_release);
  }

  void Launch(int64_t n, detail::ChunkFn fn, void* ctx, int64_t min_chunk) {
    int64_t ranges = std::min<int64_t>(num_threads(), n / std::max<int64_t>(min_chunk, 1));
    if (ranges < 2 || t_inside_chunk || busy_.test_and_set(std::memory_order_acquire)) {
      RunChunk(fn, ctx, 0, n);
      return;
    }
    ranges = EnsureWorkers(static_cast<int>(ranges) - 1) + 1;
    if (ranges < 2) {
      busy_.clear(std::memory_order_release);
      RunChunk(fn, ctx, 0, n);
      return;
    }
    if (!worker_cpu_.empty()) AvoidLauncherCpu(ranges - 1);
    job_fn_ = fn, job_ctx_ = ctx, job_n_ = n, job_ranges_ = static_cast<int>(ranges);
    job_min_chunk_ = std::max<int64_t>(min_chunk, 1);
    job_float_mode_ = GetFloatMode();  // the pieces compute as their launcher would (flush-to-zero, rounding)
    error_ = nullptr;
    done_.store(0, std::memory_order_relaxed);
    // Ranges are claimed, by the launcher too, and so are their pieces: a worker the OS has not run yet cannot hold
    // up the job. Each claim word is tagged with the job (generation), so a late worker never claims from a job that
    // is over; the range word's release stores are published by the generation's store below.
    const uint64_t gen = generation_.load(std::memory_order_relaxed) + 1;
    const uint64_t tag = (gen & 0xffffffffu) << 32;
    int64_t pieces = 0;
    for (int r = 0; r < ranges; ++r) {
      const int64_t p = RangePieces(r);
      ranges_[r].word.store(tag | static_cast<uint64_t>(p), std::memory_order_relaxed);
      pieces += p;
    }
    claim_.store(tag | (static_cast<uint64_t>(ranges) << 16), std::memory_order_release);
    generation_.store(gen, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) {
      {
        std::lock_guard<std::mutex> lock(mu_);
      }
      wake_.notify_all();
    }
    RunClaimed(gen, 0);
    for (int spins = 0; done_.load(std::memory_order_acquire) != pieces; ++spins) {
      if (spins < 4096) {
        TVMLITE_CPU_RELAX();
      } else {
        std::this_thread::yield();
      }
    }
    // Moved out: a copy left in error_ until the next job would keep the error object (and what it holds) alive.
    std::exception_ptr error = std::move(error_);
    error_ = nullptr;
    busy_.clear(std::memory_order_release);
    if (error) std::rethrow_exception(error);
  }

 private:
  static void RunChunk(detail::ChunkFn fn, void* ctx, int64_t begin, int64_t end) {
    bool outer = t_inside_chunk;
    t_inside_chunk = true;
    try {
      fn(ctx, begin, end);
    } catch (...) {
      t_inside_chunk = outer;
      throw;
    }
    t_inside_chunk = outer;
  }

  /*! \brief Range r of the job is [RangeBegin(r), RangeBegin(r + 1)): >= min_chunk items (ranges <= n / min_chunk). */
  int64_t RangeBegin(int r) const { return Share(job_n_, r, job_ranges_); }
  /*! \brief floor(n * k / parts) for 0 <= k <= parts, without the overflow of n * k (n may be near INT64_MAX). */
  static int64_t Share(int64_t n, int64_t k, int64_t parts) { return n / parts * k + n % parts * k / parts; }
  int64_t RangePieces(int r) const {
    return std::clamp<int64_t>((RangeBegin(r + 1) - RangeBegin(r)) / job_min_chunk_, 1, kPiecesPerRange);
  }

  /*!
   * \brief When the launcher runs on the CPU of one of the first `used` workers (the OS moved it there), move that
   * worker to the CPU no worker holds: two threads on one CPU take turns instead of sharing the job. A read of the
   * current CPU (a few ns) per launch; a syscall only when the launcher has moved.
   */
  void AvoidLauncherCpu(int64_t used) {
    const int cpu = sched_getcpu();
    if (cpu < 0 || cpu == free_cpu_) return;
    for (int64_t i = 0; i < used; ++i) {
      if (worker_cpu_[i] != cpu) continue;
      if (PinThread(workers_[i].native_handle(), free_cpu_)) std::swap(worker_cpu_[i], free_cpu_);
      return;
    }
  }

  void Acquire() {
    while (busy_.test_and_set(std::memory_order_acquire)) std::this_thread::yield();
  }

  /*! \brief Start workers until there are n; returns how many there are (fewer when the system refuses a thread). */
  int EnsureWorkers(int n) {
    while (static_cast<int>(workers_.size()) < n) {
      int index = static_cast<int>(workers_.size()) + 1;  // thread 0 is the launcher
      // The worker's first job is the next generation: it must not read generation_ itself, since it may first run
      // after the launcher has already published that job, and would then wait for the one after (never acking).
      uint64_t seen = generation_.load(std::memory_order_relaxed);
      try {
        workers_.emplace_back([this, index, seen] { WorkerLoop(index, seen); });
      } catch (const std::system_error&) {
        break;
      }
      // One CPU each (cpus_[0] is the launcher's) while there are enough; with more threads than CPUs, or after a
      // refusal, none is pinned and the OS places them all.
      if (static_cast<int>(cpus_.size()) > index && worker_cpu_.size() + 1 == workers_.size() &&
          PinThread(workers_.back().native_handle(), cpus_[index])) {
        worker_cpu_.push_back(cpus_[index]);
      } else if (!worker_cpu_.empty()) {
        for (std::thread& w : workers_) Unpin(w);
        worker_cpu_.clear();
      }
    }
    return std::min(n, static_cast<int>(workers_.size()));
  }

  void Unpin(std::thread& worker) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpus_) CPU_SET(c, &set);
    pthread_setaffinity_np(worker.native_handle(), sizeof(set), &set);
  }

  void WorkerLoop(int index, uint64_t seen) {
    for (;;) {
      WaitForJob(&seen);
      const uint32_t own = GetFloatMode();
      RunClaimed(seen, index);
      if (GetFloatMode() != own) SetFloatMode(own);
    }
  }

  /*! \brief Claim a range of job gen to run as its owner: its index, or -1 when the job is over or all are claimed. */
  int ClaimRange(uint64_t gen) {
    uint64_t c = claim_.load(std::memory_order_acquire);
    for (;;) {
      if ((c >> 32) != (gen & 0xffffffffu) || (c & 0xffff) >= ((c >> 16) & 0xffff)) return -1;
      if (claim_.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel)) return static_cast<int>(c & 0xffff);
    }
  }

  /*! \brief Take the first (its owner) or last (a helper) unclaimed piece of range r of job gen; -1: none left. */
  int TakePiece(int r, uint64_t gen, bool front) {
    std::atomic<uint64_t>& word = ranges_[r].word;
    uint64_t w = word.load(std::memory_order_acquire);
    for (;;) {
      const uint64_t first = (w >> 16) & 0xffff, end = w & 0xffff;
      if ((w >> 32) != (gen & 0xffffffffu) || first >= end) return -1;
      if (word.compare_exchange_weak(w, front ? w + (1u << 16) : w - 1, std::memory_order_acq_rel)) {
        return static_cast<int>(front ? first : end - 1);
      }
    }
  }

  /*! \brief Run piece p of range r (the job is still the one the claim was made on: this piece is not done yet). */
  void RunPiece(int r, int p) {
    if (GetFloatMode() != job_float_mode_) SetFloatMode(job_float_mode_);
    const int64_t begin = RangeBegin(r), len = RangeBegin(r + 1) - begin, pieces = RangePieces(r);
    try {
      RunChunk(job_fn_, job_ctx_, begin + Share(len, p, pieces), begin + Share(len, p + 1, pieces));
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu_);
      if (!error_) error_ = std::current_exception();
    }
  }

  /*!
   * \brief Run pieces of job gen until none is left: the pieces of each range this thread claims, in order, then the
   * last pieces of the others' ranges. The pieces run are counted done once, at the end (one shared write a job).
   * index: the thread's (0 the launcher, workers from 1); the first `ranges` threads run the job.
   */
  void RunClaimed(uint64_t gen, int index) {
    // Workers beyond the job's thread count (after SetNumThreads lowered it) sit it out: it has its threads.
    const uint64_t c = claim_.load(std::memory_order_acquire);
    const int ranges = (c >> 32) == (gen & 0xffffffffu) ? static_cast<int>((c >> 16) & 0xffff) : 0;
    if (index >= ranges) return;
    int64_t ran = 0;
    int r = -1;
    for (int own; (own = ClaimRange(gen)) >= 0;) {
      r = own;
      for (int p; (p = TakePiece(r, gen, true)) >= 0; ++ran) RunPiece(r, p);
    }
    // Every range has its owner: help the others from their ends. The range count comes from the tagged claim word,
    // not the job, which may already be the next one when this thread arrives late.
    for (int k = 1; k <= ranges; ++k) {
      const int victim = (r + k + ranges) % ranges;
      for (int p; (p = TakePiece(victim, gen, false)) >= 0; ++ran) RunPiece(victim, p);
    }
    if (ran > 0) done_.fetch_add(ran, std::memory_order_acq_rel);
  }

  void WaitForJob(uint64_t* seen) {
    auto start = std::chrono::steady_clock::now();
    for (int spins = 0;; ++spins) {
      if (generation_.load(std::memory_order_acquire) != *seen) break;
      TVMLITE_CPU_RELAX();
      if ((spins & 1023) == 1023 && std::chrono::steady_clock::now() - start > kSpinBeforeSleep) {
        std::unique_lock<std::mutex> lock(mu_);
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_seq_cst) != *seen; });
        sleepers_.fetch_sub(1, std::memory_order_relaxed);
        break;
      }
    }
    *seen = generation_.load(std::memory_order_acquire);
  }

  std::atomic<int> num_threads_;
  std::atomic_flag busy_ = ATOMIC_FLAG_INIT;
  std::vector<std::thread> workers_;  // joinable handles kept for pinning; the threads never end
  // Pinning (touched only by the launcher holding busy_): the CPUs allowed at start (empty: TVMLITE_BIND_THREADS=0),
  // each pinned worker's CPU (empty when not pinned), and the one CPU left for the launcher.
  std::vector<int> cpus_;
  std::vector<int> worker_cpu_;
  int free_cpu_ = -1;
  // The job: written by the launcher before generation_ moves, read by workers after they see it move.
  detail::ChunkFn job_fn_ = nullptr;
  void* job_ctx_ = nullptr;
  int64_t job_n_ = 0;
  int job_ranges_ = 0;
  int64_t job_min_chunk_ = 1;
  uint32_t job_float_mode_ = 0;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int64_t> done_{0};    // pieces done
  std::atomic<uint64_t> claim_{0};  // [generation tag : 32][ranges : 16][next range to claim : 16]
  std::unique_ptr<RangeClaim[]> ranges_{new RangeClaim[kMaxThreads]};  // never reallocated: late workers read it
  std::atomic<int> sleepers_{0};
  std::mutex mu_;
  std::condition_variable wake_;
  std::mutex error_mu_;
  std::exception_ptr error_;
};

}  // namespace

int MaxConcurrency() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

int NumThreads() { return ThreadPool::Global()->num_threads(); }

void SetNumThreads(int n) {
  TVMLITE_CHECK_KIND(n >= 0 && n <= 1024, ValueError)
      << "runtime.set_num_threads: n must be in [0, 1024] (0 = the default), got " << n;
  ThreadPool::Global()->SetNumThreads(n);
}

namespace detail {
void ParallelLaunch(int64_t n, ChunkFn fn, void* ctx, int64_t min_chunk) {
  ThreadPool::Global()->Launch(n, fn, ctx, min_chunk);
}
}  // namespace detail

TVMLITE_REGISTER_GLOBAL("runtime.num_threads").set_body_typed([]() -> int64_t { return NumThreads(); });
TVMLITE_REGISTER_GLOBAL("runtime.set_num_threads").set_body_typed([](int64_t n) {
  TVMLITE_CHECK_KIND(n >= 0 && n <= 1024, ValueError)
      << "runtime.set_num_threads: n must be in [0, 1024] (0 = the default), got " << n;
  SetNumThreads(static_cast<int>(n));
});
TVMLITE_REGISTER_GLOBAL("runtime.max_concurrency").set_body_typed([]() -> int64_t { return MaxConcurrency(); });

}  // namespace runtime
}  // namespace tvmlite
