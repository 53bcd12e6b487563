/* SPDX-License-Identifier: Apache-2.0 */
#ifndef TOUCHAUTH_CSHADOW_SHIM_H
#define TOUCHAUTH_CSHADOW_SHIM_H
/* <shadow.h> is not part of Swift's Glibc module: the helper reads whether an account has a
 * usable password (getspnam_r) for the passwordNotSet rule. */
#include <shadow.h>
#endif
