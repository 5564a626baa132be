#!/usr/bin/env python3
"""test_record_hf.py: tools/record_hf.py writes recordings in the format of
distributions/sv_recorded.h. Prints one PASS/FAIL line per check.

  (a) with numpy and h5py: the writer on synthetic arrays (layout, dtypes,
      float32 / float16 / bfloat16-as-uint16, chunking, compression,
      attributes, values, nothing left half-written, refusals), bfloat16
      rounding, the vocabulary check, and the recording loop with models
      given as numpy functions (the rows are the models' rows at the right
      positions, contexts advance by what speculative sampling emits, whose
      first token is distributed as p_1);
  (b) with torch (and transformers): the model wrapper, and the whole
      `record_hf.py --tiny-random` run;
  (c) with SPECVERIFY given and its `verify --help` offering --recorded:
      specverify reads the files written above and verifies ref on them.

What a machine lacks is skipped with a "SKIPPED:" line; with no numpy or
h5py anywhere the test exits 77 (CTest: skipped).

usage: test_record_hf.py [SPECVERIFY [SCRATCH_DIR]]
"""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.normpath(os.path.join(HERE, "..", "..", "tools", "record_hf.py"))
SKIP = 77
failures = 0


def check(ok, what):
    global failures
    print("%s: %s" % ("PASS" if ok else "FAIL", what))
    if not ok:
        failures += 1
    return ok


def skipped(what):
    print("SKIPPED: record_hf: %s" % what)


def has_modules(python, modules):
    code = "import " + ", ".join(modules)
    try:
        return subprocess.run([python, "-c", code], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def best_python():
    """The interpreter to run under: this one unless another python3 on this
    machine has more of what the test needs. A pyenv or venv python3 first on
    PATH hides the system one that Debian's python3-h5py installs into (and a
    venv may hold torch and transformers that the system one lacks)."""
    candidates = [sys.executable]
    for c in (shutil.which("python3"), "/usr/bin/python3", "/usr/local/bin/python3"):
        if c and os.path.exists(c) and os.path.realpath(c) not in map(os.path.realpath, candidates):
            candidates.append(c)
    for modules in (["numpy", "h5py", "torch", "transformers"], ["numpy", "h5py", "torch"],
                    ["numpy", "h5py"]):
        for c in candidates:
            if has_modules(c, modules):
                return c
    return None


def load_tool():
    import importlib.util

    sys.dont_write_bytecode = True  # no tools/__pycache__ in the source tree
    spec = importlib.util.spec_from_file_location("record_hf", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- (a) the writer ------------------------------------------------------------

def synthetic(N=3, K=2, V=50, C=5, seed=7):
    import numpy as np

    rng = np.random.default_rng(seed)
    target = rng.normal(0, 3, (N, K + 1, V)).astype(np.float32)
    draft = rng.normal(0, 3, (N, K, V)).astype(np.float32)
    drafts = rng.integers(0, V, (N, K)).astype(np.int32)
    context = np.full((N, C), -1, dtype=np.int32)
    context[:, 2:] = rng.integers(0, V, (N, C - 2))
    return target, draft, drafts, context


def check_layout(path, group, N, K, V, C, dtype, meta):
    """The layout sv_recorded.h specifies; returns the group's decoded logits."""
    import h5py
    import numpy as np

    storage = {"float32": np.float32, "float16": np.float16, "bfloat16": np.uint16}[dtype]
    with h5py.File(path, "r") as f:
        g = f[group] if group else f
        a = g.attrs
        check(a["format_version"] == 1 and np.issubdtype(a["format_version"].dtype, np.integer),
              "%s: format_version is the integer 1" % dtype)
        check(int(a["vocab_size"]) == V and int(a["K"]) == K and
              np.issubdtype(a["K"].dtype, np.integer), "%s: vocab_size and K" % dtype)
        for name, value in meta.items():
            tid = a.get_id(name).get_type()
            check(a[name] == value and tid.is_variable_str() and
                  tid.get_cset() == h5py.h5t.CSET_ASCII,
                  "%s: attribute %s = %r, a variable-length string the C reader takes"
                  % (dtype, name, value))
        shapes = {"target_logits": (N, K + 1, V), "draft_logits": (N, K, V),
                  "draft_tokens": (N, K), "context_ids": (N, C)}
        for name, shape in shapes.items():
            d = g[name]
            want = storage if name.endswith("logits") else np.int32
            check(d.shape == shape and d.dtype == want and d.chunks == (1,) + shape[1:] and
                  d.compression == "gzip",
                  "%s: %s %s %s, chunks of one step, gzip" % (dtype, name, shape,
                                                              np.dtype(want).name))
        for name in ("target_logits", "draft_logits"):
            enc = g[name].attrs.get("encoding")
            check((enc == "bfloat16") == (dtype == "bfloat16"),
                  "%s: %s encoding attribute %r" % (dtype, name, enc))
        values = {}
        for name in ("target_logits", "draft_logits"):
            raw = g[name][...]
            values[name] = ((raw.astype(np.uint32) << 16).view(np.float32)
                            if dtype == "bfloat16" else raw.astype(np.float32))
        values["draft_tokens"] = g["draft_tokens"][...]
        values["context_ids"] = g["context_ids"][...]
    return values


def test_writer(rh, tmp):
    import h5py
    import numpy as np

    N, K, V, C = 3, 2, 50, 5
    target, draft, drafts, context = synthetic(N, K, V, C)
    meta = {"source": "synthetic é", "target_model": "t", "draft_model": "d", "tokenizer": "",
            "produced_by": "test_record_hf.py"}
    tolerance = {"float32": 0.0, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}
    files = {}
    for dtype, group in (("float32", None), ("float16", "runs/f16"), ("bfloat16", "bf")):
        path = os.path.join(tmp, "w-%s.h5" % dtype)
        rh.write_recording(path, target, draft, drafts, context, dtype=dtype, group=group, **meta)
        check(os.path.exists(path) and not os.path.exists(path + ".tmp"),
              "%s: written and renamed into place" % dtype)
        files["writer-" + dtype] = path + (":" + group if group else "")
        got = check_layout(path, group, N, K, V, C, dtype, meta)
        for name, want in (("target_logits", target), ("draft_logits", draft)):
            err = np.max(np.abs(got[name] - want) / np.maximum(np.abs(want), 1e-30))
            check(err <= tolerance[dtype], "%s: %s round trip, relative error %.2g <= %.2g"
                  % (dtype, name, err, tolerance[dtype]))
        check(np.array_equal(got["draft_tokens"], drafts) and
              np.array_equal(got["context_ids"], context), "%s: drafts and context" % dtype)

    # bfloat16: round to nearest even, as distributions/recorded_write.c does
    x = np.array([1.0, 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, -2.5, np.inf, np.nan], np.float32)
    bits = rh.bfloat16_bits(x)
    check(bits[:5].tolist() == [0x3F80, 0x3F80, 0x3F82, 0xC020, 0x7F80] and
          np.isnan(rh.bfloat16_values(bits[5:])[0]),
          "bfloat16 bits: ties to even, inf and NaN kept")

    # refusals leave nothing behind
    path = os.path.join(tmp, "refused.h5")
    big = target.copy()
    big[1, 2, 3] = 1e5
    cases = [("a logit that overflows float16", dict(target_logits=big, dtype="float16"),
              "not finite"),
             ("a NaN logit", dict(target_logits=np.where(big > 1e4, np.nan, big)), "not finite"),
             ("a +inf logit", dict(target_logits=np.where(big > 1e4, np.inf, big)), "not finite"),
             ("a row of -inf", dict(draft_logits=np.where(
                 np.arange(draft.shape[1])[None, :, None] == 0, -np.inf, draft)), "every logit"),
             ("a draft token >= V", dict(draft_tokens=np.where(drafts == drafts[0, 0], V, drafts)),
              "draft tokens"),
             ("mismatched shapes", dict(draft_logits=draft[:, :, :-1]), "does not fit"),
             ("an unknown dtype", dict(dtype="int8"), "--dtype")]
    for what, change, words in cases:
        args = dict(target_logits=target, draft_logits=draft, draft_tokens=drafts,
                    context_ids=context)
        args.update(change)
        try:
            rh.write_recording(path, **args)
            ok, message = False, "accepted"
        except rh.RecordError as e:
            ok, message = words in str(e), str(e)
        check(ok and not os.path.exists(path) and not os.path.exists(path + ".tmp"),
              "refuses %s, leaving no file: %s" % (what, message))
    # -inf is a masked token (p = 0), as vocabulary masking leaves it: written
    masked = target.copy()
    masked[0, 0, 1] = -np.inf
    rh.write_recording(path, target_logits=masked, draft_logits=draft, draft_tokens=drafts,
                       context_ids=context)
    with h5py.File(path, "r") as f:
        check(f["target_logits"][0, 0, 1] == -np.inf, "writes a -inf logit (a masked token)")
    os.remove(path)
    return files


# ---- (a) the recording loop with numpy models ---------------------------------

class FakeTokenizer:
    def __init__(self, n, rename=None):
        self.vocab = {"t%d" % i: i for i in range(n)}
        if rename:
            self.vocab[rename] = self.vocab.pop("t0")

    def get_vocab(self):
        return dict(self.vocab)

    def __len__(self):
        return len(self.vocab)


def bigram_model(width, seed):
    """(ids, n) -> the last n rows of a model whose logits depend on the
    previous token and the position, as a numpy function."""
    import numpy as np

    table = np.random.default_rng(seed).normal(0, 2, (64, width)).astype(np.float32)

    def logits(ids, n):
        rows = table[np.asarray(ids) % 64] + 0.01 * np.arange(len(ids))[:, None]
        return rows[-n:]
    return logits


def test_loop(rh, tmp):
    import numpy as np

    # the vocabulary: same tokenizer and widths 40 and 36 -> cut to the tokenizer's 32
    V = rh.common_vocab(FakeTokenizer(32), FakeTokenizer(32), 40, 36)
    check(V == 32, "logits widths 40 and 36 with a 32-token tokenizer: V = %d" % V)
    check(rh.common_vocab(FakeTokenizer(32), FakeTokenizer(32), 40, 40) == 40,
          "equal logits widths are kept")
    try:
        rh.common_vocab(FakeTokenizer(32), FakeTokenizer(32, rename="other"), 32, 32)
        check(False, "refuses tokenizers that differ")
    except rh.RecordError as e:
        check("tokenizers differ" in str(e), "refuses tokenizers that differ: %s" % e)

    K, steps, C = 3, 6, 8
    prompts = [[5, 6, 7], [9]]
    target, draft = bigram_model(40, 1), bigram_model(36, 2)
    files = {}
    for dtype, greedy in (("float32", False), ("bfloat16", True)):
        path = os.path.join(tmp, "loop-%s.h5" % dtype)
        with rh.RecordingWriter(path, K, V, dtype, None, C, source="test") as w:
            n = rh.record_steps(target, draft, prompts, w, K, steps, C, V, dtype,
                                greedy=greedy, seed=3)
        files[dtype] = path
        what = "loop (%s, %s drafts)" % (dtype, "greedy" if greedy else "sampled")
        check(n == len(prompts) * steps, "%s: %d steps" % (what, n))
        got = check_layout(path, None, n, K, V, C, dtype, {"source": "test"})
        rows_ok = contexts_ok = greedy_ok = True
        for i in range(n):
            ctx = [t for t in got["context_ids"][i] if t >= 0]
            x = got["draft_tokens"][i].tolist()
            want_q = np.stack([rh.rounded(draft(ctx + x[:k], 1)[0, :V], dtype) for k in range(K)])
            want_p = rh.rounded(target(ctx + x, K + 1)[:, :V], dtype)
            rows_ok &= np.array_equal(got["draft_logits"][i], want_q) and \
                np.array_equal(got["target_logits"][i], want_p)
            greedy_ok &= not greedy or x == np.argmax(got["draft_logits"][i], axis=1).tolist()
            if i % steps == 0:
                contexts_ok &= ctx == prompts[i // steps][-C:]
            else:
                # this step's context is the last one's plus what it emitted: the
                # accepted drafts, then one more token
                prev = [t for t in got["context_ids"][i - 1] if t >= 0]
                prev_x = got["draft_tokens"][i - 1].tolist()
                contexts_ok &= any((prev + prev_x[:n] + [ctx[-1]])[-C:] == ctx
                                   for n in range(K + 1))
        check(rows_ok, "%s: each q_k is the draft's row at context + x_<k, each p_k the "
              "target's, as stored" % what)
        check(contexts_ok, "%s: contexts start at the prompt and advance by accepted drafts "
              "plus one token" % what)
        check(greedy_ok, "%s: greedy drafts are the argmax of the stored q" % what)

    # a prompt stops at the end-of-text token: a target that is sure of token 0
    def sure_of_zero(ids, n):
        rows = np.zeros((n, V), np.float32)
        rows[:, 0] = 30.0
        return rows
    path = os.path.join(tmp, "eos.h5")
    with rh.RecordingWriter(path, K, V, "float32", None, C) as w:
        n = rh.record_steps(sure_of_zero, draft, prompts, w, K, steps, C, V, "float32",
                            seed=3, eos_id=0)
    check(n == len(prompts), "a prompt stops at the end-of-text token: %d steps" % n)

    # the context update is one step of speculative sampling: its first token
    # is distributed as p_1 (fact 2). X^2 with 3 degrees of freedom exceeds
    # 30.7 with probability 1e-6 under the null; fixed seed.
    p_logits = np.log(np.array([[0.5, 0.3, 0.15, 0.05], [0.25] * 4, [0.1, 0.2, 0.3, 0.4]]))
    q_logits = np.log(np.array([[0.1, 0.1, 0.4, 0.4], [0.4, 0.3, 0.2, 0.1]]))
    rng = np.random.default_rng(11)
    counts = np.zeros(4)
    draws = 20000
    for _ in range(draws):
        x = [rh.draw(rh.softmax64(q_logits[0]), rng), 0]
        x[1] = rh.draw(rh.softmax64(q_logits[1]), rng)
        counts[rh.speculative_step(p_logits, q_logits, x, False, rng)[0]] += 1
    expected = draws * np.exp(p_logits[0])
    x2 = float(np.sum((counts - expected) ** 2 / expected))
    check(x2 < 30.7, "context update: first emitted token ~ p_1 (X^2 = %.1f, 3 df)" % x2)
    return files


def test_cli_without_models(tmp, have_torch_tf):
    """Where torch or transformers is missing, the tool says so and exits 3."""
    if have_torch_tf:
        return
    out = os.path.join(tmp, "no-models.h5")
    r = subprocess.run([sys.executable, TOOL, "--tiny-random", "--prompt", "x", "--out", out],
                       capture_output=True, text=True)
    check(r.returncode == 3 and "needs" in r.stderr and not os.path.exists(out),
          "without torch/transformers: exit 3 naming them (%s)" % r.stderr.strip())
    r = subprocess.run([sys.executable, TOOL, "--prompt", "x", "--out", out],
                       capture_output=True, text=True)
    check(r.returncode == 2 and "--target" in r.stderr, "no models given: exit 2")


# ---- (b) torch and transformers --------------------------------------------------

def test_torch_wrapper(rh):
    import numpy as np
    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Embedding(20, 8), torch.nn.Linear(8, 24))
    logits = rh.logits_function(model, "cpu")
    ids = [3, 1, 4, 1, 5]
    got = logits(ids, 2)
    with torch.no_grad():
        want = model(torch.tensor([ids]))[0, -2:].numpy()
    check(got.shape == (2, 24) and got.dtype == np.float32 and np.allclose(got, want),
          "torch wrapper: the last n rows of the model's logits, float32")


def test_tiny_random(tmp):
    prompts = os.path.join(tmp, "prompts.txt")
    with open(prompts, "w") as f:
        f.write("The quick brown fox\n\njumps over\n")
    files = {}
    for dtype, sampling, group in (("bfloat16", "sample", "runs/tiny"),
                                   ("float16", "greedy", None)):
        out = os.path.join(tmp, "tiny-%s.h5" % dtype)
        cmd = [sys.executable, TOOL, "--tiny-random", "--prompts", prompts, "--K", "3",
               "--steps", "4", "--max-context", "24", "--dtype", dtype, "--draft-sampling",
               sampling, "--device", "cpu", "--out", out] + (["--group", group] if group else [])
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if not check(r.returncode == 0, "record_hf.py --tiny-random --dtype %s: exit %d%s"
                     % (dtype, r.returncode, "" if r.returncode == 0 else "\n" + r.stderr)):
            continue
        check("cut to 256" in r.stderr, "tiny-random: the padded target is cut to the "
              "byte tokenizer's 256 tokens, with a message")
        meta = {"source": prompts, "tokenizer": "bytes", "target_model": "tiny-random-gpt2:seed=1",
                "draft_model": "tiny-random-gpt2:seed=2"}
        got = check_layout(out, group, 8, 3, 256, 24, dtype, meta)
        import h5py

        with h5py.File(out, "r") as f:
            produced_by = (f[group] if group else f).attrs["produced_by"]
        check("--tiny-random" in produced_by and out in produced_by,
              "tiny-random: produced_by is the command line (%s)" % produced_by)
        first = [t for t in got["context_ids"][0] if t >= 0]
        check(bytes(first) == b"The quick brown fox", "tiny-random: the first context is the "
              "first prompt's bytes")
        files["tiny-" + dtype] = out + (":" + group if group else "")
    return files


# ---- (c) specverify reads the files -------------------------------------------------

def test_specverify(specverify, files):
    if not specverify or not os.path.exists(specverify):
        skipped("(c) no specverify binary given")
        return
    r = subprocess.run([specverify, "verify", "--help"], capture_output=True, text=True)
    if "--recorded" not in r.stdout + r.stderr:
        skipped("(c) this specverify has no verify --recorded yet")
        return
    for name, path in sorted(files.items()):
        cmd = [specverify, "verify", "--recorded", path, "--draws", "1000", "--sampler", "ref",
               "--steps", "0:2"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        check(r.returncode == 0, "specverify verify --recorded %s (%s): exit %d%s"
              % (path, name, r.returncode, "" if r.returncode == 0 else
                 "\n" + (r.stdout + r.stderr)[-2000:]))


def main():
    python = best_python()
    if python is None:
        skipped("numpy and h5py are not installed for any python3 here "
                "(Debian: apt-get install python3-numpy python3-h5py)")
        return SKIP
    if os.path.realpath(python) != os.path.realpath(sys.executable) and \
            not os.environ.get("SV_RECORD_HF_REEXEC"):
        os.environ["SV_RECORD_HF_REEXEC"] = "1"
        os.execv(python, [python] + sys.argv)
    specverify = sys.argv[1] if len(sys.argv) > 1 else None
    tmp = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="record_hf_")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    print("record_hf: python %s" % sys.executable)

    rh = load_tool()
    try:  # issue 23: Debian 12's pip refuses system-wide installs
        rh.require("sv_no_such_module")
        check(False, "require() of a missing module raises EnvironmentMissing")
    except rh.EnvironmentMissing as e:
        check("python3 -m venv ENV; ENV/bin/pip install sv_no_such_module" in str(e),
              "a missing module: the message says how to get it on Debian 12 (%s)" % e)
    files = test_writer(rh, tmp)
    files.update(test_loop(rh, tmp))
    have_torch = has_modules(sys.executable, ["torch"])
    have_tf = have_torch and has_modules(sys.executable, ["transformers"])
    test_cli_without_models(tmp, have_tf)
    if have_torch:
        test_torch_wrapper(rh)
    else:
        skipped("(b) torch is not installed: the model wrapper is not checked")
    if have_tf:
        files.update(test_tiny_random(tmp))
    else:
        skipped("(b) transformers is not installed: record_hf.py --tiny-random is not run")
    test_specverify(specverify, files)
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
