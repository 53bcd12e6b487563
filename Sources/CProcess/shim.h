/* SPDX-License-Identifier: Apache-2.0 */
#ifndef TOUCHAUTH_CPROCESS_SHIM_H
#define TOUCHAUTH_CPROCESS_SHIM_H
/* prctl(2) is variadic, which Swift cannot call: the one call the helper makes, typed. */
#include <sys/prctl.h>

/* The signal this process gets when the thread that started it (the PAM host) ends. */
static inline int touchauth_set_parent_death_signal(int sig)
{
	return prctl(PR_SET_PDEATHSIG, (unsigned long)sig, 0UL, 0UL, 0UL);
}
#endif
