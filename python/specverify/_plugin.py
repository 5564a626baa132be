"""The interpreter's side of Python samplers: what _worker.py calls for
python/plugin/sv_python.c, in the sampler's own interpreter process (a child
of the isolated child, or of the harness with --in-process, or a fork of the
fork server, _server.py, which called load once before it). Not for users:
see specverify.verify.

load(specs, config)  imports each sampler and says what it is
init(i, ...)         one state per harness slot: the callable to call
call(state, raw)     one batch: None, or one line that says what went wrong
describe(exc)        an exception in one line, where it happened
"""

import functools
import importlib
import importlib.util
import json
import os
import re
import stat
import sys
import traceback
import warnings

import numpy as np

from ._batch import INPUTS, LAYOUTS, SIBLINGS, Arrays, Batch
from ._outputs import SamplerError, take, write, write_drafts, write_path

_BONUS = {"sampler": 0, "harness": 1, "none": 2}
RULES = ("chain", "exact_match", "block", "typical", "tree", "tree_target_only")  # sv_rule's order
TREE_RULES = ("tree", "tree_target_only")
LACKS = ("top_k_p", "seeds")  # sv_sampler.h's SV_LACKS_* bits, in order
_LACKS_BONUS = 1 << 2  # SV_LACKS_BONUS: set for a bonus the harness draws
_OWN_DRAFTS = 1 << 16  # SV_INPUT_OWN_DRAFTS: it draws its drafts (contract v8)
_NAME = re.compile(r"^[a-z0-9_]{1,64}$")
_DTYPES = {0: np.float32, 1: np.float32, 2: np.uint16}
_loaded = []

# torch warns once per read-only array it wraps; the rows are read-only on purpose
warnings.filterwarnings("ignore", message="The given NumPy array is not writable")


class _Loaded:
    def __init__(self, spec, obj, meta, config):
        self.spec, self.obj, self.config = spec, obj, config
        self.tensors = meta.get("tensors", "numpy")
        self.device = meta.get("device", "cpu")
        self.bonus = meta.get("bonus", "sampler")
        self.max_batch = meta.get("max_batch")
        self.max_bytes = meta.get("max_bytes")
        self.rule = meta.get("rule", "chain")
        self.drafts = meta.get("drafts", "harness")


def _kind(path):
    """What a path that is not a regular file is, in the harness's words."""
    mode = os.stat(path).st_mode
    for test, words in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISDIR, "a directory"),
                        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                        (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return "not a file"


def _resolve(spec):
    """The object a spec names: "path/to/file.py:qualname" or "module:qualname"."""
    where, sep, qualname = spec.rpartition(":")
    if not sep or not where or not qualname:
        raise ValueError("python sampler '%s': want FILE.py:NAME or MODULE:NAME" % spec)
    if where.endswith(".py") or os.sep in where:
        path = os.path.abspath(where)
        if os.path.exists(path) and not os.path.isfile(path):  # a FIFO would block the import
            raise ValueError("python sampler '%s': %s: is %s, not a regular file"
                             % (spec, path, _kind(path)))
        if not os.path.isfile(path):
            raise ValueError("python sampler '%s': no such file %s" % (spec, path))
        folder = os.path.dirname(path)
        if folder not in sys.path:
            sys.path.insert(0, folder)  # the file's own imports of its neighbours
        modname = "_specverify_user_" + re.sub(r"\W", "_", os.path.splitext(path)[0])
        module = sys.modules.get(modname)
        if module is None:
            loader_spec = importlib.util.spec_from_file_location(modname, path)
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[modname] = module
            loader_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    obj = module
    for part in qualname.split("."):
        if not hasattr(obj, part):
            raise ValueError("python sampler '%s': %s has no '%s'" % (spec, where, part))
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError("python sampler '%s': %s is not callable" % (spec, qualname))
    return obj, qualname


def _bits(names, known, what, spec, base=()):
    mask = 0
    for n in names:
        if n not in known:
            raise ValueError("python sampler '%s': %s '%s' is not one of %s"
                             % (spec, what, n, ", ".join(known)))
        if n not in base:
            mask |= 1 << known.index(n)
    return mask


def load(specs, config):
    """[(name, description, inputs bits, layouts bits, bonus code, rule, lacks bits)] of
    each spec."""
    kwargs = json.loads(config) if config else {}
    if not isinstance(kwargs, dict):
        raise ValueError("python samplers: the configuration must be a JSON object, got %s"
                         % type(kwargs).__name__)
    out = []
    for spec in [s for s in specs.splitlines() if s.strip()]:
        obj, qualname = _resolve(spec.strip())
        meta = dict(getattr(obj, "__specverify__", {}))
        name = meta.get("name") or qualname.rsplit(".", 1)[-1].lower()
        if not _NAME.match(name):
            raise ValueError("python sampler '%s': its name '%s' is not 1 to 64 of a-z, 0-9 "
                             "and _ (give one: @specverify.sampler(name=...))" % (spec, name))
        loaded = _Loaded(spec, obj, meta, kwargs)
        if loaded.bonus not in _BONUS:
            raise ValueError("python sampler '%s': bonus '%s' is not one of %s"
                             % (spec, loaded.bonus, ", ".join(_BONUS)))
        if loaded.tensors not in ("numpy", "torch"):
            raise ValueError("python sampler '%s': tensors '%s' is not numpy or torch"
                             % (spec, loaded.tensors))
        doc = (meta.get("description") or (obj.__doc__ or "").strip().split("\n")[0]
               or "python sampler %s" % spec)
        rule = meta.get("rule", "chain")
        words = "%s [python %s, bonus: %s]" % (doc, loaded.tensors, loaded.bonus)
        inputs = _bits(meta.get("inputs", ("probs",)), INPUTS, "input", spec, base=("probs",))
        layouts = _bits(meta.get("layouts", ("padded",)), LAYOUTS, "layout", spec)
        if not layouts:
            raise ValueError("python sampler '%s': it takes no layout" % spec)
        if rule not in RULES:
            raise ValueError("python sampler '%s': rule '%s' is not one of %s"
                             % (spec, rule, ", ".join(RULES)))
        if rule in TREE_RULES:
            _tree_fits(spec, rule, meta, loaded.bonus)
        inputs |= _own_drafts(spec, loaded)
        lacks = meta.get("lacks", ())
        if isinstance(lacks, str):
            raise ValueError("python sampler '%s': lacks is a tuple of names, e.g. "
                             "lacks=('%s',), not the string '%s'" % (spec, lacks, lacks))
        lacked = _bits(lacks, LACKS, "lack", spec)
        if loaded.bonus != "sampler":  # the engine's own bonus sampler is not under test
            lacked |= _LACKS_BONUS
        _loaded.append(loaded)
        out.append((name, words[:190], inputs, layouts, _BONUS[loaded.bonus], RULES.index(rule),
                    lacked))
    return out


def _tree_fits(spec, rule, meta, bonus):
    """A tree rule's sampler takes probabilities (a tree's rows are) and
    draws its own bonus: a leaf's bonus row depends on the path it accepts,
    which no caller knows before the call."""
    logits = [i for i in meta.get("inputs", ()) if i != "probs"]
    if logits:
        raise ValueError("python sampler '%s': rule '%s' takes probabilities only (a tree's "
                         "rows are), not input '%s'" % (spec, rule, logits[0]))
    if bonus != "sampler":
        raise ValueError("python sampler '%s': rule '%s' needs bonus='sampler': the bonus row "
                         "depends on the path the sampler accepts, so no caller can draw it "
                         "first (bonus '%s')" % (spec, rule, bonus))


def _own_drafts(spec, loaded):
    """The inputs bit of a sampler that draws its own drafts: the chain rule
    over draft rows it is given (contract version 8 has no own-drafted trees,
    and exact match has no draft rows to draw from)."""
    if loaded.drafts not in ("harness", "own"):
        raise ValueError("python sampler '%s': drafts '%s' is not harness or own"
                         % (spec, loaded.drafts))
    if loaded.drafts == "harness":
        return 0
    if loaded.rule != "chain":
        raise ValueError("python sampler '%s': drafts='own' takes the chain rule only (the "
                         "contract's own drafts are a chain drawn from draft rows), not rule "
                         "'%s'" % (spec, loaded.rule))
    return _OWN_DRAFTS


class _Slot:
    __slots__ = ("loaded", "fn")


class DeviceMissing(Exception):
    """The device a sampler declares is not on this machine: the environment's
    failure (exit 3, as a C CUDA sampler's), not the sampler's; sv_python.c
    returns SV_SAMPLER_EDEVICE from init for it."""


def _device_missing(device):
    """Why the CUDA device a sampler declares is not here, or None."""
    if not str(device).startswith("cuda"):
        return None
    try:
        import torch
    except ImportError:
        return "no CUDA device is available (torch is not installed)"
    if not torch.cuda.is_available():
        return "no CUDA device is available (torch.cuda.is_available() is False)"
    index, count = torch.device(device).index, torch.cuda.device_count()
    if index is not None and index >= count:
        return "no CUDA device %d is available (this machine has %d)" % (index, count)
    return None


def init(i, max_b, max_k, max_v):
    """One harness slot's state: the callable its calls go to (a class named
    by the spec is made once per slot, with the configuration)."""
    loaded, slot = _loaded[i], _Slot()
    missing = _device_missing(loaded.device)
    if missing:
        raise DeviceMissing("the sampler declares device=%r, and %s" % (loaded.device, missing))
    slot.loaded = loaded
    if isinstance(loaded.obj, type):
        slot.fn = loaded.obj(**loaded.config)
    elif loaded.config:
        slot.fn = functools.partial(loaded.obj, **loaded.config)
    else:
        slot.fn = loaded.obj
    return slot


RAW_FIELDS = ("B", "K", "V", "input", "layout", "seed", "first_index", "target_stride",
              "draft_stride", "temperature", "top_k", "top_p", "rows_target", "rows_draft",
              "draft_tokens", "out_tokens", "out_accepted", "num_drafts", "cu_num_drafts",
              "indices", "seeds", "seeded", "temperatures", "top_ks", "top_ps", "bonus",
              "parents", "siblings", "out_path", "draft_uniforms", "out_drafts")


def _arrays(raw):
    r = dict(zip(RAW_FIELDS, raw))
    B, K, V = r["B"], r["K"], r["V"]
    a = Arrays()
    a.B, a.K, a.V = B, K, V
    a.input, a.layout = INPUTS[r["input"]], LAYOUTS[r["layout"]]
    dt = _DTYPES[r["input"]]
    item = np.dtype(dt).itemsize

    def rows(mv, stride, width):
        if mv is None:
            return None
        flat = np.frombuffer(mv, dtype=dt)
        if a.layout == "packed":
            return flat.reshape(-1, V)
        return np.lib.stride_tricks.as_strided(
            flat, shape=(B, width, V), strides=(stride * item, V * item, item), writeable=False)

    target = rows(r["rows_target"], r["target_stride"], K + 1)
    draft = rows(r["rows_draft"], r["draft_stride"], K)
    logits = r["input"] != 0
    a.target, a.target_logits = (None, target) if logits else (target, None)
    a.draft, a.draft_logits = (None, draft) if logits else (draft, None)
    tokens = np.frombuffer(r["draft_tokens"], dtype=np.int32)
    a.draft_tokens = tokens if a.layout == "packed" else tokens.reshape(B, K)
    # a batch without the per-sequence arrays (every d_b = K): what they would say
    a.num_drafts = (np.frombuffer(r["num_drafts"], dtype=np.int32) if r["num_drafts"]
                    is not None else np.full(B, K, dtype=np.int32))
    a.cu_num_drafts = (np.frombuffer(r["cu_num_drafts"], dtype=np.int32) if r["cu_num_drafts"]
                       is not None else np.arange(B + 1, dtype=np.int32) * np.int32(K))
    a.indices = (np.frombuffer(r["indices"], dtype=np.uint64) if r["indices"] is not None
                 else np.arange(B, dtype=np.uint64) + np.uint64(r["first_index"]))
    a.seeds = (np.frombuffer(r["seeds"], dtype=np.uint64) if r["seeds"] is not None
               else np.full(B, r["seed"], dtype=np.uint64))
    a.seeded = (np.frombuffer(r["seeded"], dtype=np.uint8).astype(bool)
                if r["seeded"] is not None else np.ones(B, dtype=bool))
    if logits:
        a.temperatures = (np.frombuffer(r["temperatures"], dtype=np.float64)
                          if r["temperatures"] is not None
                          else np.full(B, r["temperature"], dtype=np.float64))
        a.top_ks = (np.frombuffer(r["top_ks"], dtype=np.int32) if r["top_ks"] is not None
                    else np.full(B, r["top_k"], dtype=np.int32))
        a.top_ps = (np.frombuffer(r["top_ps"], dtype=np.float64) if r["top_ps"] is not None
                    else np.full(B, r["top_p"], dtype=np.float64))
    else:
        a.temperatures = a.top_ks = a.top_ps = None
    a.bonus_tokens = (np.frombuffer(r["bonus"], dtype=np.int32) if r["bonus"] is not None
                      else None)
    # a tree batch (contract version 6): parents in the draft tokens' layout
    if r["parents"] is not None:
        parents = np.frombuffer(r["parents"], dtype=np.int32)
        a.parents = parents if a.layout == "packed" else parents.reshape(B, K)
        a.siblings = SIBLINGS[r["siblings"]]
    else:
        a.parents = a.siblings = None
    out_tokens = np.frombuffer(r["out_tokens"], dtype=np.int32)
    out_accepted = np.frombuffer(r["out_accepted"], dtype=np.int32)
    out_path = (np.frombuffer(r["out_path"], dtype=np.int32) if r["out_path"] is not None
                else None)
    # a sampler drawing its own drafts (contract version 8): its uniforms, and
    # its drafts' slots, both in the draft tokens' layout
    if r["draft_uniforms"] is not None:
        u = np.frombuffer(r["draft_uniforms"], dtype=np.float64)
        a.draft_uniforms = u if a.layout == "packed" else u.reshape(B, K)
    else:
        a.draft_uniforms = None
    if r["out_drafts"] is not None:
        out_path = np.frombuffer(r["out_drafts"], dtype=np.int32)
    return a, out_tokens, out_accepted, out_path


def _step(loaded, a):
    """Sequences per call of the sampler: its declared largest batch, or what
    its byte budget allows for this batch's rows."""
    step = a.B
    if loaded.max_batch:
        step = min(step, int(loaded.max_batch))
    if loaded.max_bytes:
        item = 2 if a.input == "logits-bf16" else 4
        per = (2 * a.K + 1) * a.V * item
        step = min(step, max(1, int(loaded.max_bytes) // per))
    return max(step, 1)


def call(slot, raw):
    loaded = slot.loaded
    try:
        a, out_tokens, out_accepted, out_path = _arrays(raw)
        step = _step(loaded, a)
        for i in range(0, a.B, step):
            j = min(a.B, i + step)
            part = a if (i, j) == (0, a.B) else a.sliced(i, j)
            batch = Batch(part, loaded.tensors, loaded.device)
            result = slot.fn(batch)
            third = ("path" if loaded.rule in TREE_RULES
                     else "drafts" if loaded.drafts == "own" else None)
            tokens, n, extra = take(result, part, loaded.device, third)
            c0, c1 = int(a.cu_num_drafts[i]), int(a.cu_num_drafts[j])
            where = (slice(c0 + i, c1 + j) if a.layout == "packed"
                     else slice(i * (a.K + 1), j * (a.K + 1)))
            write(part, tokens, n, out_tokens[where], out_accepted[i:j], loaded.bonus)
            if third == "path" and out_path is not None:
                write_path(part, extra, out_path[where])
            elif third == "drafts" and out_path is not None:  # the drafts' layout
                at = (slice(c0, c1) if a.layout == "packed" else slice(i * a.K, j * a.K))
                write_drafts(part, extra, out_path[at])
        return None
    except SamplerError as e:
        return str(e)
    except BaseException as e:  # SystemExit and KeyboardInterrupt too: a sampler must return
        return describe(e)


def describe(exc):
    """'TypeError: what it says (file.py:12 in fn)': the exception's last line
    and the innermost frame outside specverify's own glue."""
    last = traceback.format_exception_only(type(exc), exc)[-1].strip()
    if isinstance(exc, SyntaxError) and exc.filename:  # its own place, not a frame's
        return ("%s (%s:%s)" % (last, os.path.basename(exc.filename), exc.lineno))[:300]
    here = os.path.dirname(os.path.abspath(__file__))
    where = ""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if os.path.dirname(os.path.abspath(frame.filename)) != here:
            where = " (%s:%d in %s)" % (os.path.basename(frame.filename), frame.lineno,
                                        frame.name)
            break
    return (last + where)[:300]
