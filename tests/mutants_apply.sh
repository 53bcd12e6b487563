#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every mutant in tests/mutants still applies: its old text occurs exactly once in its file
# (scripts/mutant.py). An edit that moves or rewrites a mutated line fails here, in every run,
# instead of silently taking that mutant's coverage away at the next scripts/mutate.sh.
# Two controls first: a mutant whose old text is missing, and one whose old text occurs twice,
# are refused.
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { echo "ok   - $1"; pass=$((pass + 1)); }
no() { echo "FAIL - $1"; fail=$((fail + 1)); }
mkdir -p "$T/tree"
printf 'a\nb\na\n' > "$T/tree/f"
printf 'Mutant gone: control\n@@ f\n-c\n+d\n' > "$T/gone.mut"
printf 'Mutant twice: control\n@@ f\n-a\n+d\n' > "$T/twice.mut"
printf 'Mutant once: control\n@@ f\n-b\n+d\n' > "$T/once.mut"
if python3 scripts/mutant.py check "$T/tree" "$T/gone.mut" > /dev/null; then no "(control) a mutant whose old text is gone is refused"
else ok "(control) a mutant whose old text is gone is refused"; fi
if python3 scripts/mutant.py check "$T/tree" "$T/twice.mut" > /dev/null; then no "(control) a mutant whose old text occurs twice is refused"
else ok "(control) a mutant whose old text occurs twice is refused"; fi
if python3 scripts/mutant.py check "$T/tree" "$T/once.mut"; then ok "(control) a mutant whose old text occurs once applies"
else no "(control) a mutant whose old text occurs once applies"; fi
stale=$(python3 scripts/mutant.py check . tests/mutants/*.mut)
for m in tests/mutants/*.mut; do
    name=$(basename "$m" .mut)
    if out=$(grep "^stale $name: " <<<"$stale"); then no "mutant $name applies: $out"
    else ok "mutant $name applies (its old text once in its file)"; fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
