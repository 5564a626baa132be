"""numpy_chain as a vLLM-shaped sampler declares itself (the packed layout
alone, so the budget's probe runs each case alone, in mixed batches) behind
a slow start, as a torch import is: tests/cli/budget_cli.sh checks that
`verify --budget` tells the start-up from the draws."""

import time

import specverify
from numpy_chain import chain_over

time.sleep(0.5)  # paid by every process of the sampler (a few a run), as a torch import is


@specverify.sampler(layouts=("packed",))
def packed_slow_start(batch):
    """numpy_chain, packed batches only, after a 0.5 s start"""
    return chain_over(batch)
