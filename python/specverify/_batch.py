"""The batch a Python sampler is called with: contract v3 (samplers/sv_sampler.h)
as numpy arrays or torch tensors, zero-copy views of the harness's memory.

The rows are read-only: the harness maps them so, and a sampler that writes
to them is stopped and reported, as a C sampler would be.
"""

import numpy as np

from . import _views
from . import random as _random

INPUTS = ("probs", "logits-f32", "logits-bf16")
LAYOUTS = ("padded", "packed")
SIBLINGS = ("iid", "distinct")  # sv_siblings's order


class Batch:
    """One call's sequences. Shapes, with T = cu_num_drafts[B] (the drafts of
    the batch) and ``K`` the largest number of drafts in it:

    ============== ====================== ==================
    field          padded                 packed (vLLM's)
    ============== ====================== ==================
    target         [B][K+1][V] float32    [T+B][V]
    draft          [B][K][V] or None      [T][V] or None
    draft_tokens   [B][K] int32           [T] int32
    num_drafts     [B] int32              [B] int32
    cu_num_drafts  [B+1] int32            [B+1] int32
    ============== ====================== ==================

    In a logits mode ``target`` and ``draft`` are None and ``target_logits``
    and ``draft_logits`` hold the logits (float32, or bfloat16: uint16 bits
    in numpy, ``torch.bfloat16`` in torch). ``draft`` is None for a one-hot
    drafter (``dense_draft()`` makes its rows). Per sequence: ``seeds``,
    ``indices`` (uint64), ``seeded`` (bool), and in a logits mode
    ``temperatures`` (0: greedy), ``top_ks`` (<= 0: none), ``top_ps``
    (1: none). ``bonus_tokens`` [B] is set when the sampler's bonus policy is
    "harness": the token the caller drew from each sequence's bonus row.

    A tree rule's batch (``rule="tree"`` or ``"tree_target_only"``, contract
    version 6; docs/rules.md) is the same batch read as a tree: sequence b's
    d_b drafts are its nodes 1..d_b (node 0, the root, is the last emitted
    token), ``parents`` (in ``draft_tokens``'s layout) holds node k+1's
    parent at k, target row j is the target after the path to node j (a
    leaf's row its bonus row), draft row k the row node k+1 was drawn from
    (None for "tree_target_only"), and ``siblings`` says how siblings were
    drawn: "iid" or "distinct" (without replacement). ``parents`` and
    ``siblings`` are None in a chain rule's batch.

    A sampler that draws its own drafts (``drafts="own"``, contract version
    8) is given ``draft_uniforms`` (float64, in ``draft_tokens``'s layout:
    u_k in (0, 1) for draft k of each sequence, the uniform the harness's own
    drafts would have used) and ``draft_tokens`` all -1: it draws draft k
    from draft row k (by inverse CDF at u_k, or with its own noise) and
    returns ``(tokens, accepted, drafts)``. Where ``draft_uniforms`` is None
    (bench, sweep) the batch carries the harness's drafts in
    ``draft_tokens``: it verifies those and returns them as its drafts.
    """

    def __init__(self, arrays, tensors="numpy", device="cpu"):
        self._np = arrays
        self.B, self.K, self.V = arrays.B, arrays.K, arrays.V
        self.layout = arrays.layout
        self.input = arrays.input
        self.tensors = tensors
        self.device = device
        conv = _converter(tensors, device)
        for name in ("target", "draft", "target_logits", "draft_logits", "draft_tokens",
                     "num_drafts", "cu_num_drafts", "seeds", "indices", "seeded",
                     "temperatures", "top_ks", "top_ps", "bonus_tokens", "parents",
                     "draft_uniforms"):
            value = getattr(arrays, name)
            setattr(self, name, None if value is None else conv(value, name))
        self.siblings = arrays.siblings

    def __repr__(self):
        return "<specverify.Batch B=%d K=%d V=%d %s %s>" % (
            self.B, self.K, self.V, self.layout, self.input)

    # ---- the engines' argument layouts (_views.py) ----------------------------
    def vllm_view(self, probs_from_logits=None, bonus_sampler=None):
        """vLLM v1's ``rejection_sample`` arguments, a ``VllmArgs`` tuple
        (packed torch batch); in a logits mode the rows become probabilities
        by ``probs_from_logits`` (default: the contract's temperature, top-k
        and top-p rules). The bonus tokens: the harness's (bonus "harness"),
        or ``bonus_sampler(bonus_probs, sampling_metadata)``'s, the engine's
        own (bonus "sampler")."""
        if probs_from_logits is None and self.target is None:
            from .adapters._rules import target_probs_from_logits as probs_from_logits
        return _views.vllm(self, probs_from_logits, bonus_sampler)

    def sglang_view(self):
        """SGLang's ``tree_speculative_sampling_target_only`` arguments, a dict
        by its argument names (a padded or packed torch tree batch; the
        outputs allocated, draft_probs zeros)."""
        return _views.sglang(self)

    def flashinfer_view(self):
        """FlashInfer's ``chain_speculative_sampling`` calls, a list of
        ``FlashInferCall`` (padded torch batch of probabilities)."""
        return _views.flashinfer(self)

    # ---- randomness ---------------------------------------------------------
    def sequence_seed(self, b):
        """Sequence b's own 63-bit seed, from its (seed, index)."""
        return _random.sequence_seed(int(self._np.seeds[b]), int(self._np.indices[b]))

    def generator(self, b, device=None):
        """A torch.Generator for sequence b alone, seeded by its (seed, index)."""
        return _random.torch_generator(int(self._np.seeds[b]), int(self._np.indices[b]),
                                       device or self.device)

    def generators(self, device=None):
        """{b: torch.Generator} for the seeded sequences, as vLLM's sampling
        metadata holds them; an unseeded sequence uses the sampler's own
        randomness."""
        return {b: self.generator(b, device) for b in np.flatnonzero(self._np.seeded)}

    def philox(self, b):
        """Sequence b's Philox4x32-10 key and the first half of its counter, in
        specverify's layout: key = seed (low, high 32 bits); counter = (index
        low, index high, purpose << 16 | position, lane // 2)."""
        s, i = int(self._np.seeds[b]), int(self._np.indices[b])
        return {"key": (s & 0xFFFFFFFF, s >> 32), "counter": (i & 0xFFFFFFFF, i >> 32)}

    def uniforms(self, position, purpose, lane=0, like=None):
        """[B] float64: each sequence's harness uniform at (position, purpose,
        lane), bit for bit what sv_philox_uniform gives in C. like=
        "torch.float32": the same draws on torch.rand's float32 grid
        (floor(u 2^24) 2^-24, 0 included), "curand.float32": curand_uniform's
        (0, 1]; float32, bit for bit samplers/sv_engine_rng.h."""
        u = _random.philox_uniform(self._np.seeds, self._np.indices, position, purpose, lane)
        return u if like is None else _random.engine_uniform(u, like)

    def exponentials(self, position, purpose, lane=0, like="cuda.float32"):
        """[B] exponentials (rate 1) from the same uniforms: like=
        "cuda.float32" CUDA's float32 exponential_ (never below 2^-24),
        None the exact -log(u) in float64; bit for bit sv_engine_rng.h."""
        u = _random.philox_uniform(self._np.seeds, self._np.indices, position, purpose, lane)
        return _random.engine_exponential(u, like)

    # ---- shapes -------------------------------------------------------------
    def draft_token_matrix(self):
        """[B][K] int32, -1 past each sequence's drafts, whatever the layout."""
        return self._out(self._np.padded_drafts())

    def parent_matrix(self):
        """A tree batch's parents as [B][K] int32, -1 past each sequence's
        nodes, whatever the layout (None in a chain rule's batch)."""
        a = self._np
        if a.parents is None:
            return None
        return self._out(a.padded_drafts(a.parents))

    def padded_target(self):
        """The target rows (or logits) as [B][K+1][V], the unused rows NaN
        (a copy in the packed layout, the batch's own view in the padded)."""
        a = self._np
        rows = a.target if a.target is not None else a.target_logits
        return self._out(a.to_padded(rows, a.K + 1, bonus=True))

    def padded_draft(self):
        """The draft rows (or logits, or dense one-hot rows) as [B][K][V]."""
        a = self._np
        rows = a.draft if a.draft is not None else a.draft_logits
        if rows is None:
            rows = a.dense_draft()
        return self._out(a.to_padded(rows, a.K, bonus=False))

    def dense_draft(self):
        """For a one-hot drafter: its rows made dense, in the batch's layout."""
        return self._out(self._np.dense_draft())

    def _out(self, array):
        return _converter(self.tensors, self.device)(array, "")


def _converter(tensors, device):
    if tensors == "numpy":
        return lambda a, name: a
    import torch

    def conv(a, name):
        if a.dtype == np.uint16:  # bfloat16 bits: the same bytes, torch's type
            t = torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
        elif a.dtype == np.uint64:  # torch has no uint64: seeds and indices as int64 bits
            t = torch.from_numpy(a.view(np.int64))
        else:
            t = torch.from_numpy(a)
        return t if device == "cpu" else t.to(device)

    return conv


class Arrays:
    """The numpy views of one call (or a slice of one), built by _plugin.call."""

    __slots__ = ("B", "K", "V", "layout", "input", "target", "draft", "target_logits",
                 "draft_logits", "draft_tokens", "num_drafts", "cu_num_drafts", "seeds",
                 "indices", "seeded", "temperatures", "top_ks", "top_ps", "bonus_tokens",
                 "parents", "siblings", "draft_uniforms")

    def rows_of(self, b):
        """(first target row, first draft row) of sequence b in the layout."""
        cu = int(self.cu_num_drafts[b])
        return (cu + b, cu) if self.layout == "packed" else (None, None)

    def padded_drafts(self, per_node=None):
        """[B][K] of the draft tokens (or of another per-node array in their
        layout: a tree's parents), -1 past each sequence's d_b."""
        per_node = self.draft_tokens if per_node is None else per_node
        if self.layout == "padded":
            out = per_node.copy()
        else:
            out = np.full((self.B, self.K), -1, dtype=np.int32)
            mask = np.arange(self.K)[None, :] < self.num_drafts[:, None]
            out[mask] = per_node
        out[np.arange(self.K)[None, :] >= self.num_drafts[:, None]] = -1
        return out

    def to_padded(self, rows, width, bonus):
        if self.layout == "padded":
            return rows
        out = np.full((self.B, width, self.V), np.nan, dtype=np.float32)
        if rows.dtype == np.uint16:
            out = np.full((self.B, width, self.V), 0x7FC0, dtype=np.uint16)  # bf16 NaN
        used = self.num_drafts + (1 if bonus else 0)
        mask = np.arange(width)[None, :] < used[:, None]
        out[mask] = rows
        return out

    def dense_draft(self):
        n = self.draft_tokens.size
        dense = np.zeros((n, self.V), dtype=np.float32)
        valid = (self.draft_tokens >= 0) & (self.draft_tokens < self.V)
        flat = self.draft_tokens.reshape(-1)
        rows = np.flatnonzero(valid.reshape(-1))
        dense[rows, flat[rows]] = 1.0
        return dense.reshape(self.draft_tokens.shape + (self.V,))

    def sliced(self, i, j):
        """Sequences i..j-1 as a batch of their own (views, no copies)."""
        s = Arrays()
        s.B, s.V, s.layout, s.input = j - i, self.V, self.layout, self.input
        s.siblings = self.siblings
        s.K = self.K  # the caller's K: a slice's outputs are [B][K+1] like the whole's
        c0, c1 = int(self.cu_num_drafts[i]), int(self.cu_num_drafts[j])
        s.cu_num_drafts = self.cu_num_drafts[i:j + 1] - np.int32(c0)
        for name in ("num_drafts", "seeds", "indices", "seeded", "temperatures", "top_ks",
                     "top_ps", "bonus_tokens"):
            v = getattr(self, name)
            setattr(s, name, None if v is None else v[i:j])
        packed = self.layout == "packed"
        for name, t0, t1 in (("target", c0 + i, c1 + j), ("target_logits", c0 + i, c1 + j),
                             ("draft", c0, c1), ("draft_logits", c0, c1),
                             ("draft_tokens", c0, c1), ("parents", c0, c1),
                             ("draft_uniforms", c0, c1)):
            v = getattr(self, name)
            setattr(s, name, None if v is None else (v[t0:t1] if packed else v[i:j]))
        return s
