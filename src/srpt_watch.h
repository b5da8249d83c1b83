/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: the watch work of a channel (srpt_watch.c).
 */
#ifndef SRPT_WATCH_H
#define SRPT_WATCH_H

#include <linux/types.h>

struct srpt_channel;
struct work_struct;

bool srpt_ch_wait_idle(struct srpt_channel *ch, bool detachable);
void srpt_watch_work(struct work_struct *work);
void srpt_watch_start(struct srpt_channel *ch);

#endif /* SRPT_WATCH_H */
