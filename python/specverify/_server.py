"""The sampler's fork server: one interpreter a specverify process starts
(harness/cli/python_server.c) in a sandbox of its own, which imports the
samplers once and forks a worker (_worker.py) for each run of the sampler's
process, so that a run pays a fork where it paid an interpreter and its
imports (a second for torch), and still starts from the state the imports
left: no run sees another's. Not for users: see specverify.verify.

Descriptor 3 is a SOCK_SEQPACKET socket every run's plugin (sv_python.c,
py_server.c) shares: a request is one byte with five descriptors, the
worker's socket, the batches' shared memory, the run's stdout and stderr,
and the read end of a pipe that closes when the run's process ends. The
answer goes on the worker's socket, as a 4-byte little-endian word outside
JSON's lengths: YES from the worker once forked, NO from here when the
samplers cannot be forked (they failed to load, or the imports started a
thread or CUDA: a fork would copy them half), and STATUS with the worker's
wait status when it has ended, so that its end is the plugin's as when the
plugin waits for an interpreter of its own.
"""

import array
import fcntl
import os
import random
import selectors
import signal
import socket
import struct
import sys

YES, NO, STATUS = 0xFFFFFFFD, 0xFFFFFFFE, 0xFFFFFFFF
_REQUESTS, _FDS = 3, 5
_HIGH = 256  # above the server's own descriptors (a few dozen), below a 1024 limit


def _word(fd, value, extra=b""):
    try:
        os.write(fd, struct.pack("<I", value) + extra)
    except OSError:
        pass  # the run's process is gone: nobody reads it


def _threads():
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0  # not known: not safe


def _children():
    """This process's children (/proc is the harness's, whose pids a PID
    namespace does not share: so by /proc/self, never by os.getpid())."""
    try:
        n = 0
        for task in os.listdir("/proc/self/task"):
            with open("/proc/self/task/%s/children" % task) as f:
                n += len(f.read().split())
        return n
    except OSError:
        return 1  # not known: not safe


def _generator_held(loaded):
    """The first random generator a sampler's own module holds at its top
    level ("NAME in FILE.py"), or None. Every fork would copy its state, so each
    run would draw the same stream where a new interpreter draws anew."""
    kinds = [random.Random]
    numpy, torch = sys.modules.get("numpy"), sys.modules.get("torch")
    if numpy is not None:
        kinds += [numpy.random.Generator, numpy.random.RandomState]
    if torch is not None:
        kinds.append(torch.Generator)
    kinds = tuple(kinds)
    for entry in loaded:
        name = getattr(entry.obj, "__module__", None)
        module = sys.modules.get(name) if name else None
        for key, value in sorted(vars(module).items()) if module else ():
            if isinstance(value, kinds):
                where = os.path.basename(getattr(module, "__file__", None) or name)
                return "%s in %s" % (key[:40], where[-60:])
    return None


def _reseed():
    """In a worker: the process-wide generators from fresh entropy, as a new
    interpreter's are (random reseeds itself after a fork; numpy's global
    RandomState and torch's default generators do not)."""
    numpy, torch = sys.modules.get("numpy"), sys.modules.get("torch")
    if numpy is not None:
        numpy.random.seed()
    if torch is not None:
        torch.seed()


def _cuda_driver_loaded():
    """The CUDA driver's library is mapped: something may have initialized
    it (torch's flag covers torch alone), and a forked child's CUDA calls
    would then fail."""
    try:
        with open("/proc/self/maps") as f:
            return any("libcuda.so" in line for line in f)
    except OSError:
        return True  # not known: not safe


def _why_not_fork(loaded):
    """Why a fork of this process would not be a clean copy, or None."""
    torch = sys.modules.get("torch")
    if torch is not None and getattr(torch, "cuda", None) is not None:
        try:
            if torch.cuda.is_initialized():
                return "the imports initialized CUDA"
        except Exception:  # an odd torch: do not guess
            return "torch's CUDA state could not be read"
    if _cuda_driver_loaded():
        return "the imports loaded the CUDA driver"
    if _threads() != 1:
        return "the imports started threads"
    if _children():  # each run's process would share them, and none would end them
        return "the imports started processes"
    held = _generator_held(loaded)
    if held:
        return "the imports made a random generator, %s" % held
    return None


def _receive(sock):
    """One request: (its byte, its descriptors); None when every run's end
    is closed. b"w": a worker, with five; b"s": the state (YES, or NO and
    why) on the one given, for the report's header."""
    fds = array.array("i")
    try:
        data, anc, _, _ = sock.recvmsg(1, socket.CMSG_SPACE(_FDS * fds.itemsize))
    except InterruptedError:
        return b"", []
    for level, kind, payload in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
    if not data and not fds:
        return None
    got = list(fds)
    if (data, len(got)) not in ((b"w", _FDS), (b"s", 1)):
        for fd in got:
            os.close(fd)
        return b"", []
    return data, got


def _become_worker(fds, loaded):
    """In the forked child: the request's descriptors as _worker.py reads
    them, then its loop, with the samplers this server loaded."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    # above every descriptor this process holds, then each in its place; the
    # rest closed (the requests, the other runs', the life pipe: the run's
    # end is the server's to watch)
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, _HIGH) for fd in fds[:4]]
    os.closerange(3, _HIGH)
    os.closerange(high[-1] + 1, 1 << 16)
    for have, want in zip(high, (3, 4, 1, 2)):
        os.dup2(have, want)
        os.close(have)
    _reseed()
    _word(3, YES)
    from . import _worker
    try:
        _worker.serve(loaded)
    finally:
        os._exit(0)


def main():
    specs = os.environ.get("SV_PYTHON_SAMPLERS", "")
    config = os.environ.get("SV_PYTHON_CONFIG", "")
    loaded, why = None, None
    try:
        from . import _plugin
        loaded = {"specs": specs, "config": config,
                  "answer": {"ok": True, "samplers": _plugin.load(specs, config),
                             "executable": sys.executable,
                             "version": "%d.%d.%d" % sys.version_info[:3]}}
        why = _why_not_fork(_plugin._loaded)
    except BaseException as e:  # the worker started afresh tells it, as ever
        why = "the samplers did not load (%s)" % type(e).__name__
    requests = socket.socket(fileno=_REQUESTS)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    sel = selectors.DefaultSelector()
    sel.register(requests, selectors.EVENT_READ, "request")
    sel.register(wake_r, selectors.EVENT_READ, "child")
    workers = {}  # pid: [its socket, the run's life pipe or None]
    while True:
        for key, _ in sel.select():
            if key.data == "request":
                got = _receive(requests)
                if got is None:  # the harness and all its runs are gone
                    for pid in workers:
                        os.kill(pid, signal.SIGKILL)
                    os._exit(0)
                kind, fds = got
                if kind == b"s":
                    _word(fds[0], NO if why else YES, (why or "").encode("utf-8", "replace")[:200])
                    os.close(fds[0])
                    continue
                if not fds:
                    continue
                if why:
                    _word(fds[0], NO, why.encode("utf-8", "replace")[:200])
                    for fd in fds:
                        os.close(fd)
                    continue
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    _become_worker(fds, loaded)
                for fd in fds[1:4]:
                    os.close(fd)
                workers[pid] = [fds[0], fds[4]]
                sel.register(fds[4], selectors.EVENT_READ, pid)
            elif key.data == "child":
                try:
                    os.read(wake_r, 512)
                except BlockingIOError:
                    pass
                while workers:
                    try:
                        pid, status = os.waitpid(-1, os.WNOHANG)
                    except ChildProcessError:
                        break
                    if pid == 0:
                        break
                    sock, life = workers.pop(pid, (None, None))
                    if sock is not None:
                        _word(sock, STATUS, struct.pack("<I", status & 0xFFFFFFFF))
                        os.close(sock)
                    if life is not None:
                        sel.unregister(life)
                        os.close(life)
            else:  # a run's process has ended: its worker goes with it
                pid = key.data
                if pid not in workers or workers[pid][1] != key.fd:
                    continue  # reaped above, in this same select's events: closed there
                sel.unregister(key.fd)
                os.close(key.fd)
                workers[pid][1] = None
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


if __name__ == "__main__":
    main()
