/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: the RDMA client, device add and remove (srpt_client.c).
 */
#ifndef SRPT_CLIENT_H
#define SRPT_CLIENT_H

int srpt_client_init(void);
void srpt_client_exit(void);

#endif /* SRPT_CLIENT_H */
