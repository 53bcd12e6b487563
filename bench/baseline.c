/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The floor the helper is measured against (issue 8): a plain C process that
 * does what `touchauth pam-verify` must do on the sensor side and nothing else:
 * libfprint context, enumerate, open the first sensor, read one print file
 * (fprintd's format), verify one scan against it, close, exit 0 on a match.
 *   baseline [-a] PRINT_FILE   (the sensor comes from FP_VIRTUAL_DEVICE etc.)
 * -a prints "armed" just before the verify and "result success" after the
 * close on a match, as the helper does, so a driver can time scan -> result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fprint.h>
#include <glib.h>

int main(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *data = NULL;
	gsize len = 0;
	gboolean match = FALSE;
	FpContext *ctx;
	GPtrArray *devices;
	FpDevice *dev;
	FpPrint *print;
	int armed = argc == 3 && strcmp(argv[1], "-a") == 0;

	if (argc != 2 + armed) {
		fprintf(stderr, "usage: baseline [-a] PRINT_FILE\n");
		return 2;
	}
	ctx = fp_context_new();
	devices = fp_context_get_devices(ctx);
	if (devices == NULL || devices->len == 0) {
		fprintf(stderr, "baseline: no sensor\n");
		return 3;
	}
	dev = g_ptr_array_index(devices, 0);
	if (!fp_device_open_sync(dev, NULL, &error)) {
		fprintf(stderr, "baseline: open: %s\n", error->message);
		return 4;
	}
	if (!g_file_get_contents(argv[1 + armed], &data, &len, &error)) {
		fprintf(stderr, "baseline: %s\n", error->message);
		return 5;
	}
	print = fp_print_deserialize((const guchar *)data, len, &error);
	if (print == NULL) {
		fprintf(stderr, "baseline: deserialize: %s\n", error->message);
		return 6;
	}
	if (armed) {
		fputs("armed\n", stdout);
		fflush(stdout);
	}
	if (!fp_device_verify_sync(dev, print, NULL, NULL, NULL, &match, NULL, &error)) {
		fprintf(stderr, "baseline: verify: %s\n", error->message);
		return 7;
	}
	fp_device_close_sync(dev, NULL, NULL);
	g_object_unref(print);
	g_object_unref(ctx);
	if (armed && match) {
		fputs("result success\n", stdout);
		fflush(stdout);
	}
	return match ? 0 : 1;
}
