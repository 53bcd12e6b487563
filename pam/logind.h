/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whether logind (or elogind) runs: it always creates seat0 at startup, and
 * only root writes /run/systemd (a VM with an empty /run/systemd/seats has no
 * logind).  One probe for the module's presence rules and `touchauth doctor`
 * (through the CConfig module map).  ROOT: "" on a real system, a test's tree.
 */
#ifndef TOUCHAUTH_LOGIND_H
#define TOUCHAUTH_LOGIND_H

#include <stdio.h>
#include <unistd.h>

#define LOGIND_SEAT0 "/run/systemd/seats/seat0"

static inline int logind_running(const char *root)
{
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s" LOGIND_SEAT0, root);

	return n > 0 && (size_t)n < sizeof(path) && access(path, F_OK) == 0;
}

#endif /* TOUCHAUTH_LOGIND_H */
