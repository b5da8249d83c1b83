/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: channel set-up and release (srpt_channel.c).
 */
#ifndef SRPT_CHANNEL_H
#define SRPT_CHANNEL_H

#include <linux/types.h>

struct srpt_channel;
struct srpt_send_ioctx;
struct srpt_port;
struct srpt_tpg;
struct srpt_login_decision;

void srpt_ioctx_init(struct srpt_channel *ch, struct srpt_send_ioctx *ioctx);
struct srpt_channel *srpt_ch_alloc(struct srpt_port *sport,
				   struct srpt_tpg *tpg,
				   const struct srpt_login_decision *d,
				   bool using_rdma_cm);
int srpt_ch_create_qp(struct srpt_channel *ch);
int srpt_ch_post_recvs(struct srpt_channel *ch);
int srpt_ch_start_session(struct srpt_channel *ch, const char *acl_name);
void srpt_ch_established(struct srpt_channel *ch);
void srpt_ch_free(struct srpt_channel *ch);

#endif /* SRPT_CHANNEL_H */
