#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""docs_links.py: every relative link of README.md and docs/ resolves.

Reads the Markdown links `[text](target)` and `<img src="target">` of README.md, docs/*.md and
the reports under docs/results (outside fenced code blocks and `code spans`), and fails (exit 1), naming the file and line, when

  - a relative target names a file or folder that does not exist;
  - a target `FILE.md#anchor` (or `#anchor` in the same file) names a heading that FILE.md
    does not have (anchors as GitHub makes them: lower case, punctuation dropped, spaces to
    hyphens, -1, -2 ... for repeated headings).

Absolute URLs (http:, https:, mailto:) are not fetched.  Also fails when a document sends the
reader to the development notes beside the project (the folder `shared` one level up: its
FACTS.md, DESIGN.md, STYLE.md, papers/), which users of the project do not have.

Usage: docs_links.py [--root SOURCE_DIR] [FILE.md ...]
"""
import argparse
import glob
import os
import re
import sys

LINK = re.compile(r'!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
IMG = re.compile(r'<img\s[^>]*src="([^"]+)"')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
FENCE = re.compile(r'^\s*(```|~~~)')
SHARED = re.compile(r'\.\./shared/|\bshared/(FACTS|DESIGN|STYLE)\.md|\bshared/papers/')


def slug(text):
    """The anchor GitHub gives a heading."""
    text = re.sub(r'`([^`]*)`', r'\1', text)
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)   # a link in a heading: its text
    text = text.strip().lower()
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def lines_outside_code(path):
    """(line number, line, line without code spans) of every line outside fenced blocks."""
    fenced = False
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                yield n, line, re.sub(r'`[^`]*`', '', line)


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen, found = {}, set()
        for _, line, _ in lines_outside_code(path):
            m = HEADING.match(line)
            if not m:
                continue
            s = slug(m.group(2))
            k = seen.get(s, 0)
            seen[s] = k + 1
            found.add(s if k == 0 else '%s-%d' % (s, k))
        _anchors[path] = found
    return _anchors[path]


def check(path, root):
    problems = []
    rel = os.path.relpath(path, root)
    for n, raw, line in lines_outside_code(path):
        if SHARED.search(raw):
            problems.append('%s:%d: refers to the development notes beside the project (shared/), '
                            'which users do not have' % (rel, n))
        for target in LINK.findall(line) + IMG.findall(line):
            if re.match(r'^[a-z][a-z0-9+.-]*:', target):
                continue
            file_part, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                if file_part else path
            if not os.path.exists(dest):
                problems.append('%s:%d: link to %s: no such file' % (rel, n, target))
            elif anchor and dest.endswith('.md') and os.path.isfile(dest) \
                    and anchor not in anchors(dest):
                problems.append('%s:%d: link to %s: no heading with that anchor' % (rel, n, target))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--root', default=os.path.join(os.path.dirname(__file__), '..'))
    ap.add_argument('files', nargs='*')
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    files = args.files or [os.path.join(root, 'README.md')] + \
        sorted(glob.glob(os.path.join(root, 'docs', '*.md'))) + \
        sorted(glob.glob(os.path.join(root, 'docs', 'results', '**', '*.md'), recursive=True))
    problems = []
    for f in files:
        problems += check(os.path.abspath(f), root)
    for p in problems:
        print(p)
    if problems:
        print('%d problem(s) in %d file(s)' % (len(problems), len(files)))
        return 1
    print('%d files, every relative link resolves' % len(files))
    return 0


if __name__ == '__main__':
    sys.exit(main())
