"""A numpy sampler through the Python path: the ci suite's cases in mixed
batches (both layouts, ragged drafts, seeded and unseeded requests), and
the seeding axis. Each run: family-wise false-alarm rate 1e-6, seed 1.

Draws: the suite's own (27.7 M) take over half an hour in numpy on 2 cores
(a row of V = 151936 costs numpy about 1 ms where the C reference takes
0.07), so CI runs its 17 cases at a hundredth of the suite's draws
(draws_scale=0.01, 0.28 M in all, 23 s): the suite's weighting, so the
V = 1000 cases get 10,000 to 40,000 draws and the four of V >= 32000 get
2,000 to 5,200. At that N the smallest TV distance a position-1 test
detects with probability 1 - 4e-9 (the report's min-det) is 0.113 on
seedlab:V=1000,K=5, 0.049 on peaked and 0.066 on onehot: coarse, but a
sampler that drops, swaps or misdraws whole tokens moves TV by more
(test_vllm_style.py's planted bug: 0.16 on seedlab, 0.15 on onehot)."""

import specverify
from numpy_chain import numpy_chain, numpy_chain_dlpack


def test_numpy_chain_passes_ci():
    r = specverify.verify(numpy_chain, suite="ci", draws_scale=0.01, echo=False)
    r.assert_passed()
    assert len(r.cases) == 17
    assert r.json["batches"] == "mixed" and r.json["seeding"] == "mixed"
    # the checks contract v3 adds ran: seeded sequences re-run in other batches
    assert any(c.batch_composition and c.batch_composition["seeded_probed"] > 0
               for c in r.cases)


def test_numpy_chain_all_seeded_and_none_seeded():
    for seeding in ("all", "none"):
        r = specverify.verify(numpy_chain, suite="smoke", seeding=seeding, echo=False)
        r.assert_passed()
        assert r.json["seeding"] == seeding


def test_tokens_through_dlpack():
    """Another framework's array (here one seen only through __dlpack__)
    is taken as numpy's is."""
    specverify.verify(numpy_chain_dlpack, suite="smoke", echo=False).assert_passed()
