/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whose touch is it (DESIGN.md §3)?  The fingerprint is offered only when a
 * person at this machine can see and answer the prompt.  Every signal here can
 * only refuse; nothing from the caller's environment can turn the prompt on.
 * Decided before anything is spawned.
 */
#ifndef TOUCHAUTH_PRESENCE_H
#define TOUCHAUTH_PRESENCE_H

#include <security/pam_modules.h>

struct presence {
	/* The client set a display item (PAM_XDISPLAY, or a PAM_TTY like ":0"): its VT is not ours.
	 */
	int display_item;
	/* A screen shows the conversation: a display item, or a local active graphical session. */
	int display;
	/* systemd-logind (or elogind) is running: sessions were checked. */
	int logind;
};

/*
 * The network and session rules: NULL when a person at this machine may be
 * asked, otherwise why not (for the debug log).  Fills *p either way.  The
 * terminal rule ("someone must answer") is the caller's, with p->display.
 */
const char *presence_check(pam_handle_t *pamh, const char *service, struct presence *p);

#endif /* TOUCHAUTH_PRESENCE_H */
