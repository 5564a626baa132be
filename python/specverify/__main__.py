"""`python -m specverify ARGS` and the `specverify` command a pip install
makes: the bundled CLI itself (exec, not a child), so its arguments, output
and exit status are the CLI's own."""

import os
import sys

from ._run import SpecverifyError, executable, python_env


def main():
    try:
        exe = executable()
    except SpecverifyError as e:
        print("specverify: %s" % e, file=sys.stderr)
        return e.exit_code
    # the sampler runs under this interpreter, with the caller's packages on its
    # path, as for specverify.verify()
    os.execve(exe, [exe] + sys.argv[1:], python_env())
    return 3  # not reached: execve returns only by raising


if __name__ == "__main__":
    sys.exit(main())
