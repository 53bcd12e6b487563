/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Clients that cannot show our prompt (clients.h, docs/POLICY.md#someone-must-be-able-to-answer).
 *
 * A screen locker that reads the password itself before it calls
 * pam_authenticate, and whose conversation drops PAM_TEXT_INFO and
 * PAM_ERROR_MSG, shows the user nothing of ours: with the setuid helper the
 * sensor would wait, armed, behind a screen that says "Verifying…" (a touch
 * unlocks unprompted), and the password already typed would wait for our
 * timeout.  Such a client gets the password at once, decided before anything
 * is spawned, like the other cheap skips.
 *
 * By PAM service name, the name each locker passes to pam_start and its
 * Debian package installs in /etc/pam.d (both files `auth include login`, so
 * a fingerprint line in login reaches them):
 *   i3lock    i3lock 2.14 (i3lock.c: pam_start("i3lock", ...); conv_callback
 *             answers the prompts with the typed buffer and ignores the rest)
 *   swaylock  swaylock 1.7 (pam.c: pam_start("swaylock", ...); its
 *             handle_conversation answers the prompts, drops the messages)
 * A fixed table, not a setting: the rule is about what the program does, and
 * an administrator who runs a patched locker under another service name is
 * not affected.  Lockers that show PAM's messages (xsecurelock, vlock,
 * LightDM's and GDM's greeters) are not here.
 */
#include "clients.h"

#include <stddef.h>
#include <string.h>

static const char *const silent_lockers[] = { "i3lock", "swaylock" };
#define NSILENT_LOCKERS (sizeof(silent_lockers) / sizeof(silent_lockers[0]))

int client_needs_terminal(const char *service)
{
	return strncmp(service, "sudo", 4) == 0;
}

/*
 * Clients that keep only the latest PAM_TEXT_INFO/PAM_ERROR_MSG on screen,
 * found by looking at them with the sensor armed (tests/e2e/NOTES.md, "One
 * message at a time"): LightDM's GTK greeter (service lightdm: its message
 * label is replaced by each message, measured by OCR in clients_lightdm.sh)
 * and xsecurelock (its auth dialog shows each message for a second and keeps
 * the last: clients_lockers.sh; service xsecurelock as the README sets it up,
 * common-auth as Debian builds it).  GDM's shell, polkit's agents and the
 * terminal programs keep them all.
 */
static const char *const one_message_clients[] = { "lightdm", "xsecurelock", "common-auth" };
#define N_ONE_MESSAGE_CLIENTS (sizeof(one_message_clients) / sizeof(one_message_clients[0]))

int client_keeps_one_message(const char *service)
{
	for (size_t i = 0; i < N_ONE_MESSAGE_CLIENTS; i++) {
		if (strcmp(service, one_message_clients[i]) == 0)
			return 1;
	}
	return 0;
}

/*
 * The service names the hosts pass to pam_start on Debian 12 and 13: sudo
 * 1.9 uses sudo-i for -i; util-linux su uses su-l for -l; OpenDoas doas.
 */
static const struct {
	const char *service;
	enum client_host host;
} hosts[] = {
	{ "sudo", HOST_SUDO }, { "sudo-i", HOST_SUDO }, { "doas", HOST_DOAS },
	{ "su", HOST_SU },     { "su-l", HOST_SU },
};

enum client_host client_host(const char *service)
{
	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		if (strcmp(service, hosts[i].service) == 0)
			return hosts[i].host;
	}
	return HOST_OTHER;
}

const char *client_refusal(const char *service)
{
	for (size_t i = 0; i < NSILENT_LOCKERS; i++) {
		if (strcmp(service, silent_lockers[i]) == 0)
			return "the client shows no PAM messages and has the password already "
			       "(a screen locker that reads it first)";
	}
	return NULL;
}
