/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The login keyring kept unlocked (docs/POLICY.md#the-login-keyring, decision
 * 0030).  GNOME's login keyring (pam_gnome_keyring) and KDE's wallet
 * (pam_kwallet5, pam_kwallet, pam_kwallet6) are unlocked with the password
 * typed at the service that starts the session; a finger gives them none, and
 * the first program that needs a secret asks for it again.  So at those
 * services (client_starts_session, clients.h), when the service's auth phase
 * holds such a line (includes and substacks followed, the module installed),
 * the finger is not offered unless finger_at_keyring_login = yes.  A GDM
 * unlock (its worker runs gdm-password too) keeps the finger: the keyring is
 * open already.
 *
 * One rule in one language: the module decides with it before anything is
 * spawned (pam_touchauth.c), and `touchauth doctor` asks the same function
 * through the CConfig module map.  No libpam here.
 */
#ifndef TOUCHAUTH_KEYRING_H
#define TOUCHAUTH_KEYRING_H

#include <stddef.h>

#include "config.h"

#include "pamstack.h"

/* The reader's limits (pamstack.h): a stack past them cannot be told. */
#define KEYRING_NAME_MAX PAMSTACK_NAME_MAX
#define KEYRING_FILE_MAX PAMSTACK_FILE_MAX
#define KEYRING_DEPTH	 PAMSTACK_DEPTH
#define KEYRING_READS	 PAMSTACK_READS

/* What the scan found: the keyring line, or why nothing could be told. */
struct keyring_found {
	char module[KEYRING_NAME_MAX + 1]; /* as written: "pam_gnome_keyring.so" */
	char file[KEYRING_NAME_MAX + 1];   /* the file that holds it, as named */
	unsigned int line;		   /* its line there, from 1 */
};

enum keyring_scan {
	KEYRING_NONE = 0,    /* no keyring line in the auth phase */
	KEYRING_UNLOCKS = 1, /* a keyring line: found says where */
	KEYRING_UNKNOWN = -1 /* a file unreadable, too big or too deep: found.file names it */
};

/*
 * How the scan reads: READ puts the text of the PAM file NAME (a service
 * name, or a path as written after include/substack/@include) into buf (at
 * most size bytes) and returns its length; KEYRING_READ_MISSING when there is
 * no such file (nothing there: libpam skips it too), -1 when it cannot be read
 * (the scan cannot tell).  PRESENT says whether the module NAME (as written on
 * the line) is installed.
 */
#define KEYRING_READ_MISSING (-2)
struct keyring_source {
	long (*read)(void *ctx, const char *name, char *buf, size_t size);
	int (*present)(void *ctx, const char *module);
	void *ctx;
};

/* 1 when MODULE (as written: a name or a path) is a keyring's or wallet's PAM module. */
int keyring_module(const char *module);

/* The scan of SERVICE's auth phase through SOURCE (the fuzz target's entry). */
enum keyring_scan keyring_scan(const struct keyring_source *source, const char *service,
			       struct keyring_found *found);

/*
 * The scan over real files: services in PAM_DIR ("/etc/pam.d"; a missing
 * service is libpam's "other"), relative module names looked up in each of
 * MODULE_DIRS (NULL-terminated).
 */
enum keyring_scan keyring_stack_unlocks(const char *pam_dir, const char *const *module_dirs,
					const char *service, struct keyring_found *found);

/* A GDM unlock: gdm's worker for a reauthentication has GDM_SESSION_FOR_REAUTH=1. */
int keyring_screen_unlock(const char *service);

/*
 * The rule.  NULL: the finger may be offered.  Otherwise why not, in one line
 * (why[], the log's words), for a service that starts a session and whose stack
 * unlocks a keyring (or cannot be read: the password, which keeps the keyring
 * unlocked), unless finger_at_keyring_login (the key's value) or a screen
 * unlock.
 * *offered_locked is set to 1 when the key lets the finger in at such a
 * service (the keyring then stays locked: doctor's line).
 */
const char *keyring_refusal(int finger_at_keyring_login, const char *pam_dir,
			    const char *const *module_dirs, const char *service, char *why,
			    size_t len, int *offered_locked);

#endif /* TOUCHAUTH_KEYRING_H */
