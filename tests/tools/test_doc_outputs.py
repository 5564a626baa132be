#!/usr/bin/env python3
"""test_doc_outputs.py: tools/doc_outputs.py fails a page whose example
output drifted from what its command prints, and only then. Each case is a
page in a scratch repository, checked against SPECVERIFY; prints one
PASS/FAIL line per case, exits 1 if any failed.
usage: test_doc_outputs.py SPECVERIFY"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tools'))
from doc_outputs import check_outputs  # noqa: E402

CMD = 'specverify verify --case tinytail:V=32003,K=1 --draws 20000 --seed 1'
LINE = ('below power: tinytail:V=32003,K=1 ran 20000 draws, where its power against '
        'race_float32_truncated (the bug it was built for) is 2.3e-07; power 0.999999 needs '
        '3.33e+05 draws (the suite\'s, or a larger --draws-scale)')
SUMMARY = '1 cases: 1 passed, 0 suspect, 0 failed. 0.02 M draws in 9.9 s (0.01 M draws/s, 1 thread)'

CASES = [  # (name, page, how many problems)
    ('the printed line, and the summary at another speed',
     f'<!-- output of: {CMD} -->\n```output\n{LINE}\n{SUMMARY}\n```\n', 0),
    ('a drifted number', f'<!-- output of: {CMD} -->\n```output\n'
     + LINE.replace('2.3e-07', '2.4e-07') + '\n```\n', 1),
    ('two lines out of order', f'<!-- output of: {CMD} -->\n```output\n{SUMMARY}\n{LINE}\n```\n', 1),
    ('no command named', f'```output\n{LINE}\n```\n', 1),
    ('a drifted number, numbers masked',
     f'<!-- output of: {CMD} -->\n<!-- masked: numbers -->\n```output\n'
     + LINE.replace('2.3e-07', '2.4e-07') + '\n```\n', 0),
    ('drifted words, numbers masked',
     f'<!-- output of: {CMD} -->\n<!-- masked: numbers -->\n```output\n'
     + LINE.replace('the bug it was built for', 'its bug') + '\n```\n', 1),
    ('not re-run, with a reason', f'<!-- not re-run: a GPU\'s -->\n```output\nanything\n```\n', 0),
    ('not a specverify command', '<!-- output of: rm -rf x -->\n```output\nx\n```\n', 1),
]


def main(argv):
    binary = os.path.abspath(argv[1])
    failed = 0
    for name, page, want in CASES:
        with tempfile.TemporaryDirectory() as repo, tempfile.TemporaryDirectory() as scratch:
            with open(os.path.join(repo, 'page.md'), 'w') as f:
                f.write(page)
            found = []
            check_outputs(repo, 'page.md', binary, scratch, found.append)
        ok = len(found) == want
        failed += not ok
        print(f'{"PASS" if ok else "FAIL"}: {name}: {len(found)} problems (want {want})'
              + ('' if ok else f': {found}'))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
