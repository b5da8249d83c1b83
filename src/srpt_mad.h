/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: the device-management MAD agent (srpt_mad.c).
 */
#ifndef SRPT_MAD_H
#define SRPT_MAD_H

struct srpt_port;

void srpt_mad_register(struct srpt_port *sport);
void srpt_mad_unregister(struct srpt_port *sport);

#endif /* SRPT_MAD_H */
