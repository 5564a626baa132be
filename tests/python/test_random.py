"""specverify.random's numpy Philox4x32-10 gives the harness's uniforms bit
for bit (kernels/sv_philox.h, printed by philox_dump at a grid of
addresses), and the per-sequence seeds and generators are the same for the
same (seed, index) and differ across sequences."""

import os
import subprocess

import numpy as np
import pytest

from specverify import random as svr


def test_philox_uniform_is_the_harness_s():
    dump = os.environ.get("SV_PHILOX_DUMP")
    if not dump:
        pytest.skip("SV_PHILOX_DUMP (the philox_dump program) not given")
    rows = [l.split() for l in subprocess.run([dump], capture_output=True, text=True,
                                              check=True).stdout.splitlines()]
    assert len(rows) == 4 * 5 * 3 * 3 * 4
    seed = np.array([int(r[0]) for r in rows], dtype=np.uint64)
    index = np.array([int(r[1]) for r in rows], dtype=np.uint64)
    pos, purpose, lane = (np.array([int(r[i]) for r in rows]) for i in (2, 3, 4))
    want = np.array([float(r[5]) for r in rows])
    got = svr.philox_uniform(seed, index, pos, purpose, lane)
    assert np.array_equal(got, want)


def test_sequence_seeds():
    a = [svr.sequence_seed(7, i) for i in range(10000)]
    assert len(set(a)) == 10000 and all(0 <= s < 2 ** 63 for s in a)
    assert svr.sequence_seed(7, 5) == svr.sequence_seed(7, 5) != svr.sequence_seed(8, 5)


def test_torch_generator_per_sequence():
    torch = pytest.importorskip("torch")
    x = torch.rand(4, generator=svr.torch_generator(1, 3))
    y = torch.rand(4, generator=svr.torch_generator(1, 3))
    z = torch.rand(4, generator=svr.torch_generator(1, 4))
    assert torch.equal(x, y) and not torch.equal(x, z)
