// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: the I/O path.
 *
 * receive completion -> srpt_handle_iu()
 *   SRP_CMD:      validate (srpt_cmd_parse), copy the CDB, map the remote
 *                 buffers with rdma_rw, repost the receive buffer, submit to
 *                 LIO.  Writes: write_pending posts the RDMA READs, their
 *                 completion executes the command.  Reads: queue_data_in
 *                 posts the RDMA WRITEs chained before the response SEND.
 *   SRP_TSK_MGMT: LIO TMR, answered by queue_tm_rsp.
 *   SRP_I_LOGOUT: the channel is closed.
 *
 * Credits: a credit is a posted receive buffer.  Each reposted buffer adds
 * one to req_lim_delta, each response hands req_lim_delta to the initiator.
 * A buffer that carries immediate data is reposted when the command's data
 * is no longer needed, before its response is built.
 *
 * Send queue: every post first takes its work requests from sq_wr_avail;
 * when that would go negative the LIO callback returns -ENOMEM and LIO
 * retries it later, so a full send queue delays a response, never drops it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/scatterlist.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "srpt.h"
#include "srpt_compat.h"
#include "srpt_trace.h"

static void srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc);
static void srpt_rdma_err_done(struct ib_cq *cq, struct ib_wc *wc);
static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc);
static bool srpt_iu_uses_credit(const struct srpt_recv_ioctx *r);
static void srpt_send_cred_req(struct srpt_send_ioctx *ioctx);

static inline struct srpt_send_ioctx *srpt_ioctx(struct se_cmd *se_cmd)
{
	return container_of(se_cmd, struct srpt_send_ioctx, cmd);
}

/**
 * srpt_ioctx_init() - one-time set-up of a command context
 * @ch: channel that owns it
 * @ioctx: the context
 */
void srpt_ioctx_init(struct srpt_channel *ch, struct srpt_send_ioctx *ioctx)
{
	ioctx->ch = ch;
	ioctx->rdma_cqe.done = srpt_rdma_read_done;
	ioctx->rdma_err_cqe.done = srpt_rdma_err_done;
	ioctx->send_cqe.done = srpt_send_done;
	ioctx->state = SRPT_CMD_FREE;
	INIT_LIST_HEAD(&ioctx->free_entry);
	INIT_LIST_HEAD(&ioctx->sq_entry);
}

/**
 * srpt_sync_data() - pass a command's data buffers to the CPU or the HCA
 * @ioctx: the command
 * @for_cpu: true after the HCA wrote the data (RDMA READ done), before LIO
 *	reads it; false after LIO wrote it, before the RDMA WRITEs
 *
 * rdma_rw maps the buffers when the command arrives, long before either
 * side has touched them; with bounce buffers (swiotlb) or a non-coherent
 * device the data only moves between the two views here.
 */
static void srpt_sync_data(struct srpt_send_ioctx *ioctx, bool for_cpu)
{
	struct ib_device *ib_dev = ioctx->ch->sport->sdev->ib_dev;
	enum dma_data_direction dir = ioctx->dir == SRPT_DIR_OUT ?
				      DMA_FROM_DEVICE : DMA_TO_DEVICE;
	unsigned int i;

	if (ib_uses_virt_dma(ib_dev))
		return;
	for (i = 0; i < ioctx->n_rw; i++) {
		struct srpt_rw *rw = &ioctx->rw[i];

		if (for_cpu)
			dma_sync_sg_for_cpu(ib_dev->dma_device, rw->sg,
					    rw->nents, dir);
		else
			dma_sync_sg_for_device(ib_dev->dma_device, rw->sg,
					       rw->nents, dir);
	}
}

/**
 * srpt_post_recv() - post one receive buffer
 * @ch: channel owning the buffer (unused, may be NULL, for SRQ buffers)
 * @r: the buffer; SRQ buffers go to their device's SRQ
 *
 * The buffer goes back to the device first: the CPU has read it since the
 * last receive (srpt_recv_done() synced it for the CPU).
 *
 * Return: 0 or the errno of ib_post_recv()/ib_post_srq_recv().
 */
int srpt_post_recv(struct srpt_channel *ch, struct srpt_recv_ioctx *r)
{
	struct srpt_device *sdev = r->sdev ? r->sdev : ch->sport->sdev;
	struct ib_sge sge = {
		.addr = r->dma,
		.length = srpt_max_req_size,
		.lkey = sdev->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &r->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	ib_dma_sync_single_for_device(sdev->ib_dev, r->dma, srpt_max_req_size,
				      DMA_FROM_DEVICE);
	if (r->sdev)
		return ib_post_srq_recv(r->sdev->srq, &wr, NULL);
	return ib_post_recv(ch->qp, &wr, NULL);
}

/**
 * srpt_repost_recv() - give a receive buffer back, which frees a credit
 * @ch: channel
 * @r: the buffer
 *
 * A channel's own buffer is not posted once the channel is closing (it
 * stays idle until the ring is freed); an SRQ buffer always goes back to
 * the SRQ, which other channels share.  The buffer's IU must still be in
 * it: its opcode says whether reposting returns a credit.
 */
static void srpt_repost_recv(struct srpt_channel *ch, struct srpt_recv_ioctx *r)
{
	unsigned long flags;
	bool live = READ_ONCE(ch->state) < SRPT_CH_DISCONNECTING;
	bool credit = srpt_iu_uses_credit(r);
	int ret;

	if (!live && !r->sdev)
		return;
	ret = srpt_post_recv(ch, r);
	if (ret) {
		pr_warn_ratelimited("%s: reposting a receive failed (%d)\n",
				    ch->sess_name, ret);
		srpt_ch_close(ch, "receive post failed");
		return;
	}
	if (!live || !credit)
		return;
	spin_lock_irqsave(&ch->lock, flags);
	ch->req_lim_delta++;
	spin_unlock_irqrestore(&ch->lock, flags);
}

/**
 * srpt_take_credits() - credits to return in the next response
 * @ch: channel
 *
 * Return: the receive buffers reposted since the last response.
 */
static s32 srpt_take_credits(struct srpt_channel *ch)
{
	unsigned long flags;
	s32 delta;

	spin_lock_irqsave(&ch->lock, flags);
	delta = ch->req_lim_delta;
	ch->req_lim_delta = 0;
	ch->req_lim += delta;
	spin_unlock_irqrestore(&ch->lock, flags);
	return delta;
}

/**
 * srpt_undo_credits() - a response carrying credits could not be posted
 * @ch: channel
 * @delta: the credits it carried
 */
static void srpt_undo_credits(struct srpt_channel *ch, s32 delta)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	ch->req_lim_delta += delta;
	ch->req_lim -= delta;
	spin_unlock_irqrestore(&ch->lock, flags);
}

/**
 * srpt_sq_reserve() - take send queue entries
 * @ch: channel
 * @n: entries needed
 *
 * Requests share ch->sq_size entries.  One that needs more than that (a
 * descriptor table larger than a small srp_sq_size) may also take the
 * ch->sq_extra entries the QP has beyond them: it drives sq_wr_avail below
 * zero, which keeps every other request out until its entries are back,
 * so the QP never holds more than sq_size + sq_extra requests and a large
 * command waits at most for one other large command.
 *
 * Return: true if the entries are now reserved.
 */
static bool srpt_sq_reserve(struct srpt_channel *ch, unsigned int n)
{
	int left = atomic_sub_return(n, &ch->sq_wr_avail);

	if (left >= 0 || (n > ch->sq_size && left >= -(int)ch->sq_extra))
		return true;
	atomic_add(n, &ch->sq_wr_avail);
	return false;
}

/**
 * srpt_get_ioctx() - take a free command context
 * @ch: channel
 *
 * Return: the context, or NULL when all are in use or the channel is not
 * live.
 */
static struct srpt_send_ioctx *srpt_get_ioctx(struct srpt_channel *ch)
{
	struct srpt_send_ioctx *ioctx;
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	/*
	 * Only while live: a busy context keeps a closing channel's release
	 * waiting (srpt_ch_wait_idle()), so none may be taken once it could
	 * have stopped waiting.
	 */
	ioctx = ch->state == SRPT_CH_LIVE ?
		list_first_entry_or_null(&ch->free_list,
					 struct srpt_send_ioctx, free_entry) :
		NULL;
	if (ioctx) {
		list_del_init(&ioctx->free_entry);
		ch->n_busy++;
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!ioctx)
		return NULL;

	ioctx->start = jiffies;
	ioctx->responded = false;
	ioctx->cred_req = false;
	ioctx->t_logout = false;
	ioctx->reported = false;

	ioctx->state = SRPT_CMD_NEW;
	ioctx->recv = NULL;
	ioctx->rw = NULL;
	ioctx->n_rw = 0;
	ioctx->n_wr = 0;
	ioctx->rsp_wrs = 0;
	ioctx->dir = SRPT_DIR_NONE;
	ioctx->in_lio = false;
	return ioctx;
}

/**
 * srpt_pool_put() - keep the pages of a data buffer for the next commands
 * @ch: channel
 * @sg: the buffer, one page per entry
 * @n: entries
 *
 * What does not fit in the channel's pool (%SRPT_POOL_PAGES) is freed.
 */
static void srpt_pool_put(struct srpt_channel *ch, struct scatterlist *sg,
			  u32 n)
{
	unsigned long flags;
	u32 i = 0;

	spin_lock_irqsave(&ch->pool_lock, flags);
	for (; i < n && ch->pool_n < SRPT_POOL_PAGES; i++, ch->pool_n++)
		list_add(&sg_page(&sg[i])->lru, &ch->pool);
	spin_unlock_irqrestore(&ch->pool_lock, flags);
	for (; i < n; i++)
		__free_page(sg_page(&sg[i]));
}

/**
 * srpt_pool_get() - pages for a data buffer from the channel's pool
 * @ch: channel
 * @sg: the buffer's entries
 * @n: entries wanted
 * @len: bytes of the buffer
 *
 * Return: how many entries, from the first, got a page.
 */
static u32 srpt_pool_get(struct srpt_channel *ch, struct scatterlist *sg,
			 u32 n, u32 len)
{
	unsigned long flags;
	struct page *page;
	u32 i = 0;

	if (!READ_ONCE(ch->pool_n))
		return 0;
	spin_lock_irqsave(&ch->pool_lock, flags);
	for (; i < n && ch->pool_n; i++, ch->pool_n--) {
		page = list_first_entry(&ch->pool, struct page, lru);
		list_del(&page->lru);
		sg_set_page(&sg[i], page,
			    min_t(u32, len - i * PAGE_SIZE, PAGE_SIZE), 0);
	}
	spin_unlock_irqrestore(&ch->pool_lock, flags);
	return i;
}

/**
 * srpt_pool_drain() - free the pages a channel kept
 * @ch: channel, no command of it running
 */
void srpt_pool_drain(struct srpt_channel *ch)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, &ch->pool, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
	ch->pool_n = 0;
}

/**
 * srpt_free_data() - give back the local data buffer of a command
 * @ioctx: the command
 *
 * The page the context keeps (see srpt_alloc_data()) stays with it; any
 * other buffer is a table of single pages, which go to the channel's pool
 * (srpt_pool_put()).
 */
static void srpt_free_data(struct srpt_send_ioctx *ioctx)
{
	if (ioctx->charged) {
		atomic_sub(ioctx->charged, &ioctx->ch->data_held);
		ioctx->charged = 0;
	}
	if (ioctx->data_sgl && ioctx->data_sgl != &ioctx->data_sg) {
		srpt_pool_put(ioctx->ch, ioctx->data_sgl, ioctx->data_nents);
		kfree(ioctx->data_sgl);
	}
	ioctx->data_sgl = NULL;
	ioctx->data_nents = 0;
	kfree(ioctx->rdma_sg);
	ioctx->rdma_sg = NULL;
}

/**
 * srpt_unmap_data() - release the RDMA contexts and data buffer of a command
 * @ioctx: the command
 */
static void srpt_unmap_data(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;
	enum dma_data_direction dir = ioctx->dir == SRPT_DIR_OUT ?
				      DMA_FROM_DEVICE : DMA_TO_DEVICE;
	unsigned int i;

	for (i = 0; i < ioctx->n_rw; i++) {
		struct srpt_rw *rw = &ioctx->rw[i];

		rdma_rw_ctx_destroy(&rw->rw, ch->qp, ch->sport->port_num,
				    rw->sg, rw->nents, dir);
	}
	srpt_free_data(ioctx);
	if (ioctx->rw != ioctx->rw_inline)
		kfree(ioctx->rw);
	ioctx->rw = NULL;
	ioctx->n_rw = 0;
}

/**
 * srpt_free_ioctx_locked() - a context back on the free list
 * @ioctx: the context, busy until now
 *
 * Wakes a closing channel's release when the last busy context comes back.
 * Caller holds ch->lock.
 */
static void srpt_free_ioctx_locked(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;

	lockdep_assert_held(&ch->lock);
	ioctx->state = SRPT_CMD_FREE;
	list_add(&ioctx->free_entry, &ch->free_list);
	ch->n_busy--;
	if (!ch->n_busy && ch->state != SRPT_CH_LIVE)
		wake_up(&ch->idle_wq);
}

/**
 * srpt_put_ioctx() - return a command context to the free list
 * @ioctx: the context
 *
 * Gives back an immediate-data receive buffer still held (aborted command)
 * and lets requests waiting for a context go on.  When the last busy
 * context of a live channel was a request that got no response (aborted),
 * no response is left to carry the credits its buffer freed: the context
 * is reused at once for an SRP_CRED_REQ that returns them.
 *
 * The last busy context of a closing channel wakes the release work, which
 * then frees the channel: nothing here touches @ch after the lock is
 * dropped.
 */
static void srpt_put_ioctx(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;
	bool no_rsp = !ioctx->responded;
	unsigned long flags;
	bool live, cred;

	srpt_unmap_data(ioctx);
	if (ioctx->recv) {
		srpt_repost_recv(ch, ioctx->recv);
		ioctx->recv = NULL;
	}
	kfree(ioctx->cdb_ext);
	ioctx->cdb_ext = NULL;
	spin_lock_irqsave(&ch->lock, flags);
	live = ch->state == SRPT_CH_LIVE;
	cred = no_rsp && live && ch->n_busy == 1 && ch->req_lim_delta > 0 &&
	       list_empty(&ch->wait_list);
	if (!cred) {
		srpt_free_ioctx_locked(ioctx);
		if (live && !list_empty(&ch->wait_list))
			queue_work(system_wq, &ch->wait_work);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (cred)
		srpt_send_cred_req(ioctx);
}

/**
 * srpt_unget_ioctx() - give back a context whose request has to wait
 * @ioctx: taken by srpt_get_ioctx(), nothing sent for it, its receive
 *	buffer not reposted (the request goes back on the wait list)
 */
static void srpt_unget_ioctx(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;
	unsigned long flags;

	srpt_unmap_data(ioctx);
	kfree(ioctx->cdb_ext);
	ioctx->cdb_ext = NULL;
	spin_lock_irqsave(&ch->lock, flags);
	srpt_free_ioctx_locked(ioctx);
	spin_unlock_irqrestore(&ch->lock, flags);
}

/**
 * srpt_wait_later() - put a request on the wait list
 * @ch: channel
 * @r: the request
 * @head: at the head (it was first already) rather than the tail
 *
 * Every context put back runs the list (srpt_put_ioctx()); when none is in
 * use any more, nothing would: then it runs now, and finds what it waited
 * for (no context busy means no data buffer held either).
 */
static void srpt_wait_later(struct srpt_channel *ch, struct srpt_recv_ioctx *r,
			    bool head)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	if (head)
		list_add(&r->wait_entry, &ch->wait_list);
	else
		list_add_tail(&r->wait_entry, &ch->wait_list);
	if (!ch->n_busy && ch->state == SRPT_CH_LIVE)
		queue_work(system_wq, &ch->wait_work);
	spin_unlock_irqrestore(&ch->lock, flags);
}

/**
 * srpt_ioctx_done() - a request's response completed or can never be sent
 * @ioctx: the request
 *
 * A request LIO knows goes back through LIO, which calls release_cmd; any
 * other goes straight back to the free list.
 */
static void srpt_ioctx_done(struct srpt_send_ioctx *ioctx)
{
	if (ioctx->in_lio)
		transport_generic_free_cmd(&ioctx->cmd, 0);
	else
		srpt_put_ioctx(ioctx);
}

/**
 * srpt_alloc_pages() - a data buffer of @len bytes, one page per entry
 * @ch: the channel whose pool is used first
 * @len: bytes, more than zero
 * @sgl: receives the scatterlist
 * @nents: receives its number of entries
 *
 * LIO's contract for the data buffer of a command: every entry is one
 * whole page, but for a shorter last one.  Where LIO maps the data itself
 * (transport_kmap_data_sg() for the commands it emulates) it vmaps the
 * entries' pages back to back, and pscsi builds its bios page by page:
 * an entry that spans pages, or a short one in the middle, makes them read
 * or write past the data.
 *
 * The pages come first from the channel's pool (srpt_pool_get()), then in
 * blocks of up to 2^%SRPT_CHUNK_ORDER, allocated without reclaim retries
 * and split into single pages (split_page()), so a 128 KiB buffer costs
 * four page allocations instead of 32; when no block is free, single
 * pages are taken.  Each page is given back on its own (srpt_pool_put()).
 *
 * Return: 0 or -ENOMEM (nothing allocated).
 */
static int srpt_alloc_pages(struct srpt_channel *ch, u32 len,
			    struct scatterlist **sgl, u32 *nents)
{
	u32 n = DIV_ROUND_UP(len, PAGE_SIZE), i, j;
	struct scatterlist *sg;

	sg = kmalloc_array(n, sizeof(*sg), GFP_KERNEL);
	if (!sg)
		return -ENOMEM;
	sg_init_table(sg, n);
	i = srpt_pool_get(ch, sg, n, len);
	while (i < n) {
		unsigned int order = min_t(unsigned int, ilog2(n - i),
					   SRPT_CHUNK_ORDER);
		struct page *page = NULL;

		if (order)
			page = alloc_pages(GFP_KERNEL | __GFP_NORETRY |
					   __GFP_NOWARN, order);
		if (page) {
			split_page(page, order);
		} else {
			order = 0;
			page = alloc_page(GFP_KERNEL);
			if (!page) {
				srpt_pool_put(ch, sg, i);
				kfree(sg);
				return -ENOMEM;
			}
		}
		for (j = 0; j < 1U << order; j++, i++)
			sg_set_page(&sg[i], page + j,
				    min_t(u32, len - i * PAGE_SIZE, PAGE_SIZE),
				    0);
	}
	*sgl = sg;
	*nents = n;
	return 0;
}

/**
 * srpt_alloc_data() - the local data buffer of a command
 * @ioctx: the command
 * @len: bytes, the sum of its remote buffers, more than zero
 *
 * One buffer for the whole command, however many remote buffers the
 * initiator gave (see srpt_alloc_pages() for why).  Up to a page, such as
 * a 4 KiB read, uses the page the context keeps for that: allocating and
 * freeing a page for every such command was about a third of the target's
 * completion work in a profile of 4 KiB random reads.
 *
 * Return: 0 or -ENOMEM.
 */
static int srpt_alloc_data(struct srpt_send_ioctx *ioctx, u32 len)
{
	ioctx->data_len = len;
	if (len <= PAGE_SIZE) {
		if (!ioctx->data_page)
			ioctx->data_page = alloc_page(GFP_KERNEL);
		if (ioctx->data_page) {
			sg_init_table(&ioctx->data_sg, 1);
			sg_set_page(&ioctx->data_sg, ioctx->data_page, len, 0);
			ioctx->data_sgl = &ioctx->data_sg;
			ioctx->data_nents = 1;
			return 0;
		}
	}
	return srpt_alloc_pages(ioctx->ch, len, &ioctx->data_sgl,
				&ioctx->data_nents);
}

/**
 * srpt_charge_data() - count a command's data buffer against its channel
 * @ch: channel
 * @ioctx: the command
 * @len: bytes its buffer will hold
 *
 * A channel's commands hold at most ch->max_data_held bytes of data
 * buffers at a time (max_channel_data): the bound on what an initiator
 * that sends many large commands can make the target allocate.  The bytes
 * go back in srpt_free_data().
 *
 * Return: 0, or -ENOSPC when the command would exceed the bound.
 */
static int srpt_charge_data(struct srpt_channel *ch,
			    struct srpt_send_ioctx *ioctx, u32 len)
{
	if (atomic_add_return(len, &ch->data_held) > ch->max_data_held) {
		atomic_sub(len, &ch->data_held);
		return -ENOSPC;
	}
	ioctx->charged = len;
	return 0;
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
 * srpt_map_data() - set up the RDMA transfers described by an SRP_CMD
 * @ch: channel
 * @ioctx: the command
 * @ci: the parsed command, with @ci->ndesc direct descriptors
 * @sgl: receives the scatterlist for LIO
 * @nents: receives its number of entries
 *
 * The command gets one data buffer (srpt_alloc_data()), which LIO fills
 * (reads) or which the RDMA READs fill (writes); each remote buffer gets an
 * rdma_rw context over its part of it, in order: over the whole buffer when
 * there is one, over a slice of the buffer's pages (srpt_slice()) when
 * there are several.
 *
 * Return: 0, -ENOSPC when the channel holds its max_channel_data already
 * (srpt_charge_data()), or another negative errno (srpt_unmap_data()
 * releases what was set up).
 */
static int srpt_map_data(struct srpt_channel *ch, struct srpt_send_ioctx *ioctx,
			 const struct srpt_cmd_info *ci,
			 struct scatterlist **sgl, u32 *nents)
{
	enum dma_data_direction dir = ci->dir == SRPT_DIR_OUT ?
				      DMA_FROM_DEVICE : DMA_TO_DEVICE;
	struct scatterlist *slice;
	u32 i, off = 0;
	int ret;

	*sgl = NULL;
	*nents = 0;
	if (!ci->data_len)
		return 0;
	if (ci->ndesc <= SRPT_MAX_INLINE_RW) {
		ioctx->rw = ioctx->rw_inline;
	} else {
		ioctx->rw = kmalloc_array(ci->ndesc, sizeof(*ioctx->rw),
					  GFP_KERNEL);
		if (!ioctx->rw)
			return -ENOMEM;
	}
	ret = srpt_charge_data(ch, ioctx, ci->data_len);
	if (ret)
		return ret;
	ret = srpt_alloc_data(ioctx, ci->data_len);
	if (ret)
		return ret;
	if (ci->ndesc > 1) {
		/* Each slice has an entry per page, one more where unaligned. */
		ioctx->rdma_sg = kmalloc_array(ioctx->data_nents + ci->ndesc,
					       sizeof(*ioctx->rdma_sg),
					       GFP_KERNEL);
		if (!ioctx->rdma_sg)
			return -ENOMEM;
	}
	slice = ioctx->rdma_sg;

	for (i = 0; i < ci->ndesc; i++) {
		struct srpt_rw *rw = &ioctx->rw[ioctx->n_rw];
		struct srpt_buf_desc bd;

		srpt_buf_desc_get(&ci->desc[i], &bd);
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
	*sgl = ioctx->data_sgl;
	*nents = ioctx->data_nents;
	return 0;
}

/**
 * srpt_post_send() - post a chain of work requests to a channel's send queue
 * @ch: channel
 * @first: the chain; its entries are reserved in sq_wr_avail
 * @what: what is posted, for the log
 *
 * With the entries reserved, a full queue cannot be why a post fails: the
 * QP is unusable, and the channel is closed.  (Retrying would not help, and
 * a response that is never sent leaves the initiator waiting.)
 *
 * Return: 0 or the negative errno of ib_post_send().
 */
static int srpt_post_send(struct srpt_channel *ch, struct ib_send_wr *first,
			  const char *what)
{
	int ret = srpt_fault_post_send() ? -ENOMEM :
		  ib_post_send(ch->qp, first, NULL);

	if (unlikely(ret)) {
		pr_warn_ratelimited("%s: posting %s failed (%d)\n",
				    ch->sess_name, what, ret);
		srpt_ch_close(ch, "posting to the send queue failed");
	}
	return ret;
}

/**
 * srpt_wc_error() - a work request of a channel completed with an error
 * @ch: channel
 * @wc: the completion
 * @what: what the request was, for the log
 * @tag: tag of the request it belonged to, or 0
 *
 * Every error closes the channel, a flush too: the QP is in the error state
 * then, so nothing more would get through.  Errors other than flushes are
 * counted (rdma_errors) and logged.
 */
static void srpt_wc_error(struct srpt_channel *ch, const struct ib_wc *wc,
			  const char *what, u64 tag)
{
	if (wc->status != IB_WC_WR_FLUSH_ERR) {
		atomic64_inc(&ch->stats.rdma_errors);
		pr_warn_ratelimited("%s: %s for tag 0x%llx failed: %s\n",
				    ch->sess_name, what, tag,
				    ib_wc_status_msg(wc->status));
	}
	srpt_ch_close(ch, wc->status == IB_WC_WR_FLUSH_ERR ?
		      "work requests flushed" : "RDMA transfer error");
}

/**
 * srpt_watch_rdma_errors() - route the error completions of RDMA requests
 * @ioctx: the command
 * @first: its chain of work requests
 *
 * rdma_rw leaves every request but the last of a chain without a
 * completion entry, and unsignaled: the CQ layer drops the error
 * completion of such a request (it calls only wr_cqe->done), so a failed
 * RDMA WRITE (bad rkey, initiator gone) went unseen and the channel stayed
 * live with its QP in error.  Those requests get srpt_rdma_err_done()
 * (still unsignaled: it runs only for an error).
 */
static void srpt_watch_rdma_errors(struct srpt_send_ioctx *ioctx,
				   struct ib_send_wr *first)
{
	for (; first; first = first->next)
		if (!first->wr_cqe)
			first->wr_cqe = &ioctx->rdma_err_cqe;
}

/**
 * srpt_post_reserved() - build and post a response, after any RDMA WRITEs
 * @ioctx: the request
 * @a: response fields; req_lim_delta is filled in here
 * @with_data: chain the command's RDMA WRITEs in front of the SEND
 * @n: send queue entries already reserved for all of it
 *
 * The IU is an SRP_RSP, or an SRP_CRED_REQ if @ioctx->cred_req is set, or
 * an SRP_T_LOGOUT if @ioctx->t_logout is.  An SRP_RSP or SRP_CRED_REQ
 * carries every credit freed so far.
 *
 * Return: 0, or -EIO when the post failed (see srpt_post_send()): then
 * the entries and the credits are given back and nothing was posted.
 */
static int srpt_post_reserved(struct srpt_send_ioctx *ioctx,
			      struct srpt_rsp_args *a, bool with_data,
			      unsigned int n)
{
	struct srpt_channel *ch = ioctx->ch;
	struct ib_device *ib_dev = ch->sport->sdev->ib_dev;
	struct ib_send_wr send_wr = { }, *first = &send_wr;
	struct ib_sge sge;
	size_t len;
	int i, ret;

	a->req_lim_delta = ioctx->t_logout ? 0 : srpt_take_credits(ch);
	if (ioctx->t_logout)
		len = srpt_build_t_logout(ioctx->rsp_buf, ch->max_ti_iu_len,
					  ioctx->tag, ch->t_logout_reason);
	else if (ioctx->cred_req)
		len = srpt_build_cred_req(ioctx->rsp_buf, ch->max_ti_iu_len,
					  ioctx->tag, a->req_lim_delta);
	else
		len = srpt_build_rsp(ioctx->rsp_buf, ch->max_ti_iu_len, a);
	ib_dma_sync_single_for_device(ib_dev, ioctx->rsp_dma, len,
				      DMA_TO_DEVICE);

	sge.addr = ioctx->rsp_dma;
	sge.length = len;
	sge.lkey = ch->sport->sdev->pd->local_dma_lkey;
	send_wr.wr_cqe = &ioctx->send_cqe;
	send_wr.opcode = IB_WR_SEND;
	send_wr.send_flags = IB_SEND_SIGNALED;
	send_wr.sg_list = &sge;
	send_wr.num_sge = 1;

	if (with_data) {
		for (i = ioctx->n_rw - 1; i >= 0; i--)
			first = rdma_rw_ctx_wrs(&ioctx->rw[i].rw, ch->qp,
						ch->sport->port_num, NULL,
						first);
		srpt_watch_rdma_errors(ioctx, first);
	}

	ioctx->rsp_wrs = n;
	ioctx->state = SRPT_CMD_RSP_SENT;
	ioctx->responded = true;
	trace_srpt_rsp(ch->id, ioctx->tag, ioctx->cred_req, a->status,
		       a->req_lim_delta, n);
	ret = srpt_post_send(ch, first, "a response");
	if (ret) {
		atomic_add(n, &ch->sq_wr_avail);
		ioctx->rsp_wrs = 0;
		ioctx->responded = false;
		srpt_undo_credits(ch, a->req_lim_delta);
		ret = -EIO;
	}
	return ret;
}

/**
 * srpt_post_rsp() - post the response of a command LIO completed
 * @ioctx: the command
 * @a: response fields; req_lim_delta is filled in here
 * @with_data: chain the command's RDMA WRITEs in front of the SEND
 *
 * Return: 0, or -ENOMEM when the send queue is full (nothing posted; LIO
 * retries the callback), or another negative errno.
 */
static int srpt_post_rsp(struct srpt_send_ioctx *ioctx,
			 struct srpt_rsp_args *a, bool with_data)
{
	unsigned int n = 1 + (with_data ? ioctx->n_wr : 0);

	if (!srpt_sq_reserve(ioctx->ch, n)) {
		atomic64_inc(&ioctx->ch->stats.sq_full);
		return -ENOMEM;
	}
	return srpt_post_reserved(ioctx, a, with_data, n);
}

/**
 * srpt_send_own() - post a driver-built response that has its queue entry
 * @ioctx: the request, @ioctx->rsp filled in
 */
static void srpt_send_own(struct srpt_send_ioctx *ioctx)
{
	if (srpt_post_reserved(ioctx, &ioctx->rsp, false, 1))
		srpt_ioctx_done(ioctx);
}

/**
 * srpt_sq_kick() - post waiting driver-built responses while there is room
 * @ch: channel
 *
 * Called by whoever queued a response and by every completion that gives
 * send queue entries back, so a waiting response cannot be forgotten: its
 * owner re-checks the room after queueing it, and a completion that frees
 * room after that finds it on the list.
 */
static void srpt_sq_kick(struct srpt_channel *ch)
{
	struct srpt_send_ioctx *ioctx;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&ch->lock, flags);
		ioctx = list_first_entry_or_null(&ch->sq_wait,
						 struct srpt_send_ioctx,
						 sq_entry);
		if (!ioctx || !srpt_sq_reserve(ch, 1)) {
			spin_unlock_irqrestore(&ch->lock, flags);
			return;
		}
		list_del_init(&ioctx->sq_entry);
		spin_unlock_irqrestore(&ch->lock, flags);
		srpt_send_own(ioctx);
	}
}

/**
 * srpt_sq_released() - send queue entries came back
 * @ch: channel
 * @n: how many
 */
static void srpt_sq_released(struct srpt_channel *ch, unsigned int n)
{
	atomic_add(n, &ch->sq_wr_avail);
	/* Pairs with the ordered srpt_sq_reserve() of a response's owner. */
	smp_mb__after_atomic();
	if (!list_empty(&ch->sq_wait))
		srpt_sq_kick(ch);
}

/**
 * srpt_queue_own() - send a response LIO cannot retry for us
 * @ioctx: the request, @ioctx->rsp filled in
 *
 * TMF results, answers to requests LIO never saw and SRP_CRED_REQs are
 * never dropped: when the send queue is full they wait, in order, on the
 * channel's sq_wait list until a completion makes room.
 */
static void srpt_queue_own(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;
	unsigned long flags;
	bool now;

	spin_lock_irqsave(&ch->lock, flags);
	now = list_empty(&ch->sq_wait) && srpt_sq_reserve(ch, 1);
	if (!now)
		list_add_tail(&ioctx->sq_entry, &ch->sq_wait);
	spin_unlock_irqrestore(&ch->lock, flags);
	if (now) {
		srpt_send_own(ioctx);
		return;
	}
	atomic64_inc(&ch->stats.sq_full);
	srpt_sq_kick(ch);
}

/**
 * srpt_send_cred_req() - give freed credits back without a response
 * @ioctx: a context of the channel, still counted as busy, that carries
 *	the SRP_CRED_REQ
 */
static void srpt_send_cred_req(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;

	ioctx->state = SRPT_CMD_NEW;
	ioctx->in_lio = false;
	ioctx->start = jiffies;
	ioctx->cred_req = true;
	/* Unique while in flight; the initiator echoes it in SRP_CRED_RSP. */
	ioctx->tag = SRPT_CRED_REQ_TAG | (ioctx - ch->ioctx_ring);
	memset(&ioctx->rsp, 0, sizeof(ioctx->rsp));
	atomic64_inc(&ch->stats.cred_reqs);
	srpt_queue_own(ioctx);
}

/**
 * srpt_t_logout() - end a channel with an SRP_T_LOGOUT
 * @ch: channel, live
 * @reason: SRPT_T_LOGOUT_* reason code
 *
 * For protocol errors after which the channel cannot go on (an IU the
 * target cannot parse at all): the initiator is told why (SRP r16a allows
 * the target to log out), and the channel is closed once the SRP_T_LOGOUT
 * has completed (srpt_send_done()).  Until then no more requests are
 * handled.  If no command context is free the channel is closed at once.
 */
static void srpt_t_logout(struct srpt_channel *ch, u32 reason)
{
	struct srpt_send_ioctx *ioctx;
	unsigned long flags;
	bool first;

	spin_lock_irqsave(&ch->lock, flags);
	first = !ch->t_logout;
	ch->t_logout = true;
	ch->t_logout_reason = reason;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!first)
		return;
	ioctx = srpt_get_ioctx(ch);
	if (!ioctx) {
		srpt_ch_close(ch, "protocol error");
		return;
	}
	ioctx->t_logout = true;
	ioctx->tag = 0;
	memset(&ioctx->rsp, 0, sizeof(ioctx->rsp));
	srpt_queue_own(ioctx);
}

/**
 * srpt_send_error_rsp() - answer a request LIO never saw
 * @ioctx: context taken for the request
 * @tag: the request's tag
 * @status: SCSI status
 * @key: sense key (0 for none)
 * @asc: additional sense code
 * @ascq: additional sense code qualifier
 * @tmf_code: for a task management request, its response code; else -1
 *
 * The context goes back to the free list when the SEND completes, or at
 * once if nothing could be posted.
 */
static void srpt_send_error_rsp(struct srpt_send_ioctx *ioctx, u64 tag,
				u8 status, u8 key, u8 asc, u8 ascq,
				int tmf_code)
{
	struct srpt_rsp_args *a = &ioctx->rsp;
	u8 *sense = ioctx->sense;

	memset(a, 0, sizeof(*a));
	a->tag = tag;
	a->status = status;
	if (key) {
		memset(sense, 0, SRPT_FIXED_SENSE_LEN);
		sense[0] = 0x70;	/* fixed format, current error */
		sense[2] = key;
		sense[7] = SRPT_FIXED_SENSE_LEN - 8;
		sense[12] = asc;
		sense[13] = ascq;
		a->sense = sense;
		a->sense_len = SRPT_FIXED_SENSE_LEN;
	}
	if (tmf_code >= 0) {
		a->has_resp_code = true;
		a->resp_code = tmf_code;
	}
	srpt_queue_own(ioctx);
}

/**
 * srpt_unpack_lun() - LIO LUN number of an SRP LUN field
 * @lun: the 8 LUN bytes as the parser returns them (be64_to_cpu() of the
 *	wire bytes)
 *
 * Return: the LUN in LIO's flat numbering (scsilun_to_int() of the wire
 * bytes).
 */
static u64 srpt_unpack_lun(u64 lun)
{
	__be64 wire = cpu_to_be64(lun);

	return scsilun_to_int((struct scsi_lun *)&wire);
}

/**
 * srpt_iu_tag() - tag of a received request, for answering it
 * @r: receive buffer, byte_len set
 *
 * Every request IU carries its tag in bytes 8..15, decoded the way the
 * parsers decode it.
 *
 * Return: the tag, or 0 when the IU is too short to carry one.
 */
static u64 srpt_iu_tag(const struct srpt_recv_ioctx *r)
{
	__be64 tag;

	if (r->byte_len < 16)
		return 0;
	memcpy(&tag, (const u8 *)r->buf + 8, sizeof(tag));
	return be64_to_cpu(tag);
}

static int srpt_lio_task_attr(u8 attr)
{
	switch (attr) {
	case SRPT_TASK_ATTR_HEAD_OF_QUEUE:
		return TCM_HEAD_TAG;
	case SRPT_TASK_ATTR_ORDERED:
		return TCM_ORDERED_TAG;
	case SRPT_TASK_ATTR_ACA:
		return TCM_ACA_TAG;
	default:
		return TCM_SIMPLE_TAG;
	}
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
static unsigned int srpt_imm_sgl(struct scatterlist *sgl, unsigned int max,
				 u8 *buf, u32 len)
{
	unsigned int n = 0;

	if (!len)
		return 0;
	sg_init_table(sgl, max);
	while (len && n < max) {
		u32 l = min_t(u32, len, PAGE_SIZE - offset_in_page(buf));

		sg_set_buf(&sgl[n++], buf, l);
		buf += l;
		len -= l;
	}
	sg_mark_end(&sgl[n - 1]);
	return n;
}

/**
 * srpt_handle_cmd() - process an SRP_CMD
 * @ch: channel
 * @r: receive buffer holding the IU
 * @ioctx: a free command context
 *
 * A malformed command is answered with CHECK CONDITION (sense from
 * srpt_cmd_err_sense()) without reaching LIO.  The receive buffer is
 * reposted before LIO sees the command, unless it carries immediate data.
 *
 * Return: false if the command has to wait until the channel's commands
 * hold less data (max_channel_data): @ioctx is given back, @r is not
 * reposted; true otherwise.
 */
static bool srpt_handle_cmd(struct srpt_channel *ch, struct srpt_recv_ioctx *r,
			    struct srpt_send_ioctx *ioctx)
{
	struct srpt_cmd_info ci;
	enum srpt_cmd_err err = SRPT_CMD_OK;
	struct scatterlist *sgl = NULL;
	u64 lun;
	enum dma_data_direction dma_dir;
	u32 nents = 0;
	u8 key, asc, ascq;
	u8 *cdb;
	int ret;

	ret = srpt_cmd_parse(r->buf, r->byte_len, ch->imm_data,
			     ch->imm_data_offset, &ci, &err);
	if (!ret)
		ret = srpt_cmd_check_limits(r->byte_len, &ci,
					    ch->max_it_iu_len,
					    ch->max_cmd_data, &err);
	if (!ret && ci.cdb_len > SRPT_MAX_CDB_LEN) {
		ret = -EINVAL;
		err = SRPT_CMD_CDB_OVERFLOW;
	}
	if (ret) {
		u64 tag = srpt_iu_tag(r);

		atomic64_inc(&ch->stats.malformed);
		trace_srpt_bad_iu(ch->id, SRPT_OP_CMD, r->byte_len, err);
		pr_warn_ratelimited("%s: malformed SRP_CMD (tag 0x%llx, %u bytes): %s\n",
				    ch->sess_name, tag, r->byte_len,
				    srpt_cmd_err_str(err));
		srpt_repost_recv(ch, r);
		srpt_cmd_err_sense(err, &key, &asc, &ascq);
		srpt_send_error_rsp(ioctx, tag, SAM_STAT_CHECK_CONDITION, key,
				    asc, ascq, -1);
		return true;
	}

	ioctx->tag = ci.tag;
	ioctx->dir = ci.dir;
	ioctx->data_len = ci.data_len;
	lun = srpt_unpack_lun(ci.lun);
	trace_srpt_cmd(ch->id, ci.tag, lun, ci.cdb[0],
		       ci.data_len, ci.dir, ci.fmt == SRPT_DATA_DESC_IMM);
	/* A copy: the receive buffer is reposted before LIO sees the CDB. */
	cdb = ioctx->cdb;
	if (ci.cdb_len > sizeof(ioctx->cdb)) {
		/* Additional CDB bytes (rare): a copy of its own. */
		ioctx->cdb_ext = kmemdup(ci.cdb, ci.cdb_len, GFP_KERNEL);
		cdb = ioctx->cdb_ext;
		if (!cdb) {
			srpt_repost_recv(ch, r);
			srpt_send_error_rsp(ioctx, ci.tag, SAM_STAT_BUSY, 0, 0,
					    0, -1);
			return true;
		}
	} else {
		memcpy(cdb, ci.cdb, ci.cdb_len);
		memset(cdb + ci.cdb_len, 0, sizeof(ioctx->cdb) - ci.cdb_len);
	}

	if (ci.fmt == SRPT_DATA_DESC_IMM) {
		ioctx->recv = r;
		nents = srpt_imm_sgl(ioctx->imm_sg, ch->imm_sg_max,
				     r->buf + ci.imm_offset, ci.imm_len);
		sgl = nents ? ioctx->imm_sg : NULL;
		atomic64_inc(&ch->stats.imm_cmds);
	} else if (ci.ndesc) {
		ret = srpt_map_data(ch, ioctx, &ci, &sgl, &nents);
		if (ret == -ENOSPC) {
			/* Runs when other commands have given data back. */
			atomic64_inc(&ch->stats.data_full);
			srpt_unget_ioctx(ioctx);
			return false;
		}
		if (ret) {
			pr_warn_ratelimited("%s: mapping %u bytes for tag 0x%llx failed (%d)\n",
					    ch->sess_name, ci.data_len, ci.tag,
					    ret);
			srpt_unmap_data(ioctx);
			srpt_repost_recv(ch, r);
			srpt_send_error_rsp(ioctx, ci.tag, SAM_STAT_BUSY, 0, 0,
					    0, -1);
			return true;
		}
		/*
		 * The RDMA requests and the response must fit in the send
		 * queue at once, or LIO would retry the command for ever.
		 */
		if (ioctx->n_wr + 1 > ch->sq_size + ch->sq_extra) {
			pr_warn_ratelimited("%s: tag 0x%llx: %u bytes need %u RDMA requests, more than the send queue holds (%u)\n",
					    ch->sess_name, ci.tag, ci.data_len,
					    ioctx->n_wr,
					    ch->sq_size + ch->sq_extra);
			srpt_unmap_data(ioctx);
			srpt_repost_recv(ch, r);
			srpt_send_error_rsp(ioctx, ci.tag,
					    SAM_STAT_CHECK_CONDITION,
					    ILLEGAL_REQUEST, 0x24, 0x00, -1);
			return true;
		}
		/*
		 * A READ's backend fills its buffer; LIO's emulated commands
		 * may answer GOOD having filled less of it (RECEIVE COPY
		 * RESULTS), and what the buffer held before (a page of the
		 * pool, of the context, or one the allocator did not clear)
		 * must not go out.
		 */
		if (sgl && ci.dir == SRPT_DIR_IN && !srpt_cdb_reads_medium(cdb))
			sg_zero_buffer(sgl, nents, ci.data_len, 0);
	}
	if (!ioctx->recv)
		srpt_repost_recv(ch, r);

	atomic64_inc(&ch->stats.cmds);
	if (ci.dir == SRPT_DIR_OUT) {
		dma_dir = DMA_TO_DEVICE;
		atomic64_add(ci.data_len, &ch->stats.bytes_in);
	} else if (ci.dir == SRPT_DIR_IN) {
		dma_dir = DMA_FROM_DEVICE;
		atomic64_add(ci.data_len, &ch->stats.bytes_out);
	} else {
		dma_dir = DMA_NONE;
	}

	memset(&ioctx->cmd, 0, sizeof(ioctx->cmd));
	ioctx->in_lio = true;
	ret = target_init_cmd(&ioctx->cmd, ch->sess, ioctx->sense, lun,
			      ci.data_len, srpt_lio_task_attr(ci.task_attr),
			      dma_dir, TARGET_SCF_ACK_KREF);
	if (ret) {
		/* The session is being stopped: drop the command. */
		ioctx->in_lio = false;
		srpt_put_ioctx(ioctx);
		return true;
	}
	ioctx->cmd.tag = ci.tag;
	ioctx->state = SRPT_CMD_EXECUTING;
	if (target_submit_prep(&ioctx->cmd, cdb, sgl, nents, NULL, 0,
			       NULL, 0, GFP_KERNEL))
		return true;	/* LIO sent CHECK CONDITION */
	srpt_compat_target_submit(&ioctx->cmd);
	return true;
}

/**
 * srpt_tmf_to_lio() - LIO TMR code of an SRP task management function
 * @func: SRPT_TSK_* code
 *
 * Return: the TMR_* code, or -1 for an undefined function.
 */
static int srpt_tmf_to_lio(u8 func)
{
	switch (func) {
	case SRPT_TSK_ABORT_TASK:
		return TMR_ABORT_TASK;
	case SRPT_TSK_ABORT_TASK_SET:
		return TMR_ABORT_TASK_SET;
	case SRPT_TSK_CLEAR_TASK_SET:
		return TMR_CLEAR_TASK_SET;
	case SRPT_TSK_LUN_RESET:
		return TMR_LUN_RESET;
	case SRPT_TSK_CLEAR_ACA:
		return TMR_CLEAR_ACA;
	default:
		return -1;
	}
}

/**
 * srpt_handle_tmf() - process an SRP_TSK_MGMT
 * @ch: channel
 * @r: receive buffer holding the IU
 * @ioctx: a free command context
 */
static void srpt_handle_tmf(struct srpt_channel *ch, struct srpt_recv_ioctx *r,
			    struct srpt_send_ioctx *ioctx)
{
	struct srpt_tmf_info ti;
	int func, ret;

	atomic64_inc(&ch->stats.tmfs);
	ret = srpt_tmf_parse(r->buf, r->byte_len, &ti);
	srpt_repost_recv(ch, r);
	if (ret) {
		atomic64_inc(&ch->stats.malformed);
		trace_srpt_bad_iu(ch->id, SRPT_OP_TSK_MGMT, r->byte_len, ret);
		pr_warn_ratelimited("%s: malformed SRP_TSK_MGMT (%u bytes)\n",
				    ch->sess_name, r->byte_len);
		srpt_send_error_rsp(ioctx, ti.tag, SAM_STAT_GOOD, 0, 0, 0,
				    SRPT_TMF_RSP_INVALID_FIELDS);
		return;
	}
	trace_srpt_tmf(ch->id, ti.tag, ti.func, ti.task_tag,
		       srpt_unpack_lun(ti.lun));
	func = srpt_tmf_to_lio(ti.func);
	if (func < 0) {
		pr_info_ratelimited("%s: undefined task management function 0x%02x\n",
				    ch->sess_name, ti.func);
		srpt_send_error_rsp(ioctx, ti.tag, SAM_STAT_GOOD, 0, 0, 0,
				    SRPT_TMF_RSP_INVALID_FIELDS);
		return;
	}

	ioctx->tag = ti.tag;
	ioctx->state = SRPT_CMD_EXECUTING;
	memset(&ioctx->cmd, 0, sizeof(ioctx->cmd));
	/*
	 * Before the submission: LIO keeps the tag (__target_init_cmd()), and
	 * once submitted the TMR may complete and the context be reused.
	 */
	ioctx->cmd.tag = ti.tag;
	ioctx->in_lio = true;
	ret = target_submit_tmr(&ioctx->cmd, ch->sess, NULL,
				srpt_unpack_lun(ti.lun),
				ioctx, func, GFP_KERNEL, ti.task_tag,
				TARGET_SCF_ACK_KREF);
	if (ret) {
		ioctx->in_lio = false;
		srpt_send_error_rsp(ioctx, ti.tag, SAM_STAT_GOOD, 0, 0, 0,
				    SRPT_TMF_RSP_FAILED);
	}
}

/**
 * srpt_handle_iu() - dispatch a received IU
 * @ch: channel
 * @r: receive buffer
 *
 * Return: false if the request must wait for a free command context or
 * for the channel's commands to hold less data (it is then left
 * untouched).
 */
static bool srpt_handle_iu(struct srpt_channel *ch, struct srpt_recv_ioctx *r)
{
	struct srpt_send_ioctx *ioctx;
	u8 opcode = r->byte_len ? *(u8 *)r->buf : 0xff;

	if (unlikely(READ_ONCE(ch->t_logout))) {
		/* Logging the initiator out: nothing more is handled. */
		srpt_repost_recv(ch, r);
		return true;
	}
	switch (opcode) {
	case SRPT_OP_CMD:
	case SRPT_OP_TSK_MGMT:
		ioctx = srpt_get_ioctx(ch);
		if (!ioctx)
			return false;
		if (opcode == SRPT_OP_TSK_MGMT)
			srpt_handle_tmf(ch, r, ioctx);
		else if (!srpt_handle_cmd(ch, r, ioctx))
			return false;
		break;
	case SRPT_OP_I_LOGOUT:
		srpt_ch_close(ch, "SRP_I_LOGOUT from the initiator");
		/* Gives an SRQ buffer back to the SRQ; a ring buffer stays. */
		srpt_repost_recv(ch, r);
		break;
	case SRPT_OP_CRED_RSP:
	case SRPT_OP_AER_RSP:
		srpt_repost_recv(ch, r);
		break;
	default:
		atomic64_inc(&ch->stats.malformed);
		trace_srpt_bad_iu(ch->id, opcode, r->byte_len, -EOPNOTSUPP);
		pr_warn_ratelimited("%s: IU with invalid type 0x%02x (%u bytes): logging the initiator out\n",
				    ch->sess_name, opcode, r->byte_len);
		srpt_repost_recv(ch, r);
		srpt_t_logout(ch, SRPT_T_LOGOUT_INVALID_IU_TYPE);
		break;
	}
	return true;
}

/**
 * srpt_process_wait_list() - handle requests that had to wait
 * @ch: channel
 *
 * Requests wait while the channel is connecting (IB/CM: before the RTU the
 * QP cannot send) or while every command context is in use.  Once the
 * channel closes they are dropped; their buffers are freed with the ring.
 */
void srpt_process_wait_list(struct srpt_channel *ch)
{
	struct srpt_recv_ioctx *r;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&ch->lock, flags);
		if (ch->state != SRPT_CH_LIVE) {
			spin_unlock_irqrestore(&ch->lock, flags);
			return;
		}
		r = list_first_entry_or_null(&ch->wait_list,
					     struct srpt_recv_ioctx,
					     wait_entry);
		if (r)
			list_del_init(&r->wait_entry);
		spin_unlock_irqrestore(&ch->lock, flags);
		if (!r)
			return;
		if (!srpt_handle_iu(ch, r)) {
			srpt_wait_later(ch, r, true);
			return;
		}
	}
}

/**
 * srpt_wait_work() - work item running srpt_process_wait_list()
 * @work: the channel's wait_work
 */
void srpt_wait_work(struct work_struct *work)
{
	srpt_process_wait_list(container_of(work, struct srpt_channel,
					    wait_work));
}

/**
 * srpt_iu_uses_credit() - does a received IU spend one of the initiator's
 * credits?
 * @r: the receive buffer, byte_len set
 *
 * SRP_CRED_RSP and SRP_AER_RSP answer the target's own requests and are not
 * counted against req_lim; everything else is.
 *
 * Return: true if the IU spends a credit.
 */
static bool srpt_iu_uses_credit(const struct srpt_recv_ioctx *r)
{
	u8 opcode = r->byte_len ? *(u8 *)r->buf : 0xff;

	return opcode != SRPT_OP_CRED_RSP && opcode != SRPT_OP_AER_RSP;
}

/**
 * srpt_over_credit() - a request the initiator had no credit for
 * @ch: channel
 * @r: receive buffer (an SRQ buffer: with its own ring a channel cannot
 *	receive more requests than it has credits)
 *
 * The request is answered with BUSY when a command context is free and
 * dropped otherwise, counted either way; it is never queued.
 */
static void srpt_over_credit(struct srpt_channel *ch, struct srpt_recv_ioctx *r)
{
	struct srpt_send_ioctx *ioctx = NULL;
	u64 tag = 0;

	atomic64_inc(&ch->stats.over_credit);
	pr_warn_ratelimited("%s: request beyond the credit limit\n",
			    ch->sess_name);
	if (r->byte_len >= 16) {
		tag = srpt_iu_tag(r);
		if (*(u8 *)r->buf == SRPT_OP_CMD)
			ioctx = srpt_get_ioctx(ch);
	}
	/* Reposting gives the initiator back the credit the response returns. */
	srpt_repost_recv(ch, r);
	if (ioctx)
		srpt_send_error_rsp(ioctx, tag, SAM_STAT_BUSY, 0, 0, 0, -1);
}

/**
 * srpt_recv_done() - completion of a receive
 * @cq: completion queue
 * @wc: work completion; wr_cqe is the buffer's cqe
 */
void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_recv_ioctx *r =
		container_of(wc->wr_cqe, struct srpt_recv_ioctx, cqe);
	struct srpt_channel *ch = r->sdev ? wc->qp->qp_context : r->ch;
	unsigned long flags;
	bool wait, over;

	r->ch = ch;
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		/* Nothing was received, so no credit: just refill the SRQ. */
		if (r->sdev && srpt_post_recv(ch, r))
			pr_warn_ratelimited("%s: SRQ repost failed\n",
					    dev_name(&r->sdev->ib_dev->dev));
		srpt_wc_error(ch, wc, "receive", 0);
		return;
	}

	ib_dma_sync_single_for_cpu(ch->sport->sdev->ib_dev, r->dma,
				   wc->byte_len, DMA_FROM_DEVICE);
	r->byte_len = wc->byte_len;

	spin_lock_irqsave(&ch->lock, flags);
	/* Responses to target requests cost the initiator no credit. */
	if (srpt_iu_uses_credit(r))
		ch->req_lim--;
	over = ch->req_lim < 0;
	wait = !over && (ch->state != SRPT_CH_LIVE ||
			 !list_empty(&ch->wait_list));
	if (wait)
		list_add_tail(&r->wait_entry, &ch->wait_list);
	spin_unlock_irqrestore(&ch->lock, flags);

	if (unlikely(over)) {
		srpt_over_credit(ch, r);
		return;
	}
	if (!wait && !srpt_handle_iu(ch, r))
		srpt_wait_later(ch, r, false);
}

/**
 * srpt_rdma_err_done() - an unsignaled RDMA READ or WRITE failed
 * @cq: completion queue
 * @wc: its error completion (see srpt_watch_rdma_errors())
 *
 * The command's signaled request (the last READ, or the response SEND)
 * completes after this one, flushed, and finishes the command.
 */
static void srpt_rdma_err_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_send_ioctx *ioctx =
		container_of(wc->wr_cqe, struct srpt_send_ioctx, rdma_err_cqe);

	srpt_wc_error(ioctx->ch, wc, ioctx->dir == SRPT_DIR_OUT ?
		      "RDMA READ" : "RDMA WRITE", ioctx->tag);
}

/**
 * srpt_execute_write() - run a command whose data-out is here
 * @ioctx: the command, its data in @sgl
 * @sgl: the data (immediate data or the RDMA READ buffer)
 * @nents: entries in @sgl
 *
 * The one place where the target looks at data before LIO: see
 * srpt_pr_out_refused().
 */
static void srpt_execute_write(struct srpt_send_ioctx *ioctx,
			       struct scatterlist *sgl, unsigned int nents)
{
	u8 param[SRPT_PR_OUT_FLAGS_OFFSET + 1];
	const u8 *cdb = ioctx->cdb_ext ? ioctx->cdb_ext : ioctx->cdb;
	size_t len = 0;

	if (unlikely(cdb[0] == 0x5f) && sgl)
		len = sg_pcopy_to_buffer(sgl, nents, param, sizeof(param), 0);
	if (unlikely(srpt_pr_out_refused(cdb, param, len))) {
		pr_warn_ratelimited("%s: tag 0x%llx: PERSISTENT RESERVE OUT with SPEC_I_PT refused\n",
				    ioctx->ch->sess_name, ioctx->tag);
		transport_generic_request_failure(&ioctx->cmd,
						  TCM_INVALID_PARAMETER_LIST);
		return;
	}
	ioctx->state = SRPT_CMD_EXECUTING;
	target_execute_cmd(&ioctx->cmd);
}

/**
 * srpt_rdma_read_done() - the RDMA READs of a write completed
 * @cq: completion queue
 * @wc: completion of the last (signaled) READ
 */
static void srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_send_ioctx *ioctx =
		container_of(wc->wr_cqe, struct srpt_send_ioctx, rdma_cqe);
	struct srpt_channel *ch = ioctx->ch;

	srpt_sq_released(ch, ioctx->n_wr);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		srpt_wc_error(ch, wc, "RDMA READ", ioctx->tag);
		transport_generic_request_failure(&ioctx->cmd,
						  TCM_CHECK_CONDITION_ABORT_CMD);
		return;
	}
	srpt_sync_data(ioctx, true);
	srpt_execute_write(ioctx, ioctx->data_sgl, ioctx->data_nents);
}

/**
 * srpt_send_done() - a response (and its RDMA WRITEs) completed
 * @cq: completion queue
 * @wc: completion of the SEND
 */
static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_send_ioctx *ioctx =
		container_of(wc->wr_cqe, struct srpt_send_ioctx, send_cqe);
	struct srpt_channel *ch = ioctx->ch;

	unsigned int n = ioctx->rsp_wrs;

	ioctx->rsp_wrs = 0;
	if (unlikely(wc->status != IB_WC_SUCCESS))
		srpt_wc_error(ch, wc, "response", ioctx->tag);
	/* The initiator has the SRP_T_LOGOUT (or never will): now disconnect. */
	if (ioctx->t_logout)
		srpt_ch_close(ch, "protocol error, SRP_T_LOGOUT sent");
	/* Before the context goes: a closing channel lives while it is busy. */
	srpt_sq_released(ch, n);
	ioctx->state = SRPT_CMD_DONE;
	srpt_ioctx_done(ioctx);
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
static void srpt_zero_tail(struct srpt_send_ioctx *ioctx, u32 len)
{
	if (ioctx->data_sgl && len < ioctx->data_len)
		sg_zero_buffer(ioctx->data_sgl, ioctx->data_nents,
			       ioctx->data_len - len, len);
}

/**
 * srpt_rsp_from_cmd() - response fields of a finished SCSI command
 * @ioctx: the command
 * @a: receives the fields
 */
static void srpt_rsp_from_cmd(struct srpt_send_ioctx *ioctx,
			      struct srpt_rsp_args *a)
{
	struct se_cmd *cmd = &ioctx->cmd;

	memset(a, 0, sizeof(*a));
	a->tag = ioctx->tag;
	a->status = cmd->scsi_status;
	a->dir = ioctx->dir;
	if (cmd->scsi_status && cmd->scsi_sense_length) {
		a->sense = ioctx->sense;
		a->sense_len = cmd->scsi_sense_length;
	}
	/*
	 * LIO can count an underflow twice (a data-in command sent with a
	 * data-out buffer): no more than the buffer can be missing.
	 */
	if (cmd->se_cmd_flags & SCF_UNDERFLOW_BIT)
		a->residual_under = min(cmd->residual_count, ioctx->data_len);
	else if (cmd->se_cmd_flags & SCF_OVERFLOW_BIT)
		a->residual_over = cmd->residual_count;
}

int srpt_check_stop_free(struct se_cmd *se_cmd)
{
	return target_put_sess_cmd(se_cmd);
}

void srpt_release_cmd(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = srpt_ioctx(se_cmd);

	ioctx->in_lio = false;
	srpt_put_ioctx(ioctx);
}

void srpt_close_session(struct se_session *se_sess)
{
	srpt_ch_close(se_sess->fabric_sess_ptr, "session closed by LIO");
}

/**
 * srpt_rsp_posted() - finish a LIO response callback
 * @ioctx: the command
 * @ret: what srpt_post_rsp() returned
 *
 * -ENOMEM (send queue full) goes back to LIO, which retries the callback.
 * After a failed post (the channel is then closing: see srpt_post_send())
 * no completion will come for the command, so the reference the completion
 * would have dropped is dropped here.
 *
 * Return: -ENOMEM or 0.
 */
static int srpt_rsp_posted(struct srpt_send_ioctx *ioctx, int ret)
{
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		target_put_sess_cmd(&ioctx->cmd);
	return 0;
}

/**
 * srpt_write_pending() - LIO wants the data of a write
 * @se_cmd: the command
 *
 * Immediate data is already here; otherwise the RDMA READs are posted and
 * srpt_rdma_read_done() executes the command.
 *
 * Return: 0, -ENOMEM when the send queue is full (LIO retries), or -EIO
 * when the post failed.
 */
int srpt_write_pending(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = srpt_ioctx(se_cmd);
	struct srpt_channel *ch = ioctx->ch;
	struct ib_send_wr *first = NULL;
	int i, ret;

	if (ioctx->recv || !ioctx->n_rw) {
		srpt_execute_write(ioctx, se_cmd->t_data_sg,
				   se_cmd->t_data_nents);
		return 0;
	}
	if (!srpt_sq_reserve(ch, ioctx->n_wr)) {
		atomic64_inc(&ch->stats.sq_full);
		return -ENOMEM;
	}
	for (i = ioctx->n_rw - 1; i >= 0; i--)
		first = rdma_rw_ctx_wrs(&ioctx->rw[i].rw, ch->qp,
					ch->sport->port_num,
					first ? NULL : &ioctx->rdma_cqe, first);
	srpt_watch_rdma_errors(ioctx, first);
	ioctx->state = SRPT_CMD_DATA_OUT;
	ret = srpt_post_send(ch, first, "RDMA READs");
	if (ret) {
		atomic_add(ioctx->n_wr, &ch->sq_wr_avail);
		/* Not retried: LIO fails the command, the channel is closing. */
		return -EIO;
	}
	return 0;
}

int srpt_get_cmd_state(struct se_cmd *se_cmd)
{
	return srpt_ioctx(se_cmd)->state;
}

/**
 * srpt_queue_data_in() - send the data and the status of a read
 * @se_cmd: the command
 *
 * Return: 0, or -ENOMEM when the send queue is full (LIO retries).
 */
int srpt_queue_data_in(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = srpt_ioctx(se_cmd);
	struct srpt_rsp_args a;
	int ret;

	srpt_zero_tail(ioctx, se_cmd->data_length);
	srpt_sync_data(ioctx, false);
	srpt_rsp_from_cmd(ioctx, &a);
	ret = srpt_post_rsp(ioctx, &a, ioctx->n_rw > 0);
	return srpt_rsp_posted(ioctx, ret);
}

/**
 * srpt_queue_status() - send the status of a command
 * @se_cmd: the command
 *
 * An immediate-data buffer is reposted first, so that the credit it frees
 * travels in this response.
 *
 * Return: 0, or -ENOMEM when the send queue is full (LIO retries).
 */
int srpt_queue_status(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = srpt_ioctx(se_cmd);
	struct srpt_rsp_args a;
	int ret;

	if (ioctx->recv) {
		srpt_repost_recv(ioctx->ch, ioctx->recv);
		ioctx->recv = NULL;
	}
	srpt_rsp_from_cmd(ioctx, &a);
	ret = srpt_post_rsp(ioctx, &a, false);
	return srpt_rsp_posted(ioctx, ret);
}

/**
 * srpt_tmr_rsp_code() - SRP response code of a finished TMR
 * @response: LIO's TMR_* response
 *
 * An ABORT TASK for a task that does not exist is answered "function
 * complete": after it the task does not exist, which is what the initiator
 * asked for (SAM-5, 7.2).
 *
 * Return: SRPT_TMF_RSP_* code.
 */
static u8 srpt_tmr_rsp_code(u8 response)
{
	switch (response) {
	case TMR_FUNCTION_COMPLETE:
	case TMR_TASK_DOES_NOT_EXIST:
		return SRPT_TMF_RSP_COMPLETE;
	case TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED:
	case TMR_FUNCTION_REJECTED:
		return SRPT_TMF_RSP_NOT_SUPPORTED;
	case TMR_LUN_DOES_NOT_EXIST:
		return SRPT_TMF_RSP_INCORRECT_LUN;
	default:
		return SRPT_TMF_RSP_FAILED;
	}
}

/**
 * srpt_queue_tm_rsp() - send the result of a task management function
 * @se_cmd: the TMR
 *
 * LIO does not retry this callback, so the response goes through the
 * driver's own queue (srpt_queue_own()) and waits there if the send queue
 * is full.
 */
void srpt_queue_tm_rsp(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = srpt_ioctx(se_cmd);
	struct srpt_rsp_args *a = &ioctx->rsp;

	memset(a, 0, sizeof(*a));
	a->tag = ioctx->tag;
	a->has_resp_code = true;
	a->resp_code = srpt_tmr_rsp_code(se_cmd->se_tmr_req->response);
	trace_srpt_tmf_rsp(ioctx->ch->id, ioctx->tag, a->resp_code);
	srpt_queue_own(ioctx);
}

void srpt_aborted_task(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = srpt_ioctx(se_cmd);

	atomic64_inc(&ioctx->ch->stats.aborted);
	pr_debug("%s: tag 0x%llx aborted\n", ioctx->ch->sess_name, ioctx->tag);
}

static const char *const srpt_cmd_state_name[] = {
	[SRPT_CMD_FREE] = "free",
	[SRPT_CMD_NEW] = "new",
	[SRPT_CMD_DATA_OUT] = "waiting for write data",
	[SRPT_CMD_EXECUTING] = "in the backend",
	[SRPT_CMD_RSP_SENT] = "response posted",
	[SRPT_CMD_DONE] = "done",
};

/**
 * srpt_describe_ioctx() - one line about a busy request, for the log
 * @ioctx: the request
 * @buf: output
 * @len: size of @buf
 */
static void srpt_describe_ioctx(const struct srpt_send_ioctx *ioctx,
				char *buf, size_t len)
{
	unsigned int age = jiffies_to_msecs(jiffies - ioctx->start) / 1000;

	if (ioctx->t_logout)
		snprintf(buf, len, "SRP_T_LOGOUT, %s for %u s",
			 srpt_cmd_state_name[ioctx->state], age);
	else if (ioctx->cred_req)
		snprintf(buf, len, "SRP_CRED_REQ, %s for %u s",
			 srpt_cmd_state_name[ioctx->state], age);
	else if (ioctx->in_lio && ioctx->cmd.se_cmd_flags & SCF_SCSI_TMR_CDB)
		snprintf(buf, len, "TMF tag 0x%llx, %s for %u s", ioctx->tag,
			 srpt_cmd_state_name[ioctx->state], age);
	else
		snprintf(buf, len, "tag 0x%llx (LUN %llu, opcode 0x%02x), %s for %u s",
			 ioctx->tag, ioctx->cmd.orig_fe_lun, ioctx->cdb[0],
			 srpt_cmd_state_name[ioctx->state], age);
}

/**
 * srpt_oldest_busy() - the request of a channel that arrived first
 * @ch: channel; its lock is held
 *
 * Return: the busy context with the earliest start, or NULL if none.
 */
static struct srpt_send_ioctx *srpt_oldest_busy(struct srpt_channel *ch)
{
	struct srpt_send_ioctx *oldest = NULL;
	u32 i;

	lockdep_assert_held(&ch->lock);
	for (i = 0; i < ch->n_ioctx; i++) {
		struct srpt_send_ioctx *ioctx = &ch->ioctx_ring[i];

		if (ioctx->state == SRPT_CMD_FREE)
			continue;
		if (!oldest || time_before(ioctx->start, oldest->start))
			oldest = ioctx;
	}
	return oldest;
}

/**
 * srpt_ch_idle() - nothing of the I/O path uses a closing channel any more
 * @ch: channel
 *
 * Return: true when no command context is busy and no keepalive probe is
 * posted.
 */
static bool srpt_ch_idle(struct srpt_channel *ch)
{
	return !READ_ONCE(ch->n_busy) && !READ_ONCE(ch->keepalive_busy);
}

/**
 * srpt_ch_wait_idle() - wait until every request of a closing channel is
 * finished
 * @ch: channel, no longer live, its QP drained
 *
 * LIO finishes or aborts its commands and their responses complete with
 * flush errors, so the wait ends; while it lasts, every ten seconds the
 * log says how many requests are left, whose they are and which one is
 * the oldest.  On return nothing of the I/O path uses @ch any more.
 */
void srpt_ch_wait_idle(struct srpt_channel *ch)
{
	struct srpt_send_ioctx *oldest;
	unsigned long flags;
	char desc[96];
	u32 busy;

	/* Responses that waited for room now find it: the QP is drained. */
	srpt_sq_kick(ch);
	while (!wait_event_timeout(ch->idle_wq, srpt_ch_idle(ch), 10 * HZ)) {
		spin_lock_irqsave(&ch->lock, flags);
		busy = ch->n_busy;
		oldest = srpt_oldest_busy(ch);
		if (oldest)
			srpt_describe_ioctx(oldest, desc, sizeof(desc));
		spin_unlock_irqrestore(&ch->lock, flags);
		if (busy)
			pr_info("%s: release waits for %u request(s); oldest: %s\n",
				ch->sess_name, busy, oldest ? desc : "?");
		else
			pr_info("%s: release waits for its keepalive probe\n",
				ch->sess_name);
	}
	/* The last srpt_put_ioctx() or srpt_keepalive_end() woke us under the
	 * lock: let it finish.
	 */
	spin_lock_irqsave(&ch->lock, flags);
	spin_unlock_irqrestore(&ch->lock, flags);
}

/**
 * srpt_watch_interval() - how often the watch work of a channel runs
 * @report: the portal group's cmd_report_secs (0: off)
 * @keepalive: its keepalive_secs (0: off)
 *
 * Often enough for both: a quarter of the report age, and the keepalive
 * period; every ten seconds when both are off, to see them turned on.
 *
 * Return: the delay in jiffies.
 */
static unsigned long srpt_watch_interval(u32 report, u32 keepalive)
{
	u32 secs = report ? max(report / 4, 1U) : 10;

	if (keepalive)
		secs = min(secs, keepalive);
	return secs * HZ;
}

/**
 * srpt_keepalive_end() - a keepalive probe is over
 * @ch: channel
 *
 * A closing channel's release work may be waiting for it (see
 * srpt_ch_idle()): woken under the lock, like the last command context.
 */
static void srpt_keepalive_end(struct srpt_channel *ch)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	ch->keepalive_busy = false;
	if (ch->state != SRPT_CH_LIVE)
		wake_up(&ch->idle_wq);
	spin_unlock_irqrestore(&ch->lock, flags);
}

/**
 * srpt_keepalive_done() - completion of a keepalive probe
 * @cq: completion queue
 * @wc: completion of the zero-length RDMA WRITE
 *
 * Any error but a flush means the initiator's side no longer acknowledges
 * (its QP is gone or in the error state, its port or node is down, after
 * the transport's retries): the channel is closed, and its release frees
 * it and its LIO session.
 */
static void srpt_keepalive_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_channel *ch =
		container_of(wc->wr_cqe, struct srpt_channel, keepalive_cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS))
		srpt_wc_error(ch, wc, "keepalive probe", 0);
	srpt_sq_released(ch, 1);
	srpt_keepalive_end(ch);
}

/**
 * srpt_keepalive() - check that the initiator's end of a channel is alive
 * @ch: channel
 *
 * An initiator that crashes, loses its port or has its QP destroyed without
 * a DREQ leaves a channel nothing ever fails on while it is idle: no
 * request arrives and nothing is sent.  A zero-length RDMA WRITE needs no
 * buffer, memory key or receive at the initiator, and no protocol there
 * sees it, but its HCA must acknowledge it; when it does not, the
 * transport's retries end in an error completion (srpt_keepalive_done())
 * or the probe times out (srpt_keepalive_check()), and the channel is
 * closed.  One probe at a time; none while the send queue is full (the
 * channel's own traffic then tells).
 */
static void srpt_keepalive(struct srpt_channel *ch)
{
	struct ib_rdma_wr wr = {
		.wr.wr_cqe = &ch->keepalive_cqe,
		.wr.opcode = IB_WR_RDMA_WRITE,
		.wr.send_flags = IB_SEND_SIGNALED,
	};
	unsigned long flags;
	bool go;
	int ret;

	spin_lock_irqsave(&ch->lock, flags);
	go = ch->state == SRPT_CH_LIVE && !ch->keepalive_busy;
	if (go)
		ch->keepalive_busy = true;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!go)
		return;
	ch->keepalive_at = jiffies;
	if (!srpt_sq_reserve(ch, 1)) {
		srpt_keepalive_end(ch);
		return;
	}
	atomic64_inc(&ch->stats.keepalives);
	ret = srpt_post_send(ch, &wr.wr, "a keepalive probe");
	if (ret) {
		srpt_sq_released(ch, 1);
		srpt_keepalive_end(ch);
	}
}

/**
 * srpt_keepalive_check() - time out the last keepalive probe or send one
 * @ch: channel
 * @keepalive: the portal group's keepalive_secs, not 0
 *
 * A probe the initiator has not acknowledged after
 * max(@keepalive, %SRPT_KEEPALIVE_MIN_WAIT) seconds ends the channel: a
 * transport may retry forever (soft-RoCE takes a retry count of 7, which
 * is what ib_srp asks for, as "infinite"), and responses queued to a dead
 * initiator then never complete either.  Otherwise a new probe is due
 * @keepalive seconds after the last one.
 */
static void srpt_keepalive_check(struct srpt_channel *ch, u32 keepalive)
{
	u32 wait = max_t(u32, keepalive, SRPT_KEEPALIVE_MIN_WAIT);

	if (READ_ONCE(ch->keepalive_busy)) {
		if (time_after(jiffies, ch->keepalive_at + wait * HZ)) {
			pr_warn_ratelimited("%s: the initiator has not acknowledged the keepalive for %u s\n",
					    ch->sess_name, wait);
			srpt_ch_close(ch, "initiator unreachable (keepalive timed out)");
		}
		return;
	}
	/* A check that runs a little early must not skip a whole period. */
	if (time_after_eq(jiffies + HZ / 2, ch->keepalive_at + keepalive * HZ))
		srpt_keepalive(ch);
}

/**
 * srpt_watch_work() - report requests stuck for too long, send keepalives
 * @work: the channel's watch_work
 *
 * Runs while the channel is live.  A request older than the portal
 * group's cmd_report_secs is reported once, with its tag, LUN, opcode and
 * state; LIO offers a fabric driver no way to abort a single command, so
 * the report is what an operator gets (the initiator's own timeout then
 * sends ABORT TASK or LUN RESET).  Every keepalive_secs the channel is
 * probed, see srpt_keepalive() and srpt_keepalive_check().
 */
void srpt_watch_work(struct work_struct *work)
{
	struct srpt_channel *ch = container_of(to_delayed_work(work),
					       struct srpt_channel,
					       watch_work);
	u32 secs = READ_ONCE(ch->tpg->cmd_report_secs);
	u32 keepalive = READ_ONCE(ch->tpg->keepalive_secs);
	unsigned long flags;
	char desc[96];
	s64 more;
	u32 i;

	for (i = 0; secs && i < ch->n_ioctx; i++) {
		struct srpt_send_ioctx *ioctx = &ch->ioctx_ring[i];
		bool report;

		spin_lock_irqsave(&ch->lock, flags);
		report = ioctx->state != SRPT_CMD_FREE && !ioctx->reported &&
			 time_after(jiffies, ioctx->start + secs * HZ);
		if (report) {
			ioctx->reported = true;
			srpt_describe_ioctx(ioctx, desc, sizeof(desc));
		}
		spin_unlock_irqrestore(&ch->lock, flags);
		if (!report)
			continue;
		more = atomic64_inc_return(&ch->stats.stuck);
		pr_warn_ratelimited("%s: request stuck: %s (%lld reported so far)\n",
				    ch->sess_name, desc, more);
	}
	if (keepalive)
		srpt_keepalive_check(ch, keepalive);
	/*
	 * Under the lock, which srpt_ch_close() takes to leave LIVE: once the
	 * release work cancels this work, it is never queued again.
	 */
	spin_lock_irqsave(&ch->lock, flags);
	if (ch->state == SRPT_CH_LIVE)
		queue_delayed_work(system_long_wq, &ch->watch_work,
				   srpt_watch_interval(secs, keepalive));
	spin_unlock_irqrestore(&ch->lock, flags);
}

/**
 * srpt_watch_start() - start the watch work of a channel that went live
 * @ch: channel; its lock is held and it has just become live
 */
void srpt_watch_start(struct srpt_channel *ch)
{
	struct srpt_tpg *tpg = ch->tpg;

	lockdep_assert_held(&ch->lock);
	ch->keepalive_cqe.done = srpt_keepalive_done;
	ch->keepalive_at = jiffies;
	queue_delayed_work(system_long_wq, &ch->watch_work,
			   srpt_watch_interval(READ_ONCE(tpg->cmd_report_secs),
					       READ_ONCE(tpg->keepalive_secs)));
}
