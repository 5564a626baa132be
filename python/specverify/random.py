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
  that uses them as ``ref`` does emits ``ref``'s tokens);
- ``engine_uniform(u, like)`` and ``engine_exponential(u, like)``: those
  uniforms mapped onto the grids engines draw on (torch.rand's float32,
  CUDA's float32 exponential_), bit for bit samplers/sv_engine_rng.h.
"""

import math

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


# ---- the engines' grids (samplers/sv_engine_rng.h states each law) ----------
_2P24, _2P32 = 16777216.0, 4294967296.0
UNIFORM_LIKES = ("torch.float32", "curand.float32")
EXPONENTIAL_LIKES = (None, "cuda.float32")


def torch_float32_uniform(u):
    """torch.rand's float32 law: floor(u 2^24) 2^-24, the 2^-24 grid in
    [0, 1); exactly 0 with probability 2^-24 (sv_uniform_torch_f32)."""
    u = np.asarray(u, dtype=np.float64)
    return (np.floor(u * _2P24) * (1.0 / _2P24)).astype(np.float32)


def curand_float32_uniform(u):
    """curand_uniform's float law, (0, 1]: the top 32 bits made a float, times
    2^-32 plus 2^-33, rounded once (sv_uniform_curand_f32)."""
    u = np.asarray(u, dtype=np.float64)
    x = np.floor(u * _2P32).astype(np.float32).astype(np.float64)
    return (x * (1.0 / _2P32) + (1.0 / (2.0 * _2P32))).astype(np.float32)


def _libm_log(x):
    """log of each element by the C library's log, as a C sampler's log is
    (numpy's own log may differ from it in the last bit)."""
    x = np.asarray(x, dtype=np.float64)
    return np.fromiter(map(math.log, x.ravel().tolist()), np.float64, x.size).reshape(x.shape)


def cuda_float32_exponential(u):
    """torch's CUDA float32 exponential_ (rate 1): -log(v) of curand's v in
    float, but 2^-24 where v >= 1 - 2^-24; never below 2^-24
    (sv_exponential_cuda_f32)."""
    v = curand_float32_uniform(u).astype(np.float64)
    d = -np.log(v)
    e = d.astype(np.float32)
    # numpy's log and the C library's differ by at most an ulp of double: they
    # round to different floats only near a float's rounding boundary, so
    # those few take the C library's log
    unsure = (d * (1 - 2.0 ** -50)).astype(np.float32) != (d * (1 + 2.0 ** -50)).astype(np.float32)
    if np.any(unsure):
        e[unsure] = (-_libm_log(v[unsure])).astype(np.float32)
    floor = v >= 1.0 - 1.0 / _2P24
    e[floor] = np.float32(1.0 / _2P24)
    return e


def engine_uniform(u, like):
    """The harness's uniforms ``u`` on an engine's grid: like="torch.float32"
    or "curand.float32"."""
    if like == "torch.float32":
        return torch_float32_uniform(u)
    if like == "curand.float32":
        return curand_float32_uniform(u)
    raise ValueError("uniforms: like=%r; want None or one of %s" % (like, ", ".join(UNIFORM_LIKES)))


def engine_exponential(u, like):
    """Exponentials (rate 1) from the harness's uniforms ``u``: like=None the
    exact -log(u) in float64 (sv_exponential_f64, the C library's log),
    like="cuda.float32" CUDA's float32 exponential_."""
    if like is None:
        return -_libm_log(u)
    if like == "cuda.float32":
        return cuda_float32_exponential(u)
    raise ValueError("exponentials: like=%r; want one of None, %s" % (like, EXPONENTIAL_LIKES[1]))
