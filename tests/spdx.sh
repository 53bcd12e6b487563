#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every source file names its license (LICENSE, debian/copyright) in an SPDX line among its
# first five: C, Swift, module maps, shell, Python, completions, Makefiles, debian's scripts.
# Data (config test files, fuzz corpora, catalogs) and prose are not source. One check for the
# whole sweep: it fails, naming each file without the line, when one lacks it.
cd "$(dirname "$0")/.." || exit 1
swept=0
missing=()
while IFS= read -r f; do
    case $f in tests/config/* | */corpus/*) continue ;; esac
    case $f in
        *.c | *.h | *.swift | *.modulemap | *.map | *.sh | *.py | *.bash | *.zsh | Makefile | */Makefile | .ci/run | \
            debian/rules | debian/postinst | debian/prerm | debian/postrm | debian/tests/*) ;;
        *) continue ;;
    esac
    swept=$((swept + 1))
    head -n 5 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0' || missing+=("$f")
done < <(git ls-files --cached --others --exclude-standard)
if [ "$swept" -gt 0 ] && [ "${#missing[@]}" -eq 0 ]; then
    echo "ok   - all $swept source files have 'SPDX-License-Identifier: Apache-2.0' in their first five lines"
    echo "1 passed, 0 failed"
    exit 0
fi
echo "FAIL - ${#missing[@]} of $swept source files lack 'SPDX-License-Identifier: Apache-2.0' in their first five lines:"
printf '       | %s\n' "${missing[@]}"
echo "0 passed, 1 failed"
exit 1
