/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pamdrive: a PAM client that runs the operations it is given, in that order, on ONE handle,
 * whatever each returns (pamtester stops at the first failure; sshd does not: after a failed
 * password it calls pam_acct_mgmt on the same handle once a key is accepted).
 *
 * Usage: pamdrive [-D] [-I ITEM=VALUE]... SERVICE USER PASSWORD OP...
 *   -D:   sets PAM_FAIL_DELAY, as a client with its own delay does: the callback prints
 *         "fail-delay: MSG" with the status pam_authenticate ends with.
 *   ITEM: tty, rhost, ruser, xdisplay (PAM_TTY, PAM_RHOST, PAM_RUSER, PAM_XDISPLAY), set
 *         before the first OP.
 *   OP:   auth (pam_authenticate) or acct (pam_acct_mgmt).
 * Every prompt is answered with PASSWORD. Prints each conversation message on its own line
 * (prompts too), and after each OP a line "authenticate: MSG" or "account: MSG" (pam_strerror).
 * Exit status: 0 when every OP ran, 2 for a usage error or a failed pam_start.
 */
#include <security/pam_appl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int answer(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
	struct pam_response *r = calloc((size_t)n, sizeof(*r));

	if (r == NULL)
		return PAM_BUF_ERR;
	for (int i = 0; i < n; i++) {
		printf("%s\n", msg[i]->msg != NULL ? msg[i]->msg : "");
		if (msg[i]->msg_style == PAM_PROMPT_ECHO_OFF || msg[i]->msg_style == PAM_PROMPT_ECHO_ON)
			r[i].resp = strdup(data);
	}
	*resp = r;
	return PAM_SUCCESS;
}

static pam_handle_t *handle;

static void delay(int status, unsigned int usec, void *appdata)
{
	(void)usec;
	(void)appdata;
	printf("fail-delay: %s\n", pam_strerror(handle, status));
}

static int usage(void)
{
	fprintf(stderr, "usage: pamdrive [-D] [-I tty|rhost|ruser|xdisplay=VALUE]... SERVICE USER PASSWORD auth|acct...\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct pam_conv conv = { answer, NULL };
	pam_handle_t *pamh = NULL;
	const char *items[8][2];
	int nitems = 0, i = 1, last = PAM_SUCCESS, own_delay = 0;

	setvbuf(stdout, NULL, _IOLBF, 0); /* messages and results in the order they happened */
	if (i < argc && strcmp(argv[i], "-D") == 0) {
		own_delay = 1;
		i++;
	}
	while (i + 1 < argc && strcmp(argv[i], "-I") == 0) {
		char *eq = strchr(argv[i + 1], '=');

		if (eq == NULL || nitems == 8)
			return usage();
		*eq = '\0';
		items[nitems][0] = argv[i + 1];
		items[nitems][1] = eq + 1;
		nitems++;
		i += 2;
	}
	if (argc - i < 4)
		return usage();
	for (int j = i + 3; j < argc; j++)
		if (strcmp(argv[j], "auth") != 0 && strcmp(argv[j], "acct") != 0)
			return usage();
	conv.appdata_ptr = argv[i + 2];
	if (pam_start(argv[i], argv[i + 1], &conv, &pamh) != PAM_SUCCESS) {
		fprintf(stderr, "pamdrive: pam_start failed\n");
		return 2;
	}
	handle = pamh;
	if (own_delay) {
		union {
			const void *item;
			void (*fn)(int, unsigned int, void *);
		} item = { .fn = delay };

		if (pam_set_item(pamh, PAM_FAIL_DELAY, item.item) != PAM_SUCCESS) {
			fprintf(stderr, "pamdrive: cannot set PAM_FAIL_DELAY\n");
			pam_end(pamh, PAM_SYSTEM_ERR);
			return 2;
		}
	}
	for (int k = 0; k < nitems; k++) {
		int type = strcmp(items[k][0], "tty") == 0     ? PAM_TTY
			   : strcmp(items[k][0], "rhost") == 0 ? PAM_RHOST
			   : strcmp(items[k][0], "ruser") == 0 ? PAM_RUSER
			   : strcmp(items[k][0], "xdisplay") == 0 ? PAM_XDISPLAY
							       : -1;

		if (type < 0 || pam_set_item(pamh, type, items[k][1]) != PAM_SUCCESS) {
			fprintf(stderr, "pamdrive: cannot set item %s\n", items[k][0]);
			pam_end(pamh, PAM_SYSTEM_ERR);
			return 2;
		}
	}
	for (int j = i + 3; j < argc; j++) {
		if (strcmp(argv[j], "auth") == 0) {
			last = pam_authenticate(pamh, 0);
			printf("authenticate: %s\n", pam_strerror(pamh, last));
		} else {
			last = pam_acct_mgmt(pamh, 0);
			printf("account: %s\n", pam_strerror(pamh, last));
		}
	}
	pam_end(pamh, last);
	return 0;
}
