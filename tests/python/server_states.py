"""Samplers for test_server.py: what the fork server (specverify/_server.py)
must keep apart, and what it must refuse to fork.

own_state: numpy_chain that keeps the pid of the process its module state
  was last changed in; a call in another process that finds that state set
  ran on a copy some other run changed, and fails. A worker forked from the
  server begins with the state the imports left, so it never does.
threaded_at_import: numpy_chain from a module that starts a thread when
  imported (SV_TEST_THREAD_AT_IMPORT=1), or makes a random generator at its
  top level (SV_TEST_GENERATOR_AT_IMPORT=1), with a line on stderr at each
  import, as starts_counted.py: a fork would copy that process half, or
  give every run the generator's same stream, so the server starts an
  interpreter for each run instead. With SV_TEST_FORK_HANGS=1 the module
  makes the server's fork hang: the runs must not wait on it."""

import os
import sys
import threading
import time

import numpy as np

import specverify
from numpy_chain import chain_over

_owner = [None]


@specverify.sampler(layouts=("padded", "packed"))
def own_state(batch):
    """numpy_chain that fails on module state another process changed"""
    if _owner[0] is not None and _owner[0] != os.getpid():
        raise RuntimeError("module state changed by process %d, read in %d: runs share state"
                           % (_owner[0], os.getpid()))
    _owner[0] = os.getpid()
    return chain_over(batch)


if os.environ.get("SV_TEST_THREAD_AT_IMPORT") == "1":
    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
if os.environ.get("SV_TEST_GENERATOR_AT_IMPORT") == "1":
    rng = np.random.default_rng()
if os.environ.get("SV_TEST_FORK_HANGS") == "1":
    # a wedged server: its fork of a worker never returns (in the fresh
    # interpreters started after it, nothing forks)
    os.fork = lambda: time.sleep(3600)
if (os.environ.get("SV_TEST_THREAD_AT_IMPORT") or os.environ.get("SV_TEST_GENERATOR_AT_IMPORT")
        or os.environ.get("SV_TEST_FORK_HANGS")):
    print("server_states: a process started", file=sys.stderr, flush=True)


@specverify.sampler(layouts=("padded", "packed"))
def threaded_at_import(batch):
    """numpy_chain from a module that may start a thread as it is imported"""
    return chain_over(batch)
