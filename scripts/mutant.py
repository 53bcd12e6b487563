#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Mutants stated as replacements, so that an edit elsewhere in the file cannot stale them.

A mutant, tests/mutants/NAME.mut:
    Mutant NAME: what it breaks (one line; more lines of prose may follow, none starting "@@")
    @@ pam/clients.c
    -the old lines, exactly, each after a "-"
    +the lines that replace them, each after a "+"
Several "@@ FILE" blocks may follow, applied in order. Each block's old text must occur
exactly once in its file (whole lines), at the moment it is applied: more than once or not at
all, and the mutant is stale.

    mutant.py check TREE MUT...          one line per stale mutant; exit 1 when any is
    mutant.py files MUT                  the files it changes, one a line
    mutant.py apply TREE MUT BACKUP      applies it, keeping the originals under BACKUP
    mutant.py restore TREE BACKUP        puts the originals back
    mutant.py from-patch PATCH TREE      a git diff (a file's hunks) as a mutant, on stdout:
                                         each hunk's context trimmed to what makes it unique
"""
import os
import shutil
import sys


class Stale(Exception):
    pass


def parse(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    name = os.path.basename(path).removesuffix(".mut")
    if not lines or not lines[0].startswith(f"Mutant {name}: ") or not lines[0][len(name) + 9:].strip():
        raise Stale(f"{path}: the first line is not 'Mutant {name}: what it breaks'")
    blocks, cur = [], None
    for n, line in enumerate(lines[1:], 2):
        if line.startswith("@@ "):
            cur = [line[3:].strip(), [], []]
            blocks.append(cur)
        elif cur is None:
            continue  # prose after the first line
        elif line.startswith("-") and not cur[2]:
            cur[1].append(line[1:])
        elif line.startswith("+"):
            cur[2].append(line[1:])
        elif line == "":
            continue
        else:
            raise Stale(f"{path}:{n}: a line in a block starts with '-' (old, before any '+') or '+'")
    if not blocks:
        raise Stale(f"{path}: no '@@ FILE' block")
    for file, old, new in blocks:
        if not old or old == new or file.startswith("/") or ".." in file.split("/"):
            raise Stale(f"{path}: a block of {file} has no old text, or changes nothing")
    return [(file, "".join(l + "\n" for l in old), "".join(l + "\n" for l in new)) for file, old, new in blocks]


def occurrences(text, old):
    """Where OLD occurs in TEXT as whole lines."""
    hay, at, found = "\n" + text, 0, []
    while True:
        i = hay.find("\n" + old, at)
        if i < 0:
            return found
        found.append(i)
        at = i + 1


def mutated(tree, blocks):
    """{file: new content}; raises Stale."""
    out = {}
    for file, old, new in blocks:
        if file not in out:
            try:
                with open(os.path.join(tree, file), encoding="utf-8") as f:
                    out[file] = f.read()
            except OSError as e:
                raise Stale(f"{file}: {e.strerror}")
        found = occurrences(out[file], old)
        if len(found) != 1:
            first = old.split("\n")[0].strip()
            raise Stale(f"{file}: its old text ('{first[:60]}') occurs {len(found)} times, not once")
        i = found[0]
        out[file] = out[file][:i] + new + out[file][i + len(old):]
    return out


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "check" and len(args) >= 2:
        bad = 0
        for m in args[1:]:
            name = os.path.basename(m).removesuffix(".mut")
            try:
                mutated(args[0], parse(m))
            except Stale as e:
                print(f"stale {name}: {e}")
                bad += 1
        return 1 if bad else 0
    if cmd == "files" and len(args) == 1:
        seen = []
        for file, _, _ in parse(args[0]):
            if file not in seen:
                seen.append(file)
        print("\n".join(seen))
        return 0
    if cmd == "apply" and len(args) == 3:
        tree, m, backup = args
        try:
            out = mutated(tree, parse(m))
        except Stale as e:
            print(f"mutant.py: {os.path.basename(m)}: stale: {e}", file=sys.stderr)
            return 1
        for file, text in out.items():
            dst = os.path.join(backup, file)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(os.path.join(tree, file), dst)
            with open(os.path.join(tree, file), "w", encoding="utf-8") as f:
                f.write(text)
        return 0
    if cmd == "restore" and len(args) == 2:
        tree, backup = args
        for d, _, names in os.walk(backup):
            for n in names:
                src = os.path.join(d, n)
                # A new mtime, so that make rebuilds what the mutant's build left behind.
                shutil.copy(src, os.path.join(tree, os.path.relpath(src, backup)))
        shutil.rmtree(backup)
        return 0
    if cmd == "from-patch" and len(args) == 2:
        return from_patch(*args)
    sys.exit(__doc__)


def from_patch(patch, tree):
    with open(patch, encoding="utf-8") as f:
        lines = f.read().split("\n")
    head = lines[0] if lines[0].startswith("Mutant ") else "Mutant " + os.path.basename(patch).removesuffix(".patch") + ":"
    out, file, hunk = [head], None, None
    texts = {}

    def flush():
        if hunk is None:
            return
        body = hunk
        changed = [i for i, (k, _) in enumerate(body) if k != " "]
        lo, hi = changed[0], changed[-1] + 1
        text = texts[file]
        while True:
            old = "".join(l + "\n" for k, l in body[lo:hi] if k != "+")
            if old and len(occurrences(text, old)) == 1:
                break
            if lo > 0 and (hi >= len(body) or changed[0] - lo <= hi - changed[-1] - 1):
                lo -= 1
            elif hi < len(body):
                hi += 1
            elif lo > 0:
                lo -= 1
            else:
                raise SystemExit(f"{patch}: a hunk of {file} is not unique even with all its context")
        new = "".join(l + "\n" for k, l in body[lo:hi] if k != "-")
        i = occurrences(text, old)[0]
        texts[file] = text[:i] + new + text[i + len(old):]
        out.append(f"@@ {file}")
        out.extend("-" + l for k, l in body[lo:hi] if k != "+")
        out.extend("+" + l for k, l in body[lo:hi] if k != "-")

    for line in lines[1:]:
        if line.startswith("+++ b/"):
            flush()
            hunk = None
            file = line[6:]
            with open(os.path.join(tree, file), encoding="utf-8") as f:
                texts.setdefault(file, f.read())
        elif line.startswith("@@"):
            flush()
            hunk = []
        elif hunk is not None and line[:1] in (" ", "-", "+"):
            hunk.append((line[0], line[1:]))
    flush()
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
