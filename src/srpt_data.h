/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: data buffers of commands: their bounds, pages, rdma_rw mapping
 * and DMA syncs (srpt_data.c).  The release of a command's buffers is
 * inline: every command ends with it.
 */
#ifndef SRPT_DATA_H
#define SRPT_DATA_H

#include <linux/types.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/rw.h>

#include "srpt.h"
#include "srpt_buf.h"
#include "srpt_param.h"
#include "srpt_device.h"
#include "srpt_tpg.h"
#include "srpt_proto.h"

/*
 * Pages the idle contexts of a channel keep in their data buffers (beyond
 * one each) for their next commands: 4 MiB, so that the contexts a queue
 * depth of 16 with 128 KiB commands cycles through keep theirs (a context
 * stays busy until its response completed, after the initiator may have
 * sent the next command).
 */
#define SRPT_KEPT_PAGES		(SZ_4M / PAGE_SIZE)
/*
 * Pages a channel keeps from finished commands for the next ones: 1 MiB,
 * eight 128 KiB commands in flight (a fresh page costs the allocator and,
 * with init_on_alloc, clearing it).
 */
#define SRPT_POOL_PAGES		(SZ_1M / PAGE_SIZE)

void __srpt_sync_data(struct srpt_send_ioctx *ioctx, bool for_cpu);

/**
 * srpt_sync_data() - pass a command's data buffers to the CPU or the HCA
 * @ioctx: the command
 * @for_cpu: true after the HCA wrote the data (RDMA READ done), before LIO
 *	reads it; false after LIO wrote it, before the RDMA WRITEs
 *
 * Nothing to do on a device that does DMA to virtual addresses (Soft-RoCE):
 * it has no DMA device to sync for.
 */
static inline void srpt_sync_data(struct srpt_send_ioctx *ioctx, bool for_cpu)
{
	if (!ioctx->ch->virt_dma)
		__srpt_sync_data(ioctx, for_cpu);
}

/**
 * srpt_free_data() - give back the local data buffer of a command
 * @ioctx: the command, its RDMA contexts destroyed (srpt_unmap_rw())
 *
 * The context keeps the buffer's pages for its next command (see
 * srpt_alloc_data()); what idle contexts keep beyond a page each is
 * counted in the channel's kept_pages, and srpt_shed_locked() bounds it.
 * Nothing here touches the RDMA device.
 */
static __always_inline void srpt_free_data(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;

	if (ioctx->charged) {
		u32 n = ioctx->charged;

		atomic_sub(n, &ch->data_held);
		atomic_long_sub(n, ch->ini_held);
		atomic_long_sub(n, &ch->tpg->data_held);
		atomic_long_sub(n, &srpt_data_held);
		ioctx->charged = 0;
	}
	if (ioctx->data_sgl) {
		struct scatterlist *last = &ioctx->data_sgl[ioctx->data_nents - 1];

		/* Undo srpt_alloc_data(): whole pages, one table. */
		last->length = PAGE_SIZE;
		if (ioctx->data_nents < ioctx->buf_cap)
			sg_unmark_end(last);
		if (ioctx->n_dwr) {
			if (likely(ioctx->buf_sge))
				ioctx->buf_sge[ioctx->data_nents - 1].length =
					PAGE_SIZE;
			ioctx->n_dwr = 0;
		}
		ioctx->data_sgl = NULL;
		ioctx->data_nents = 0;
		ioctx->zeroed = ioctx->zeroed_next;
		ioctx->zeroed_next = 0;
		if (ioctx->buf_cap > 1)
			atomic_add(ioctx->buf_cap, &ch->kept_pages);
	}
	if (unlikely(ioctx->rdma_sg)) {
		kfree(ioctx->rdma_sg);
		ioctx->rdma_sg = NULL;
	}
}

/**
 * srpt_unmap_rw() - destroy the RDMA contexts of a command
 * @ioctx: the command; its channel's QP still exists
 *
 * Unmaps the data buffer from the device; the buffer itself stays (see
 * srpt_free_data()).  Does nothing the second time.
 */
static __always_inline void srpt_unmap_rw(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;
	enum dma_data_direction dir = ioctx->dir == SRPT_DIR_OUT ?
				      DMA_FROM_DEVICE : DMA_TO_DEVICE;
	unsigned int i;

	if (!ioctx->rw)
		return;
	for (i = 0; i < ioctx->n_rw; i++) {
		struct srpt_rw *rw = &ioctx->rw[i];

		rdma_rw_ctx_destroy(&rw->rw, ch->qp, ch->sport->port_num,
				    rw->sg, rw->nents, dir);
	}
	if (unlikely(ioctx->rw != ioctx->rw_inline))
		kfree(ioctx->rw);
	ioctx->rw = NULL;
	ioctx->n_rw = 0;
}

/**
 * srpt_unmap_data() - release the RDMA contexts and data buffer of a command
 * @ioctx: the command; its channel's QP still exists
 *
 * Inline: the release of every command runs it (srpt_put_ioctx()).
 */
static __always_inline void srpt_unmap_data(struct srpt_send_ioctx *ioctx)
{
	srpt_unmap_rw(ioctx);
	srpt_free_data(ioctx);
}

bool __srpt_data_unfilled(struct srpt_send_ioctx *ioctx);

/**
 * srpt_data_unfilled() - may a data-in buffer hold what LIO did not write?
 * @ioctx: a command LIO answered with data for the initiator
 *
 * A READ's buffer is not cleared when the command arrives (the backend
 * writes all of it, see srpt_cmd_map()), but a backend that discards
 * writes and answers reads without reading (rd_mcp with rd_nullio, which
 * also serves LIO's virtual LUN 0) writes nothing: the buffer then still
 * holds what it held before, data of earlier commands.  The device of the
 * channel's last such command is remembered, so that the common case is
 * one comparison.
 *
 * Return: true if the whole buffer must be cleared before it goes out.
 */
static __always_inline bool srpt_data_unfilled(struct srpt_send_ioctx *ioctx)
{
	const struct se_device *dev = ioctx->cmd.se_dev;
	u32 id;

	if (!ioctx->data_sgl || !dev)
		return false;
	id = dev->dev_index + 1;
	if (likely(id == READ_ONCE(ioctx->ch->filled_dev)))
		return false;
	/* LIO itself fills what it emulates (INQUIRY, REPORT LUNS). */
	if (!srpt_cdb_reads_medium(ioctx->cdb))
		return false;
	if (id == READ_ONCE(ioctx->ch->nullio_dev))
		return true;
	return __srpt_data_unfilled(ioctx);
}

int srpt_map_data(struct srpt_channel *ch, struct srpt_send_ioctx *ioctx,
		  const struct srpt_wire_direct_buf *desc, u32 ndesc);
unsigned int srpt_imm_sgl(struct scatterlist *sgl, unsigned int max, u8 *buf,
			  u32 len);
void srpt_zero_tail(struct srpt_send_ioctx *ioctx, u32 len);

/**
 * srpt_zero_unfilled() - clear a READ buffer its backend did not fill
 * @ioctx: a READ whose device leaves READ buffers alone
 *	(srpt_data_unfilled())
 *
 * Nothing but such READs wrote the first @ioctx->zeroed bytes of the
 * context's pages since they were last cleared: only the rest is cleared,
 * so that a run of READs of a NULLIO device costs one clearing per
 * context, not one per command.  Inline: such a device answers every READ
 * this way.
 */
static __always_inline void srpt_zero_unfilled(struct srpt_send_ioctx *ioctx)
{
	u32 done = ioctx->zeroed;

	if (unlikely(done < ioctx->data_len)) {
		sg_zero_buffer(ioctx->data_sgl, ioctx->data_nents,
			       ioctx->data_len - done, done);
		done = ioctx->data_len;
	}
	ioctx->zeroed_next = done;
}

#endif /* SRPT_DATA_H */
