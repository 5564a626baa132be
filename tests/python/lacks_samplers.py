"""numpy_chain (tests/python/numpy_chain.py) made to lack a feature, each
with and without saying so (@specverify.sampler(lacks=...)), for
tests/python/test_lacks.py:
  own_rng      one generator for the process, not the requests' seeds: a
               seeded request's tokens change with its batch;
  temp_only    logits input by temperature alone, no top-k or top-p: a top-p
               request's tokens leave its cut;
  own_rng_q_ignored  own_rng that accepts with p(x) whatever q is (a defect
               its declaration must not hide)."""

import numpy as np

import specverify
from numpy_chain import numpy_chain

# the process's one generator: each run's sampler process imports this module
# afresh, so every run starts it from this seed
_rng = np.random.default_rng(20240617)


class _View:
    """The batch, with other uniforms or other rows."""

    def __init__(self, batch, **given):
        self._batch, self._given = batch, given

    def __getattr__(self, name):
        return self._given[name] if name in self._given else getattr(self._batch, name)

    def uniforms(self, position, purpose, lane=0, like=None):
        if "target" in self._given:  # temp_only: the harness's uniforms
            return self._batch.uniforms(position, purpose, lane, like)
        return 1.0 - _rng.random(self._batch.B)  # (0, 1], the request's seed unused


@specverify.sampler(name="own_rng_py", layouts=("padded", "packed"), max_batch=2048)
def own_rng(batch):
    """numpy_chain on the process's generator, not the requests' seeds"""
    return numpy_chain(_View(batch))


@specverify.sampler(name="own_rng_py_lacks", layouts=("padded", "packed"), max_batch=2048,
                    lacks=("seeds",))
def own_rng_lacks(batch):
    """own_rng, saying it lacks per-request seeds"""
    return numpy_chain(_View(batch))


@specverify.sampler(name="own_rng_py_q_ignored", layouts=("padded", "packed"), max_batch=2048,
                    lacks=("seeds",))
def own_rng_q_ignored(batch):
    """own_rng_lacks accepting with p(x) whatever q is (a defect)"""
    return numpy_chain(_View(batch, draft=None))


def _softmax_by_temperature(logits, temperatures):
    """float32 rows: softmax(l / T) per row, one-hot at the first maximum for T = 0."""
    x = logits.astype(np.float64)
    out = np.zeros_like(x)
    greedy = temperatures == 0
    out[np.flatnonzero(greedy), np.argmax(x[greedy], axis=1)] = 1.0
    hot = ~greedy
    if hot.any():
        z = (x[hot] - x[hot].max(axis=1, keepdims=True)) / temperatures[hot][:, None]
        w = np.exp(z)
        out[hot] = w / w.sum(axis=1, keepdims=True)
    return out.astype(np.float32)


def _temp_only(batch):
    if batch.target_logits is None:
        return numpy_chain(batch)
    d = batch.num_drafts.astype(np.int64)
    T = batch.temperatures.astype(np.float64)
    if batch.layout == "padded":
        B, R, V = batch.target_logits.shape
        target = _softmax_by_temperature(batch.target_logits.reshape(-1, V), np.repeat(T, R))
        target = target.reshape(B, R, V)
        draft = None
        if batch.draft_logits is not None:
            Bd, Rd, _ = batch.draft_logits.shape
            draft = _softmax_by_temperature(batch.draft_logits.reshape(-1, V),
                                            np.repeat(T, Rd)).reshape(Bd, Rd, V)
    else:
        target = _softmax_by_temperature(batch.target_logits, np.repeat(T, d + 1))
        draft = (_softmax_by_temperature(batch.draft_logits, np.repeat(T, d))
                 if batch.draft_logits is not None else None)
    return numpy_chain(_View(batch, target=target, draft=draft))


@specverify.sampler(name="temp_only_py", layouts=("padded", "packed"), max_batch=2048,
                    inputs=("probs", "logits-f32"))
def temp_only(batch):
    """numpy_chain on logits by temperature alone"""
    return _temp_only(batch)


@specverify.sampler(name="temp_only_py_lacks", layouts=("padded", "packed"), max_batch=2048,
                    inputs=("probs", "logits-f32"), lacks=("top_k_p",))
def temp_only_lacks(batch):
    """temp_only, saying it lacks top-k and top-p"""
    return _temp_only(batch)


@specverify.sampler(bonus="harness", layouts=("padded", "packed"), max_batch=2048)
def harness_bonus(batch):
    """numpy_chain that emits the harness's bonus after every draft accepted"""
    out = numpy_chain(batch)
    d = batch.num_drafts.astype(np.int64)
    full = np.flatnonzero(out[np.arange(batch.B), d] >= 0)
    accepted = full[[bool((out[b, :d[b]] == batch.draft_token_matrix()[b, :d[b]]).all())
                     for b in full]]
    out[accepted, d[accepted]] = batch.bonus_tokens[accepted]
    return out

# a name the contract does not define: refused when loaded
@specverify.sampler(lacks=("top_k",))
def bad_lacks(batch):
    """never called"""
