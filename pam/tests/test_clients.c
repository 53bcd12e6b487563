/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clients.c: which PAM services get the password at once because their
 * client cannot show our prompt (i3lock, swaylock), and that nothing else
 * does: a name must match exactly, not by prefix, suffix or case.
 */
#include <stdio.h>

#include "clients.h"

static int passed, failed;

static void expect(const char *service, int refused)
{
	int got = client_refusal(service) != NULL;

	if (got == refused) {
		passed++;
		printf("ok   - '%s' %s\n", service, refused ? "refused" : "may be asked");
	} else {
		failed++;
		printf("FAIL - '%s': %s\n", service, got ? "refused" : "not refused");
	}
}

int main(void)
{
	static const char *const silent[] = { "i3lock", "swaylock" };
	static const char *const asked[] = {
		"sudo",
		"su",
		"login",
		"gdm-fingerprint",
		"polkit-1",
		"xsecurelock",
		"vlock",
		"lightdm",
		"",
		"i3lock2",
		"xi3lock",
		"I3LOCK",
		"i3lock ",
		"swaylock.d",
		"sway",
		"i3",
		"i3lock-color",
	};

	for (size_t i = 0; i < sizeof(silent) / sizeof(silent[0]); i++)
		expect(silent[i], 1);
	for (size_t i = 0; i < sizeof(asked) / sizeof(asked[0]); i++)
		expect(asked[i], 0);
	printf("%d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
