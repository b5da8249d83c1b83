/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: the pages command contexts keep for their data, their DMA
 * mappings and the channel's page pool (srpt_buf.c).
 */
#ifndef SRPT_BUF_H
#define SRPT_BUF_H

#include <linux/types.h>
#include <linux/scatterlist.h>

#include "srpt.h"

/*
 * Data buffers are allocated in the receive path for what an initiator
 * asked: reclaim may run, but the allocation fails rather than wake the
 * OOM killer (the command is answered BUSY, see srpt_cmd_map()).
 */
#define SRPT_DATA_GFP	(GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN)

void srpt_pool_drain(struct srpt_channel *ch);
int srpt_alloc_pages(struct srpt_channel *ch, u32 len,
		     struct scatterlist **sgl, u32 *nents);
bool srpt_buf_map(struct srpt_channel *ch, struct srpt_send_ioctx *ioctx);
void srpt_buf_unmap(struct srpt_send_ioctx *ioctx);
void srpt_buf_release(struct srpt_send_ioctx *ioctx);
void srpt_buf_free(struct srpt_send_ioctx *ioctx);
void srpt_shed_locked(struct srpt_channel *ch);
void srpt_data_trim(struct srpt_channel *ch, bool own);

#endif /* SRPT_BUF_H */
