#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The registry of the test suites, the one place that names them: scripts/test.sh runs them (its
# list, filters and minimum counts come from here), scripts/mutate.sh maps the source files to
# them and takes their usual times from here. Sourced; defines suites and MUTATION_MAP.
#
# suites FN calls FN NAME KIND USUAL DESCRIPTION COMMAND... for each suite, in run order.
# KIND: single (one check: passes when the command exits 0, its output is not read), counted
# (reads "N passed, M failed"; minimum in tests/counts: last full run's count less 5 %), checks
# (counted, and takes a filter: an e2e suite through check() of tests/e2e/lib.sh, which reads
# TOUCHAUTH_CHECK_FILTER; swift through swift test --filter), exact (counted, where each check is
# a whole target: the minimum is the count itself).
# USUAL: the seconds a whole run takes on this 2-core machine, measured unmutated; mutate.sh
# stops a suite that runs past twice that plus 20 s (a hang).
suites() {
    local f=$1
    $f build single 60 "build (release helper, module with -Werror)" "$ROOT/scripts/build.sh"
    $f swift checks 40 "Swift unit tests (core, the scan loop)" swift_unit_tests
    $f format single 10 "C formatting (clang-format, pam/.clang-format)" make -s -C pam format-check
    $f spdx counted 5 "license: every source file carries its SPDX line (Apache-2.0, LICENSE)" tests/spdx.sh
    $f mutants counted 5 "mutants: each one in tests/mutants still applies (its old text once in its file)" tests/mutants_apply.sh
    $f docs-refs counted 5 "docs: every reference to a document's heading resolves (a slug, never a section number)" tests/docs_refs.sh
    $f c counted 8 "C unit tests (reply parser, helper spawn, terminal, held signals, lockers asked first, the keyring rule, exported symbols, config file checks)" make -s -C pam check
    $f pamstack counted 20 "the PAM stack reader against the real libpam: every module run, in order, with its arguments and the result (hand-made cases, /etc/pam.d, /usr/share/pam-configs), and the keyring rule" pam/tests/pamstack/run.sh
    $f config-shim counted 5 "config files: the shim's dump" pam/tests/check_config_files.sh pam/tests/config_dump
    $f config-helper counted 5 "config files: the helper's dump" pam/tests/check_config_files.sh "$HELPER_BIN" config-dump --config
    $f config-perms counted 5 "config file checks (owner, mode, links, size): the helper's dump" sh pam/tests/test_config_files_perms.sh "$HELPER_BIN" config-dump --config
    $f fake-helpers counted 22 "e2e: faulty helpers never authenticate" tests/e2e/sandbox.sh pam/tests/e2e_fake_helpers.sh
    $f security checks 12 "e2e: security (user names, links and owners, faults, socket mode, valgrind)" tests/e2e/security.sh
    $f unprivileged checks 18 "e2e: unprivileged callers (real sudo vs the caller's env, setuid helper for screen lockers)" tests/e2e/unprivileged.sh
    $f fuzz-c exact 30 "fuzz: the shim's reply and option parsers, the keyring rule's stack scan, the PAM stack reader (libFuzzer, ASan+UBSan)" pam/fuzz/run.sh
    $f fuzz-swift exact 30 "fuzz: the helper's config, request, state and armed-request decoders (Swift libFuzzer, ASan)" tests/fuzz/run.sh
    $f core checks 5 "e2e: core flow (virtual sensor, pam_unix, pamtester)" tests/e2e/core_flow.sh
    $f readers checks 8 "e2e: the readers at hand (two virtual readers, a closed lid, a removable port, one unplugged)" tests/e2e/readers.sh
    $f usb checks 50 "e2e: real USB readers under umockdev (libfprint's elanmoc driver, its recorded traffic replayed: the port from sysfs, two readers on two buses, the lid, a reader that cannot be opened, a match and a stranger through the helper, unplugged and plugged in again)" tests/e2e/usb.sh
    $f lockout checks 160 "e2e: strikes, lockout, trust rules, state store (acct_mgmt, parallel, kill -9)" tests/e2e/lockout.sh
    $f stacks checks 15 "e2e: only a succeeded password lifts the lockout, whatever the stack (Fedora's substack, the word anywhere, pam-auth-update with libpam-fprintd's profile)" tests/e2e/stacks.sh
    $f slow-disk checks 28 "e2e: no free wrong finger on a slow disk (fsync over a second, Enter after each finger)" tests/e2e/slow_disk.sh
    $f terminal checks 8 "e2e: terminal keys in real sudo and su (tmux, unshare), signals at the prompt, skips, lid" tests/e2e/terminal.sh
    $f doas checks 8 "e2e: doas for real (tmux, an overlay over /etc): finger, Enter, typing, Ctrl-C, lockout, no terminal" tests/e2e/clients_doas.sh
    $f polkit checks 18 "e2e: pkexec and the real polkitd (private bus, fake logind; text agent, a dialog-like agent, remote, no logind)" tests/e2e/clients_polkit.sh
    $f lockers checks 110 "e2e: screen lockers for real (vlock; i3lock, xsecurelock on Xvfb and swaylock on headless sway in a fake local session; the setuid helper or not)" tests/e2e/clients_lockers.sh
    $f lightdm checks 62 "e2e: LightDM and its GTK greeter on Xvfb (finger, wrong fingers, locked user, console in front)" tests/e2e/clients_lightdm.sh
    $f gdm checks 5 "e2e: GDM's two stacks as its session workers run them (finger, password while the finger waits, wrong fingers, locked, remote, no greeter)" tests/e2e/clients_gdm.sh
    $f gnome checks 30 "e2e: GNOME's lock screen for real (gnome-shell 43 headless; GDM stand-in running the real PAM stacks, real fprintd; finger, wrong fingers, locked user, password while armed, README's stacks; the screen locked: a real sudo in a terminal gets the password at once)" tests/e2e/clients_gnome.sh
    $f gnome-polkit checks 40 "e2e: GNOME Shell's own polkit dialog for real (gnome-shell 43 headless, the real polkitd and setuid polkit-agent-helper-1; pkexec and pkcheck --allow-user-interaction: our line and the field at once, the finger, typed while armed, a wrong finger, the field's time)" tests/e2e/clients_gnome_polkit.sh
    $f keyring checks 10 "e2e: the login keyring kept unlocked (the real pam_gnome_keyring and gnome-keyring-daemon: login by password unlocks it, the finger not offered; finger_at_keyring_login; GDM's unlock, polkit keep the finger)" tests/e2e/keyring.sh
    $f presence checks 13 "e2e: presence (fake logind sessions, no terminal, no display, real su)" tests/e2e/presence.sh
    $f locked checks 40 "e2e: a locked screen (logind's LockedHint from a dbusmock logind on a private system bus): real sudo in the locked session's terminals gets the password at once; the lock screens' own conversations keep the finger; unlocked or no logind: as before" tests/e2e/locked.sh
    $f overlap checks 60 "e2e: a touch answers one request (two real sudo at once, a hidden sudo in a job's pty, a helper SIGKILLed while armed, another user's request)" tests/e2e/overlap.sh
    $f sshd checks 23 "e2e: network logins through real sshd on loopback (password, keyboard-interactive, key after a failed password, MaxAuthTries)" tests/e2e/sshd.sh
    $f cli checks 17 "e2e: the touchauth command (enroll, list, delete, verify, enable/disable, doctor and its summary line; match-on-chip; --version everywhere; translated output; completions)" tests/e2e/cli.sh
    $f demo checks 30 "e2e: scripts/demo.sh tells the story its headings say (each step's outcome)" tests/e2e/demo.sh
    $f fprintd checks 60 "e2e: fprintd interop both ways (real fprintd, private bus at the system bus's path, dbusmock polkit); fprintd scanning: our prompt says in use, the password at once; touchauth enroll refuses; a silent bus, an activatable fprintd" tests/e2e/fprintd.sh
    $f install checks 110 "e2e: install, pam-auth-update, real /etc/pam.d, translations, man, uninstall, the .deb built by dpkg-buildpackage" tests/e2e/install.sh
    $f forky checks 30 "e2e: Debian forky booted with systemd 262 (mmdebstrap root, systemd-nspawn -b): polkit 128's socket-activated helper (the unit, our drop-in, without it the password at once), pkexec and run0 in a local logind session with the finger, run0 over ssh never" tests/e2e/forky.sh
    $f debian13 counted 450 "e2e: Debian 13 (trixie roots, mmdebstrap): the .deb built with Debian's swiftlang, lintian; real sudo, su, sshd, lockout, pam-auth-update, purge there; the lockers, real-USB and KDE Plasma 6 suites" tests/e2e/debian13.sh
}

# The mutation map (scripts/mutate.sh): a changed file (a shell pattern on its path) -> the
# suites that test it, in the order they run: the C unit tests before anything end to end, then
# the suite most about that file, then the rest cheapest first. The first pattern that matches a
# file gives its suites; a mutant of several files runs the union, in the order of first
# mention. Every name must be a suite above (mutate.sh refuses to start otherwise).
MUTATION_MAP=(
    "pam/presence.c|core locked gdm terminal presence polkit forky sshd lockers cli"
    "pam/agent.c|c polkit gnome-polkit"
    "pam/logind.h|gdm presence terminal"
    "pam/terminal.c|c terminal doas"
    "pam/clients.c|c locked keyring core lockers terminal gnome"
    "pam/keyring.c|c pamstack keyring cli"
    "pam/pamstack.c|c pamstack keyring cli swift"
    "pam/pamstack.h|c pamstack keyring cli swift"
    "pam/approval.c|c terminal doas"
    "pam/protocol.c|c fake-helpers core locked"
    "pam/helper.c|c locked fake-helpers core terminal doas overlap polkit"
    "pam/spawn.c|c fake-helpers core terminal security unprivileged slow-disk"
    "pam/recorder.c|stacks unprivileged core lockout"
    "pam/user.c|c security core stacks unprivileged lockers"
    "pam/pam_touchauth.c|c locked keyring stacks security core gdm terminal presence unprivileged fake-helpers sshd lockers lockout gnome overlap"
    "pam/config*|c config-shim config-perms"
    "pam/options.c|c core"
    "pam/lockout.c|lockout install gnome"
    "pam/contract.h|c swift core lockout terminal"
    "pam/*|c core fake-helpers"
    "Sources/TouchAuthCore/MoCatalog.swift|swift cli"
    "Sources/TouchAuthCore/Approval.swift|swift terminal"
    "Sources/TouchAuthPlatform/Readers.swift|swift readers usb terminal"
    "Sources/CFprint/shim.h|usb core readers"
    "Sources/Fingerprint/ScanRace.swift|readers"
    "Sources/Fingerprint/Fprintd.swift|swift fprintd locked"
    "Sources/Fingerprint/Logind.swift|locked"
    "Sources/TouchAuthPlatform/ScreenLock.swift|locked"
    "Sources/TouchAuthPlatform/FprintdReaders.swift|swift fprintd"
    "Sources/TouchAuthPAM/FprintdInUse.swift|fprintd core"
    "Sources/TouchAuthCommands/Enroll.swift|swift cli lockout fprintd"
    "Sources/TouchAuthCommands/Doctor.swift|swift cli lockout fprintd"
    "Sources/TouchAuthPAM/PamVerify.swift|swift locked core readers stacks terminal security unprivileged slow-disk lockout overlap"
    "Sources/TouchAuthCore/*|swift core terminal slow-disk lockout"
    "Sources/TouchAuthPlatform/StrikeStore.swift|swift core slow-disk lockout security unprivileged"
    "Sources/TouchAuthPlatform/StateStore.swift|swift lockout core slow-disk"
    "Sources/TouchAuthPlatform/Termination.swift|swift core terminal slow-disk security unprivileged"
    "Sources/TouchAuthPAM/*|swift core stacks terminal security unprivileged slow-disk lockout"
    "Sources/TouchAuthCommands/ArmedRequests.swift|overlap"
    "Sources/TouchAuthCommands/Status.swift|swift cli overlap lockout"
    "Sources/TouchAuthCommands/*|swift cli lockout"
    "Sources/TouchAuthPlatform/ArmedRegistry.swift|overlap"
    "Sources/TouchAuthPlatform/*|swift core security unprivileged cli lockout"
    "Sources/Fingerprint/*|swift slow-disk security core"
    "Sources/*|swift core"
)
