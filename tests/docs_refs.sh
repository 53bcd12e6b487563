#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every reference to a part of a document resolves: `NAME.md#slug` anywhere in the tree (docs,
# README, man, pam, Sources, Tests, scripts, tests, debian, examples), and `[text](path)` or
# `[text](#slug)` links in Markdown files. A slug is a heading's GitHub anchor or an explicit
# `<a id="slug"></a>`. A section number (`§3.1`, `DESIGN.md §2`) is refused: numbers move when
# a document changes, slugs say what they point at. One check per reference.
# usage: tests/docs_refs.sh [ROOT]   (default: the checkout this script is in)
ROOT=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$ROOT" || exit 1
exec python3 - "$ROOT" <<'EOF'
import os, re, subprocess, sys

root = sys.argv[1]
DIRS = ("docs/", "man/", "pam/", "Sources/", "Tests/", "scripts/", "tests/", "debian/", "examples/")
TOP = ("README.md", "SECURITY.md", "CHANGELOG.md")
SKIP = ("tests/docs_refs.sh",)

try:
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, text=True, check=True).stdout.split("\n")
except (OSError, subprocess.CalledProcessError):
    files = [os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root)
             if "/.git" not in d + "/" for f in fs]
files = sorted(f for f in files if f and os.path.isfile(f) and f not in SKIP
               and (f in TOP or f.startswith(DIRS)))
md_files = [f for f in files if f.endswith(".md")] + [f for f in TOP if os.path.isfile(f)]

def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    s = re.sub(r"<[^>]*>", "", heading).strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")

anchors_cache = {}
def anchors(path):
    if path not in anchors_cache:
        seen, out = {}, set()
        in_code = False
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("```"):
                    in_code = not in_code
                for m in re.finditer(r'<a\s+(?:id|name)="([^"]+)"', line):
                    out.add(m.group(1))
                m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
                if m and not in_code:
                    s = slug(m.group(1))
                    n = seen.get(s, 0)
                    seen[s] = n + 1
                    out.add(s if n == 0 else f"{s}-{n}")
        anchors_cache[path] = out
    return anchors_cache[path]

def resolve(src, target, frag_wanted=False):
    """The file a reference names: beside the referring file, from the top, or (a bare name,
    as code comments write it) the one file of that name under docs/ or at the top."""
    for cand in (os.path.normpath(os.path.join(os.path.dirname(src), target)),
                 os.path.normpath(target)):
        if os.path.isfile(cand) or (not frag_wanted and os.path.isdir(cand)):
            return cand
    if "/" not in target:
        hits = [c for c in (target, "docs/" + target) if os.path.isfile(c)]
        if len(hits) == 1:
            return hits[0]
    return None

REF = re.compile(r"([A-Za-z0-9./][A-Za-z0-9_./-]*\.md|[A-Za-z0-9]\.md)#([A-Za-z0-9_-]*[A-Za-z0-9-])")
LINK = re.compile(r"\]\(([^)\s]+)\)")
SECT = re.compile(r"(?:[A-Za-z0-9_./-]*\.md,? *(?:section *)?)?§ *([0-9]+(?:\.[0-9]+)*)")
passed, failed = 0, []
for f in files:
    try:
        text = open(f, encoding="utf-8").read()
    except (UnicodeDecodeError, OSError):
        continue
    for no, line in enumerate(text.split("\n"), 1):
        where = f"{f}:{no}"
        for m in SECT.finditer(line):
            failed.append(f"{where}: '{m.group(0)}': a section number, not a slug")
        refs = [(m.group(1), m.group(2)) for m in REF.finditer(line)]
        if f.endswith(".md"):
            for m in LINK.finditer(line):
                t = m.group(1)
                if re.match(r"[a-z]+:", t) or t.startswith("<"):
                    continue
                path, _, frag = t.partition("#")
                if path.endswith(".md") and frag:
                    continue            # already taken by REF
                refs.append((path or f, frag))
        for target, frag in refs:
            dest = resolve(f, target, bool(frag))
            if dest is None:
                failed.append(f"{where}: '{target}{'#' + frag if frag else ''}': no such file")
            elif frag and dest.endswith(".md") and frag not in anchors(dest):
                failed.append(f"{where}: '{target}#{frag}': no heading or anchor '{frag}' in {dest}")
            else:
                passed += 1
for msg in failed:
    print("FAIL - " + msg)
print(f"ok   - {passed} references resolve (files swept: {len(files)})")
print(f"{passed} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
EOF
