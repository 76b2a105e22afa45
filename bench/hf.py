"""Hugging Face architectures as users export them: tvmlite's one dynamic build against a static build per shape,
onnxruntime and OpenVINO, at 1 and 2 threads (issue 31's benchmark).

Each model is built from its published config (written out below, random weights, no network; --quick shrinks
layers and widths) and exported by optimum's ONNX exporter with its task's default dynamic axes (decoders with past
key values; T5 and Whisper also as `decoder_model_merged.onnx`, the `If` on `use_cache_branch`); when optimum
cannot export a single-file model, torch.onnx.export with dynamic axes does, and the output says so. Exports are
cached in --cache (default bench/.build/hf). torch, transformers, optimum(-onnx), onnxruntime and OpenVINO are
benchmark-only dependencies: a missing one skips its models or its column, saying so.

Per exported ONNX file ("part") and per shape:
  dyn      tvmlite.frontend.from_onnx(path) + tvmlite.build(target="cpu"): ONE build and ONE GraphModule for every
           shape; its build time and the growth of the worker's peak RSS (VmHWM) during from_onnx + build
  static   from_onnx(path, shape={every input: this shape}) + build, one per shape
  ORT      onnxruntime (bench/timing.py's ort_session), intra_op_num_threads = t
  OV       openvino.Core().compile_model(path, "CPU", INFERENCE_NUM_THREADS = t, f32), run at every shape
  with_past  for a merged decoder only: tvmlite's dynamic build of decoder_with_past_model.onnx at the cached-step
           shapes, in the same rotation as the merged decoder's runners, so "merged step / with_past" compares
           samples taken side by side (issue 31's bar: <= 1.10x), not two parts timed minutes apart
Every runtime runs in a worker process of its own (bench/workers.py, as models.py does), each model in a process
of its own with a timeout (a crash, OOM or hang is reported and the next model runs). Outputs are checked against
onnxruntime's first (every output: largest difference relative to onnxruntime's largest magnitude, bar 1e-3);
then the workers take turns in a rotating order, a pause and one untimed run before each turn's sample (timing.py's
calibrate / sample, about 50 ms of calls), and the median per-call time of --repeat turns is reported. "ref" counts
the nodes on the numpy reference (lib.fallbacks()) of all kernel nodes.

    python bench/hf.py --quick                      # small configs, 1 and 2 threads: a smoke run (~4 min)
    python bench/hf.py                              # published sizes, every model (~1 h)
    python bench/hf.py --models bert,gpt2 --threads 1 --repeat 11
    python bench/hf.py --models t5,whisper --parts decoder_model_merged.onnx   # merged steps vs with_past
"""
import argparse
import json
import math
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

from timing import calibrate, ort_session, sample, warm  # noqa: E402  (bench/timing.py)
from workers import Workers  # noqa: E402  (bench/workers.py)

# name: (transformers config class, its published config's fields beyond the class defaults, --quick overrides,
#        model class, optimum task). The class defaults are the published base configs unless overridden here.
SMALL_TEXT = dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, intermediate_size=128)
MODELS = {
    "bert": ("BertConfig", {}, SMALL_TEXT, "BertModel", "feature-extraction"),  # bert-base-uncased
    "distilbert": ("DistilBertConfig", {}, dict(n_layers=2, dim=64, n_heads=4, hidden_dim=128),
                   "DistilBertModel", "feature-extraction"),  # distilbert-base-uncased
    "roberta": ("RobertaConfig", dict(vocab_size=50265, max_position_embeddings=514, type_vocab_size=1,
                                      layer_norm_eps=1e-5, pad_token_id=1, bos_token_id=0, eos_token_id=2),
                SMALL_TEXT, "RobertaModel", "feature-extraction"),  # roberta-base
    "albert": ("AlbertConfig", dict(embedding_size=128, hidden_size=768, num_attention_heads=12,
                                    intermediate_size=3072, num_hidden_layers=12, hidden_act="gelu_new",
                                    hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, vocab_size=30000),
               dict(SMALL_TEXT, embedding_size=32), "AlbertModel", "feature-extraction"),  # albert-base-v2
    "gpt2": ("GPT2Config", {}, dict(n_layer=2, n_embd=64, n_head=4), "GPT2LMHeadModel",
             "text-generation-with-past"),  # gpt2
    "t5": ("T5Config", {}, dict(num_layers=2, d_model=64, d_ff=128, num_heads=4, d_kv=16),
           "T5ForConditionalGeneration", "text2text-generation-with-past"),  # t5-small
    "vit": ("ViTConfig", {}, dict(SMALL_TEXT, image_size=64), "ViTForImageClassification",
            "image-classification"),  # google/vit-base-patch16-224
    "swin": ("SwinConfig", {}, dict(image_size=56, embed_dim=32, depths=[1, 1], num_heads=[2, 4]),
             "SwinForImageClassification", "image-classification"),  # microsoft/swin-tiny-patch4-window7-224
    "convnext": ("ConvNextConfig", {}, dict(image_size=64, hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 2, 1]),
                 "ConvNextForImageClassification", "image-classification"),  # facebook/convnext-tiny-224
    "resnet": ("ResNetConfig", {}, dict(embedding_size=16, hidden_sizes=[32, 64, 128, 256], depths=[1, 1, 1, 1]),
               "ResNetForImageClassification", "image-classification"),  # microsoft/resnet-50
    "whisper": ("WhisperConfig", {}, dict(d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                                          decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128),
                "WhisperForConditionalGeneration", "automatic-speech-recognition-with-past"),  # whisper-tiny
    "wav2vec2": ("Wav2Vec2Config", {}, dict(SMALL_TEXT, conv_dim=[32] * 7), "Wav2Vec2Model",
                 "feature-extraction"),  # facebook/wav2vec2-base
    "clip": ("CLIPConfig", {}, dict(text_config=dict(SMALL_TEXT), vision_config=dict(SMALL_TEXT, image_size=64),
                                    projection_dim=32),
             "CLIPModel", "zero-shot-image-classification"),  # openai/clip-vit-base-patch32
}
DEFAULT_MODELS = list(MODELS)

# The shapes each part runs at: (label, {dim name: value}); "use_cache_branch" is the merged decoders' flag.
TEXT = [("b1 s16", dict(batch_size=1, sequence_length=16)), ("b1 s128", dict(batch_size=1, sequence_length=128)),
        ("b4 s32", dict(batch_size=4, sequence_length=32))]
IMAGE = [("b1", dict(batch_size=1)), ("b2", dict(batch_size=2))]
# Convolutional nets exported with symbolic height and width run at several image sizes (the kernels' per-shape
# choices: Winograd or the direct conv)
IMAGE_SIZES = [("b1 112", dict(batch_size=1, height=112, width=112)),
               ("b1 224", dict(batch_size=1, height=224, width=224)),
               ("b1 256x384", dict(batch_size=1, height=256, width=384))]
STEP = [("step p32", dict(batch_size=1, sequence_length=1, past_sequence_length=32)),
        ("step p128", dict(batch_size=1, sequence_length=1, past_sequence_length=128))]
SEQ2SEQ_STEP = [(label, dict(batch_size=1, decoder_sequence_length=1,
                             past_decoder_sequence_length=d["past_sequence_length"],
                             encoder_sequence_length=32, use_cache_branch=True)) for label, d in STEP]
PARTS = {  # name: [(ONNX file, shapes)]
    "gpt2": [("model.onnx", [("prefill s32", dict(batch_size=1, sequence_length=32, past_sequence_length=0))] + STEP)],
    "t5": [("encoder_model.onnx", [(lb, dict(batch_size=d["batch_size"], encoder_sequence_length=d["sequence_length"]))
                                   for lb, d in TEXT[:2]]),
           ("decoder_with_past_model.onnx", SEQ2SEQ_STEP),
           ("decoder_model_merged.onnx", [("prefill s8", dict(batch_size=1, decoder_sequence_length=8,
                                                              past_decoder_sequence_length=1,
                                                              encoder_sequence_length=32, use_cache_branch=False))]
            + SEQ2SEQ_STEP)],
    "whisper": [("encoder_model.onnx", IMAGE),
                ("decoder_with_past_model.onnx", [(lb, dict(d, encoder_sequence_length=1500))
                                                  for lb, d in SEQ2SEQ_STEP]),
                ("decoder_model_merged.onnx", [("prefill s4", dict(batch_size=1, decoder_sequence_length=4,
                                                                   past_decoder_sequence_length=1,
                                                                   encoder_sequence_length=1500,
                                                                   use_cache_branch=False))]
                 + [(lb, dict(d, encoder_sequence_length=1500)) for lb, d in SEQ2SEQ_STEP])],
    "wav2vec2": [("model.onnx", [("b1 1s", dict(batch_size=1, sequence_length=16000)),
                                 ("b1 4s", dict(batch_size=1, sequence_length=64000))])],
    "clip": [("model.onnx", [("t2 s16 i1", dict(text_batch_size=2, sequence_length=16, batch_size=1)),
                             ("t4 s32 i2", dict(text_batch_size=4, sequence_length=32, batch_size=2))])],
}
for _name in ("bert", "distilbert", "roberta", "albert"):
    PARTS[_name] = [("model.onnx", TEXT)]
for _name in ("vit", "swin", "convnext"):
    PARTS[_name] = [("model.onnx", IMAGE)]
PARTS["resnet"] = [("model.onnx", IMAGE_SIZES)]

RUNNERS = ["dyn", "static", "ORT", "OV"]
PAUSE = 0.1  # s before each turn: a runtime's idle threads spin after its calls (bench/models.py)
SAMPLE_S = 0.05  # seconds of calls per timed sample


# ---- export (in the model's process; torch is imported there only) ----

def build_model(name, quick):
    import torch
    import transformers

    cls_name, published, small, model_cls, _ = MODELS[name]
    fields = dict(published, **(small if quick else {}))
    cls = getattr(transformers, cls_name)
    if name == "clip":  # nested text / vision configs
        config = cls(text_config=fields.pop("text_config", {}), vision_config=fields.pop("vision_config", {}),
                     **fields)
    else:
        config = cls(**fields)
    torch.manual_seed(0)
    return getattr(transformers, model_cls)(config).eval()


def export(name, quick, cache):
    """The directory holding the model's ONNX files (exported once), and a note when torch.onnx.export was used."""
    out = os.path.join(cache, name + ("-quick" if quick else ""))
    files = [f for f, _ in PARTS[name]]
    if all(os.path.exists(os.path.join(out, f)) for f in files):
        note_path = os.path.join(out, "NOTE")
        return out, open(note_path).read() if os.path.exists(note_path) else ""
    model = build_model(name, quick)
    task = MODELS[name][4]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from optimum.exporters.onnx import onnx_export_from_model

            onnx_export_from_model(model, out, task=task, do_validation=False)
            return out, ""
        except Exception as err:  # noqa: BLE001 - reported; single-file models have a fallback
            reason = f"optimum could not export ({type(err).__name__}: {_first_line(err)})"
            if files != ["model.onnx"]:
                raise RuntimeError(reason + "; no torch.onnx.export fallback for decoders with past") from err
    note = reason + ": exported by torch.onnx.export with dynamic axes"
    torch_export(model, name, os.path.join(out, "model.onnx"))
    with open(os.path.join(out, "NOTE"), "w") as f:
        f.write(note)
    return out, note


def torch_export(model, name, path):
    """torch.onnx.export of a single-file model with the dynamic axes optimum would have given it."""
    import torch

    cfg = model.config
    if name == "wav2vec2":
        inputs = {"input_values": torch.randn(1, 16000)}
        axes = {"input_values": {0: "batch_size", 1: "sequence_length"}}
    elif name in ("vit", "swin", "convnext", "resnet"):
        inputs = {"pixel_values": torch.randn(1, 3, cfg.image_size, cfg.image_size)}
        axes = {"pixel_values": {0: "batch_size"}}
    else:
        ids = torch.ones(1, 16, dtype=torch.long)
        inputs = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
        axes = {k: {0: "batch_size", 1: "sequence_length"} for k in inputs}
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(model, (), path, kwargs=inputs, input_names=list(inputs), dynamic_axes=axes,
                          opset_version=17, dynamo=False)


# ---- inputs: the same seeded feeds in every worker ----

def input_specs(path):
    """[(name, numpy dtype, [dim: int or symbolic name])] of the ONNX file's graph inputs (weights not loaded)."""
    import onnx
    from onnx import helper

    model = onnx.load(path, load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    return [(i.name, helper.tensor_dtype_to_np_dtype(i.type.tensor_type.elem_type),
             [d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim])
            for i in model.graph.input if i.name not in inits]


def make_feeds(specs, dims):
    """Seeded inputs of the shape `dims` names: token ids, all-ones masks, positions after the past, normal floats."""
    rng = np.random.default_rng(0)
    feeds = {}
    for name, dtype, shape in specs:
        try:
            shape = [d if isinstance(d, int) else int(eval(d, {}, dict(dims))) for d in shape]  # "past + seq" dims
        except NameError as err:
            raise KeyError(f"{name}: no value for dim {err} (shapes give {sorted(dims)})") from None
        if name == "use_cache_branch":
            feeds[name] = np.full(shape, dims[name], dtype=bool)
        elif "mask" in name:
            feeds[name] = np.ones(shape, dtype)
        elif name == "position_ids":
            past = dims.get("past_sequence_length", 0)
            feeds[name] = np.broadcast_to(np.arange(past, past + shape[1], dtype=dtype), shape).copy()
        elif name == "token_type_ids":
            feeds[name] = np.zeros(shape, dtype)
        elif np.issubdtype(dtype, np.integer):
            feeds[name] = rng.integers(3, 100, size=shape).astype(dtype)
        else:
            feeds[name] = rng.standard_normal(shape).astype(dtype)
    return feeds


# ---- the runtimes, each in a worker process ----

def peak_rss_mb():
    """This process's peak RSS in MB: VmHWM, which starts afresh at exec. Not ru_maxrss: Linux carries it across
    exec, so a spawned worker's starts at its parent's RSS when forked (the model's process, holding torch and the
    model: +0 MB builds were measured that way)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def picklable_errors(method):
    """The method, raising RuntimeError("Type: message") for any exception: the parent gets it through a pipe, and
    tvmlite's error classes do not pickle."""
    def wrapped(*args):
        try:
            return method(*args)
        except Exception as err:  # noqa: BLE001 - re-raised with its type and message
            raise RuntimeError(f"{type(err).__name__}: {err}") from None
    return wrapped


class Runner:
    """One runtime ("dyn", "static", "ORT", "OV"; "with_past" is a "dyn" of another file) on one ONNX file at a list
    of shapes, in its worker process."""

    def __init__(self, kind, path, shapes, specs, max_gb):
        self.kind, self.path, self.shapes = kind, path, shapes
        self.tvm = kind in ("dyn", "with_past")  # one dynamic tvmlite build
        if (self.tvm or kind == "static") and max_gb:  # a runaway build fails here, not the machine's other processes
            resource.setrlimit(resource.RLIMIT_AS, (int(max_gb * 2**30),) * 2)
        self.feeds = [make_feeds(specs, dims) for _, dims in shapes]
        self.calls, self.loops, self.threads = {}, {}, 1
        self.failed = {}  # shape index: why it cannot run there

    @picklable_errors
    def prepare(self):
        """Build / load; returns what the parent reports (build s, build peak MB, reference nodes)."""
        warnings.simplefilter("ignore")
        if self.tvm:
            self.lib, info = self._build(None)
            import tvmlite

            self.gm = tvmlite.runtime.GraphModule(self.lib["default"]())
            self.current = None
            return info
        if self.kind == "static":
            self.libs, info = {}, {"refs": {}, "build_s": []}
            for i, feeds in enumerate(self.feeds):
                try:
                    lib, one = self._build({k: v.shape for k, v in feeds.items()})
                except Exception as err:  # noqa: BLE001 - this shape is reported, the others run
                    self.failed[i] = f"static build: {type(err).__name__}: {_first_line(err)}"
                    continue
                import tvmlite

                self.libs[i] = tvmlite.runtime.GraphModule(lib["default"]())
                self.libs[i].set_input(**feeds)
                info["refs"][i], info["build_s"] = one["refs"], info["build_s"] + [one["build_s"]]
                for reason, n in one["reasons"].items():
                    info.setdefault("reasons", {})[f"{reason} ({self.shapes[i][0]})"] = n
            info["failed"] = dict(self.failed)
            return info
        self.set_threads(1)
        return {}

    def _build(self, shape):
        import onnx  # noqa: F401 - imported before the RSS baseline
        import tvmlite

        before = peak_rss_mb()
        t0 = time.perf_counter()
        mod, params = tvmlite.frontend.from_onnx(self.path, shape=shape)
        lib = tvmlite.build(mod, target="cpu", params=params)
        build_s = time.perf_counter() - t0
        peak_mb = peak_rss_mb() - before
        fallbacks = lib.fallbacks()
        kernels = sum(1 for n in json.loads(lib.get_graph_json())["nodes"] if n.get("op") == "tvm_op")
        reasons = {}
        for f in fallbacks:
            reasons[f["reason"] or "no reason recorded"] = reasons.get(f["reason"] or "no reason recorded", 0) + 1
        return lib, {"build_s": build_s, "peak_mb": peak_mb, "refs": f"{len(fallbacks)}/{kernels}",
                     "reasons": reasons}

    @picklable_errors
    def set_threads(self, n):
        self.threads, self.loops = n, {}
        if self.tvm or self.kind == "static":
            import tvmlite

            tvmlite.runtime.set_num_threads(n)
        elif self.kind == "ORT":
            import onnx

            self.sess = None  # the old session's threads go first
            self.sess = ort_session(onnx.load(self.path), n)
        else:
            import openvino as ov

            self.request = None
            core = ov.Core()
            compiled = core.compile_model(self.path, "CPU", {"INFERENCE_NUM_THREADS": n,
                                                             "INFERENCE_PRECISION_HINT": "f32"})
            self.request = compiled.create_infer_request()

    def _call(self, i):
        """A no-argument function running shape i (its inputs set)."""
        feeds = self.feeds[i]
        if self.tvm:
            if self.current != i:
                self.gm.set_input(**feeds)
                self.current = i
            return self.gm.run
        if self.kind == "static":
            return self.libs[i].run
        if self.kind == "ORT":
            return lambda: self.sess.run(None, feeds)
        return lambda: self.request.infer(feeds)

    @picklable_errors
    def outputs(self, i):
        """Every output at shape i, as numpy arrays."""
        self._call(i)()
        if self.tvm:
            return [self.gm.get_output(k).numpy() for k in range(self.gm.get_num_outputs())]
        if self.kind == "static":
            gm = self.libs[i]
            return [gm.get_output(k).numpy() for k in range(gm.get_num_outputs())]
        if self.kind == "ORT":
            return self.sess.run(None, self.feeds[i])
        return [np.asarray(self.request.get_output_tensor(k).data).copy()
                for k in range(len(self.request.model_outputs))]

    @picklable_errors
    def turn(self, i):
        """One untimed run, then one sample: seconds per call at shape i."""
        fn = self._call(i)
        warm(fn, 0, 1)
        if i not in self.loops:
            self.loops[i] = calibrate(fn, SAMPLE_S)
        return sample(fn, self.loops[i])


# ---- one model, in its own process ----

def relative_difference(got, want):
    """Largest |got - want| over every output, relative to want's largest magnitude; inf on a shape mismatch."""
    worst = 0.0
    if len(got) != len(want):
        return math.inf
    for g, w in zip(got, want):
        if g.shape != w.shape:
            return math.inf
        if w.size:
            w64 = w.astype(np.float64)
            worst = max(worst, float(np.abs(g.astype(np.float64) - w64).max()) / max(1e-6, float(np.abs(w64).max())))
    return worst


def run_part(path, shapes, threads, repeat, have_ov, max_gb):
    """The part's report: build info, per shape the differences and the median ms per runner and thread count."""
    kinds = [k for k in RUNNERS if k != "OV" or have_ov]
    part = {"build": {}, "errors": {}, "rows": [{"shape": label, "diff": {}, "ms": {}, "errors": {}}
                                                for label, _ in shapes]}
    # here: loading the model in a worker would raise its peak RSS before the build
    files = {k: (path, input_specs(path)) for k in kinds}
    with_past = os.path.join(os.path.dirname(path), "decoder_with_past_model.onnx")
    steps = {i for i, (_, dims) in enumerate(shapes) if dims.get("use_cache_branch")}
    if os.path.basename(path) == "decoder_model_merged.onnx" and steps and os.path.exists(with_past):
        kinds.append("with_past")
        files["with_past"] = (with_past, input_specs(with_past))
    with Workers({k: (Runner, (k, files[k][0], shapes, files[k][1], max_gb)) for k in kinds}) as call:
        live = []
        for k in kinds:
            t0 = time.perf_counter()
            try:
                part["build"][k] = call(k, "prepare")
                live.append(k)
            except Exception as err:  # noqa: BLE001 - a build failure or a crashed worker: the others go on
                part["errors"][k] = _first_line(err) + (" (the worker died: a crash or the out-of-memory killer)"
                                                        if type(err).__name__ == "BrokenProcessPool" else "")
                call.close(k)
            print(f"    {k}: ready in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
        runs = {k: set(range(len(shapes))) if k != "with_past" else set(steps) for k in live}
        for i, f in part["build"].get("static", {}).get("failed", {}).items():
            runs["static"].discard(int(i))
            part["rows"][int(i)]["errors"]["static"] = f
        if "ORT" not in live:
            return part
        for t in threads:
            for k in list(live):
                try:
                    call(k, "set_threads", t)
                except Exception as err:  # noqa: BLE001
                    part["errors"][k] = f"threads {t}: {_first_line(err)}"
                    live.remove(k)
                    call.close(k)
            for i, row in enumerate(part["rows"]):
                if t == threads[0]:  # outputs do not depend on the thread count: checked once
                    want = call("ORT", "outputs", i)
                    for k in live:
                        if k in ("ORT", "with_past") or i not in runs[k]:  # with_past: another model's outputs
                            continue
                        try:
                            row["diff"][k] = relative_difference(call(k, "outputs", i), want)
                        except Exception as err:  # noqa: BLE001 - a run failure at this shape
                            row["errors"][k] = f"run: {_first_line(err)}"
                            runs[k].discard(i)
                            if "BrokenProcessPool" in type(err).__name__:
                                live.remove(k)
                                call.close(k)
                names = [k for k in live if i in runs[k]]
                samples = {k: [] for k in names}
                for r in range(repeat):
                    for k in names[r % len(names):] + names[:r % len(names)]:
                        if k not in samples:
                            continue
                        time.sleep(PAUSE)
                        try:
                            samples[k].append(call(k, "turn", i))
                        except Exception as err:  # noqa: BLE001 - a crash while timing
                            row["errors"][k] = f"timing {t} thread(s): {_first_line(err)}"
                            del samples[k]
                row["ms"][str(t)] = {k: statistics.median(s) * 1e3 for k, s in samples.items()}
            print(f"    {t} thread(s) timed", file=sys.stderr, flush=True)
    return part


def fixed_dims(out):
    """The dims an exported model names but the shapes leave to its config: image channels and size, mel bins."""
    with open(os.path.join(out, "config.json")) as f:
        config = json.load(f)
    vision = config.get("vision_config", config)
    size = vision.get("image_size", 224)
    return dict(num_channels=vision.get("num_channels", 3), height=size, width=size,
                feature_size=config.get("num_mel_bins", 80))


def model_main(args):
    """The --one entry: export one model, run its parts, write the report as JSON to args.out."""
    report = {"model": args.one, "parts": {}, "note": ""}

    def save():
        with open(args.out, "w") as f:
            json.dump(report, f)

    try:
        t0 = time.perf_counter()
        out, report["note"] = export(args.one, args.quick, args.cache)
        print(f"  {args.one}: exported in {time.perf_counter() - t0:.1f} s -> {out}", file=sys.stderr, flush=True)
    except Exception as err:  # noqa: BLE001
        report["error"] = f"export: {type(err).__name__}: {_first_line(err)}"
        save()
        return 0
    wanted = {p.strip() for p in args.parts.split(",") if p.strip()}
    for file, shapes in PARTS[args.one]:
        if wanted and file not in wanted:
            continue
        shapes = [(label, dict(fixed_dims(out), **dims)) for label, dims in shapes]
        print(f"  {args.one}/{file}", file=sys.stderr, flush=True)
        try:
            report["parts"][file] = run_part(os.path.join(out, file), shapes, args.thread_list, args.repeat,
                                             args.have_ov, args.max_build_gb)
        except Exception as err:  # noqa: BLE001
            report["parts"][file] = {"error": f"{type(err).__name__}: {_first_line(err)}",
                                     "trace": traceback.format_exc()[-600:]}
        save()
    return 0


# ---- the parent: one process per model, tables ----

def _first_line(err):
    """The error's message, its first three lines joined, without OpenVINO's "Exception from src/..." lines."""
    lines = [line.strip() for line in str(err).strip().splitlines()
             if line.strip() and "Exception from src/" not in line]
    return " / ".join(lines[:3])[:300]


def run_model(name, args):
    """The model's report from its own process, or {"error": ...} when it crashed or timed out."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [sys.executable, os.path.abspath(__file__), "--one", name, "--out", out, "--cache", args.cache,
           "--threads", args.threads, "--repeat", str(args.repeat), "--max-build-gb", str(args.max_build_gb)]
    cmd += ["--quick"] if args.quick else []
    cmd += ["--parts", args.parts] if args.parts else []
    proc = subprocess.Popen(cmd, start_new_session=True)  # its own process group: a timeout ends its workers too
    error = None
    try:
        code = proc.wait(timeout=args.timeout)
        if code:
            error = f"model process exited with code {code}"
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        error = f"timed out after {args.timeout} s"
    try:
        with open(out) as f:
            report = json.load(f)
    except (OSError, ValueError):
        report = {"model": name, "parts": {}}
    os.unlink(out)
    if error:
        report["error"] = (report.get("error", "") + "; " if report.get("error") else "") + error
    return report


def _fmt(x, spec=".2f"):
    return "n/a" if x is None else format(x, spec)


def _ratio(a, b):
    return None if a is None or b is None else a / b


def print_model(report, threads, slow):
    """The model's table; appends (part, shape, threads, dyn/static) above 1.10 to slow."""
    name = report["model"]
    print(f"\n### {name}" + (f" ({report['note']})" if report.get("note") else ""))
    if report.get("error"):
        print(f"\nFAILED: {report['error']}")
    for file, part in report["parts"].items():
        if "error" in part:
            print(f"\n{file}: FAILED: {part['error']}")
            continue
        dyn = part["build"].get("dyn", {})
        print(f"\n{file}: dynamic build {_fmt(dyn.get('build_s'))} s, peak +{_fmt(dyn.get('peak_mb'), '.0f')} MB, "
              f"ref nodes {dyn.get('refs', 'n/a')}")
        for k, e in part["errors"].items():
            print(f"  {k} FAILED: {e}")
        for kind in ("dyn", "static"):
            for reason, n in part["build"].get(kind, {}).get("reasons", {}).items():
                print(f"  {kind} ref: {n} x {reason}")
        head = "| shape | ref dyn | ref static | diff dyn | diff static |"
        for t in threads:
            head += f" dyn ms {t}t | static ms | ORT ms | OV ms | dyn/static | dyn/ORT | dyn/OV |"
        print("\n" + head)
        print("|" + " --- |" * (head.count("|") - 1))
        static_refs = part["build"].get("static", {}).get("refs", {})
        for i, row in enumerate(part["rows"]):
            cells = [row["shape"], dyn.get("refs", "n/a"), static_refs.get(str(i), "n/a"),
                     _fmt(row["diff"].get("dyn"), ".1e"), _fmt(row["diff"].get("static"), ".1e")]
            for t in threads:
                ms = row["ms"].get(str(t), {})
                d, s, o, v = (ms.get(k) for k in RUNNERS)
                cells += [_fmt(d), _fmt(s), _fmt(o), _fmt(v), _fmt(_ratio(d, s)), _fmt(_ratio(d, o)),
                          _fmt(_ratio(d, v))]
                if d is not None and s is not None and d / s > 1.10:
                    slow.append(f"{name}/{file} {row['shape']} {t}t: dyn/static {d / s:.2f}")
            print("| " + " | ".join(cells) + " |")
            for k, e in row["errors"].items():
                print(f"  {row['shape']}: {k} FAILED: {e}")
            for k, diff in row["diff"].items():
                if diff > 1e-3:
                    print(f"  {row['shape']}: {k} MISMATCH vs onnxruntime: {diff:.1e} relative")


def _geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def print_summary(reports, threads):
    print("\n### Summary (all shapes and thread counts of each part)\n")
    print("| model / part | geomean dyn/static | max dyn/static | geomean dyn/ORT | geomean dyn/OV | build s | "
          "build peak MB | ref nodes | status |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for report in reports:
        if report.get("error") and not report["parts"]:
            print(f"| {report['model']} | | | | | | | | FAILED: {report['error'][:100]} |")
        for file, part in report["parts"].items():
            label = f"{report['model']} / {file.replace('.onnx', '')}"
            if "error" in part:
                print(f"| {label} | | | | | | | | FAILED: {part['error'][:100]} |")
                continue
            r = {k: [] for k in ("static", "ORT", "OV")}
            for row in part["rows"]:
                for t in threads:
                    ms = row["ms"].get(str(t), {})
                    for k in r:
                        if ms.get("dyn") is not None and ms.get(k) is not None:
                            r[k].append(ms["dyn"] / ms[k])
            bad = [f"{k}: {row['shape']} {e[:60]}" for row in part["rows"] for k, e in row["errors"].items()]
            bad += [f"{k} {d:.0e}" for row in part["rows"] for k, d in row["diff"].items() if d > 1e-3]
            bad += [f"{k}: {e[:60]}" for k, e in part["errors"].items()]
            dyn = part["build"].get("dyn", {})
            print(f"| {label} | {_fmt(_geomean(r['static']))} | {_fmt(max(r['static'], default=None))} | "
                  f"{_fmt(_geomean(r['ORT']))} | {_fmt(_geomean(r['OV']))} | {_fmt(dyn.get('build_s'))} | "
                  f"{_fmt(dyn.get('peak_mb'), '.0f')} | {dyn.get('refs', 'n/a')} | "
                  f"{'; '.join(bad) if bad else 'ok'} |")


def print_merged_steps(reports, threads):
    """A cached decode step of the merged decoder against decoder_with_past at the same shape (issue 31: <= 1.10x):
    tvmlite's from the merged part's own rotation (the "with_past" runner: samples side by side); onnxruntime's from
    the two parts' separate runs, for reference."""
    lines = []
    for report in reports:
        merged = report["parts"].get("decoder_model_merged.onnx", {}).get("rows", [])
        past_part = report["parts"].get("decoder_with_past_model.onnx", {})
        separate = {row["shape"]: row for row in past_part.get("rows", [])}
        for row in merged:
            for t in threads:
                ms = row["ms"].get(str(t), {})
                pairs = [("tvmlite dyn, one rotation", ms.get("dyn"), ms.get("with_past"))]
                other = separate.get(row["shape"], {}).get("ms", {}).get(str(t), {})
                pairs.append(("ORT, separate parts", ms.get("ORT"), other.get("ORT")))
                for label, a, b in pairs:
                    if a is not None and b is not None:
                        lines.append(f"| {report['model']} | {row['shape']} | {t} | {label} | {a:.2f} | {b:.2f} | "
                                     f"{a / b:.2f} |")
    if lines:
        print("\n### Merged decoder step against decoder_with_past (same shape)\n")
        print("| model | shape | threads | measured | merged ms | with_past ms | merged/with_past |")
        print("| --- | --- | ---: | --- | ---: | ---: | ---: |")
        print("\n".join(lines))


def missing_dependencies():
    """{package: why} for the benchmark-only packages that do not import."""
    missing = {}
    for pkg in ("torch", "transformers", "optimum.exporters.onnx", "onnxruntime", "onnx"):
        try:
            __import__(pkg)
        except Exception as err:  # noqa: BLE001 - optional
            missing[pkg] = f"{type(err).__name__}: {_first_line(err)}"
    return missing


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS), help=f"comma-separated, from {', '.join(MODELS)}")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    parser.add_argument("--repeat", type=int, default=None, help="timed turns per runner and shape (default 7, "
                        "--quick 3)")
    parser.add_argument("--parts", default="", help="comma-separated ONNX file names to run (default: every part "
                        "of each model), e.g. decoder_model_merged.onnx")
    parser.add_argument("--quick", action="store_true", help="small configs: a smoke run")
    parser.add_argument("--timeout", type=float, default=None, help="s per model (default 900, --quick 300)")
    parser.add_argument("--max-build-gb", type=float, default=8,
                        help="address-space limit of the tvmlite workers (0: none; default 8)")
    parser.add_argument("--cache", default=os.path.join(HERE, ".build", "hf"), help="exported models")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the model process's entry
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.repeat = args.repeat or (3 if args.quick else 7)
    args.timeout = args.timeout or (300 if args.quick else 900)
    args.thread_list = [int(t) for t in args.threads.split(",")]
    try:
        import openvino  # noqa: F401
        args.have_ov = True
    except ImportError:
        args.have_ov = False
    if args.one:
        return model_main(args)
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)} (known: {', '.join(MODELS)})")
    missing = missing_dependencies()
    if missing:
        print("hf.py needs torch, transformers, optimum(-onnx), onnx and onnxruntime; missing: "
              + "; ".join(f"{k} ({v})" for k, v in missing.items()) + ". Every model skipped.")
        return 0
    import onnxruntime
    import torch
    import transformers

    versions = (f"torch {torch.__version__}, transformers {transformers.__version__}, "
                f"onnxruntime {onnxruntime.__version__}")
    if args.have_ov:
        import openvino
        versions += f", OpenVINO {openvino.__version__}"
    print(f"# Hugging Face models, dynamic vs static vs peers ({'quick configs' if args.quick else 'published sizes'})")
    print(f"\n{versions}{'' if args.have_ov else '; OpenVINO not installed (OV column n/a)'}; {os.cpu_count()} cpus; "
          f"median of {args.repeat} interleaved turns; ms per call; diff = largest difference to onnxruntime over "
          f"all outputs, relative to its largest magnitude (bar 1e-3)")
    reports, slow = [], []
    for name in names:
        t0 = time.perf_counter()
        print(f"{name} ...", file=sys.stderr, flush=True)
        report = run_model(name, args)
        print(f"{name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
        reports.append(report)
        print_model(report, args.thread_list, slow)
        sys.stdout.flush()
    print_summary(reports, args.thread_list)
    print_merged_steps(reports, args.thread_list)
    print("\nDynamic slower than static by more than 1.10x: " + ("; ".join(slow) if slow else "nowhere"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
