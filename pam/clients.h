/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What touchauth knows about particular PAM clients, by their PAM service
 * name (DESIGN.md §3.3): the few that cannot show our prompt.
 */
#ifndef TOUCHAUTH_CLIENTS_H
#define TOUCHAUTH_CLIENTS_H

/*
 * NULL when the client of SERVICE may be asked for a finger, otherwise why
 * not (for the debug log): the password at once, nothing spawned.
 */
const char *client_refusal(const char *service);

#endif /* TOUCHAUTH_CLIENTS_H */
