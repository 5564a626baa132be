"""Python samplers that attack the harness's process (issue 36), for
tests/cli/sandbox_cli.sh. Each samples correctly (numpy_chain) once its
attack is made, so what fails it is the attack; an attack that works is
said in its own words (an exception), which the test refuses. The
harness's pid is $SV_TEST_HARNESS_PID, else the parent's."""

import os
import signal
import time

import specverify
from numpy_chain import numpy_chain

_done = set()


def _first(name):
    """True the first time name's attack runs in this process."""
    if name in _done:
        return False
    _done.add(name)
    return True


def _harness():
    return int(os.environ.get("SV_TEST_HARNESS_PID") or os.getppid())


@specverify.sampler(layouts=("padded", "packed"), max_batch=2048)
def proc_mem(batch):
    """opens the harness's /proc/PID/mem for writing"""
    if _first("proc_mem"):
        try:
            fd = os.open("/proc/%d/mem" % _harness(), os.O_RDWR)
        except OSError as e:
            raise RuntimeError("open(/proc/<harness>/mem, O_RDWR): %s" % e.strerror)
        os.close(fd)
        raise RuntimeError("opened the harness's memory for writing: it worked")
    return numpy_chain(batch)


@specverify.sampler(layouts=("padded", "packed"), max_batch=2048)
def stop_parent(batch):
    """sends SIGSTOP to the process above the sampler's: pid 1 of its PID
    namespace (the harness's init; its interpreter's own parent is the
    plugin's process, which a stop would only hold until --call-timeout)"""
    if _first("stop_parent"):
        os.kill(1, signal.SIGSTOP)
    return numpy_chain(batch)


@specverify.sampler(layouts=("padded", "packed"), max_batch=2048)
def daemon(batch):
    """double-forks a daemon that holds its stdout and sleeps 10 minutes"""
    if _first("daemon"):
        child = os.fork()
        if child == 0:
            os.setsid()
            if os.fork() == 0:
                print("daemon pid %s" % os.readlink("/proc/self"), flush=True)
                signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM, signal.SIGINT])
                time.sleep(600)
            os._exit(0)
        os.waitpid(child, 0)
    return numpy_chain(batch)


@specverify.sampler(layouts=("padded", "packed"), max_batch=2048)
def write_report(batch):
    """writes into the report's folder ($SV_TEST_FORGE)"""
    path = os.environ.get("SV_TEST_FORGE")
    if path and _first("write_report"):
        try:
            with open(path, "w") as f:
                f.write('{"passed": true}\n')
        except OSError as e:
            raise RuntimeError("open($SV_TEST_FORGE) for writing: %s" % e.strerror)
        raise RuntimeError("wrote into the report's folder: it worked")
    return numpy_chain(batch)


@specverify.sampler(layouts=("padded", "packed"), max_batch=2048)
def quiet_mem(batch):
    """reads the harness's memory and says nothing of how it went"""
    if _first("quiet_mem"):
        try:
            os.close(os.open("/proc/%d/mem" % _harness(), os.O_RDONLY))
        except OSError:
            pass
    return numpy_chain(batch)


@specverify.sampler(layouts=("padded", "packed"), max_batch=2048)
def quiet_write(batch):
    """writes into the report's folder and says nothing of how it went"""
    if _first("quiet_write"):
        try:
            os.close(os.open(os.environ["SV_TEST_FORGE_REL"], os.O_WRONLY | os.O_CREAT, 0o644))
        except OSError:
            pass
    return numpy_chain(batch)
