"""Per-sequence randomness for Python samplers.

specverify addresses every random number by (seed, sequence index, position,
purpose, lane) with Philox4x32-10 (kernels/sv_philox.h): the key is the
64-bit seed, the counter is (index low 32, index high 32,
purpose << 16 | position, lane // 2). This module gives a Python sampler
three handles on that, whichever suits it:

- ``sequence_seed(seed, index)``: one 63-bit integer per sequence, for
  ``torch.Generator.manual_seed`` or ``numpy.random.default_rng``: distinct
  per (seed, index), so a seeded request's stream never depends on its
  neighbours;
- ``torch_generator(seed, index, device)``: that generator, ready;
- ``philox_uniform(seed, index, position, purpose, lane)``: the harness's own
  uniforms, vectorised over numpy arrays, bit for bit the C ones (a sampler
  that uses them as ``ref`` does emits ``ref``'s tokens).
"""

import numpy as np

# Who consumes a number (kernels/sv_philox.h).
PURPOSE_DRAFT = 1
PURPOSE_ACCEPT = 2
PURPOSE_FINAL = 3

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = np.uint32(0x9E3779B9), np.uint32(0xBB67AE85)
_LOW = np.uint64(0xFFFFFFFF)
_MASK64 = (1 << 64) - 1


def sequence_seed(seed, index):
    """A 63-bit seed of its own for sequence ``index`` of a run seeded ``seed``
    (a splitmix64 finaliser of both; the C harness's own mixing is not
    needed: any injective-looking mix serves a generator's seed)."""
    z = (int(seed) ^ (int(index) * 0x9E3779B97F4A7C15) ^ 0x243F6A8885A308D3) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return (z ^ (z >> 31)) >> 1


def torch_generator(seed, index, device="cpu"):
    """A ``torch.Generator`` on ``device`` seeded for this one sequence."""
    import torch

    g = torch.Generator(device=device)
    g.manual_seed(sequence_seed(seed, index))
    return g


def _mulhilo(m, x):
    p = m * x.astype(np.uint64)
    return (p >> np.uint64(32)).astype(np.uint32), (p & _LOW).astype(np.uint32)


def philox_block(seed, index, position, purpose, block):
    """The four 32-bit words of Philox4x32-10 at these addresses (numpy
    arrays broadcast together); returns a (..., 4) uint32 array."""
    seed = np.asarray(seed, dtype=np.uint64)
    index = np.asarray(index, dtype=np.uint64)
    position = np.asarray(position, dtype=np.uint32)
    purpose = np.asarray(purpose, dtype=np.uint32)
    block = np.asarray(block, dtype=np.uint32)
    seed, index, position, purpose, block = np.broadcast_arrays(
        seed, index, position, purpose, block)
    k0 = (seed & _LOW).astype(np.uint32)
    k1 = (seed >> np.uint64(32)).astype(np.uint32)
    c0 = (index & _LOW).astype(np.uint32)
    c1 = (index >> np.uint64(32)).astype(np.uint32)
    c2 = (purpose << np.uint32(16)) | (position & np.uint32(0xFFFF))
    c3 = block.copy()
    with np.errstate(over="ignore"):
        for r in range(10):
            if r:
                k0 = k0 + _W0
                k1 = k1 + _W1
            hi0, lo0 = _mulhilo(_M0, c0)
            hi1, lo1 = _mulhilo(_M1, c2)
            c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return np.stack([c0, c1, c2, c3], axis=-1)


def philox_uniform(seed, index, position, purpose, lane=0):
    """The harness's uniform double in (0, 1) at each address: 52 bits,
    centred in their cell, as sv_philox_uniform in C."""
    lane = np.asarray(lane, dtype=np.uint32)
    words = philox_block(seed, index, position, purpose, lane >> np.uint32(1))
    odd = (lane & np.uint32(1)).astype(bool)
    hi = np.where(odd, words[..., 2], words[..., 0]).astype(np.uint64)
    lo = np.where(odd, words[..., 3], words[..., 1]).astype(np.uint64)
    bits = ((hi << np.uint64(32)) | lo) >> np.uint64(12)
    return (bits.astype(np.float64) + 0.5) * (1.0 / 4503599627370496.0)
