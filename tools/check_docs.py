#!/usr/bin/env python3
"""check_docs.py: the pages still tell the truth about the code.

Usage: python3 tools/check_docs.py SPECVERIFY [REPO]

SPECVERIFY is the built binary; REPO the repository root (default: this
file's parent folder). Prints one line per problem and exits 1 if there is
any, 0 if none, 2 on bad usage. Stdlib only. The pages are README.md,
CONTRIBUTING.md, docs/*.md and the READMEs of experiments/, results/ and
distributions/recordings/. Checks:

commands  Every `specverify ...` or `build/specverify ...` command in a
          fenced code block of a page (a line, or a segment of a line after
          `&&`, `||`, `;` or `|`; `\\` continues a line; `$ ` prompts, `#`
          comments and leading VAR=value assignments are understood, the
          assignments passed on) is run with ` --help` appended, from an
          empty scratch folder, with `specverify`/`build/specverify`
          replaced by SPECVERIFY and any argument starting `build/` by the
          path beside SPECVERIFY (the example plugin). getopt reads the
          flags in order, so an unknown flag or a bad number exits 2 before
          --help prints; a flag missing its value swallows --help and the
          command does not print its usage. It passes when it exits 0 and
          prints `usage:` first (or is `--version`). Positional files
          (compare, plot, run) are kept as written and need not exist:
          every command reads all its flags before it opens one. Blocks
          whose info string is `output` (what a command prints) or
          `synopsis` (forms with placeholders such as FILE) are skipped.
links     Every relative Markdown link or image, [text](path) or
          [text](path#anchor), outside code, resolves to a file or folder
          inside the repository, and an anchor into a .md page (or the page
          itself, [text](#anchor)) to one of its headings, slugged as GitHub
          does: lower case, punctuation dropped, spaces to '-', repeats
          suffixed -1, -2, ...
pointers  Every page a --help text names (docs/NAME.md[#anchor], a
          README.md, CONTRIBUTING.md; README, 'SECTION') exists, and no
          page, help text or source file names a file outside the
          repository (DESIGN.md, ../shared).
outputs   Every fenced `output` block names the command that prints it,
          which is run and must print the block's lines in order, the
          machine's numbers masked (tools/doc_outputs.py says how), or says
          why it is not re-run.
size      No source file (*.c *.h *.cu *.cuh *.cpp *.py *.sh) is over 800
          lines.
"""
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doc_outputs import check_outputs  # noqa: E402

MAX_LINES = 800
SOURCE_EXT = ('.c', '.h', '.cu', '.cuh', '.cpp', '.py', '.sh')
SKIP_INFO = ('output', 'synopsis')
FENCE = re.compile(r'^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)')
LINK = re.compile(r'!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^()\s<>]*)>?(?:\s+"[^"]*")?\s*\)')
REF_DEF = re.compile(r'^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$')
HEADING = re.compile(r'^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$')
HTML_ID = re.compile(r'<a\s+(?:name|id)="([^"]+)"')
OUTSIDE = re.compile(r'DESIGN\.md|\.\./shared')
PAGE_NAMED = re.compile(r'(?<![\w./$-])((?:docs/[\w.-]+|(?:[\w-]+/)*(?:README|CONTRIBUTING))'
                        r'\.md)(#[\w-]+)?')
README_POINTER = re.compile(r"README, '([A-Za-z][^'\\]*)'")

problems = []


def problem(text):
    problems.append(text)


def pages(repo):
    names = ['README.md', 'CONTRIBUTING.md', 'experiments/README.md', 'results/README.md',
             'distributions/recordings/README.md']
    docs = os.path.join(repo, 'docs')
    if os.path.isdir(docs):
        names += sorted('docs/' + n for n in os.listdir(docs) if n.endswith('.md'))
    else:
        problem('docs/: missing')
    found = []
    for n in names:
        if os.path.isfile(os.path.join(repo, n)):
            found.append(n)
        else:
            problem(f'{n}: missing')
    return found


def read_lines(path):
    with open(path, encoding='utf-8') as f:
        return f.read().split('\n')


def split_fences(lines):
    """Yields (line number, text, info) per line: info is None outside fenced
    blocks, the block's info string (lower case) inside, '' for a fence line."""
    fence = None
    for i, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = (m.group(1)[0], len(m.group(1)), m.group(2).lower())
                yield i, line, ''
            else:
                yield i, line, None
        else:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= fence[1] and \
                    not m.group(2):
                fence = None
                yield i, line, ''
            else:
                yield i, line, fence[2]


# ---- commands ----------------------------------------------------------------

def logical_lines(numbered):
    """Joins lines ending in a backslash; yields (first line number, text)."""
    start, parts = None, []
    for n, text in numbered:
        if start is None:
            start = n
        if text.rstrip().endswith('\\'):
            parts.append(text.rstrip()[:-1])
            continue
        parts.append(text)
        yield start, ' '.join(parts)
        start, parts = None, []
    if parts:
        yield start, ' '.join(parts)


def segments(text):
    """The simple commands of a shell line, each as (env, argv)."""
    lex = shlex.shlex(text, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    lex.commenters = '#'
    words = list(lex)
    out, cur, skip_next = [], [], False
    for w in words:
        if skip_next:
            skip_next = False
            continue
        if w in ('&&', '||', ';', '|', '&'):
            out.append(cur)
            cur = []
        elif w in ('>', '>>', '<', '>&', '2>'):
            skip_next = True
        else:
            cur.append(w)
    out.append(cur)
    result = []
    for argv in out:
        env = {}
        while argv and re.match(r'^[A-Za-z_][A-Za-z0-9_]*=', argv[0]):
            k, v = argv[0].split('=', 1)
            env[k] = v
            argv = argv[1:]
        if argv:
            result.append((env, argv))
    return result


def check_command(where, env, argv, binary, scratch):
    bindir = os.path.dirname(binary)
    args = [os.path.join(bindir, a[len('build/'):]) if a.startswith('build/') else a
            for a in argv[1:]]
    shown = ' '.join([f'{k}={shlex.quote(v)}' for k, v in env.items()] +
                     [shlex.quote(a) for a in argv])
    run_env = dict(os.environ, SV_PROGRESS_SECONDS='0', **env)
    # its own session, so that a run that swallowed --help ends with its children
    p = subprocess.Popen([binary] + args + ['--help'], cwd=scratch, env=run_env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        stdout, stderr = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        problem(f'{where}: `{shown}`: still running after 20 s with --help appended '
                '(a flag missing its value took --help as it)')
        return
    out = stdout.decode('utf-8', 'replace')
    err = stderr.decode('utf-8', 'replace').strip().split('\n')[0]
    if p.returncode != 0:
        problem(f'{where}: `{shown}`: exit {p.returncode} with --help appended: {err}')
    elif not out.startswith('usage:') and '--version' not in args:
        problem(f'{where}: `{shown}`: printed no usage with --help appended '
                '(a flag missing its value took --help as it)')


def check_commands(repo, page, binary, scratch):
    lines = read_lines(os.path.join(repo, page))
    block = []
    for n, text, info in split_fences(lines):
        if info is None or info == '':
            for start, logical in logical_lines(block):
                check_line(f'{page}:{start}', logical, binary, scratch)
            block = []
        elif info not in SKIP_INFO:
            block.append((n, text))


def check_line(where, text, binary, scratch):
    text = re.sub(r'^\s*\$\s+', '', text)
    if 'specverify' not in text:
        return
    try:
        segs = segments(text)
    except ValueError as e:
        problem(f'{where}: cannot read the command line ({e})')
        return
    for env, argv in segs:
        if argv[0] in ('specverify', 'build/specverify'):
            check_command(where, env, argv, binary, scratch)


# ---- links and headings ---------------------------------------------------------

def slug(heading):
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', heading)  # a link: its text
    text = text.replace('`', '').replace('*', '')
    text = re.sub(r'<[^>]+>', '', text)
    text = re.sub(r'[^\w\- ]', '', text.lower())
    return text.replace(' ', '-')


anchors_cache = {}


def anchors(path):
    if path not in anchors_cache:
        seen, found = {}, set()
        for _, text, info in split_fences(read_lines(path)):
            if info is not None:
                continue
            for a in HTML_ID.findall(text):
                found.add(a)
            m = HEADING.match(text)
            if not m:
                continue
            base = slug(m.group(2))
            k = seen.get(base, 0)
            seen[base] = k + 1
            found.add(base if k == 0 else f'{base}-{k}')
        anchors_cache[path] = found
    return anchors_cache[path]


def strip_code_spans(text):
    return re.sub(r'(`+)(.+?)\1', '', text)


def check_target(repo, where, base_dir, target):
    if re.match(r'^[A-Za-z][A-Za-z0-9+.-]*:', target):
        return  # http:, https:, mailto:
    path, _, anchor = target.partition('#')
    path = urllib.parse.unquote(path)
    full = os.path.normpath(os.path.join(base_dir, path)) if path else None
    if full is None:
        full = where[0]
    elif os.path.relpath(full, repo).startswith('..'):
        problem(f'{where[1]}: link to {target}: outside the repository')
        return
    elif not os.path.exists(full):
        problem(f'{where[1]}: link to {target}: no such file')
        return
    if anchor and full.endswith('.md') and anchor not in anchors(full):
        problem(f'{where[1]}: link to {target}: {os.path.relpath(full, repo)} has no heading '
                f'#{anchor}')


def check_links(repo, page):
    full = os.path.join(repo, page)
    lines = read_lines(full)
    for n, text, info in split_fences(lines):
        if info is not None:
            continue
        where = (full, f'{page}:{n}')
        if OUTSIDE.search(text):
            problem(f'{page}:{n}: names a file outside the repository: '
                    f'{OUTSIDE.search(text).group(0)}')
        m = REF_DEF.match(text)
        if m:
            check_target(repo, where, os.path.dirname(full), m.group(1))
            continue
        for m in LINK.finditer(strip_code_spans(text)):
            check_target(repo, where, os.path.dirname(full), m.group(2))


# ---- pointers from the code to the pages ------------------------------------------

def check_pointer(repo, where, page, anchor):
    full = os.path.join(repo, page)
    if not os.path.isfile(full):
        problem(f'{where}: points to {page}, which does not exist')
    elif anchor and anchor[1:] not in anchors(full):
        problem(f'{where}: points to {page}{anchor}, which has no such heading')


def help_texts(binary, scratch):
    """(name, text) for specverify --help and each command's --help."""
    def run(args):
        r = subprocess.run([binary] + args, cwd=scratch, capture_output=True, timeout=20,
                           stdin=subprocess.DEVNULL)
        return (r.stdout + r.stderr).decode('utf-8', 'replace')

    def listed(text, section):
        m = re.search(section + r':\n((?:  \w+ .*\n)+)', text)
        return re.findall(r'^  (\w+) ', m.group(1), re.M) if m else []

    main = run(['--help'])
    texts = [('specverify --help', main)]
    for cmd in listed(main, 'commands'):
        if cmd == 'help':
            continue
        text = run([cmd, '--help'])
        texts.append((f'specverify {cmd} --help', text))
        for sub in listed(text, 'sources'):
            texts.append((f'specverify {cmd} {sub} --help', run([cmd, sub, '--help'])))
    if len(texts) < 2:
        problem(f'{binary} --help lists no commands')
    return texts


def readme_headings(repo):
    return {m.group(2) for _, t, info in split_fences(read_lines(os.path.join(repo, 'README.md')))
            if info is None for m in [HEADING.match(t)] if m}


def check_pointers(repo, binary, scratch):
    headings = readme_headings(repo)
    for name, text in help_texts(binary, scratch):
        flat = ' '.join(text.split())
        for m in PAGE_NAMED.finditer(flat):
            check_pointer(repo, name, m.group(1), m.group(2))
        for m in README_POINTER.finditer(flat):
            if not any(m.group(1) in h for h in headings):
                problem(f"{name}: points to README, '{m.group(1)}', a section README.md "
                        'does not have')
        if OUTSIDE.search(flat):
            problem(f'{name}: names a file outside the repository: '
                    f'{OUTSIDE.search(flat).group(0)}')


# ---- source files -----------------------------------------------------------------

def source_files(repo):
    try:
        out = subprocess.run(['git', '-C', repo, 'ls-files', '--cached', '--others',
                              '--exclude-standard'], capture_output=True, check=True)
        names = out.stdout.decode().split('\n')
    except (OSError, subprocess.CalledProcessError):  # not a git clone: walk it
        names = []
        for d, subdirs, files in os.walk(repo):
            subdirs[:] = [s for s in subdirs if not s.startswith(('.', 'build'))]
            names += [os.path.relpath(os.path.join(d, f), repo) for f in files]
    return sorted(n for n in names if n.endswith(SOURCE_EXT) and
                  os.path.isfile(os.path.join(repo, n)))


def check_sources(repo, self_name):
    for name in source_files(repo):
        with open(os.path.join(repo, name), encoding='utf-8', errors='replace') as f:
            lines = f.read().split('\n')
        if len(lines) - (lines[-1] == '') > MAX_LINES:
            problem(f'{name}: {len(lines) - (lines[-1] == "")} lines, over {MAX_LINES}')
        if name == self_name:
            continue
        for n, text in enumerate(lines, 1):
            m = OUTSIDE.search(text)
            if m:
                problem(f'{name}:{n}: names a file outside the repository: {m.group(0)}')
            for m in PAGE_NAMED.finditer(text):
                check_pointer(repo, f'{name}:{n}', m.group(1), m.group(2))
            for m in README_POINTER.finditer(text):
                if not any(m.group(1) in h for h in readme_headings(repo)):
                    problem(f"{name}:{n}: points to README, '{m.group(1)}', a section "
                            'README.md does not have')


def main(argv):
    if len(argv) not in (2, 3):
        print('usage: check_docs.py SPECVERIFY [REPO]', file=sys.stderr)
        return 2
    binary = os.path.abspath(argv[1])
    repo = os.path.abspath(argv[2] if len(argv) == 3 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    if not os.access(binary, os.X_OK):
        print(f'check_docs.py: {argv[1]}: not an executable', file=sys.stderr)
        return 2
    checked = pages(repo)
    with tempfile.TemporaryDirectory(prefix='check_docs.') as scratch:
        for page in checked:
            check_commands(repo, page, binary, scratch)
            check_outputs(repo, page, binary, scratch, problem)
            check_links(repo, page)
        check_pointers(repo, binary, scratch)
    check_sources(repo, 'tools/check_docs.py')  # this file names what it looks for
    for p in problems:
        print(p)
    print(f'check_docs: {len(checked)} pages, {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
