"""What a Python sampler returns, checked and written into the harness's
output slots.

A sampler returns ``tokens``, or ``(tokens, accepted)``: tokens [B][K+1]
(int32 or int64, numpy or torch, contiguous, on the sampler's device),
y_1..y_{n+1} then -1, as vLLM returns them, whatever the batch's layout;
accepted [B] is n, derived from the first -1 when not given. A tree rule's
sampler returns ``(tokens, accepted, path)``: path [B][K+1], the accepted
nodes (1..d_b) in path order, then -1, as the contract's out_path (accepted
may be None: derived from tokens as above). A sampler that draws its own
drafts (drafts="own") returns ``(tokens, accepted, drafts)``: drafts [B][K],
the d_b drafts it drew then -1, whatever the layout.
"""

import sys

import numpy as np

_INT32 = (-(2 ** 31), 2 ** 31 - 1)


class SamplerError(Exception):
    """A sampler's output the harness cannot take; the words go to the report."""


def _is_torch(x):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _foreign(x):
    """Another framework's array (CuPy, JAX, ...) as a torch tensor, through
    DLPack or __cuda_array_interface__; None when x is neither."""
    if isinstance(x, np.ndarray) or _is_torch(x):
        return None
    if hasattr(x, "__dlpack__"):
        if x.__dlpack_device__()[0] == 1:  # kDLCPU: numpy takes it, no torch needed
            return np.from_dlpack(x)
        import torch

        return torch.from_dlpack(x)
    if hasattr(x, "__cuda_array_interface__"):
        import torch

        return torch.as_tensor(x, device="cuda")
    return None


def _as_numpy(x, what, device):
    converted = _foreign(x)
    if converted is not None:
        x = converted
    if isinstance(x, np.ndarray) and converted is not None:
        return np.ascontiguousarray(x)
    if _is_torch(x):
        where = x.device.type
        if where != str(device).split(":")[0]:
            raise SamplerError("returned %s on %s, but the sampler runs on %s (declare "
                               "@specverify.sampler(device=...) or move them)"
                               % (what, x.device, device))
        if not x.is_contiguous():
            raise SamplerError("returned non-contiguous %s (strides %s); return "
                               ".contiguous() ones" % (what, tuple(x.stride())))
        return x.detach().cpu().numpy()
    if isinstance(x, np.ndarray):
        if not x.flags.c_contiguous:
            raise SamplerError("returned non-contiguous %s (strides %s); return "
                               "np.ascontiguousarray() ones" % (what, x.strides))
        return x
    raise SamplerError("returned %s as %s; want a numpy array or a torch tensor"
                       % (what, type(x).__name__))


def _ints(x, what, shape, device):
    a = _as_numpy(x, what, device)
    if a.dtype not in (np.int32, np.int64):
        raise SamplerError("returned %s of dtype %s; want int32 or int64" % (what, a.dtype))
    if a.shape != shape:
        raise SamplerError("returned %s of shape %s; want %s" % (what, tuple(a.shape), shape))
    return a


_THIRD = {"path": "path [B][K+1], the accepted nodes then -1",
          "drafts": "drafts [B][K], the drafts it drew then -1"}


def take(result, arrays, device, third=None):
    """(tokens [B][K+1] int64, n [B] int64, extra int64 or None) from what
    the sampler returned; third: None for a chain rule's tokens, "path" for
    a tree rule's (tokens, accepted, path), "drafts" for the (tokens,
    accepted, drafts) of a sampler that draws its own drafts."""
    B, K = arrays.B, arrays.K
    accepted = extra = None
    if third:
        if not isinstance(result, (tuple, list)) or len(result) != 3:
            who = "a tree rule's sampler" if third == "path" else "a sampler drawing its drafts"
            raise SamplerError("returned %s; %s returns (tokens, accepted, %s): %s"
                               % (("a %s of %d items" % (type(result).__name__, len(result)))
                                  if isinstance(result, (tuple, list))
                                  else type(result).__name__, who, third, _THIRD[third]))
        result, accepted, extra = result
        shape = (B, K + 1) if third == "path" else (B, K)
        extra = _ints(extra, third, shape, device).astype(np.int64, copy=False)
    elif isinstance(result, (tuple, list)):
        if len(result) != 2:
            raise SamplerError("returned a %s of %d items; want tokens or (tokens, accepted)"
                               % (type(result).__name__, len(result)))
        result, accepted = result
    if result is None:
        raise SamplerError("returned None; want tokens [B][K+1] or (tokens, accepted)")
    tokens = _ints(result, "tokens", (B, K + 1), device).astype(np.int64, copy=False)
    if accepted is not None:
        n = _ints(accepted, "accepted counts", (B,), device).astype(np.int64, copy=False)
    else:
        ended = tokens == -1
        n = np.where(ended.any(axis=1), ended.argmax(axis=1), K + 1) - 1
    return tokens, n, extra


def _request(arrays, b):
    """A request as the sampler saw it, as the harness's findings name it:
    its index in the batch and its seed (batch.seeds[b])."""
    return "request %d of the batch (seed %d)" % (b, int(arrays.seeds[b]))


def _fits_int32(arrays, tokens, n, own):
    """The harness's slots are int32: an int64 value beyond them is reported
    as returned (made int32 it would read as another token, or clamped as
    2147483647), in the words the contract check uses for a token out of range."""
    wide = own & ((tokens < _INT32[0]) | (tokens > _INT32[1]))
    if wide.any():
        b, k = np.argwhere(wide)[0]
        raise SamplerError("%s: position %d emitted token %d outside [0, %d)"
                           % (_request(arrays, b), k + 1, int(tokens[b, k]), arrays.V))
    wide = (n < _INT32[0]) | (n > _INT32[1])
    if wide.any():
        b = np.flatnonzero(wide)[0]
        raise SamplerError("%s: accepted count %d outside [0, %d]"
                           % (_request(arrays, b), int(n[b]), int(arrays.num_drafts[b])))


def write(arrays, tokens, n, out_tokens, out_accepted, bonus):
    """Into the harness's slots of these sequences, in the batch's layout;
    the bonus policy's part first: "none" puts the harness's bonus token
    where the sampler left the slot after all its drafts empty, "harness"
    checks that the sampler emitted the one it was given."""
    d = arrays.num_drafts.astype(np.int64)
    full = np.flatnonzero(n == d)
    if bonus != "sampler" and full.size:
        given = arrays.bonus_tokens[full].astype(np.int64)
        at = tokens[full, d[full]]
        if bonus == "none":
            tokens = tokens.copy()
            tokens[full, d[full]] = np.where(at == -1, given, at)
        else:
            wrong = np.flatnonzero(at != given)
            if wrong.size:
                b = full[wrong[0]]
                raise SamplerError(
                    "%s accepted all %d drafts, then emitted %d, not the bonus token "
                    "%d it was given (bonus policy 'harness': batch.bonus_tokens)"
                    % (_request(arrays, b), int(d[b]), int(at[wrong[0]]),
                       int(given[wrong[0]])))
    # a sequence's own slots are its d_b + 1: those past them are not its to write
    own = np.arange(arrays.K + 1)[None, :] <= d[:, None]
    _fits_int32(arrays, tokens, n, own)
    tokens = tokens.astype(np.int32)
    if arrays.layout == "packed":
        out_tokens[:] = tokens[own]
    else:
        out_tokens.reshape(arrays.B, arrays.K + 1)[own] = tokens[own]
    out_accepted[:] = n.astype(np.int32)


def write_path(arrays, path, out_path):
    """A tree sampler's path into the harness's out_path slots of these
    sequences (out_tokens's layout); the harness's contract check judges it."""
    _write_per_node(arrays, path, out_path, arrays.K + 1, 0,
                    "path slot %d holds node %d, not a node of its tree")


def write_drafts(arrays, drafts, out_drafts):
    """The drafts a sampler drew into the harness's out_drafts slots of these
    sequences (draft_tokens's layout); the harness checks each is a token of
    draft probability > 0 and that the tokens it accepted are these."""
    _write_per_node(arrays, drafts, out_drafts, arrays.K, 1,
                    "draft %d is token %d outside [0, %d)")


def _write_per_node(arrays, values, out, width, first, words):
    """values [B][width] into out's slots, a sequence's first d_b + 1 - first
    of them, in the layout; a value beyond int32 is reported, not wrapped."""
    own = np.arange(width)[None, :] < arrays.num_drafts.astype(np.int64)[:, None] + 1 - first
    wide = own & ((values < _INT32[0]) | (values > _INT32[1]))
    if wide.any():
        b, k = np.argwhere(wide)[0]
        raise SamplerError("%s: %s" % (_request(arrays, b),
                                       words % ((k + first, int(values[b, k]), arrays.V)
                                                if first else (k, int(values[b, k])))))
    values = values.astype(np.int32)
    if arrays.layout == "packed":
        out[:] = values[own]
    else:
        out.reshape(arrays.B, width)[own] = values[own]
