/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A locked user refused without starting the helper (docs/POLICY.md#the-state-store).
 * The helper owns the lockout: it decides it from the state file and, after
 * writing a locked state, leaves `<state_dir>/<uid>.locked` (StateStore.swift,
 * lockoutMarker), one line that names that state file by inode and ctime.
 * The module believes the marker only while it names the state file as it is
 * now: every change of the state is a new file, so a marker left behind by a
 * crash or a state file removed by hand names nothing, and the helper decides.
 * This can only refuse.
 */
#ifndef TOUCHAUTH_LOCKOUT_H
#define TOUCHAUTH_LOCKOUT_H

#include <sys/types.h>

#include <security/pam_modules.h>

#include "config.h"

/*
 * The strikes in a row (>= 0) when the marker names the current state file
 * and its lockout has not run out (unlock_time, as TrustPolicy.isLockedOut
 * counts it); -1 otherwise (no marker, not root, a mismatch, anything odd):
 * then the helper decides.
 */
int lockout_marked(const struct config_values *opts, uid_t uid);

/* The lockout's line, in the user's language, as the helper would say it. */
void lockout_tell(pam_handle_t *pamh);

#endif /* TOUCHAUTH_LOCKOUT_H */
