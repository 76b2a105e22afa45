/*!
 * \file topi_testing.cc
 * \brief testing.* entry points into the kernel machinery (the epilogue interpreter, the thread pool) that tests
 * drive directly: built into libtvmlite_testing.so like the other testing.* functions, never into libtvmlite.
 */
#include <tvmlite/runtime/array.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/kernel.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tvmlite {
namespace topi {

/*!
 * \brief Tests only: testing.epilogue_apply_ranges(text, chunk, in_0, ..., out) runs the program over out in
 * place by Apply calls on [0, chunk), [chunk, 2 chunk), ... in one thread, so tiles start anywhere in a row (a fused
 * anchor hands the epilogue such ranges). out holds r0's starting value.
 */
TVMLITE_REGISTER_GLOBAL("testing.epilogue_apply_ranges").set_body_packed([](runtime::PackedArgs args, Any*) {
  static const std::string kName = "testing.epilogue_apply_ranges";
  TVMLITE_CHECK_KIND(args.size() >= 3, TypeError) << kName << ": expected (text, chunk, inputs..., out)";
  Epilogue program = Epilogue::Parse(std::string(args[0].cast<String>()), kName);
  int64_t chunk = args[1].cast<int64_t>();
  TVMLITE_CHECK_KIND(chunk >= 1, ValueError) << kName << ": chunk must be >= 1, got " << chunk;
  KernelArgs kargs(&kName, runtime::PackedArgs(args.data() + 2, args.size() - 2));
  TensorArg out = kargs.Output();
  float* y = out.Data<float>();
  BoundEpilogue bound = program.Bind(out.shape(), kargs.Rest(0), kName);
  for (int64_t begin = 0; begin < out.size(); begin += chunk) {
    bound.Apply(y, begin, std::min(chunk, out.size() - begin));
  }
});

/*!
 * \brief Tests only: ParallelFor over n items where the chunk holding item fail_at throws a ValueError (none when
 * fail_at < 0); returns the items run. Checks that a chunk's error, the caller's or a worker's, reaches the caller.
 */
TVMLITE_REGISTER_GLOBAL("testing.parallel_fail").set_body_typed([](int64_t n, int64_t fail_at) {
  std::atomic<int64_t> done{0};
  runtime::ParallelFor(n, [&](int64_t begin, int64_t end) {
    TVMLITE_CHECK_KIND(!(begin <= fail_at && fail_at < end), ValueError) << "item " << fail_at << " failed";
    done += end - begin;
  });
  return done.load();
});

/*!
 * \brief Tests only: ParallelFor(n, ..., min_chunk) recording each call: returns [begin, end, thread, ...] per call in
 * the order the calls started, thread 0 the caller and 1, 2, ... the others in the order they first ran a piece.
 * Calls on other threads first sleep slow_us microseconds (a worker the OS has descheduled), so the caller should
 * run most of the work.
 */
TVMLITE_REGISTER_GLOBAL("testing.parallel_pieces").set_body_typed([](int64_t n, int64_t min_chunk, int64_t slow_us) {
  TVMLITE_CHECK_KIND(n >= 0 && n <= (int64_t(1) << 20) && min_chunk >= 1 && slow_us >= 0 && slow_us <= 100000,
                     ValueError)
      << "testing.parallel_pieces: n in [0, 2^20], min_chunk >= 1, slow_us in [0, 1e5] expected";
  std::mutex mu;
  std::vector<std::thread::id> threads{std::this_thread::get_id()};
  std::vector<int64_t> calls;
  runtime::ParallelFor(
      n,
      [&](int64_t begin, int64_t end) {
        int64_t thread = 0;
        {
          std::lock_guard<std::mutex> lock(mu);
          const auto it = std::find(threads.begin(), threads.end(), std::this_thread::get_id());
          thread = it - threads.begin();
          if (it == threads.end()) threads.push_back(std::this_thread::get_id());
          calls.insert(calls.end(), {begin, end, thread});
        }
        if (thread != 0 && slow_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(slow_us));
      },
      min_chunk);
  return runtime::Array<int64_t>(calls);
});

/*! \brief Tests only: a ParallelFor inside each chunk of a ParallelFor (runs inline); returns the inner items run. */
TVMLITE_REGISTER_GLOBAL("testing.parallel_nested").set_body_typed([](int64_t outer, int64_t inner) {
  std::atomic<int64_t> done{0};
  runtime::ParallelFor(outer, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      runtime::ParallelFor(inner, [&](int64_t b, int64_t e) { done += e - b; });
    }
  });
  return done.load();
});

}  // namespace topi
}  // namespace tvmlite
