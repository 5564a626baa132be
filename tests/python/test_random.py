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


# ---- the engines' grids (samplers/sv_engine_rng.h) --------------------------

def _engine_dump():
    dump = os.environ.get("SV_ENGINE_RNG_DUMP")
    if not dump:
        pytest.skip("SV_ENGINE_RNG_DUMP (the engine_rng_dump program) not given")
    out = subprocess.run([dump], capture_output=True, text=True, check=True).stdout
    rows = np.array([[float.fromhex(w) for w in l.split()] for l in out.splitlines()])
    assert rows.shape == (4 + 2 * 11 + 200 * 50, 5)
    return rows


def test_engine_grids_are_the_c_ones():
    rows = _engine_dump()
    u = rows[:, 0]
    assert np.array_equal(svr.torch_float32_uniform(u), rows[:, 1].astype(np.float32))
    assert np.array_equal(svr.curand_float32_uniform(u), rows[:, 2].astype(np.float32))
    assert np.array_equal(svr.engine_exponential(u, "cuda.float32"),
                          rows[:, 3].astype(np.float32))
    assert np.array_equal(svr.engine_exponential(u, None), rows[:, 4])
    # the dump's Philox draws are specverify.random's too
    got = svr.philox_uniform(0x243f6a8885a308d3, np.repeat(np.arange(200), 50), 1,
                             svr.PURPOSE_FINAL, np.tile(np.arange(50), 200))
    assert np.array_equal(got, u[26:])


def test_engine_grids_laws():
    # the ends, as test_engine_rng checks them in C
    lowest, highest = 2.0 ** -53, 1.0 - 2.0 ** -53  # the harness's extreme cells
    below, at = (2.0 ** 28 - 0.5) * 2.0 ** -52, (2.0 ** 28 + 0.5) * 2.0 ** -52
    t = svr.torch_float32_uniform([lowest, below, at, highest])
    assert t.dtype == np.float32 and list(t) == [0.0, 0.0, 2.0 ** -24, 1.0 - 2.0 ** -24]
    assert list(svr.curand_float32_uniform([lowest, highest])) == [2.0 ** -33, 1.0]
    e = svr.cuda_float32_exponential([highest, 1.0 - 384 * 2.0 ** -32 + 2 ** -53,
                                      1.0 - 383 * 2.0 ** -32 + 2 ** -53])
    assert e[0] == e[2] == np.float32(2.0 ** -24) and e[1] == np.float32(-np.log1p(-2.0 ** -23))
    # on Philox draws: the grid, and the exponential never below 2^-24
    u = svr.philox_uniform(5, np.arange(100000), 0, svr.PURPOSE_ACCEPT)
    t = svr.torch_float32_uniform(u)
    assert np.all((t * 2.0 ** 24) == np.floor(t * 2.0 ** 24)) and np.all((t >= 0) & (t < 1))
    e = svr.cuda_float32_exponential(u)
    assert e.dtype == np.float32 and e.min() >= 2.0 ** -24
    assert abs(e.mean() - 1.0) < 6 / np.sqrt(len(u))
    with pytest.raises(ValueError, match="like='torch.float16'"):
        svr.engine_uniform(u, "torch.float16")
    with pytest.raises(ValueError, match="like='cpu.float32'"):
        svr.engine_exponential(u, "cpu.float32")


def test_torch_grid_is_torch_rand_s():
    """torch.rand(float32) on the CPU is the same grid: multiples of 2^-24 in [0, 1)."""
    torch = pytest.importorskip("torch")
    r = torch.rand(100000, generator=svr.torch_generator(1, 2)).numpy().astype(np.float64)
    assert np.all(r * 2.0 ** 24 == np.floor(r * 2.0 ** 24)) and r.min() >= 0 and r.max() < 1
