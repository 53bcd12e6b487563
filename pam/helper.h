/*
 * Run the helper (`touchauth pam-verify`) the way pam_unix runs unix_chkpwd,
 * speak PROTOCOL.md with it, relay its messages, and reap it.
 */
#ifndef TOUCHAUTH_HELPER_H
#define TOUCHAUTH_HELPER_H

#include <security/pam_modules.h>

#include "options.h"
#include "protocol.h"

/*
 * Always sets *outcome.  Returns PAM_SUCCESS when *outcome comes from a
 * well-formed reply and exit status 0; otherwise a PAM error code, the reason
 * logged, and *outcome is TA_SYSTEM_CANCEL.
 */
int helper_run(pam_handle_t *pamh, const struct options *opts, const char *user,
	       const char *service, int argc, const char **argv, enum ta_outcome *outcome);

#endif /* TOUCHAUTH_HELPER_H */
