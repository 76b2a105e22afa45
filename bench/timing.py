"""What the comparison scripts share inside their worker processes: onnxruntime's session built the same way in
each, and the timed loop (warm up, calibrate the loop length, sample)."""
import time


def ort_session(model, threads):
    """An onnxruntime session of model (a ModelProto) on `threads` intra-op threads and one inter-op thread, every
    graph optimization on, the CPU provider: as each script compares against it."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


class OrtCall:
    """A callable running model (its session built by ort_session) on feeds; result() is the last run's output 0."""

    def __init__(self, model, threads, feeds):
        self.sess, self.feeds, self.y = ort_session(model, threads), feeds, None

    def __call__(self):
        self.y = self.sess.run(None, self.feeds)[0]

    def result(self):
        return self.y


def warm(fn, seconds=0.01, calls=3):
    """Untimed calls, at least `calls` of them and `seconds` long: a fresh onnxruntime session's first 2-3 calls run
    up to 2x slower (measured), and a fresh output buffer is first touched."""
    t_end = time.perf_counter() + seconds
    for _ in range(calls):
        fn()
    while time.perf_counter() < t_end:
        fn()


def calibrate(fn, target_s):
    """Calls per sample so that one sample lasts about target_s."""
    t0 = time.perf_counter()
    fn()
    return max(1, int(target_s / max(time.perf_counter() - t0, 1e-7)))


def warm_samples(fn, loops, n):
    """n samples of fn (see sample), warmed up first (see warm)."""
    warm(fn)
    return [sample(fn, loops) for _ in range(n)]


def timed_runs(fn, n):
    """One untimed call (caches, lazily built state), then n timed ones: their seconds each."""
    fn()
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def sample(fn, loops):
    """Seconds per call over `loops` calls."""
    t0 = time.perf_counter()
    for _ in range(loops):
        fn()
    return (time.perf_counter() - t0) / loops
