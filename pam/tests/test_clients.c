/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clients.c: which PAM services are asked first because their client reads
 * the password before it calls PAM and shows none of our messages (i3lock,
 * swaylock), and that nothing else is: a name must match exactly, not by
 * prefix, suffix or case.  One check
 * for each way a match could go wrong, over all the names that would show it.
 * And which clients need a terminal for the prompt (sudo's services).
 */
#include <stdio.h>
#include <string.h>

#include "clients.h"

static int passed, failed;

/* One check: every name in NAMES (NULL-terminated) asked first, or none. */
static void expect(const char *what, int first, const char *const *names)
{
	int bad = 0;

	for (const char *const *n = names; *n != NULL; n++) {
		if (client_asks_first(*n) != first) {
			if (bad++ == 0)
				printf("FAIL - %s:", what);
			printf(" '%s' %s", *n, first ? "not asked first" : "asked first");
		}
	}
	if (bad == 0) {
		passed++;
		printf("ok   - %s\n", what);
	} else {
		failed++;
		printf("\n");
	}
}

/* The list doctor reads (client_asking_first): the services asked first, each once, then NULL. */
static void check_asking_first_list(void)
{
	const char *a = client_asking_first(0), *b = client_asking_first(1);
	int ok = a != NULL && b != NULL && strcmp(a, "i3lock") == 0 && strcmp(b, "swaylock") == 0 &&
		 client_asking_first(2) == NULL && client_asking_first(100) == NULL;

	for (size_t i = 0; ok && client_asking_first(i) != NULL; i++)
		ok = client_asks_first(client_asking_first(i));
	if (ok) {
		passed++;
		printf("ok   - doctor's list of the lockers asked first: i3lock, swaylock, from "
		       "the table\n");
	} else {
		failed++;
		printf("FAIL - doctor's list of the lockers asked first: %s, %s\n", a ? a : "-",
		       b ? b : "-");
	}
}

/* sudo's services need the terminal (sudo -A has no window for the prompt); no other does. */
static void check_needs_terminal(void)
{
	static const char *const needs[] = { "sudo", "sudo-i", "sudoedit" };
	static const char *const others[] = { "su",	  "su-l",    "doas",   "login",
					      "polkit-1", "lightdm", "pseudo", "" };
	int bad = 0;

	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		bad += !client_needs_terminal(needs[i]);
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		bad += client_needs_terminal(others[i]);
	if (bad == 0) {
		passed++;
		printf("ok   - sudo's services need a terminal, no other client does\n");
	} else {
		failed++;
		printf("FAIL - client_needs_terminal: %d wrong\n", bad);
	}
}

/* GDM's and Plasma's password conversations step aside for their finger's; no other service does.
 */
static void check_password_only(void)
{
	static const char *const others[] = {
		"gdm-fingerprint", "gdm-autologin", "gdm-smartcard", "gdm",  "gdm-password2",
		"GDM-PASSWORD",	   "login",	    "lightdm",	     "sudo", "polkit-1",
		"kde-fingerprint", "kde-smartcard", "kde2",	     ""
	};
	int bad = !client_password_only("gdm-password") + !client_password_only("kde");

	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		bad += client_password_only(others[i]);
	if (bad == 0) {
		passed++;
		printf("ok   - gdm-password and kde are password-only conversations, no other "
		       "service is\n");
	} else {
		failed++;
		printf("FAIL - client_password_only: %d wrong\n", bad);
	}
}

/* GDM's shell hides gdm-fingerprint's info lines; no other client's. */
static void check_hides_info(void)
{
	static const char *const others[] = { "gdm-password",	 "gdm-fingerprint2",
					      "GDM-FINGERPRINT", "gdm",
					      "lightdm",	 "sudo",
					      "polkit-1",	 "" };
	int bad = !client_hides_info("gdm-fingerprint");

	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		bad += client_hides_info(others[i]);
	if (bad == 0) {
		passed++;
		printf("ok   - gdm-fingerprint's client hides info lines, no other does\n");
	} else {
		failed++;
		printf("FAIL - client_hides_info: %d wrong\n", bad);
	}
}

/*
 * Every answer for every service clients.c knows, and for names near them:
 * one row per name, so a change of the table shows as the row it breaks.
 */
static void check_every_answer(void)
{
	static const struct {
		const char *service;
		int asks_first, needs_terminal, one_message, starts_session, password_only,
		    hides_info;
		enum client_host host;
	} rows[] = {
		/* service, asks first, needs terminal, one message, starts session,
		 * password only, hides info, host */
		{ "i3lock", 1, 0, 0, 0, 0, 0, HOST_OTHER },
		{ "swaylock", 1, 0, 0, 0, 0, 0, HOST_OTHER },
		{ "lightdm", 0, 0, 1, 1, 0, 0, HOST_OTHER },
		{ "xsecurelock", 0, 0, 1, 0, 0, 0, HOST_OTHER },
		{ "common-auth", 0, 0, 1, 0, 0, 0, HOST_OTHER },
		{ "login", 0, 0, 0, 1, 0, 0, HOST_OTHER },
		{ "gdm-password", 0, 0, 0, 1, 1, 0, HOST_OTHER },
		{ "gdm-fingerprint", 0, 0, 0, 1, 0, 1, HOST_OTHER },
		{ "sddm", 0, 0, 0, 1, 0, 0, HOST_OTHER },
		{ "kde", 0, 0, 0, 0, 1, 0, HOST_OTHER },
		{ "sudo", 0, 1, 0, 0, 0, 0, HOST_SUDO },
		{ "sudo-i", 0, 1, 0, 0, 0, 0, HOST_SUDO },
		{ "sudoedit", 0, 1, 0, 0, 0, 0, HOST_OTHER },
		{ "sudo-custom", 0, 1, 0, 0, 0, 0, HOST_OTHER },
		{ "doas", 0, 0, 0, 0, 0, 0, HOST_DOAS },
		{ "su", 0, 0, 0, 0, 0, 0, HOST_SU },
		{ "su-l", 0, 0, 0, 0, 0, 0, HOST_SU },
		{ "polkit-1", 0, 0, 0, 0, 0, 0, HOST_OTHER },
		{ "gdm-autologin", 0, 0, 0, 0, 0, 0, HOST_OTHER },
		{ "vlock", 0, 0, 0, 0, 0, 0, HOST_OTHER },
		{ "pseudo", 0, 0, 0, 0, 0, 0, HOST_OTHER },
		{ "SUDO", 0, 0, 0, 0, 0, 0, HOST_OTHER },
		{ "Login", 0, 0, 0, 0, 0, 0, HOST_OTHER },
		{ "lightdm-greeter", 0, 0, 0, 0, 0, 0, HOST_OTHER },
		{ "su-", 0, 0, 0, 0, 0, 0, HOST_OTHER },
		{ "", 0, 0, 0, 0, 0, 0, HOST_OTHER },
	};
	int bad = 0;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *s = rows[i].service;

		if (client_asks_first(s) != rows[i].asks_first ||
		    client_needs_terminal(s) != rows[i].needs_terminal ||
		    client_keeps_one_message(s) != rows[i].one_message ||
		    client_starts_session(s) != rows[i].starts_session ||
		    client_password_only(s) != rows[i].password_only ||
		    client_hides_info(s) != rows[i].hides_info || client_host(s) != rows[i].host) {
			bad++;
			printf("FAIL - the answers for '%s': %d %d %d %d %d %d host %d\n", s,
			       client_asks_first(s), client_needs_terminal(s),
			       client_keeps_one_message(s), client_starts_session(s),
			       client_password_only(s), client_hides_info(s), (int)client_host(s));
		}
	}
	if (bad == 0) {
		passed++;
		printf("ok   - every service's answers, and its neighbours' (none)\n");
	} else {
		failed++;
	}
}

int main(void)
{
	static const char *const i3lock[] = { "i3lock", NULL };
	static const char *const swaylock[] = { "swaylock", NULL };
	static const char *const shown[] = { "sudo",	 "su",		"login", "gdm-fingerprint",
					     "polkit-1", "xsecurelock", "vlock", "lightdm",
					     NULL };
	static const char *const longer[] = { "i3lock2", "i3lock-color", "i3lock ", "swaylock.d",
					      NULL };
	static const char *const shorter[] = { "i3", "sway", "", NULL };
	static const char *const other_case[] = { "I3LOCK", "SwayLock", NULL };
	static const char *const containing[] = { "xi3lock", "my-swaylock", NULL };

	expect("i3lock asked first", 1, i3lock);
	expect("swaylock asked first", 1, swaylock);
	expect(
	    "clients that show PAM's messages not asked first (sudo, su, login, greeters, polkit, "
	    "xsecurelock, vlock)",
	    0, shown);
	expect("a name that starts with a locker's not asked first (no prefix match)", 0, longer);
	expect("a part of a locker's name not asked first (no match on the shorter length)", 0,
	       shorter);
	expect("a locker's name in another case not asked first", 0, other_case);
	expect("a name that ends with a locker's not asked first (no suffix or substring match)", 0,
	       containing);
	check_needs_terminal();
	check_password_only();
	check_hides_info();
	check_every_answer();
	check_asking_first_list();
	printf("%d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
