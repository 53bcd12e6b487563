#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every source file names its license (LICENSE, debian/copyright) in an SPDX line among its
# first five: C, Swift, module maps, shell, Python, completions, Makefiles, debian's scripts.
# Data (config test files, fuzz corpora, catalogs) and prose are not source. One check a file.
cd "$(dirname "$0")/.." || exit 1
passed=0 failed=0
while IFS= read -r f; do
    case $f in tests/config/* | */corpus/*) continue ;; esac
    case $f in
        *.c | *.h | *.swift | *.modulemap | *.map | *.sh | *.py | *.bash | *.zsh | Makefile | */Makefile | .ci/run | \
            debian/rules | debian/postinst | debian/prerm | debian/postrm) ;;
        *) continue ;;
    esac
    if head -n 5 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0'; then
        passed=$((passed + 1))
    else
        echo "FAIL - $f: no 'SPDX-License-Identifier: Apache-2.0' line in its first five lines"
        failed=$((failed + 1))
    fi
done < <(git ls-files --cached --others --exclude-standard)
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
