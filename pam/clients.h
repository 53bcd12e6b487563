/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What touchauth knows about particular PAM clients, by their PAM service
 * name (docs/POLICY.md#someone-must-be-able-to-answer): the lockers that read the password
 * first, the ones that show only the latest message, and the ones that run a command the prompt
 * can name (approval.h).
 */
#ifndef TOUCHAUTH_CLIENTS_H
#define TOUCHAUTH_CLIENTS_H

#include <stddef.h>

/*
 * 1 when the client of SERVICE is a screen locker that reads the password
 * before it calls PAM and shows none of PAM's messages (i3lock, swaylock):
 * the module asks it first (pam_touchauth.c, ask_first): a typed password is
 * the password at once, Enter on an empty field is the finger.
 */
int client_asks_first(const char *service);

/* The I-th service (from 0) the module asks first, in the table's order; NULL past the last. */
const char *client_asking_first(size_t i);

/*
 * 1 when the client of SERVICE has no window for our prompt without a
 * terminal: sudo (every service whose name starts with "sudo"), whose
 * conversation without one is an askpass program (sudo -A).
 */
int client_needs_terminal(const char *service);

/*
 * 1 when the client of SERVICE shows one message at a time, each replacing
 * the last (LightDM's greeters, xsecurelock): the prompt must be one line
 * that says both ways in.
 */
int client_keeps_one_message(const char *service);

/*
 * 1 when SERVICE starts a session with the password typed there: a text
 * console's login, GDM's login screen (gdm-password, gdm-fingerprint),
 * LightDM, SDDM.  Where their stack unlocks a keyring with that password, the
 * finger is not offered (keyring.h).  Screen lockers and sudo are not here:
 * the keyring is open by then.
 */
int client_starts_session(const char *service);

/*
 * 1 when SERVICE is the password conversation of a display manager that runs
 * the fingerprint in a conversation of its own beside it: GDM's gdm-password
 * (gdm-fingerprint beside it), Plasma's kde (kde-fingerprint). The module steps aside there, so
 * that the password field is up at once; the finger is the other conversation's.
 */
int client_password_only(const char *service);

/*
 * 1 when the client of SERVICE replaces our info lines with a hint of its own
 * and shows only errors as they are: GDM's shell for gdm-fingerprint ("(or
 * place finger on reader)"). A line the user must read goes as an error there.
 */
int client_hides_info(const char *service);

/*
 * A lock screen's own unlock conversation (POLICY.md#a-locked-screen): the one
 * request a locked session still offers the finger to.  GDM's unlock
 * (gdm-fingerprint with GDM_SESSION_FOR_REAUTH) is keyring.h's
 * keyring_screen_unlock.
 */
int client_unlocks_screen(const char *service);

/* The hosts whose own argv says what a touch approves (approval.c). */
/*
 * The service polkit's agent helper runs (polkit-1): when the host is that
 * helper (agent.h checks), its stdin and stdout are the agent's line protocol.
 */
int client_agent_helper(const char *service);

enum client_host {
	HOST_OTHER, /* unknown: the per-service reason only */
	HOST_SUDO,  /* sudo, sudo -i (service sudo-i), sudoedit */
	HOST_DOAS,  /* OpenDoas */
	HOST_SU,    /* util-linux su, su -l (service su-l) */
};

enum client_host client_host(const char *service);

#endif /* TOUCHAUTH_CLIENTS_H */
