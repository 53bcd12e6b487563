/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A helper that costs nothing (issue 8): reads the shim's request, answers
 * "success" at once and exits 0.  The pam stack with it measures what the
 * shim and the spawn cost (fork, exec, pipes, reap) apart from the real
 * helper's own work.  Not an authentication: bench only, in its temp dir.
 */
#include <unistd.h>

int main(void)
{
	static const char reply[] = "touchauth 1\nresult success\n";
	char buf[4096];

	while (read(0, buf, sizeof(buf)) > 0)
		;
	return write(1, reply, sizeof(reply) - 1) == (ssize_t)(sizeof(reply) - 1) ? 0 : 1;
}
