/*
 * A PAM client that does what sshd does when a password fails and a key is then
 * accepted: pam_authenticate, and whatever it returned, pam_acct_mgmt on the same
 * handle.  Usage: fail_then_account SERVICE USER PASSWORD.  Prints both return codes.
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
		if (msg[i]->msg_style == PAM_PROMPT_ECHO_OFF || msg[i]->msg_style == PAM_PROMPT_ECHO_ON)
			r[i].resp = strdup(data);
		else
			printf("%s\n", msg[i]->msg);
	}
	*resp = r;
	return PAM_SUCCESS;
}

int main(int argc, char **argv)
{
	struct pam_conv conv = { answer, NULL };
	pam_handle_t *pamh = NULL;
	int auth, acct;

	if (argc != 4)
		return 2;
	conv.appdata_ptr = argv[3];
	if (pam_start(argv[1], argv[2], &conv, &pamh) != PAM_SUCCESS)
		return 2;
	(void)pam_set_item(pamh, PAM_TTY, ":0");
	auth = pam_authenticate(pamh, 0);
	acct = pam_acct_mgmt(pamh, 0);
	printf("authenticate: %s\naccount: %s\n", pam_strerror(pamh, auth), pam_strerror(pamh, acct));
	pam_end(pamh, auth);
	return 0;
}
