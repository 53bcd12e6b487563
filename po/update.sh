#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Regenerates po/touchauth.pot from the message table and merges it into each language's .po.
# Run it after changing a message in Sources/TouchAuthCore/Message.swift, then translate what
# msgmerge marked new or fuzzy (tests/e2e/install.sh fails until every message is translated).
set -eu
cd "$(dirname "$0")"
python3 extract.py > touchauth.pot.new
mv touchauth.pot.new touchauth.pot
for lang in $(cat LINGUAS); do
    msgmerge --quiet --update --backup=none "$lang.po" touchauth.pot
done
for lang in $(cat LINGUAS); do printf '%s: ' "$lang"; msgfmt --check --statistics -o /dev/null "$lang.po"; done
