#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How the product's code reads (issue 39): comment lines per file and the longest functions.

    scripts/code_stats.py [--top N] [FILE...]     default: pam/*.c, pam/*.h and Sources/**/*.swift

A comment line is one that holds only a comment (//, ///, a /* */ block's lines); a code line
with a comment after it counts as code. A function runs from its declaration to its closing
brace (C: a definition at the left margin; Swift: func, init, deinit, subscript).
"""
import glob
import os
import re
import sys

SWIFT_DECL = re.compile(
    r"\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|private|fileprivate|internal|static|class|mutating"
    r"|nonmutating|override|final|nonisolated|convenience|required)\s+)*(?:func\s+([^\s(<]+)|(init|deinit|subscript))\b"
)
C_DECL = re.compile(r"^[A-Za-z_][\w\s\*]*?\b(\w+)\s*\([^;]*$")


def strip_strings(line):
    return re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', '""', line)


def comment_lines(lines):
    n, block = 0, False
    for line in lines:
        s = line.strip()
        if block:
            n += 1
            block = "*/" not in s
        elif s.startswith("//"):
            n += 1
        elif s.startswith("/*"):
            n += 1
            block = "*/" not in s[2:]
    return n


def functions(path, lines):
    swift = path.endswith(".swift")
    found = []
    for i, line in enumerate(lines):
        if swift:
            m = SWIFT_DECL.match(line)
            name = m and (m.group(1) or m.group(2))
        else:
            m = None if line[:1] in " \t#/}{" or line.startswith(("static const", "struct", "enum")) else C_DECL.match(line)
            name = m and m.group(1)
        if not name:
            continue
        depth, started = 0, False
        for j in range(i, len(lines)):
            code = re.sub(r"//.*|/\*.*?\*/", "", strip_strings(lines[j]))
            if not started and not swift and ";" in code:
                break
            for ch in code:
                if ch == "{":
                    depth, started = depth + 1, True
                elif ch == "}":
                    depth -= 1
            if started and depth <= 0:
                found.append((j - i + 1, f"{path}:{i + 1}", name))
                break
            if not started and swift and j > i + 8:
                break  # a protocol requirement: no body
    return found


def main(argv):
    top = 10
    if argv[:1] == ["--top"]:
        top, argv = int(argv[1]), argv[2:]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    files = argv or sorted(
        os.path.relpath(p, root)
        for p in glob.glob(os.path.join(root, "pam/*.[ch]")) + glob.glob(os.path.join(root, "Sources/**/*.swift"), recursive=True)
    )
    every = []
    print(f"{'comments':>8} {'lines':>6} {'ratio':>6}  file")
    total_c = total_l = 0
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        c = comment_lines(lines)
        total_c, total_l = total_c + c, total_l + len(lines)
        print(f"{c:8d} {len(lines):6d} {100 * c / max(1, len(lines)):5.1f}%  {f}")
        every += functions(f, lines)
    print(f"{total_c:8d} {total_l:6d} {100 * total_c / max(1, total_l):5.1f}%  (all)")
    print(f"\nthe {top} longest functions (lines):")
    for n, where, name in sorted(every, reverse=True)[:top]:
        print(f"{n:5d}  {name}  {where}")


if __name__ == "__main__":
    main(sys.argv[1:])
