"""A PyTorch sampler written in vLLM's style (tests/python/vllm_style.py),
through specverify.adapters.vllm: the correct one passes the ci suite's
cases and the logits suite's, the copy with one planted bug fails the ci
suite with the harness's explanation. Fixed seed 1, family-wise false-alarm
rate 1e-6 per run; draws as test_numpy.py says why: the correct sampler
runs ci at a hundredth of its draws and the logits suite at 0.004 of its
own (the suites' weighting: 2,000 draws on V = 151936, 200 on the logits
suite's V = 128256, where dense torch rows cost about 6 ms a sequence on 2
cores), the planted copy 20,000 per case. Power against the planted bug:
its position-1 TV is 0.16 on seedlab:V=1000,K=5 and 0.15 on
onehot:V=1000,K=5, against min-det
(the TV caught with probability 1 - 1e-8 at this N) of 0.155 and 0.066;
measured, it fails 12 of the 17 cases, and 10 of the 15 it runs here: the
planted copy runs ci without its two largest vocabularies (V = 128256 and
151936: 40,000 of its 340,000 draws, but the costliest, dense torch rows
at 6 ms a sequence), as the mutants' negative controls do; the correct
one runs all of ci."""

import re

import pytest

import specverify
from specverify._cases import suite_entries

torch = pytest.importorskip("torch")

from vllm_style import vllm_ok, vllm_planted  # noqa: E402


def test_vllm_style_passes_ci():
    specverify.verify(vllm_ok, suite="ci", draws_scale=0.01, echo=False).assert_passed()


def test_vllm_style_passes_logits_suite():
    specverify.verify(vllm_ok, suite="logits", input="logits-f32", draws_scale=0.004,
                      echo=False).assert_passed()


# ci's cases up to V = 32003, as the mutants' negative controls run it
CI_SMALL_V = [spec for spec, _ in suite_entries("ci")
              if int(re.search(r"V=([0-9]+)", spec).group(1)) <= 32003]


def test_planted_bug_fails_ci():
    r = specverify.verify(vllm_planted, cases=CI_SMALL_V, draws=20_000, echo=False)
    assert not r.passed and r.exit_code == 1
    onehot = r.case("onehot:V=1000,K=5")
    assert onehot.verdict == "FAIL"
    assert onehot.positions[0].tv > onehot.positions[0].min_detectable
    assert sum(c.verdict == "FAIL" for c in r.cases) >= 8
    with pytest.raises(AssertionError) as failed:
        r.assert_passed()
    words = str(failed.value)
    assert "vllm_style_planted" in words and "than p says" in words


def test_uniform_batches_refused_for_a_packed_only_sampler():
    """--batches uniform broadcasts one row set (stride 0), which the packed
    layout cannot say: bad input, named, before anything runs."""
    with pytest.raises(specverify.SpecverifyError) as e:
        specverify.verify(vllm_ok, suite="smoke", batches="uniform", echo=False)
    assert e.value.exit_code == 2
    assert "takes only the packed layout, which cannot broadcast" in str(e.value)


def test_bonus_line_says_who_draws_the_bonus():
    """Without the engine's bonus sampler the harness draws the bonus, and the
    report says what that leaves untested; given it (bonus "sampler"), it is
    tested with the rest."""
    from vllm_style import vllm_own_bonus

    harness = specverify.verify(vllm_ok, suite="smoke", draws=5_000, echo=False)
    assert harness.json["bonus"] == "harness"
    assert "not by the engine's own bonus sampler" in harness.text
    own = specverify.verify(vllm_own_bonus, suite="smoke", draws=20_000, echo=False)
    own.assert_passed()
    assert own.json["bonus"] == "sampler" and "bonus" not in own.json["lacks"]
    assert "bonus: drawn by the sampler itself" in own.text
