/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What touchauth knows about particular PAM clients (clients.h): one row per
 * service name as its program passes it to pam_start on Debian 12 and 13, a
 * fixed table (each rule is about what the program does: nothing configures
 * it).
 */
#include "clients.h"

#include <stddef.h>
#include <string.h>

/* What a client does, one flag each, and why (docs/). */
enum {
	ASKS_FIRST = 1 << 0,	 /* POLICY.md#lockers-that-read-the-password-first */
	ONE_MESSAGE = 1 << 1,	 /* POLICY.md#clients-that-keep-one-message, decision 0024 */
	STARTS_SESSION = 1 << 2, /* POLICY.md#the-login-keyring, decision 0030 */
	PASSWORD_ONLY = 1 << 3,	 /* POLICY.md#gdms-two-conversations: the finger's is beside */
	HIDES_INFO = 1 << 4,	 /* POLICY.md#gdms-two-conversations: info lines become its hint */
	AGENT_LINE =
	    1 << 5,	  /* POLICY.md#polkit-agents: agent.h, when the host is polkit's helper */
	UNLOCKS = 1 << 6, /* POLICY.md#a-locked-screen: a lock screen's own conversation */
};

static const struct client {
	const char *service;
	enum client_host host; /* POLICY.md#what-the-touch-approves */
	unsigned int flags;
} clients[] = {
	{ "i3lock", HOST_OTHER, ASKS_FIRST | UNLOCKS },	  /* 2.14: i3lock.c, conv_callback */
	{ "swaylock", HOST_OTHER, ASKS_FIRST | UNLOCKS }, /* 1.7: pam.c, handle_conversation */
	{ "lightdm", HOST_OTHER, ONE_MESSAGE | STARTS_SESSION },
	{ "xsecurelock", HOST_OTHER, ONE_MESSAGE | UNLOCKS },
	{ "common-auth", HOST_OTHER, ONE_MESSAGE | UNLOCKS }, /* xsecurelock as Debian builds it */
	{ "vlock", HOST_OTHER, UNLOCKS },		      /* 2.2: the console locker */
	{ "kde-fingerprint", HOST_OTHER, UNLOCKS },	      /* Plasma's lock screen's finger */
	{ "login", HOST_OTHER, STARTS_SESSION },
	{ "gdm-password", HOST_OTHER, STARTS_SESSION | PASSWORD_ONLY },
	{ "gdm-fingerprint", HOST_OTHER, STARTS_SESSION | HIDES_INFO },
	{ "sddm", HOST_OTHER, STARTS_SESSION },
	/* Plasma's lock screen, kde-fingerprint beside it */
	{ "kde", HOST_OTHER, PASSWORD_ONLY | UNLOCKS },
	{ "polkit-1", HOST_OTHER, AGENT_LINE }, /* polkit-agent-helper-1 */
	{ "sudo", HOST_SUDO, 0 },
	{ "sudo-i", HOST_SUDO, 0 }, /* sudo -i */
	{ "doas", HOST_DOAS, 0 },
	{ "su", HOST_SU, 0 },
	{ "su-l", HOST_SU, 0 }, /* su -l */
};

/* SERVICE's row (an exact match); NULL: a service not listed. */
static const struct client *find(const char *service)
{
	for (size_t i = 0; i < sizeof(clients) / sizeof(clients[0]); i++) {
		if (strcmp(service, clients[i].service) == 0)
			return &clients[i];
	}
	return NULL;
}

static int has(const char *service, unsigned int flag)
{
	const struct client *c = find(service);

	return c != NULL && (c->flags & flag) != 0;
}

int client_asks_first(const char *service)
{
	return has(service, ASKS_FIRST);
}

const char *client_asking_first(size_t i)
{
	for (size_t row = 0; row < sizeof(clients) / sizeof(clients[0]); row++) {
		if ((clients[row].flags & ASKS_FIRST) != 0 && i-- == 0)
			return clients[row].service;
	}
	return NULL;
}

/*
 * Every sudo service, whatever sudoers' pam_service names it: a prefix, not a
 * row (POLICY.md#someone-must-be-able-to-answer, decision 0009).
 */
int client_needs_terminal(const char *service)
{
	return strncmp(service, "sudo", 4) == 0;
}

int client_keeps_one_message(const char *service)
{
	return has(service, ONE_MESSAGE);
}

int client_starts_session(const char *service)
{
	return has(service, STARTS_SESSION);
}

int client_password_only(const char *service)
{
	return has(service, PASSWORD_ONLY);
}

int client_hides_info(const char *service)
{
	return has(service, HIDES_INFO);
}

int client_agent_helper(const char *service)
{
	return has(service, AGENT_LINE);
}

int client_unlocks_screen(const char *service)
{
	return has(service, UNLOCKS);
}

enum client_host client_host(const char *service)
{
	const struct client *c = find(service);

	return c != NULL ? c->host : HOST_OTHER;
}
