/* SPDX-License-Identifier: Apache-2.0 */
#ifndef TOUCHAUTH_CFPRINT_SHIM_H
#define TOUCHAUTH_CFPRINT_SHIM_H
/* The C surface the Fingerprint module sees: libfprint, GLib/GIO, and the few
 * macros Swift cannot import. */
#include <fprint.h>
#include <gio/gio.h>
#include <glib-unix.h>

/* G_IO_ERROR is a macro around a function call. */
static inline GQuark touchauth_g_io_error_quark(void) { return G_IO_ERROR; }
static inline GQuark touchauth_fp_device_error_quark(void) { return FP_DEVICE_ERROR; }
static inline GQuark touchauth_fp_device_retry_quark(void) { return FP_DEVICE_RETRY; }
#endif
