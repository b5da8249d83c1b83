/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: SCSI commands and task management as they arrive
 * (srpt_cmd.c).
 */
#ifndef SRPT_CMD_H
#define SRPT_CMD_H

#include <linux/types.h>

struct srpt_channel;
struct srpt_recv_ioctx;
struct srpt_send_ioctx;

u64 srpt_iu_tag(const struct srpt_recv_ioctx *r);
bool srpt_handle_cmd(struct srpt_channel *ch, struct srpt_recv_ioctx *r,
		     struct srpt_send_ioctx *ioctx);
void srpt_handle_tmf(struct srpt_channel *ch, struct srpt_recv_ioctx *r,
		     struct srpt_send_ioctx *ioctx);

#endif /* SRPT_CMD_H */
