/* SPDX-License-Identifier: Apache-2.0 */
/* Nothing to import: argv.c only defines the stdlib's argv hook (see there). */
#ifndef TOUCHAUTH_CARGV_H
#define TOUCHAUTH_CARGV_H
#endif
