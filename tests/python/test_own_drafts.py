"""Python samplers that draw their own drafts (drafts="own", contract v8;
tests/python/own_drafts.py). Each run: seed 1, family-wise false-alarm
rate 1e-6.

- own_drafts_chain (correct) passes ci at a hundredth of its draws, as
  test_numpy.py's numpy_chain does (that file says what this N detects),
  the cases it cannot take (Markov pairs, the one-hot drafter) named in
  checks not taken; its mixed batches come in both layouts it declares.
- own_drafts_argmax (argmax drafts verified as if sampled) fails smoke:
  its accepted lengths and fits are off by whole tokens (TV 0.73 on
  zipf:V=200,K=4, where smoke's threshold is 0.018).
- Logits input: own_drafts_logits (q made by the request's temperature)
  passes two of the logits suite's cases at 5,000 draws; its twin whose
  drafter samples at temperature 1 fails both: at T = 0.7 its drafts are
  flatter than q (TV 0.21 at position 2, where the threshold is 0.13),
  and at T = 0 (greedy, q one-hot) it drafts tokens of draft
  probability 0, a contract finding.
- A malformed return is the sampler's finding, in the glue's words.
The bfloat16 drafter is caught at the draws its case needs
(own_drafts_cli.sh, a CTest-only run: 1.6e7 draws)."""

import specverify
from own_drafts import (own_drafts_argmax, own_drafts_chain, own_drafts_logits,
                        own_drafts_temperature_ignored, own_drafts_wrong_shape)

LEFT_OUT = ("onehot:V=1000,K=5", "markov:V=64,K=4")


def test_own_drafts_chain_passes_ci():
    r = specverify.verify(own_drafts_chain, suite="ci", draws_scale=0.01, threads=2, echo=False)
    r.assert_passed()
    names = [c["name"] for c in r.json["cases"]]
    assert len(names) == 14 and not any(n.startswith(("onehot", "markov")) for n in names)
    taken = r.json["checks_not_taken"]
    assert "3 cases left out" in taken and all(c in taken for c in LEFT_OUT)


def test_argmax_drafts_fail_smoke():
    r = specverify.verify(own_drafts_argmax, suite="smoke", rerun=False, echo=False)
    assert not r.passed and r.json["summary"]["failed"] == 4
    assert "more drafts accepted than min(1, p/q) allows" in r.text


def test_wrong_shape_is_a_finding():
    r = specverify.verify(own_drafts_wrong_shape, cases=["zipf:V=200,K=4"], draws=20_000,
                          rerun=False, echo=False)
    assert not r.passed
    assert "returned drafts of shape (4096, 5); want (4096, 4)" in r.text


LOGITS = dict(cases=["logits:V=1000,K=5,T=0.7", "logits:V=1000,K=4,T=0"], input="logits-f32",
              draws=5_000, threads=2, rerun=False, echo=False)


def test_logits_drafter_at_the_requests_temperature_passes():
    specverify.verify(own_drafts_logits, **LOGITS).assert_passed()


def test_drafter_ignoring_temperature_fails():
    r = specverify.verify(own_drafts_temperature_ignored, **LOGITS)
    assert r.json["summary"]["failed"] == 2
    assert "logits:V=1000,K=4,T=0: " in r.text and "whose draft probability is 0" in r.text
