"""The adapters' torch twin of the logits rules (specverify.adapters._rules)
gives the probabilities distributions/logits.c gives (the checks' own):
the same support exactly, the values within 2e-7, on 400 random rows, half
with tied logits, over greedy, plain, top-k, top-p and both. The C is
called through ctypes from a test library of logits.c alone
(SV_LOGITS_LIB)."""

import ctypes
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from specverify.adapters._rules import target_probs_from_logits  # noqa: E402


class Sampling(ctypes.Structure):
    _fields_ = [("T", ctypes.c_double), ("top_k", ctypes.c_int32), ("top_p", ctypes.c_double)]


def c_rules():
    path = os.environ.get("SV_LOGITS_LIB")
    if not path:
        pytest.skip("SV_LOGITS_LIB (the test library of logits.c) not given")
    lib = ctypes.CDLL(path)
    f = lib.sv_logits_to_probs
    f.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.c_int32, ctypes.POINTER(Sampling),
                  ctypes.POINTER(ctypes.c_float)]
    f.restype = ctypes.c_int

    def probs(x, T, k, p):
        x = np.ascontiguousarray(x, dtype=np.float64)
        out = np.zeros(x.size, dtype=np.float32)
        s = Sampling(T, k, p)
        assert f(x.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), x.size, ctypes.byref(s),
                 out.ctypes.data_as(ctypes.POINTER(ctypes.c_float))) == 0
        return out

    return probs


def test_torch_rules_are_the_contract_s():
    want_of = c_rules()
    rng = np.random.default_rng(3)
    for trial in range(400):
        V = int(rng.integers(2, 400))
        x = rng.normal(size=V) * 3
        if trial % 2:
            x = np.round(x * 2) / 2  # many ties
        x = x.astype(np.float32)
        T = float(rng.choice([0.0, 0.3, 1.0, 1.7]))
        k = int(rng.choice([0, 1, 2, 5, 50, V, V + 3]))
        p = float(rng.choice([1.0, 0.3, 0.9, 0.999]))
        got = target_probs_from_logits(torch.from_numpy(x[None, :]), torch.tensor([T]),
                                       torch.tensor([k]), torch.tensor([p]))[0].numpy()
        want = want_of(x.astype(np.float64), T, k, p)
        assert np.array_equal(got > 0, want > 0), (V, T, k, p)
        assert np.abs(got - want).max() <= 2e-7, (V, T, k, p)
    # the top-p cut at exact equality: four equal logits reach 0.5 at the second
    x = np.zeros(4, dtype=np.float32)
    got = target_probs_from_logits(torch.from_numpy(x[None, :]), torch.tensor([1.0]),
                                   torch.tensor([0]), torch.tensor([0.5]))[0].numpy()
    assert np.array_equal(got, want_of(x.astype(np.float64), 1.0, 0, 0.5))
    assert np.array_equal(got, np.array([0.5, 0.5, 0, 0], dtype=np.float32))
