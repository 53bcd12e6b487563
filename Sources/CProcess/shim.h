/* SPDX-License-Identifier: Apache-2.0 */
#ifndef TOUCHAUTH_CPROCESS_SHIM_H
#define TOUCHAUTH_CPROCESS_SHIM_H
/* prctl(2) and syscall(2) are variadic, which Swift cannot call: the calls the helper makes, typed. */
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <signal.h>
#include <unistd.h>

/* The signal this process gets when the thread that started it (the PAM host) ends. */
static inline int touchauth_set_parent_death_signal(int sig)
{
	return prctl(PR_SET_PDEATHSIG, (unsigned long)sig, 0UL, 0UL, 0UL);
}

/* A pidfd for pid (pidfd_open(2)), -1 with errno when there is none. */
static inline int touchauth_pidfd_open(int pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0U);
#else
	(void)pid;
	return -1;
#endif
}

/* sig to the process of a pidfd (pidfd_send_signal(2)): never to a pid reused since the open. */
static inline int touchauth_pidfd_send_signal(int pidfd, int sig)
{
#ifdef SYS_pidfd_send_signal
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, (void *)0, 0U);
#else
	(void)pidfd; (void)sig;
	return -1;
#endif
}
#endif
