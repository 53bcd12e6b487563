// SPDX-License-Identifier: Apache-2.0
/* tests/e2e/usb.sh (tests only): the helper empties its environment at start-up; umockdev's
 * preload reads UMOCKDEV_DIR on each call, so the helper would leave the testbed.  Preloaded after
 * umockdev's, this clearenv(3) puts UMOCKDEV_DIR back once the real one has run. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
static char saved[4096];
int clearenv(void)
{
	int (*real)(void) = (int (*)(void))dlsym(RTLD_NEXT, "clearenv");
	const char *dir = getenv("UMOCKDEV_DIR");
	if (dir != NULL && strlen(dir) < sizeof saved)
		strcpy(saved, dir);
	int rc = real();
	if (saved[0] != '\0')
		setenv("UMOCKDEV_DIR", saved, 1);
	return rc;
}
