/* SPDX-License-Identifier: Apache-2.0 */
#ifndef TOUCHAUTH_CGETTEXT_SHIM_H
#define TOUCHAUTH_CGETTEXT_SHIM_H
/* <libintl.h> is not part of Swift's Glibc module: the helper looks its messages up with
 * glibc's gettext (TouchAuthPlatform/Gettext.swift). */
#include <libintl.h>
#include <locale.h>

/* Where the catalogs are: a compile-time constant, never the environment (SECURITY.md#environment).
 * scripts/build.sh passes -DTOUCHAUTH_LOCALEDIR when LOCALEDIR is set (install --prefix). */
#ifndef TOUCHAUTH_LOCALEDIR
#define TOUCHAUTH_LOCALEDIR "/usr/share/locale"
#endif
static const char *const touchauth_localedir = TOUCHAUTH_LOCALEDIR;
#endif
