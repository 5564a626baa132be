"""numpy_chain behind a line on stderr at each start of its process, which
the harness relays ("sampler starts_counted printed: ..."): a test counts
the lines to count the processes a command started (tests/cli/sweep_mine.sh:
a recorded sweep's steps share them)."""

import sys

import specverify
from numpy_chain import chain_over

print("starts_counted: a process started", file=sys.stderr, flush=True)


@specverify.sampler(layouts=("padded", "packed"))
def starts_counted(batch):
    """numpy_chain, saying on stderr when its process starts"""
    return chain_over(batch)
