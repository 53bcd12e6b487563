/* SPDX-License-Identifier: Apache-2.0 */
#include <fprint.h>
#include <stdio.h>
#include <time.h>
/* bench/phases.sh: the floor of its first row. Linked with libfprint (the same libraries, bound
 * at start-up as the helper's are), it marks its main and exits. */
int main(int argc, char **argv)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	fprintf(stderr, "M %lld main\n", (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000);
	if (argc > 5)
		fp_context_new(); /* linked, never run */
	(void)argv;
	return 0;
}
