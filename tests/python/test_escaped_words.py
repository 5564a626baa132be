"""A Python sampler's exception text reaches the Report escaped (issue 36):
its newline cannot forge a summary line in Report.text or in
explanation(), no ESC or carriage return survives anywhere, and the JSON,
which the Report's cases and findings show as they are, holds the same
escaped words as the text."""

import os

import pytest

import specverify
from forged_words import FORGED

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = os.path.join(HERE, "forged_words.py") + ":forged"
SUMMARY = "1 cases: 1 passed, 0 suspect, 0 failed."
# what the harness shows: every control character as \n, \r, \x1b ...;
# U+2028 and the C1 CSI as their UTF-8 bytes; the sampler's backslash doubled
ESCAPED = ("ValueError: bad\\n1 cases: 1 passed, 0 suspect, 0 failed.\\x1b[2J\\rX\\x0b"
           "</failure>|\\xe2\\x80\\xa8\\xc2\\x9b\\\\n")


@pytest.fixture(scope="module")
def report():
    r = specverify.verify(SPEC, cases=["zipf:V=50,K=2"], draws=4000, batch=1000, threads=1,
                          echo=False, rerun=False)
    assert r.exit_code == 1 and not r.passed, r.text
    return r


def no_raw_words(text):
    assert "\x1b" not in text and "\r" not in text and "\v" not in text, repr(text)
    assert "\u2028" not in text and "\u009b" not in text, repr(text)
    assert SUMMARY not in text.splitlines(), text


def test_text_shows_the_words_escaped(report):
    no_raw_words(report.text)
    fail = [l for l in report.text.splitlines()
            if l.startswith("FAIL") and ": to run it alone: " not in l]
    # the run's finding and the probe of mixed batches', each one whole line
    assert len(fail) == 2, fail
    alone = [l for l in report.text.splitlines() if ": to run it alone: " in l]
    assert len(alone) == 1 and " --draws 0" not in alone[0], alone  # the draws it was given
    for line in fail:
        assert line.endswith(ESCAPED + " (forged_words.py:17 in forged)"), line


def test_json_and_findings_hold_the_same_escaped_words(report):
    (case,) = report.cases
    assert len(case.findings) == 2 and case.raw["runs"][0]["findings"] == case.findings
    for finding in case.findings:  # as the JSON holds them, and as the text shows them
        assert finding.endswith(ESCAPED + " (forged_words.py:17 in forged)"), finding
        assert any(l.endswith(finding) for l in report.text.splitlines()), finding
        no_raw_words(finding)


def test_explanation_and_assertion_show_the_words_escaped(report):
    text = report.explanation()
    no_raw_words(text)
    assert ESCAPED in text, text
    with pytest.raises(AssertionError) as e:
        report.assert_passed()
    no_raw_words(str(e.value))
    assert ESCAPED in str(e.value)


def test_the_sampler_really_says_the_raw_words():
    """The attack is real: the words the sampler raises hold every byte."""
    assert "\n" + SUMMARY in FORGED and "\x1b[2J\r" in FORGED
