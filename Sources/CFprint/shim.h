/* SPDX-License-Identifier: Apache-2.0 */
#ifndef TOUCHAUTH_CFPRINT_SHIM_H
#define TOUCHAUTH_CFPRINT_SHIM_H
/* The C surface the Fingerprint module sees: libfprint, GLib/GIO, and the few
 * macros Swift cannot import. */
#include <fprint.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include <dlfcn.h>

/* G_IO_ERROR is a macro around a function call. */
static inline GQuark touchauth_g_io_error_quark(void) { return G_IO_ERROR; }
static inline GQuark touchauth_fp_device_error_quark(void) { return FP_DEVICE_ERROR; }
static inline GQuark touchauth_fp_device_retry_quark(void) { return FP_DEVICE_RETRY; }

/* Cancelling one cancellable cancels another: a prompt's (its deadline, the
 * module's SIGTERM) reaches each reader's own, which a race also cancels alone
 * (ScanRace).  The callback runs in the thread that cancels; g_cancellable_cancel
 * is thread-safe.  0 when `from` was already cancelled (`to` is then too). */
static inline void touchauth_cancel_target(GCancellable *from, gpointer to)
{
	(void)from;
	g_cancellable_cancel(G_CANCELLABLE(to));
}
static inline gulong touchauth_cancellable_forward(GCancellable *from, GCancellable *to)
{
	return g_cancellable_connect(from, G_CALLBACK(touchauth_cancel_target), g_object_ref(to),
				     g_object_unref);
}

/* A USB reader's bus number and address (what sysfs's busnum and devnum say),
 * from the GUsbDevice libfprint keeps in its readable construct-only property
 * "fpi-usb-device" (libfprint 1.94: Debian 12's 1.94.5 and 13's 1.94.9).  gusb's
 * getters are looked up in the process, which has libgusb through libfprint
 * (Debian ships its headers in libgusb-dev, which we do not build with).  0: not
 * a USB reader (virtual, SPI), or nothing to ask. */
static inline int touchauth_fp_device_usb_location(FpDevice *device, int *bus, int *address)
{
	GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(device), "fpi-usb-device");
	guint8 (*get_bus)(GObject *), (*get_address)(GObject *);
	GObject *usb = NULL;
	int found = 0;

	if (spec == NULL || !(spec->flags & G_PARAM_READABLE) ||
	    !g_type_is_a(spec->value_type, G_TYPE_OBJECT))
		return 0;
	g_object_get(device, "fpi-usb-device", &usb, NULL);
	if (usb == NULL)
		return 0;
	*(void **)&get_bus = dlsym(RTLD_DEFAULT, "g_usb_device_get_bus");
	*(void **)&get_address = dlsym(RTLD_DEFAULT, "g_usb_device_get_address");
	if (get_bus != NULL && get_address != NULL) {
		*bus = get_bus(usb);
		*address = get_address(usb);
		found = 1;
	}
	g_object_unref(usb);
	return found;
}
#endif
