#!/usr/bin/env python3
"""record_hf.py: record p/q steps of a real target and draft model in the HDF5
format of distributions/sv_recorded.h, for `specverify` to verify samplers on.

For each step, from the current context (its last --max-context tokens):

  1. the draft model runs K times autoregressively: q_k is its logits row at
     context + x_1..x_{k-1}, and x_k is drawn from softmax(q_k) at T = 1
     (--draft-sampling sample) or is its argmax, lowest index on ties
     (--draft-sampling greedy: what the harness's T = 0 makes of q_k);
  2. one target forward over context + x_1..x_K gives p_1..p_{K+1};
  3. the step is written, and the context advances by what one step of
     speculative sampling at T = 1 emits from these rows: the accepted drafts
     and the correction (or bonus) token. So consecutive steps are the steps a
     real speculative decoder takes, and the contexts follow the target model.

Drafting and the context update sample from the logits as rounded to the
stored --dtype, so every draft in the file is drawn from exactly the row the
file holds. Steps run per prompt (--steps each), stopping a prompt early at
the tokenizer's end-of-text token.

Usage (see docs/record.md#from-real-models):

  python3 tools/record_hf.py --target gpt2-medium --draft distilgpt2 \
      --prompts prompts.txt --K 4 --steps 64 --out gpt2.h5
  python3 tools/record_hf.py --tiny-random --prompt "hello" --K 3 --steps 4 --out t.h5

Needs numpy and h5py to write, torch and transformers to run models. The
parts that need only numpy and h5py (RecordingWriter, write_recording,
record_steps with models given as functions) are what tests/tools/test_record_hf.py
checks where torch is absent.

Exit status: 0 written, 2 bad usage or input, 3 environment (a missing
package), 130 interrupted; nothing is left half-written (OUT.tmp is removed).
"""

import argparse
import importlib
import os
import shlex
import sys

try:
    import h5py
    import numpy as np
except ImportError:  # importing still works; main() and the writer say what to install
    h5py = np = None

FORMAT_VERSION = 1
DTYPES = ("float32", "float16", "bfloat16")
TINY_VOCAB = 256       # the byte tokenizer's size
TINY_TARGET_WIDTH = 272  # the tiny target's logits are padded past it, as real models' often are


class RecordError(Exception):
    """Bad input or a model pair that cannot be recorded (exit 2)."""


class EnvironmentMissing(Exception):
    """A package the run needs is not installed (exit 3)."""


def require(*modules):
    """Imports the named modules, or says which are missing and how to get them."""
    found, missing = [], []
    for name in modules:
        try:
            found.append(importlib.import_module(name))
        except ImportError:
            missing.append(name)
    if missing:
        debian = {"numpy": "python3-numpy", "h5py": "python3-h5py"}
        if all(m in debian for m in missing):
            how = "on Debian: apt-get install %s; elsewhere: pip install %s" % (
                " ".join(debian[m] for m in missing), " ".join(missing))
        else:  # Debian 12's pip refuses system-wide installs (PEP 668), and
            # Debian packages no transformers: a virtual environment it is
            how = ("pip install %s, in a virtual environment where pip refuses a system-wide "
                   "install (Debian 12): apt-get install python3-venv; python3 -m venv ENV; "
                   "ENV/bin/pip install %s; then run ENV/bin/python %s" % (
                       " ".join(missing), " ".join(missing), os.path.basename(__file__)))
        raise EnvironmentMissing("needs %s (%s)" % (", ".join(missing), how))
    return found if len(found) > 1 else found[0]


# ---- storage types ------------------------------------------------------------

def bfloat16_bits(x):
    """float32 -> bfloat16 bits as uint16, rounding to nearest even, NaN kept NaN
    (the rule of distributions/recorded_write.c, so both writers agree)."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    nan = (u & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    nearest = (u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    return np.where(nan, (u >> np.uint32(16)) | np.uint32(0x40), nearest).astype(np.uint16)


def bfloat16_values(bits):
    """bfloat16 bits (uint16) -> float32."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)


def to_storage(x, dtype):
    """The array as stored for --dtype: float32, float16, or uint16 bfloat16 bits."""
    if dtype == "float32":
        return np.asarray(x, dtype=np.float32)
    if dtype == "float16":
        with np.errstate(over="ignore"):  # an overflow becomes inf, which append() refuses
            return np.asarray(x, dtype=np.float32).astype(np.float16)
    if dtype == "bfloat16":
        return bfloat16_bits(x)
    raise RecordError("--dtype %s: expected one of %s" % (dtype, ", ".join(DTYPES)))


def stored_values(stored, dtype):
    """Stored data (as to_storage made it) -> float32 values."""
    return bfloat16_values(stored) if dtype == "bfloat16" else stored.astype(np.float32)


def rounded(x, dtype):
    """The float32 values the file will hold for x (what drafting samples from)."""
    return stored_values(to_storage(x, dtype), dtype)


# ---- writing --------------------------------------------------------------------

class RecordingWriter:
    """Writes one recording step by step: datasets chunked one step per chunk
    and gzip-compressed (so readers hold one step at a time), into PATH.tmp,
    renamed to PATH by commit(). As a context manager it commits on success
    and removes PATH.tmp on an exception."""

    def __init__(self, path, K, V, dtype="float32", group=None, context_len=0,
                 with_drafts=True, source="", target_model="", draft_model="",
                 tokenizer="", produced_by=""):
        require("numpy", "h5py")
        if K < 1 or V < 2 or context_len < 0:
            raise RecordError("%s: cannot record K=%d, V=%d, context %d" % (path, K, V, context_len))
        to_storage(np.zeros(1), dtype)  # refuses an unknown dtype before a file exists
        self.path, self.tmp = path, path + ".tmp"
        self.K, self.V, self.dtype, self.context_len = K, V, dtype, context_len
        self.n = 0
        try:
            self.file = h5py.File(self.tmp, "w")
        except OSError as e:
            raise RecordError("%s: cannot create %s (%s)" % (path, self.tmp, e))
        try:
            self.group = self.file.create_group(group) if group and group != "/" else self.file
            self._attributes(source, target_model, draft_model, tokenizer, produced_by)
            storage = {"float32": np.float32, "float16": np.float16, "bfloat16": np.uint16}[dtype]
            self.target = self._dataset("target_logits", (K + 1, V), storage)
            self.draft = self._dataset("draft_logits", (K, V), storage)
            if dtype == "bfloat16":
                for dset in (self.target, self.draft):
                    self._string_attr(dset, "encoding", "bfloat16")
            self.drafts = self._dataset("draft_tokens", (K,), np.int32) if with_drafts else None
            self.context = (self._dataset("context_ids", (context_len,), np.int32)
                            if context_len > 0 else None)
        except BaseException:
            self.abort()
            raise

    def _dataset(self, name, row_shape, dtype):
        return self.group.create_dataset(
            name, shape=(0,) + row_shape, maxshape=(None,) + row_shape, dtype=dtype,
            chunks=(1,) + row_shape, compression="gzip", compression_opts=6, shuffle=True)

    @staticmethod
    def _string_attr(obj, name, value):
        # ASCII-tagged variable-length strings, as recorded_write.c writes them:
        # HDF5 1.10 will not convert h5py's default UTF-8 tag to a C reader's
        # ASCII type. The bytes are still UTF-8, so no text is lost.
        obj.attrs.create(name, str(value).encode("utf-8"), dtype=h5py.string_dtype("ascii"))

    def _attributes(self, source, target_model, draft_model, tokenizer, produced_by):
        a = self.group.attrs
        a.create("format_version", np.int64(FORMAT_VERSION))
        a.create("vocab_size", np.int64(self.V))
        a.create("K", np.int64(self.K))
        for name, value in (("source", source), ("target_model", target_model),
                            ("draft_model", draft_model), ("tokenizer", tokenizer),
                            ("produced_by", produced_by)):
            self._string_attr(self.group, name, value)

    def append(self, target, draft, drafts=None, context=None):
        """One step: target logits [K+1][V], draft logits [K][V], drafts [K] (given
        exactly when the writer was opened with_drafts), context [context_len]."""
        K, V, i = self.K, self.V, self.n
        rows = {"target_logits": (target, (K + 1, V)), "draft_logits": (draft, (K, V))}
        stored = {}
        for name, (x, shape) in rows.items():
            x = np.asarray(x)
            if x.shape != shape:
                raise RecordError("%s: step %d: %s has shape %s, expected %s"
                                  % (self.path, i, name, x.shape, shape))
            stored[name] = to_storage(x, self.dtype)
            values = stored_values(stored[name], self.dtype)
            # the reader's rule: -inf is a masked token (p = 0); NaN, +inf and a
            # row of nothing but -inf are refused
            bad = np.isnan(values) | (values == np.inf)
            if np.any(bad):
                bad = np.argwhere(bad)[0]
                raise RecordError(
                    "%s: step %d: %s[%s] = %g is not finite as %s%s"
                    % (self.path, i, name, ",".join(map(str, bad)), float(x[tuple(bad)]),
                       self.dtype, " (try --dtype bfloat16)" if self.dtype == "float16" else ""))
            masked = np.all(values == -np.inf, axis=1)
            if np.any(masked):
                raise RecordError("%s: step %d: %s[%d]: every logit is -inf: the row gives no "
                                  "token a probability"
                                  % (self.path, i, name, int(np.argwhere(masked)[0][0])))
        if (drafts is None) != (self.drafts is None):
            raise RecordError("%s: step %d: draft tokens %s, but the writer was opened %s them"
                              % (self.path, i, "missing" if drafts is None else "given",
                                 "with" if drafts is None else "without"))
        if drafts is not None:
            drafts = np.asarray(drafts, dtype=np.int64)
            if drafts.shape != (K,) or drafts.min() < 0 or drafts.max() >= V:
                raise RecordError("%s: step %d: draft tokens %s: expected %d ids in [0, %d)"
                                  % (self.path, i, drafts.tolist(), K, V))
        if self.context is not None:
            context = np.asarray(context, dtype=np.int64)
            if context.shape != (self.context_len,):
                raise RecordError("%s: step %d: context has shape %s, expected (%d,)"
                                  % (self.path, i, context.shape, self.context_len))
        self._put(self.target, stored["target_logits"])
        self._put(self.draft, stored["draft_logits"])
        if self.drafts is not None:
            self._put(self.drafts, drafts.astype(np.int32))
        if self.context is not None:
            self._put(self.context, context.astype(np.int32))
        self.n += 1

    def _put(self, dset, row):
        dset.resize(self.n + 1, axis=0)
        dset[self.n] = row

    def commit(self):
        """Closes the file and renames it into place."""
        if self.n == 0:
            self.abort()
            raise RecordError("%s: no steps recorded; nothing written" % self.path)
        self.file.close()
        os.replace(self.tmp, self.path)

    def abort(self):
        """Closes and removes PATH.tmp: nothing is left behind."""
        try:
            self.file.close()
        finally:
            if os.path.exists(self.tmp):
                os.remove(self.tmp)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is None:
            self.commit()
        else:
            self.abort()
        return False


def write_recording(path, target_logits, draft_logits, draft_tokens=None, context_ids=None,
                    dtype="float32", group=None, **attributes):
    """Writes whole arrays as one recording: target_logits [N][K+1][V],
    draft_logits [N][K][V], draft_tokens [N][K] or None, context_ids [N][C] or
    None (-1 padded); attributes: source, target_model, draft_model,
    tokenizer, produced_by."""
    target_logits, draft_logits = np.asarray(target_logits), np.asarray(draft_logits)
    if target_logits.ndim != 3 or draft_logits.ndim != 3:
        raise RecordError("%s: logits must be [N][K+1][V] and [N][K][V]" % path)
    N, K, V = draft_logits.shape
    if target_logits.shape != (N, K + 1, V):
        raise RecordError("%s: target_logits %s does not fit draft_logits %s"
                          % (path, target_logits.shape, draft_logits.shape))
    C = 0 if context_ids is None else np.asarray(context_ids).shape[1]
    with RecordingWriter(path, K, V, dtype, group, C, draft_tokens is not None,
                         **attributes) as w:
        for i in range(N):
            w.append(target_logits[i], draft_logits[i],
                     None if draft_tokens is None else draft_tokens[i],
                     None if context_ids is None else context_ids[i])


# ---- recording ------------------------------------------------------------------

def softmax64(logits):
    z = np.asarray(logits, dtype=np.float64)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def draw(probs, rng):
    """One index drawn from a probability row by inverse CDF."""
    cdf = np.cumsum(probs)
    return int(min(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"), len(probs) - 1))


def speculative_step(p_logits, q_logits, drafts, greedy, rng):
    """The tokens one step of speculative sampling at T = 1 emits (Leviathan et
    al. 2023): draft x_k is accepted with probability min(1, p_k(x_k)/q_k(x_k));
    at the first rejection a token from norm(max(p_k - q_k, 0)) ends the step;
    if all K pass, a bonus token from p_{K+1}. A greedy draft's q_k is one-hot."""
    p = softmax64(p_logits)
    for k, x in enumerate(drafts):
        if greedy:
            q = np.zeros_like(p[k])
            q[x] = 1.0
        else:
            q = softmax64(q_logits[k])
        if rng.random() * q[x] < p[k, x]:  # u < p/q without dividing; q[x] > 0: x came from q
            continue
        residual = np.maximum(p[k] - q, 0.0)
        if residual.sum() <= 0:  # p == q to rounding: rejection was a rounding fluke
            residual = p[k]
        return list(drafts[:k]) + [draw(residual, rng)]
    return list(drafts) + [draw(p[len(drafts)], rng)]


def padded_context(ids, C):
    """The last C ids, right-aligned, -1 where the context is shorter."""
    tail = list(ids)[-C:] if C > 0 else []
    return [-1] * (C - len(tail)) + tail


def record_steps(target, draft, prompts, writer, K, steps, max_context, V, dtype,
                 greedy=False, seed=0, eos_id=None, progress=None):
    """Records up to `steps` steps per prompt into writer; returns the count.

    target, draft: functions (ids, n) -> float array [n][width >= V], the logits
    of the last n positions of the token list ids. prompts: lists of ids."""
    rng = np.random.default_rng(seed)
    total = 0
    for prompt in prompts:
        context = list(prompt)
        for _ in range(steps):
            ctx = context[-max_context:]
            drafts, q_rows = [], []
            for _k in range(K):
                q = rounded(np.asarray(draft(ctx + drafts, 1))[0, :V], dtype)
                x = int(np.argmax(q)) if greedy else draw(softmax64(q), rng)
                q_rows.append(q)
                drafts.append(x)
            p_rows = rounded(np.asarray(target(ctx + drafts, K + 1))[:, :V], dtype)
            q_rows = np.stack(q_rows)
            writer.append(p_rows, q_rows, drafts, padded_context(ctx, writer.context_len))
            total += 1
            if progress:
                progress(total)
            emitted = speculative_step(p_rows, q_rows, drafts, greedy, rng)
            context += emitted
            if eos_id is not None and eos_id in emitted:
                break  # the text ended: go on with the next prompt
    return total


def common_vocab(tok_target, tok_draft, width_target, width_draft):
    """V for the pair: the logits width when both models have the same one;
    otherwise the tokenizer's size, both cut to it, with a message. Refuses
    tokenizers that differ: speculative decoding needs one vocabulary."""
    vt, vd = tok_target.get_vocab(), tok_draft.get_vocab()
    if vt != vd:
        only = sorted(set(vt.items()) ^ set(vd.items()), key=lambda kv: kv[1])[:3]
        raise RecordError(
            "the target and draft tokenizers differ (%d and %d tokens; e.g. %s): "
            "speculative decoding needs models that share one tokenizer"
            % (len(vt), len(vd), ", ".join("%r=%d" % kv for kv in only)))
    if width_target == width_draft:
        return width_target
    V = min(len(tok_target), width_target, width_draft)
    log("the target's logits have %d columns and the draft's %d; both are cut to %d, the "
        "tokenizer's %d tokens (the rest is padding)"
        % (width_target, width_draft, V, len(tok_target)))
    return V


# ---- models ----------------------------------------------------------------------

class ByteTokenizer:
    """A trivial tokenizer for the tiny random models: one token per UTF-8 byte."""

    name_or_path = "bytes"
    eos_token_id = None

    def encode(self, text):
        return list(text.encode("utf-8"))

    def get_vocab(self):
        return {"<%02x>" % b: b for b in range(TINY_VOCAB)}

    def __len__(self):
        return TINY_VOCAB


def logits_function(model, device):
    """(ids, n) -> float32 numpy [n][width]: the model's logits at the last n
    positions. A model may return a tensor or an object with .logits."""
    torch = require("torch")

    def logits(ids, n):
        with torch.no_grad():
            out = model(torch.tensor([ids], dtype=torch.long, device=device))
            rows = out.logits if hasattr(out, "logits") else out
            return rows[0, -n:].float().cpu().numpy()
    return logits


def tiny_random_models(seed, n_positions):
    """A GPT-2 shaped target and draft with random weights (different seeds),
    small enough to run anywhere; the target's logits are wider than the byte
    tokenizer, as padded real models' are, so the cut is exercised."""
    torch, transformers = require("torch", "transformers")

    def build(width, s):
        torch.manual_seed(s)
        config = transformers.GPT2Config(n_layer=1, n_head=2, n_embd=32, vocab_size=width,
                                         n_positions=n_positions)
        return transformers.GPT2LMHeadModel(config).eval()
    return build(TINY_TARGET_WIDTH, seed), build(TINY_VOCAB, seed + 1)


def load_model(name, dtype, device):
    """A causal LM from the Hugging Face hub or a local path, in eval mode."""
    torch, transformers = require("torch", "transformers")
    version = tuple(int(v) for v in transformers.__version__.split(".")[:2])
    # transformers 4.56 renamed torch_dtype to dtype
    key = "dtype" if version >= (4, 56) else "torch_dtype"
    try:
        model = transformers.AutoModelForCausalLM.from_pretrained(name, **{key: getattr(torch, dtype)})
    except (OSError, ValueError) as e:
        raise RecordError("cannot load model %s: %s" % (name, e))
    return model.to(device).eval()


def load_tokenizer(name):
    transformers = require("transformers")
    try:
        return transformers.AutoTokenizer.from_pretrained(name)
    except (OSError, ValueError) as e:
        raise RecordError("cannot load the tokenizer of %s: %s" % (name, e))


def logits_width(model):
    head = model.get_output_embeddings()
    return int(head.weight.shape[0]) if head is not None else int(model.config.vocab_size)


def max_positions(model):
    c = model.config
    return getattr(c, "max_position_embeddings", None) or getattr(c, "n_positions", None)


def model_label(name, model):
    """The name as given, with the hub revision when there is one, to say which weights."""
    revision = getattr(model.config, "_commit_hash", None)
    return "%s@%s" % (name, revision) if revision else name


# ---- command line ----------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="record_hf.py",
        description="Record p/q steps of a target and a draft model (Hugging Face "
                    "transformers) in specverify's HDF5 format (distributions/sv_recorded.h).")
    models = ap.add_argument_group("models")
    models.add_argument("--target", help="target model: Hugging Face name or local path")
    models.add_argument("--draft", help="draft model: must share the target's tokenizer")
    models.add_argument("--tiny-random", action="store_true",
                        help="tiny randomly initialized GPT-2 models and a byte tokenizer "
                             "instead of --target/--draft: checks the format, downloads nothing")
    models.add_argument("--model-dtype", choices=DTYPES, default="float32",
                        help="the models' compute type (default float32)")
    models.add_argument("--device", default=None,
                        help="cpu or cuda (default: cuda when torch sees a GPU, else cpu)")
    text = ap.add_mutually_exclusive_group(required=True)
    text.add_argument("--prompts", metavar="FILE", help="prompts, one per line (blank lines skipped)")
    text.add_argument("--prompt", metavar="TEXT", help="one prompt")
    ap.add_argument("--K", type=int, default=4, help="drafts per step (default 4)")
    ap.add_argument("--steps", type=int, default=64,
                    help="steps per prompt (default 64; fewer if the text ends)")
    ap.add_argument("--max-context", type=int, default=256,
                    help="tokens of context the models see, and the width C of "
                         "context_ids (default 256)")
    ap.add_argument("--dtype", choices=DTYPES, default="float32",
                    help="how logits are stored (bfloat16: uint16 bits, encoding=\"bfloat16\")")
    ap.add_argument("--draft-sampling", choices=("sample", "greedy"), default="sample",
                    help="drafts drawn from q at T=1 (default) or q's argmax")
    ap.add_argument("--seed", type=int, default=1, help="seed of drafting and the context "
                                                         "updates (and of --tiny-random weights)")
    ap.add_argument("--out", required=True, metavar="FILE.h5", help="the file to write")
    ap.add_argument("--group", default=None, help="write into this group of FILE (default: root)")
    args = ap.parse_args(argv)
    if args.tiny_random and (args.target or args.draft):
        ap.error("--tiny-random replaces --target and --draft")
    if not args.tiny_random and not (args.target and args.draft):
        ap.error("give --target and --draft (or --tiny-random)")
    for name, low in (("K", 1), ("steps", 1), ("max_context", 1)):
        if getattr(args, name) < low:
            ap.error("--%s must be at least %d" % (name.replace("_", "-"), low))
    return args


def read_prompts(args):
    if args.prompt is not None:
        return [args.prompt], "prompt: " + args.prompt
    try:
        with open(args.prompts, encoding="utf-8") as f:
            prompts = [line.rstrip("\n") for line in f if line.strip()]
    except OSError as e:
        raise RecordError("--prompts %s: %s" % (args.prompts, e.strerror))
    if not prompts:
        raise RecordError("--prompts %s: no prompts (one per line)" % args.prompts)
    return prompts, args.prompts


def tokenize(tokenizer, prompts):
    ids = []
    for i, text in enumerate(prompts):
        t = tokenizer.encode(text)
        if not t:
            t = [tokenizer.bos_token_id] if getattr(tokenizer, "bos_token_id", None) is not None else []
        if not t:
            raise RecordError("prompt %d (%r) has no tokens" % (i + 1, text))
        ids.append(t)
    return ids


def log(message):
    print("record_hf: " + message, file=sys.stderr)


def progress_printer(total):
    """Prints steps done on stderr when it is a terminal; quiet in logs."""
    if not sys.stderr.isatty():
        return None
    return lambda done: print("\rrecord_hf: step %d/%d" % (done, total), end="",
                              file=sys.stderr, flush=True)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    torch = require("numpy", "h5py", "torch", "transformers")[2]
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise EnvironmentMissing("--device %s: torch sees no CUDA GPU" % device)
    prompts, source = read_prompts(args)
    if args.tiny_random:
        target, draft = tiny_random_models(args.seed, args.max_context + args.K)
        tok_target = tok_draft = ByteTokenizer()
        target_name, draft_name = "tiny-random-gpt2:seed=%d" % args.seed, \
            "tiny-random-gpt2:seed=%d" % (args.seed + 1)
        target, draft = target.to(device), draft.to(device)
    else:
        tok_target, tok_draft = load_tokenizer(args.target), load_tokenizer(args.draft)
        target = load_model(args.target, args.model_dtype, device)
        draft = load_model(args.draft, args.model_dtype, device)
        target_name, draft_name = model_label(args.target, target), model_label(args.draft, draft)
    for label, model in (("target", target), ("draft", draft)):
        limit = max_positions(model)
        if limit and args.max_context + args.K > limit:
            raise RecordError("--max-context %d + --K %d exceeds the %s model's %d positions"
                              % (args.max_context, args.K, label, limit))
    V = common_vocab(tok_target, tok_draft, logits_width(target), logits_width(draft))
    prompt_ids = tokenize(tok_target, prompts)
    command = shlex.join(["python3", sys.argv[0]] + argv)
    with RecordingWriter(args.out, args.K, V, args.dtype, args.group, args.max_context,
                         source=source, target_model=target_name, draft_model=draft_name,
                         tokenizer=getattr(tok_target, "name_or_path", ""),
                         produced_by=command) as writer:
        n = record_steps(logits_function(target, device), logits_function(draft, device),
                         prompt_ids, writer, args.K, args.steps, args.max_context, V, args.dtype,
                         greedy=args.draft_sampling == "greedy", seed=args.seed,
                         eos_id=getattr(tok_target, "eos_token_id", None),
                         progress=progress_printer(len(prompt_ids) * args.steps))
    if sys.stderr.isatty():
        print(file=sys.stderr)
    where = args.out + (":" + args.group if args.group else "")
    log("wrote %d steps (K=%d, V=%d, %s) from %d prompt(s) to %s"
        % (n, args.K, V, args.dtype, len(prompt_ids), where))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RecordError as e:
        print("record_hf: %s" % e, file=sys.stderr)
        sys.exit(2)
    except EnvironmentMissing as e:
        print("record_hf: %s" % e, file=sys.stderr)
        sys.exit(3)
    except KeyboardInterrupt:
        print("record_hf: interrupted; nothing written", file=sys.stderr)
        sys.exit(130)
