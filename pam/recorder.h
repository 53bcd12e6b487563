/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The `authsucc` line: records a password that succeeded, which clears the
 * strikes and the lockout (docs/POLICY.md#what-lifts-a-lockout).  Where the
 * line stands proves nothing, so it only arms: libpam's PAM_FAIL_DELAY
 * callback learns the stack's final verdict and records then.
 */
#ifndef TOUCHAUTH_RECORDER_H
#define TOUCHAUTH_RECORDER_H

#include <security/pam_modules.h>

/*
 * pam_set_data key: how our finger line went in this pam_authenticate.  The
 * recorder reads it: a handle whose fingerprint matched has no password to
 * record.
 */
#define AUTH_RAN_KEY	 "pam_touchauth_auth"
#define AUTH_MATCHED	 "matched"
#define AUTH_NOT_MATCHED "not-matched"

/*
 * When MODE_AUTHSUCC stands anywhere among the arguments, the line is the
 * recorder's: arms it (or not) and returns 1 with *retval PAM_IGNORE (the
 * line never decides anything).  Otherwise returns 0.
 */
#define MODE_AUTHSUCC "authsucc"
int recorder_line(pam_handle_t *pamh, int argc, const char **argv, int *retval);

#endif /* TOUCHAUTH_RECORDER_H */
