// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: data buffers of commands.
 *
 * A command's data lives in pages of the channel's pool or freshly
 * allocated ones (LIO's contract: one page per scatterlist entry), or, for
 * immediate data, in the receive buffer itself.  rdma_rw maps the buffer to
 * the initiator's memory descriptors; srpt_sync_data() hands it between CPU
 * and HCA.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>
#include <target/target_core_backend.h>
#include <linux/mm.h>

#include "srpt_data.h"
#include "srpt_buf.h"
#include "srpt_detach.h"
#include "srpt_compat.h"

/**
 * __srpt_sync_data() - pass a command's data buffers to the CPU or the HCA
 * @ioctx: the command, on a device that does real DMA (srpt_sync_data())
 * @for_cpu: true after the HCA wrote the data (RDMA READ done), before LIO
 *	reads it; false after LIO wrote it, before the RDMA WRITEs
 *
 * rdma_rw maps the buffers when the command arrives, long before either
 * side has touched them, and a kept mapping (srpt_buf_map()) was made for
 * an earlier command; with bounce buffers (swiotlb) or a non-coherent
 * device the data only moves between the two views here.  Nothing is done
 * once the channel detached from its device: the data goes nowhere then.
 */
void __srpt_sync_data(struct srpt_send_ioctx *ioctx, bool for_cpu)
{
	struct srpt_channel *ch = ioctx->ch;
	enum dma_data_direction dir = ioctx->dir == SRPT_DIR_OUT ?
				      DMA_FROM_DEVICE : DMA_TO_DEVICE;
	struct ib_device *ib_dev;
	unsigned int i;

	rcu_read_lock();
	if (srpt_ch_detached(ch))
		goto out;
	ib_dev = ch->sport->sdev->ib_dev;
	/* A kept mapping: one entry per page, as many as the data has. */
	for (i = 0; ioctx->n_dwr && i < ioctx->data_nents; i++) {
		struct ib_sge *sge = &ioctx->buf_sge[i];

		if (for_cpu)
			dma_sync_single_for_cpu(ib_dev->dma_device, sge->addr,
						sge->length, dir);
		else
			dma_sync_single_for_device(ib_dev->dma_device,
						   sge->addr, sge->length, dir);
	}
	for (i = 0; i < ioctx->n_rw; i++) {
		struct srpt_rw *rw = &ioctx->rw[i];

		if (for_cpu)
			dma_sync_sg_for_cpu(ib_dev->dma_device, rw->sg,
					    rw->nents, dir);
		else
			dma_sync_sg_for_device(ib_dev->dma_device, rw->sg,
					       rw->nents, dir);
	}
out:
	rcu_read_unlock();
}

/**
 * srpt_alloc_data() - the local data buffer of a command
 * @ioctx: the command
 * @len: bytes, the sum of its remote buffers, more than zero
 *
 * One buffer for the whole command, however many remote buffers the
 * initiator gave (see srpt_alloc_pages() for why).  The context keeps the
 * pages of its last buffer (srpt_free_data()), and a command that fits in
 * them only marks where its data ends: no allocation, no clearing (with
 * init_on_alloc) and no walk over the pages.  A larger one gives them
 * back and gets a new buffer, which the context keeps from then on.
 *
 * Return: 0 or -ENOMEM.
 */
static int srpt_alloc_data(struct srpt_send_ioctx *ioctx, u32 len)
{
	struct srpt_channel *ch = ioctx->ch;
	u32 n = DIV_ROUND_UP(len, PAGE_SIZE);
	struct scatterlist *last;
	int ret;

	ioctx->data_len = len;
	/* An idle context's pages count as kept (srpt_free_data()). */
	if (ioctx->buf_cap > 1)
		atomic_sub(ioctx->buf_cap, &ch->kept_pages);
	if (unlikely(n > ioctx->buf_cap)) {
		srpt_buf_release(ioctx);
		ret = srpt_alloc_pages(ch, n * PAGE_SIZE, &ioctx->buf_sgl,
				       &ioctx->buf_cap);
		if (ret)
			return ret;
	}
	last = &ioctx->buf_sgl[n - 1];
	last->length = len - (n - 1) * PAGE_SIZE;
	if (n < ioctx->buf_cap)
		sg_mark_end(last);
	ioctx->data_sgl = ioctx->buf_sgl;
	ioctx->data_nents = n;
	return 0;
}

/**
 * srpt_charge_one() - count bytes against one bound
 * @held: the counter
 * @len: bytes
 * @max: the bound in bytes, 0 for none
 *
 * Return: true if counted; false (nothing counted) if @held would exceed
 * @max.
 */
static __always_inline bool
srpt_charge_one(atomic_long_t *held, u32 len, unsigned long max)
{
	long v = atomic_long_add_return(len, held);

	if (unlikely(max && v > max)) {
		atomic_long_sub(len, held);
		return false;
	}
	return true;
}

/**
 * srpt_charge_data() - count a command's data buffer against its bounds
 * @ch: channel
 * @ioctx: the command
 * @len: bytes its buffer will hold
 *
 * A command's data buffer is allocated when it arrives and held until it
 * is released, so what an initiator can make the target allocate is
 * bounded where it is decided: the channel's commands hold at most
 * ch->max_data_held bytes (max_channel_data), the channels of one
 * initiator in the portal group max_initiator_data_mb, the group's
 * channels max_tpg_data_mb, all channels the module's max_data_mb.  The
 * bytes go back in srpt_free_data().
 *
 * Return: 0; -ENOSPC when the channel's own bound is reached (the command
 * waits until one of the channel's commands gives data back); -EBUSY when
 * a bound the channel shares with others is reached (nothing of the
 * channel's own may come back soon: the command is answered TASK SET
 * FULL).  Nothing is counted on failure.
 */
static int srpt_charge_data(struct srpt_channel *ch,
			    struct srpt_send_ioctx *ioctx, u32 len)
{
	struct srpt_tpg *tpg = ch->tpg;
	unsigned long ini_max = (unsigned long)
				READ_ONCE(tpg->max_initiator_data_mb) << 20;
	unsigned long tpg_max = (unsigned long)
				READ_ONCE(tpg->max_tpg_data_mb) << 20;
	long held;

	if (atomic_add_return(len, &ch->data_held) > ch->max_data_held) {
		atomic_sub(len, &ch->data_held);
		return -ENOSPC;
	}
	if (unlikely(!srpt_charge_one(ch->ini_held, len, ini_max)))
		goto ch;
	if (unlikely(!srpt_charge_one(&tpg->data_held, len, tpg_max)))
		goto ini;
	held = atomic_long_add_return(len, &srpt_data_held);
	if (unlikely(held > srpt_data_limit())) {
		atomic_long_sub(len, &srpt_data_held);
		goto tpg;
	}
	srpt_data_peak(held);
	ioctx->charged = len;
	return 0;

tpg:
	atomic_long_sub(len, &tpg->data_held);
ini:
	atomic_long_sub(len, ch->ini_held);
ch:
	atomic_sub(len, &ch->data_held);
	return -EBUSY;
}

/**
 * srpt_slice() - scatterlist over a byte range of a command's data buffer
 * @ioctx: the command, its buffer allocated
 * @off: first byte
 * @len: bytes, more than zero, inside the buffer
 * @out: room for the entries: one per page the range touches
 *
 * Return: entries written to @out.
 */
static unsigned int srpt_slice(struct srpt_send_ioctx *ioctx, u32 off, u32 len,
			       struct scatterlist *out)
{
	u32 first = off >> PAGE_SHIFT, last = (off + len - 1) >> PAGE_SHIFT;
	unsigned int i, n = last - first + 1;

	sg_init_table(out, n);
	for (i = 0; i < n; i++) {
		u32 start = i ? 0 : offset_in_page(off);
		u32 l = min_t(u32, len, PAGE_SIZE - start);

		sg_set_page(&out[i], sg_page(&ioctx->data_sgl[first + i]), l,
			    start);
		len -= l;
	}
	return n;
}

/**
 * srpt_map_kept() - the RDMA requests of a command over its kept mapping
 * @ch: channel
 * @ioctx: the command, its data buffer allocated and mapped (srpt_buf_map())
 * @va: the initiator's buffer
 * @rkey: its key
 *
 * One remote buffer: each request takes as many pages as the QP allows in
 * one READ or WRITE and the next part of the remote buffer.  Every request
 * but the last of a write's READs is unsignaled with srpt_rdma_err_done()
 * for an error completion (the post sets the last one's); a read's WRITEs
 * go in front of its response (srpt_build_and_post()).  A write's pages
 * are handed to the device here, before the READs fill them.
 */
static void srpt_map_kept(struct srpt_channel *ch,
			  struct srpt_send_ioctx *ioctx, u64 va, u32 rkey)
{
	bool read = ioctx->dir == SRPT_DIR_OUT;
	u32 max = read ? ch->qp->max_read_sge : ch->qp->max_write_sge;
	struct ib_rdma_wr *wr = ioctx->buf_wr;
	struct ib_sge *sge = ioctx->buf_sge;
	u32 n = ioctx->data_nents, i, k, nwr = 0;

	sge[n - 1].length = ioctx->data_sgl[n - 1].length;
	if (likely(n <= max)) {
		/* One request (up to 128 KiB on most devices). */
		wr->wr.next = NULL;
		wr->wr.wr_cqe = &ioctx->rdma_err_cqe;
		wr->wr.sg_list = sge;
		wr->wr.num_sge = n;
		wr->wr.opcode = read ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE;
		wr->wr.send_flags = 0;
		wr->remote_addr = va;
		wr->rkey = rkey;
		nwr = 1;
		goto done;
	}
	for (i = 0; i < n; i += k) {
		k = min(max, n - i);
		wr[nwr].wr.next = &wr[nwr + 1].wr;
		wr[nwr].wr.wr_cqe = &ioctx->rdma_err_cqe;
		wr[nwr].wr.sg_list = &sge[i];
		wr[nwr].wr.num_sge = k;
		wr[nwr].wr.opcode = read ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE;
		wr[nwr].wr.send_flags = 0;
		wr[nwr].remote_addr = va + (u64)i * PAGE_SIZE;
		wr[nwr].rkey = rkey;
		nwr++;
	}
	wr[nwr - 1].wr.next = NULL;
done:
	ioctx->n_dwr = nwr;
	ioctx->n_wr = nwr;
	if (read)
		srpt_sync_data(ioctx, false);
}

/**
 * srpt_map_slices() - srpt_map_data() for a command with several remote
 *	buffers (or none)
 * @ch: channel
 * @ioctx: the command, its data buffer allocated
 * @desc: the command's direct descriptors
 * @ndesc: how many
 * @dir: the DMA direction of the transfers
 *
 * Out of line: its descriptor copy needs a stack canary, which the single
 * buffer path of every command then does not pay.
 *
 * Return: 0 or a negative errno.
 */
static noinline int srpt_map_slices(struct srpt_channel *ch,
				    struct srpt_send_ioctx *ioctx,
				    const struct srpt_wire_direct_buf *desc,
				    u32 ndesc, enum dma_data_direction dir)
{
	struct scatterlist *slice;
	u32 i, off = 0;
	int ret;

	/* rdma_rw maps the slices: a page must not be mapped twice. */
	srpt_buf_unmap(ioctx);
	if (ndesc <= SRPT_MAX_INLINE_RW) {
		ioctx->rw = ioctx->rw_inline;
	} else {
		ioctx->rw = kmalloc_array(ndesc, sizeof(*ioctx->rw),
					  GFP_KERNEL);
		if (!ioctx->rw)
			return -ENOMEM;
	}
	if (ndesc > 1) {
		/* Each slice has an entry per page, one more where unaligned. */
		ioctx->rdma_sg = kmalloc_array(ioctx->data_nents + ndesc,
					       sizeof(*ioctx->rdma_sg),
					       GFP_KERNEL);
		if (!ioctx->rdma_sg)
			return -ENOMEM;
	}
	slice = ioctx->rdma_sg;

	for (i = 0; i < ndesc; i++) {
		struct srpt_rw *rw = &ioctx->rw[ioctx->n_rw];
		struct srpt_buf_desc bd;

		srpt_buf_desc_get(&desc[i], &bd);
		if (!bd.len)
			continue;
		if (slice) {
			rw->sg = slice;
			rw->nents = srpt_slice(ioctx, off, bd.len, slice);
			slice += rw->nents;
		} else {
			rw->sg = ioctx->data_sgl;
			rw->nents = ioctx->data_nents;
		}
		ret = rdma_rw_ctx_init(&rw->rw, ch->qp, ch->sport->port_num,
				       rw->sg, rw->nents, 0, bd.va, bd.key, dir);
		if (ret < 0)
			return ret;
		ioctx->n_wr += ret;
		ioctx->n_rw++;
		off += bd.len;
	}
	return 0;
}

/**
 * srpt_map_data() - set up the RDMA transfers described by an SRP_CMD
 * @ch: channel
 * @ioctx: the command, its @dir and @data_len set
 * @desc: the command's direct descriptors (from srpt_cmd_parse())
 * @ndesc: how many
 *
 * The command gets one data buffer (srpt_alloc_data()), which LIO fills
 * (reads) or which the RDMA READs fill (writes): @ioctx->data_sgl and
 * @ioctx->data_nents, NULL and 0 for a command without data.  With one
 * remote buffer, on a channel that keeps DMA mappings, the context's pages
 * are mapped once (srpt_buf_map()) and the command gets RDMA requests over
 * them (srpt_map_kept()); otherwise each remote buffer gets an rdma_rw
 * context over its part of the buffer, in order: over the whole buffer
 * when there is one, over a slice of the buffer's pages (srpt_slice())
 * when there are several.  Nothing but the context holds the results, so
 * the caller's frame needs no stack canary.
 *
 * Return: 0, -ENOSPC when the channel holds its max_channel_data already,
 * -EBUSY when a shared bound is reached (srpt_charge_data()), or another
 * negative errno (srpt_unmap_data()
 * releases what was set up).
 */
int srpt_map_data(struct srpt_channel *ch, struct srpt_send_ioctx *ioctx,
		  const struct srpt_wire_direct_buf *desc, u32 ndesc)
{
	enum dma_data_direction dir = ioctx->dir == SRPT_DIR_OUT ?
				      DMA_FROM_DEVICE : DMA_TO_DEVICE;
	int ret;

	if (!ioctx->data_len)
		return 0;
	ret = srpt_charge_data(ch, ioctx, ioctx->data_len);
	if (ret)
		return ret;
	ret = srpt_alloc_data(ioctx, ioctx->data_len);
	if (ret)
		return ret;
	if (likely(ndesc == 1)) {
		/* One remote buffer (the direct format): the whole buffer. */
		struct srpt_rw *rw = ioctx->rw_inline;

		if (likely(ioctx->buf_sge) ||
		    (ch->keep_dma && srpt_buf_map(ch, ioctx))) {
			srpt_map_kept(ch, ioctx, srpt_get_be64(&desc->va),
				      srpt_get_be32(&desc->key));
			return 0;
		}
		ioctx->rw = rw;

		rw->sg = ioctx->data_sgl;
		rw->nents = ioctx->data_nents;
		ret = rdma_rw_ctx_init(&rw->rw, ch->qp, ch->sport->port_num,
				       rw->sg, rw->nents, 0,
				       srpt_get_be64(&desc->va),
				       srpt_get_be32(&desc->key), dir);
		if (ret < 0)
			return ret;
		ioctx->n_wr = ret;
		ioctx->n_rw = 1;
		return 0;
	}
	return srpt_map_slices(ch, ioctx, desc, ndesc, dir);
}

/**
 * srpt_imm_sgl() - describe immediate data page by page
 * @sgl: scatterlist of @max entries
 * @max: entries in @sgl, enough for the longest immediate data of the
 *	channel (its imm_sg_max)
 * @buf: the data, inside a receive buffer
 * @len: bytes of data
 *
 * A receive buffer is one slab object, contiguous in memory, but LIO and
 * pscsi need every entry within a page (see srpt_alloc_pages()): the data
 * is cut at page boundaries.
 *
 * Return: entries used, 0 for no data.
 */
unsigned int srpt_imm_sgl(struct scatterlist *sgl, unsigned int max, u8 *buf,
			  u32 len)
{
	/* A slab object: its pages are contiguous in the memory map. */
	struct page *page = virt_to_page(buf);
	u32 off = offset_in_page(buf);
	unsigned int n = 0;

	if (!len)
		return 0;
	while (len && n < max) {
		u32 l = min_t(u32, len, PAGE_SIZE - off);
		struct scatterlist *sg = &sgl[n++];

		/* What sg_init_table() leaves, for this entry only. */
		memset(sg, 0, sizeof(*sg));
		sg_set_page(sg, page++, l, off);
		off = 0;
		len -= l;
	}
	sg_mark_end(&sgl[n - 1]);
	return n;
}

/**
 * srpt_dev_discards() - does a LIO device answer READs without data?
 * @dev: the device
 *
 * rd_mcp devices made with rd_nullio=1 (and LIO's virtual LUN 0, one of
 * them) complete every READ with GOOD and leave its buffer alone.  The
 * flag is private to the backend; it shows in the device's parameters,
 * which the backend prints for configfs ("nullio: 1"), and cannot change
 * once the device is configured.
 *
 * Called from queue_data_in, which with LIO's direct completion (7.3) runs
 * in the backend's completion context: the page the parameters are printed
 * into is taken without sleeping.
 *
 * Return: 1 for such a device, and when its parameters cannot be printed;
 * 0 for a device that fills READ buffers; -ENOMEM when no page could be
 * had now (the caller clears the buffer and asks again next time).
 */
static int srpt_dev_discards(struct se_device *dev)
{
	const struct target_backend_ops *ops = dev->transport;
	char *page;
	int ret;

	if (strcmp(ops->name, "rd_mcp"))
		return 0;
	if (!ops->show_configfs_dev_params)
		return 1;
	page = (char *)get_zeroed_page(GFP_NOWAIT | __GFP_NOWARN);
	if (!page)
		return -ENOMEM;
	/* The backend prints a few lines into a configfs page. */
	ops->show_configfs_dev_params(dev, page);
	ret = !strstr(page, "nullio: 0");
	free_page((unsigned long)page);
	return ret;
}

/**
 * __srpt_data_unfilled() - srpt_data_unfilled() for a device not cached
 * @ioctx: a READ (srpt_cdb_reads_medium()) with a data-in buffer and a
 *	device
 *
 * Return: true if its device leaves READ buffers alone (or that could not
 * be found out now).
 */
bool __srpt_data_unfilled(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;
	struct se_device *dev = ioctx->cmd.se_dev;
	u32 id = dev->dev_index + 1;
	int ret;

	ret = srpt_dev_discards(dev);
	if (ret < 0)
		return true;
	if (ret) {
		WRITE_ONCE(ch->nullio_dev, id);
		return true;
	}
	WRITE_ONCE(ch->filled_dev, id);
	return false;
}

/**
 * srpt_zero_tail() - clear the part of a data-in buffer LIO did not fill
 * @ioctx: a command with data for the initiator
 * @len: bytes LIO produced (se_cmd->data_length)
 *
 * The RDMA WRITEs cover the initiator's whole buffers; they were set up
 * when the command arrived.  When LIO produces less (residual underflow:
 * an allocation or transfer length below the buffers' size), the rest of
 * the local buffer still holds what an earlier command left there, such as
 * another LUN's data, and the WRITEs would carry it to the initiator.
 */
void srpt_zero_tail(struct srpt_send_ioctx *ioctx, u32 len)
{
	if (ioctx->data_sgl && len < ioctx->data_len)
		sg_zero_buffer(ioctx->data_sgl, ioctx->data_nents,
			       ioctx->data_len - len, len);
}
