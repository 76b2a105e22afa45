"""Each runtime a benchmark times in a worker process of its own, the workers called one at a time.

Why: in one process, onnxruntime's idle intra-op threads spin ~40 ms after each of its calls and the runtimes' thread
pools disturb each other beyond that (conv2d.py measured tvmlite's 2-thread samples taken next to onnxruntime at
1.7-3x the time they take in a process of their own, even after 60-200 ms pauses). Only one worker runs at a time,
so no two runtimes are ever timed at once on the machine's cores.

    with Workers({"tvm": (TvmWorker, args), "ort": (OrtWorker, args)}) as call:
        out = call("tvm", "method", *method_args)   # TvmWorker(*args).method(*method_args), in tvm's process

A worker class must be importable by name in the child (module level in the script or a module); the script must
guard its entry point with `if __name__ == "__main__"` (the "spawn" start re-imports it in each child).
"""
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor

_worker = None  # the object a worker process serves


def _start(cls, args):
    global _worker
    _worker = cls(*args)


def _call(method, *args):
    return getattr(_worker, method)(*args)


class Workers:
    """{key: (class, args)} -> one process per key holding class(*args), started on its first call, ended on exit."""

    def __init__(self, specs):
        ctx = multiprocessing.get_context("spawn")  # a fresh interpreter: nothing inherited from the parent's pools
        self.pools = {key: ProcessPoolExecutor(1, ctx, initializer=_start, initargs=spec)
                      for key, spec in specs.items()}

    def __call__(self, key, method, *args):
        """The method's result (its exception, re-raised here, if it raises); the other workers wait meanwhile."""
        return self.pools[key].submit(_call, method, *args).result()

    def close(self, key):
        self.pools.pop(key).shutdown()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for key in list(self.pools):
            self.close(key)


def take_turns(call, runtimes, rounds, repeat, threads, pause_s=0.0):
    """Yield (runtime, call(runtime, "round", n)) as the runtimes' workers take turns: every round each one, the
    order reversed every other round (neither always runs first); repeat samples (an int, or {runtime: int}) spread
    over the rounds, a turn of none skipped. A line on stderr after each round."""
    for r in range(rounds):
        for rt in (runtimes if r % 2 == 0 else runtimes[::-1]):
            total = repeat[rt] if isinstance(repeat, dict) else repeat
            n = total // rounds + (r < total % rounds)
            if n == 0:
                continue
            time.sleep(pause_s)
            yield rt, call(rt, "round", n)
        print(f"  {threads} thread(s): round {r + 1} of {rounds} done", file=sys.stderr, flush=True)


def samples_per_item(turns, runtimes, n_items):
    """{runtime: [the samples of item i]} gathered from take_turns' yields, each one list of samples per item."""
    samples = {rt: [[] for _ in range(n_items)] for rt in runtimes}
    for rt, new in turns:
        for per_item, cell in zip(samples[rt], new):
            per_item.extend(cell)
    return samples
