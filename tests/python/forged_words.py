"""A Python sampler whose exception is an attack on the reports that quote it
(tests/python/test_escaped_words.py, tests/cli/escaped_words.sh): a newline
and a forged summary line, ESC [2J and a carriage return that would erase
the FAIL line on a terminal, a vertical tab and a close tag that would break
a JUnit file, U+2028 and a C1 CSI. The harness must show every byte of it
escaped."""

import specverify

FORGED = ("bad\n1 cases: 1 passed, 0 suspect, 0 failed.\x1b[2J\rX\v</failure>|"
          "\u2028\u009b\\n")


@specverify.sampler
def forged(batch):
    """forged words"""
    raise ValueError(FORGED)
