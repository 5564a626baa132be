"""The sampler's interpreter: the process python/plugin/sv_python.c starts
with whatever Python the user chose (--python-exe, SPECVERIFY_PYTHON, the
Python that called specverify.verify, or the first python3 on PATH with
numpy), inside the sampler's sandbox. Not for users: see specverify.verify.

Or the fork server's child (_server.py), the samplers already loaded. It
serves the plugin over descriptor 3, one request at a time: a 4-byte
little-endian length, then a JSON object; each answer the same way. The
batch's arrays lie in the shared memory of descriptor 4, which the plugin
fills before a call and reads after it: the inputs are handed to the
glue as read-only views, the outputs writable (_plugin.call, as before).

Any CPython from 3.9 on: nothing here or in the glue needs a newer one.
"""

import json
import mmap
import os
import struct
import sys

_SOCK, _MEMFD = 3, 4


def _read(n):
    got = b""
    while len(got) < n:
        part = os.read(_SOCK, n - len(got))
        if not part:
            os._exit(0)  # the plugin's process is gone: so is this one's purpose
        got += part
    return got


def _receive():
    (n,) = struct.unpack("<I", _read(4))
    if n == 0:  # the plugin is done with this interpreter
        os._exit(0)
    return json.loads(_read(n).decode("utf-8"))


def _send(obj):
    data = json.dumps(obj).encode("utf-8")
    data = struct.pack("<I", len(data)) + data
    while data:
        data = data[os.write(_SOCK, data):]


class _Memory:
    """The shared memory, mapped again when the plugin grows it."""

    def __init__(self):
        self.size, self.map, self.view = 0, None, None

    def at(self, size):
        if size != self.size:
            if self.view is not None:
                self.view.release()
                self.map.close()
            self.map = mmap.mmap(_MEMFD, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
            self.view, self.size = memoryview(self.map), size
        return self.view


def _raw(req, memory, fields):
    """The glue's tuple (_plugin.RAW_FIELDS) over the shared memory."""
    view = memory.at(req["size"])
    arrays, out = req["arrays"], []
    writable = ("out_tokens", "out_accepted", "out_path", "out_drafts")
    for name in fields:
        if name not in arrays:  # 64-bit numbers come as decimal strings
            out.append(int(req[name]) if name in ("seed", "first_index") else req[name])
            continue
        place = arrays[name]
        if place is None:
            out.append(None)
            continue
        part = view[place[0]:place[0] + place[1]]
        out.append(part if name in writable else part.toreadonly())
    return tuple(out)


def main():
    serve(None)


def serve(loaded):
    """Serves the plugin until it says it is done. loaded: what the fork
    server (_server.py) loaded before it forked this worker, {"specs",
    "config", "answer"}, or None in an interpreter started for the worker."""
    try:
        from . import _plugin  # numpy, and the glue
    except ImportError as e:
        _send({"ok": False, "error": "%s cannot import specverify's glue: %s"
               % (sys.executable, e), "no_numpy": "numpy" in str(e)})
        return
    memory, slots = _Memory(), {}
    while True:
        req = _receive()
        op = req["op"]
        try:
            if op == "load" and loaded and (req["specs"], req["config"]) == (
                    loaded["specs"], loaded["config"]):
                _send(loaded["answer"])  # imported once, before the fork
            elif op == "load":
                samplers = _plugin.load(req["specs"], req["config"])
                _send({"ok": True, "samplers": samplers, "executable": sys.executable,
                       "version": "%d.%d.%d" % sys.version_info[:3]})
            elif op == "init":
                slots[req["slot"]] = _plugin.init(req["i"], req["max_b"], req["max_k"],
                                                  req["max_v"])
                _send({"ok": True})
            elif op == "call":
                said = _plugin.call(slots[req["slot"]], _raw(req, memory, _plugin.RAW_FIELDS))
                _send({"ok": True, "said": said})
            elif op == "destroy":
                slots.pop(req["slot"], None)
                _send({"ok": True})
            else:
                _send({"ok": False, "error": "unknown request %r" % op})
        except _plugin.DeviceMissing as e:
            _send({"ok": False, "error": _plugin.describe(e), "device_missing": True})
        except BaseException as e:  # a sampler's SystemExit too: said, not obeyed
            _send({"ok": False, "error": _plugin.describe(e)})


if __name__ == "__main__":
    main()
