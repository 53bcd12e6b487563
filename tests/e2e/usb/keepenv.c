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
