"""numpy_chain behind a line on stderr at each start of its process, which
the harness relays ("sampler starts_counted printed: ..."): a test counts
the lines to count the processes a command started (tests/cli/sweep_mine.sh:
a recorded sweep's steps share them; budget_cli.sh: the budget's probe runs
a case again only while its rate is unknown). Over a vocabulary of more
than 100000 it sleeps a millisecond a sequence, so that the probe's second
round of such a case (1024 draws) surely takes long enough to measure."""

import sys
import time

import specverify
from numpy_chain import chain_over

print("starts_counted: a process started", file=sys.stderr, flush=True)


@specverify.sampler(layouts=("padded", "packed"))
def starts_counted(batch):
    """numpy_chain, saying on stderr when its process starts"""
    if batch.V > 100000:
        time.sleep(0.001 * batch.B)
    return chain_over(batch)
