/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: QP transitions and events, and srpt_ch_close(), with which
 * every layer above ends a channel (srpt_qp.c).
 */
#ifndef SRPT_QP_H
#define SRPT_QP_H

struct srpt_channel;
struct ib_event;

int srpt_qp_init(void);
void srpt_qp_exit(void);
void srpt_qp_event(struct ib_event *event, void *ptr);
int srpt_ch_qp_init(struct srpt_channel *ch);
int srpt_ch_qp_rtr(struct srpt_channel *ch);
int srpt_ch_qp_rts(struct srpt_channel *ch);
int srpt_ch_qp_err(struct srpt_channel *ch);
void srpt_ch_close(struct srpt_channel *ch, const char *why);
void srpt_ch_replied(struct srpt_channel *ch);

#endif /* SRPT_QP_H */
