"""Samplers on the engines' grids (engine_grids.py): the torch.float32 coin
with a strict test passes; with "<=" it accepts a zero-mass draft when the
coin is exactly 0, and the harness catches it at a stated power.

The power, by the formula and by hand: on binary:p=0,q=1 every draft has
p = 0, so each draw tests one draft, and a coin of exactly 0 (chance 2^-24)
emits the impossible token, which the contract check fails at once:
P(caught in N draws) = 1 - (1 - 2^-24)^N = 0.1834 at N = 3.4e6
(`specverify verify --case binary:p=0,q=1 --power accept_zero_target
--draws 3400000`); power 1 - 1e-6 needs 2.32e8 draws, which the C variant
accept_zero_target runs (mutant_accept_zero_target, `mutants --full`).
At seed 7 in uniform batches, draw i is sequence index i, and the coin at
(seed 7, index 3314967, position 0, ACCEPT) is 0 (test_broken.c,
test_engine_rng.c): so at these draws the run catches it, deterministically,
at request 1303 of the batch of indices 3313664.., as it catches the C
variant that draws the same coin."""

import math

import specverify
from engine_grids import torch_coin_chain, torch_coin_le

CASE, SEED, DRAWS = "binary:p=0,q=1", 7, 3_400_000
RUN = dict(cases=[CASE], draws=DRAWS, seed=SEED, batches="uniform", seeding="all", echo=False)


def test_power_at_these_draws():
    p = specverify.power("accept_zero_target", cases=[CASE], draws=DRAWS)
    assert abs(p.power - (1 - (1 - 2.0 ** -24) ** DRAWS)) < 1e-6
    assert abs(p.power - 0.1834) < 1e-4
    assert abs(p.cases[0]["draws_for_target"] - math.log(1e6) * 2 ** 24) < 1e-3 * 2 ** 24


def test_zero_coin_caught_at_a_fixed_seed():
    r = specverify.verify(torch_coin_le, **RUN)
    assert not r.passed and r.cases[0].verdict == "FAIL"
    assert any("request 1303 of the batch (seed 7): position 1 emitted token 0, whose target"
               " probability is 0" in f for f in r.cases[0].findings)


def test_strict_coin_passes_there():
    specverify.verify(torch_coin_chain, **RUN).assert_passed()


def test_strict_coin_is_lossless():
    """The torch.float32 coin is 2^-24 off min(1, p/q) at most, the race
    exact: the fit holds on a case with rejections, residuals and bonuses."""
    specverify.verify(torch_coin_chain, cases=["zipf:V=50,K=2"], draws=50_000,
                      echo=False).assert_passed()
