"""Python samplers that misbehave, each in one way; tests/python/test_bad_samplers.py
checks that every one is a finding (exit 1) that names the sampler and says
what went wrong in Python's words, never a crash or a hang of the harness.
The last two leave a daemon behind (issue 36): on the first call each
double-forks a process that calls setsid and sleeps 60 s, holding the stdout
and stderr it inherited from the CLI; test_timeout.py checks that the Python
API's timeout bounds the whole call regardless. The daemon writes its pid to
$SV_TEST_DAEMON_PIDFILE, for the test to kill it."""

import os
import signal
import time

import numpy as np

import specverify


def _tokens(batch):
    """Well-formed outputs: nothing accepted, y_1 the first draft (or 0)."""
    out = np.full((batch.B, batch.K + 1), -1, dtype=np.int32)
    first = batch.draft_token_matrix()[:, 0] if batch.K else np.zeros(batch.B, np.int32)
    out[:, 0] = np.where(first >= 0, first, 0)
    return out


@specverify.sampler
def raises(batch):
    """raises ValueError"""
    raise ValueError("the rows do not sum to one, says the sampler")


@specverify.sampler
def wrong_shape(batch):
    """returns [B][K]"""
    return _tokens(batch)[:, :-1].copy()


@specverify.sampler
def wrong_dtype(batch):
    """returns float tokens"""
    return _tokens(batch).astype(np.float32)


@specverify.sampler
def non_contiguous(batch):
    """returns a transposed view"""
    return np.ascontiguousarray(_tokens(batch).T).T


@specverify.sampler
def returns_list(batch):
    """returns a list"""
    return _tokens(batch).tolist()


@specverify.sampler
def returns_none(batch):
    """returns None"""
    return None


@specverify.sampler
def wide_token(batch):
    """returns int64 tokens, one of them 2^32, which no int32 slot holds"""
    out = _tokens(batch).astype(np.int64)
    out[batch.B // 2, 0] = 2 ** 32
    return out


@specverify.sampler
def wide_accepted(batch):
    """returns int64 accepted counts, one of them -2^40"""
    n = np.zeros(batch.B, dtype=np.int64)
    n[3] = -(2 ** 40)
    return _tokens(batch), n


@specverify.sampler(device="cuda")
def needs_cuda(batch):
    """declares a GPU, which a machine without one does not have"""
    return _tokens(batch)


@specverify.sampler(tensors="torch")
def wrong_device(batch):
    """returns tensors on another device ('meta', which every torch has)"""
    import torch

    return torch.empty((batch.B, batch.K + 1), dtype=torch.int64, device="meta")


@specverify.sampler(tensors="torch")
def torch_non_contiguous(batch):
    """returns a non-contiguous tensor"""
    import torch

    t = torch.from_numpy(_tokens(batch)).t().contiguous().t()
    return t


@specverify.sampler
def exits(batch):
    """calls os._exit(0) inside a call"""
    os._exit(0)


@specverify.sampler
def segfaults(batch):
    """its interpreter dies of SIGSEGV inside a call"""
    os.kill(os.getpid(), signal.SIGSEGV)


@specverify.sampler
def sys_exit(batch):
    """calls sys.exit(3) inside a call"""
    import sys

    sys.exit(3)


@specverify.sampler(tensors="torch")
def writes_rows(batch):
    """writes into its input rows (read-only memory: the write faults)"""
    batch.target[0, 0, 0] = 0.5
    return _tokens(batch)


@specverify.sampler
def writes_rows_numpy(batch):
    """writes into its input rows through numpy (refused: read-only)"""
    batch.target[0, 0, 0] = 0.5
    return _tokens(batch)


@specverify.sampler(bonus="harness")
def ignores_bonus(batch):
    """accepts every draft, then emits token 0, not the bonus it was given"""
    out = np.full((batch.B, batch.K + 1), -1, dtype=np.int32)
    x = batch.draft_token_matrix()
    for b in range(batch.B):
        d = int(batch.num_drafts[b])
        out[b, :d] = x[b, :d]
        out[b, d] = 0 if batch.bonus_tokens[b] != 0 else 1
    return out


@specverify.sampler(max_batch=100)
def small_batches(batch):
    """declares 100 sequences a call at most, and checks it is given no more"""
    assert batch.B <= 100, "given %d sequences" % batch.B
    return _tokens(batch)


class Configured:
    """made with keyword arguments (--python-config), once per thread"""

    __specverify__ = {"name": "configured"}

    def __init__(self, answer=None):
        if answer != 42:
            raise TypeError("want answer=42, got %r" % (answer,))

    def __call__(self, batch):
        return _tokens(batch)


def not_marked(batch):
    """a plain function with no decorator: the defaults (numpy, padded)"""
    return _tokens(batch)


@specverify.sampler(rule="lookahead")
def unknown_rule(batch):
    """declares a rule the contract does not define"""
    return _tokens(batch)


@specverify.sampler(name="Bad-Name")
def bad_name(batch):
    """a name the registry refuses"""
    return _tokens(batch)


_started = False


def _leave_a_daemon():
    global _started
    if _started:
        return
    _started = True
    pid = os.fork()
    if pid == 0:  # the first child: a session of its own, then the daemon
        try:
            os.setsid()
            if os.fork() == 0:
                with open(os.environ["SV_TEST_DAEMON_PIDFILE"], "w") as f:
                    f.write(str(os.getpid()))
                time.sleep(60)  # stdout and stderr still open: the CLI's
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


@specverify.sampler
def leaves_a_daemon(batch):
    """starts a daemon, then returns at once"""
    _leave_a_daemon()
    return _tokens(batch)


@specverify.sampler
def leaves_a_daemon_and_hangs(batch):
    """starts a daemon, then takes 60 s over its first call"""
    first = not _started
    _leave_a_daemon()
    if first:
        time.sleep(60)
    return _tokens(batch)
