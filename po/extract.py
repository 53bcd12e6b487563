#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the gettext template of the helper's messages: po/extract.py > po/touchauth.pot

xgettext does not read Swift, so this reads the string literals of the message table
(Sources/TouchAuthCore/Message.swift), and the literal of every `tr("...")` and
`translatable("...")` of the command line (Sources/TouchAuthCommands, Sources/TouchAuthPlatform:
Gettext.swift), and turns each into a msgid by the rule of
LocalizedText.swift: every interpolation \\(...) becomes %s, or %1$s, %2$s, ... when the literal
has several; a literal % becomes %%. It adds the values the table interpolates that have a
translation of their own: the finger names of Finger.swift as spoken ("left index finger") and
the default fallback_title of the key table (CONFIG_KEYS in pam/config.h, which both binaries build),
and the lines the module says itself (`TA_*_MESSAGE` in pam/contract.h, named by the table). Literals
in comments are skipped.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MESSAGES = "Sources/TouchAuthCore/Message.swift"
FINGERS = "Sources/TouchAuthCore/Finger.swift"
CONFIG = "pam/config.h"
CONTRACT = "pam/contract.h"
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


def literals(source):
    """Yields each string literal of Swift source as a list of pieces: text, or None for an
    interpolation."""
    i, n = 0, len(source)
    while i < n:
        if source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i < 0 else i
        elif source.startswith("/*", i):
            i = source.find("*/", i)
            i = n if i < 0 else i + 2
        elif source.startswith('"""', i):
            sys.exit(f"extract.py: multi-line string literals are not supported ({MESSAGES})")
        elif source[i] == '"':
            pieces, i = string_literal(source, i + 1)
            yield pieces
        else:
            i += 1


def string_literal(source, i):
    pieces, text = [], ""
    while True:
        c = source[i]
        if c == '"':
            if text:
                pieces.append(text)
            return pieces, i + 1
        if c == "\n":
            sys.exit("extract.py: unterminated string literal")
        if c == "\\":
            e = source[i + 1]
            if e == "(":
                if text:
                    pieces.append(text)
                text = ""
                pieces.append(None)
                i = skip_interpolation(source, i + 2)
                continue
            if e == "u":
                end = source.index("}", i)
                text += chr(int(source[i + 3:end], 16))
                i = end + 1
                continue
            text += ESCAPES[e]
            i += 2
            continue
        text += c
        i += 1


def skip_interpolation(source, i):
    depth = 1
    while depth:
        c = source[i]
        if c == '"':
            _, i = string_literal(source, i + 1)
            continue
        depth += {"(": 1, ")": -1}.get(c, 0)
        i += 1
    return i


def msgid(pieces):
    count = pieces.count(None)
    out, index = "", 0
    for piece in pieces:
        if piece is None:
            index += 1
            out += "%s" if count == 1 else f"%{index}$s"
        else:
            out += piece.replace("%", "%%")
    return out


COMMAND_DIRS = ["Sources/TouchAuthCommands", "Sources/TouchAuthPlatform"]
MARKER = re.compile(r"\b(tr|translatable)\(")


def in_comment(source, at):
    """Whether position `at` is after a // that is outside a string literal on its line."""
    line = source[source.rfind("\n", 0, at) + 1:at]
    quoted = False
    for i, c in enumerate(line):
        if c == '"' and (i == 0 or line[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and line.startswith("//", i):
            return True
    return False


def marked(path):
    """The literal of each tr("...") / translatable("...") in one Swift file, nested ones too (an
    argument of another marked literal). `tr(value)` retranslates a marked value: skipped. A
    literal must close the call: tr("a" + b) would hide its text from gettext, so it stops the run."""
    source = read(path)
    for m in MARKER.finditer(source):
        if in_comment(source, m.start()) or source[m.start() - 1:m.start()] in (".", "_"):
            continue
        i = m.end()
        if source[i] != '"':
            continue
        if source.startswith('"""', i):
            sys.exit(f"extract.py: {path}: multi-line string literal in {m.group(1)}(...)")
        pieces, end = string_literal(source, i + 1)
        if source[end] != ")":
            line = source.count("\n", 0, m.start()) + 1
            sys.exit(f"extract.py: {path}:{line}: {m.group(1)}(...) must hold one string literal and nothing else")
        yield pieces


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def entries():
    """(msgid, source file) in order of appearance, without duplicates."""
    seen = {}
    # A line both binaries say (the lockout's) is a macro of pam/contract.h, which the table
    # names: read in its place, so the catalog keeps the table's order.
    macros = dict(re.findall(r'#define (TA_\w+_MESSAGE)\s*\\?\s*("(?:[^"\\\n]|\\.)*")', read(CONTRACT)))
    table = re.sub(r"\bTA_\w+_MESSAGE\b", lambda m: macros[m.group(0)], read(MESSAGES))
    for pieces in literals(table):
        text = msgid(pieces)
        if text.strip():
            seen.setdefault(text, MESSAGES)
    for directory in COMMAND_DIRS:
        for name in sorted(os.listdir(os.path.join(ROOT, directory))):
            if name.endswith(".swift"):
                path = f"{directory}/{name}"
                for pieces in marked(path):
                    seen.setdefault(msgid(pieces), path)
    # Finger.spokenName: fprintd's name with spaces for dashes.
    for name in re.findall(r'case \.\w+: "([a-z-]+)"', read(FINGERS)):
        seen.setdefault(name.replace("-", " "), FINGERS)
    title = re.search(r'X\(fallback_title, TEXT, [^"]*"([^"]*)"', read(CONFIG))
    if not title:
        sys.exit(f"extract.py: no default fallbackTitle in {CONFIG}")
    seen.setdefault(title.group(1), CONFIG)
    return seen.items()


def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def main():
    out = [
        "# The helper's messages (touchauth). Generated by po/extract.py: do not edit;",
        "# run po/update.sh after changing a message, then translate the .po files.",
        "#",
        "#, fuzzy",
        'msgid ""',
        'msgstr ""',
        '"Project-Id-Version: touchauth\\n"',
        '"Report-Msgid-Bugs-To: \\n"',
        '"PO-Revision-Date: YEAR-MO-DA HO:MI+ZONE\\n"',
        '"Last-Translator: FULL NAME <EMAIL@ADDRESS>\\n"',
        '"Language-Team: LANGUAGE <LL@li.org>\\n"',
        '"Language: \\n"',
        '"MIME-Version: 1.0\\n"',
        '"Content-Type: text/plain; charset=UTF-8\\n"',
        '"Content-Transfer-Encoding: 8bit\\n"',
        "",
    ]
    for text, path in entries():
        out.append(f"#: {path}")
        if re.search(r"%(\d+\$)?s", text):
            out.append("#, c-format")
        out.append(f"msgid {quote(text)}")
        out.append('msgstr ""')
        out.append("")
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
