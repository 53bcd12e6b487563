/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What touchauth knows about particular PAM clients (clients.h), by the PAM
 * service name each passes to pam_start.
 */
#include "clients.h"

#include <stddef.h>
#include <string.h>

/*
 * The lockers that read the password first and call pam_authenticate on
 * Enter, answering every PAM_PROMPT_ECHO_OFF with the typed buffer (empty
 * when nothing was typed) and dropping PAM_TEXT_INFO and PAM_ERROR_MSG
 * (docs/POLICY.md#lockers-that-read-the-password-first).  Their Debian
 * packages install these services, both `auth include login`:
 *   i3lock    2.14 (i3lock.c: pam_start("i3lock", ...); conv_callback)
 *   swaylock  1.7 (pam.c: pam_start("swaylock", ...); handle_conversation)
 * A fixed table, not a setting: the rule is about what the program does.
 */
static const char *const asks_first[] = { "i3lock", "swaylock" };
#define NASKS_FIRST (sizeof(asks_first) / sizeof(asks_first[0]))

/* SERVICE is one of the N names (an exact match). */
static int listed(const char *service, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(service, names[i]) == 0)
			return 1;
	}
	return 0;
}

int client_asks_first(const char *service)
{
	return listed(service, asks_first, NASKS_FIRST);
}

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
	return listed(service, one_message_clients, N_ONE_MESSAGE_CLIENTS);
}

/*
 * The services that start a session on Debian 12 and 13 (util-linux login,
 * gdm3 43 and 48, lightdm 1.26 and 1.32, sddm 0.19 and 0.21), each the name
 * its program passes to pam_start; autologin services authenticate nobody.
 */
static const char *const session_starters[] = { "login", "gdm-password", "gdm-fingerprint",
						"lightdm", "sddm" };
#define NSESSION_STARTERS (sizeof(session_starters) / sizeof(session_starters[0]))

int client_starts_session(const char *service)
{
	return listed(service, session_starters, NSESSION_STARTERS);
}

/*
 * GDM's password conversation.  GDM 43 (Debian 12) runs gdm-password and,
 * whenever fprintd offers a reader, gdm-fingerprint side by side; its shell
 * (js/gdm/util.js) shows gdm-password's messages where the password field
 * goes and asks for the password only when that stack prompts.  With our line
 * in common-auth (pam-auth-update --enable touchauth), which gdm-password
 * includes, the real gnome-shell showed our hint instead of the password
 * field, held a typed password until our timeout, and had two helpers arm one
 * reader (tests/e2e/clients_gnome.sh, NOTES.md).  The finger is
 * gdm-fingerprint's (examples/pam.d/gdm-fingerprint).
 */
static const char *const password_only[] = { "gdm-password" };
#define NPASSWORD_ONLY (sizeof(password_only) / sizeof(password_only[0]))

int client_password_only(const char *service)
{
	return listed(service, password_only, NPASSWORD_ONLY);
}

/*
 * GDM's shell (js/gdm/util.js, _onInfo) shows gdm-fingerprint's PAM_TEXT_INFO
 * lines only as its own hint "(or place finger on reader)" (or "swipe"), and
 * its PAM_ERROR_MSG lines as they are; a PAM_AUTHINFO_UNAVAIL ends the
 * conversation with no message.  Seen with the real gnome-shell 43
 * (clients_gnome.sh): a locked-out user read that hint, not our reason.
 */
static const char *const hides_info[] = { "gdm-fingerprint" };
#define NHIDES_INFO (sizeof(hides_info) / sizeof(hides_info[0]))

int client_hides_info(const char *service)
{
	return listed(service, hides_info, NHIDES_INFO);
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
