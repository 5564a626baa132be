"""doc_outputs.py: what the pages show a command printing is what it prints
(tools/check_docs.py's `outputs` check).

Every fenced block whose info string is `output` names, in HTML comments
on the lines just above its fence (blank lines between allowed):

  <!-- output of: specverify verify --suite smoke --seed 1 -->
      the command that prints it (specverify, or python3 tools/...): run
      (specverify replaced by the binary under test, in a scratch folder that sees the repository's top-level
      entries, progress off, at most TIMEOUT seconds, any exit status), and
      every line of the block must be one of its output's lines (stdout and
      stderr together), in the block's order; lines it printed beside them
      may be left out of the block;
  <!-- masked: numbers -->
      (optional) every number on both sides read as '#': for output whose
      numbers are this machine's (a plan's rates, a budget's shares), so
      that its words and shape are still held to the code's (runs of
      spaces read as one: a number's width moves a table's columns);
  <!-- not re-run: REASON -->
      in place of `output of`, for output no CI machine can make (a GPU's,
      a run of hours); REASON says which.

Whatever the mask, the numbers that depend on the machine are read as '#'
in both: durations ("14.2 s", "3 min"), rates ("0.84 M draws/s", "1 core
M/s" columns are not: mask those with `masked: numbers`), thread counts.
A block with neither comment is a problem: a page's example output that
nothing checks drifts from the code unseen.
"""

import difflib
import os
import re
import shlex
import signal
import subprocess
import sys

TIMEOUT = 180
OUTPUT_OF = re.compile(r'^\s*<!--\s*output of:\s*(.*?)\s*-->\s*$')
MASKED = re.compile(r'^\s*<!--\s*masked:\s*numbers\s*-->\s*$')
NOT_RERUN = re.compile(r'^\s*<!--\s*not re-run:\s*(.+?)\s*-->\s*$')
NUMBER = re.compile(r'[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?')
MACHINE = [  # what differs from one run or machine to the next, in any output
    (re.compile(r'\b\d+(?:\.\d+)?\s?(?:s|ms|us|min|h|days)\b'), '<time>'),
    (re.compile(r'\b\d+(?:\.\d+)? M draws/s'), '<rate> M draws/s'),
    (re.compile(r'\b\d+ threads?\b'), '<threads>'),
]


def blocks(lines):
    """(line number of the fence, the comments above it, the block's lines)
    for each `output` block of a page."""
    out, i = [], 0
    while i < len(lines):
        m = re.match(r'^ {0,3}(`{3,}|~{3,})\s*output\s*$', lines[i])
        if not m:
            i += 1
            continue
        fence, start = m.group(1), i
        comments, j = [], i - 1
        while j >= 0 and (lines[j].strip() == '' or lines[j].lstrip().startswith('<!--')):
            if lines[j].strip():
                comments.append(lines[j])
            j -= 1
        body, i = [], i + 1
        while i < len(lines) and not lines[i].startswith(fence):
            body.append(lines[i])
            i += 1
        out.append((start + 1, comments, body))
        i += 1
    return out


def masked(text, numbers):
    text = text.rstrip()
    for pattern, word in MACHINE:
        text = pattern.sub(word, text)
    # numbers masked, so is their width: a table's columns by single spaces
    return re.sub(r'\s+', ' ', NUMBER.sub('#', text)) if numbers else text


def scratch_view(repo, scratch):
    """A folder in scratch whose entries are the repository's top-level ones
    (links): a command's relative paths read the repository, and what it
    writes lands in scratch."""
    view = os.path.join(scratch, 'outputs')
    if not os.path.isdir(view):
        os.mkdir(view)
        for name in os.listdir(repo):
            if not name.startswith('.') and name != 'build':
                os.symlink(os.path.join(repo, name), os.path.join(view, name))
    return view


def run(command, binary, cwd):
    """(exit status, output lines) of a `specverify ...` command line, or
    (None, why) when it cannot be run."""
    try:
        argv = shlex.split(command)
    except ValueError as e:
        return None, f'cannot read the command ({e})'
    if argv and argv[0] == 'python3' and len(argv) > 1 and argv[1].startswith('tools/'):
        binary = sys.executable  # one of this repository's tools
    elif not argv or argv[0] not in ('specverify', 'build/specverify'):
        return None, 'the command is neither specverify nor python3 tools/...'
    bindir = os.path.dirname(binary)
    args = [os.path.join(bindir, a[len('build/'):]) if a.startswith('build/') else a
            for a in argv[1:]]
    env = dict(os.environ, SV_PROGRESS_SECONDS='0')
    p = subprocess.Popen([binary] + args, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True)
    try:
        out, _ = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, f'still running after {TIMEOUT} s'
    return p.returncode, out.decode('utf-8', 'replace').split('\n')


def first_missing(shown, printed, numbers):
    """The first line of shown not found in printed after the one before it
    (None: all found, in order)."""
    got = [masked(t, numbers) for t in printed]
    at = 0
    for line in shown:
        want = masked(line, numbers)
        while at < len(got) and got[at] != want:
            at += 1
        if at == len(got):
            return line
        at += 1
    return None


def check_outputs(repo, page, binary, scratch, problem):
    with open(os.path.join(repo, page), encoding='utf-8') as f:
        lines = f.read().split('\n')
    for n, comments, body in blocks(lines):
        where = f'{page}:{n}'
        command = next((m.group(1) for c in comments for m in [OUTPUT_OF.match(c)] if m), None)
        if any(NOT_RERUN.match(c) for c in comments):
            continue
        if command is None:
            problem(f'{where}: an output block names no command above it '
                    '(<!-- output of: specverify ... --> or <!-- not re-run: why -->)')
            continue
        numbers = any(MASKED.match(c) for c in comments)
        status, printed = run(command, binary, scratch_view(repo, scratch))
        if status is None:
            problem(f'{where}: `{command}`: {printed}')
            continue
        missing = first_missing([t for t in body if t.strip()], printed, numbers)
        if missing is not None:
            near = difflib.get_close_matches(masked(missing, numbers),
                                             [masked(t, numbers) for t in printed], n=1,
                                             cutoff=0.0)
            problem(f'{where}: `{command}` (exit {status}) does not print the line '
                    f'"{missing.strip()[:160]}" where the page shows it; its nearest line: '
                    f'"{near[0].strip()[:160] if near else ""}"')
