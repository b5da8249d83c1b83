// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: the pages command contexts keep for their data.
 *
 * A context keeps the pages of its last data buffer for the next command
 * (srpt_alloc_data()), with their DMA mapping on a channel that keeps
 * mappings (srpt_buf_map()); what idle contexts keep is bounded
 * (srpt_shed_locked(), srpt_data_trim()), and pages they give up go to the
 * channel's pool for the next buffers before they go back to the system.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/dma-mapping.h>
#include <rdma/ib_verbs.h>

#include "srpt_buf.h"
#include "srpt_device.h"

/* Data buffer pages are allocated in blocks of up to 2^this pages. */
#define SRPT_CHUNK_ORDER	3
/* Contexts srpt_shed_locked() looks at before it sheds the newest. */
#define SRPT_SHED_LOOK		16

/**
 * srpt_pool_put() - keep the pages of a data buffer for the next commands
 * @ch: channel
 * @sg: the buffer, one page per entry
 * @n: entries
 *
 * What does not fit in the channel's pool (@ch->pool_max) is freed.
 */
static void srpt_pool_put(struct srpt_channel *ch, struct scatterlist *sg,
			  u32 n)
{
	unsigned long flags;
	u32 i = 0, max;

	spin_lock_irqsave(&ch->pool_lock, flags);
	max = READ_ONCE(ch->pool_max);
	for (; i < n && ch->pool_n < max; i++, ch->pool_n++)
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
 * srpt_buf_room() - what a data buffer of a channel holds beyond its
 *	scatterlist
 * @ch: channel
 * @pages: pages of the buffer
 *
 * A channel that keeps DMA mappings (@ch->keep_dma) allocates, behind the
 * scatterlist of each buffer, one SGE per page and the RDMA requests that
 * cover them (srpt_buf_map()); the fewest SGEs a READ or a WRITE request
 * of the QP takes decides how many.
 *
 * Return: bytes.
 */
static size_t srpt_buf_room(struct srpt_channel *ch, u32 pages)
{
	u32 max = min(ch->qp->max_read_sge, ch->qp->max_write_sge);

	if (!ch->keep_dma || !max)
		return 0;
	return pages * sizeof(struct ib_sge) +
	       DIV_ROUND_UP(pages, max) * sizeof(struct ib_rdma_wr);
}

/**
 * srpt_unmap_pages() - end the DMA mappings of a kept buffer's pages
 * @ch: channel, still attached to its device
 * @sge: the pages' SGEs
 * @n: how many
 *
 * Without a CPU sync: each command synced what it used (__srpt_sync_data()),
 * and a buffer unmapped while the backend still writes it (a channel
 * detaching) must not get what a bounce buffer held.
 */
static void srpt_unmap_pages(struct srpt_channel *ch, struct ib_sge *sge,
			     u32 n)
{
	struct ib_device *ib_dev = ch->sport->sdev->ib_dev;
	u32 i;

	if (ch->virt_dma)
		return;
	for (i = 0; i < n; i++)
		dma_unmap_page_attrs(ib_dev->dma_device, sge[i].addr, PAGE_SIZE,
				     DMA_BIDIRECTIONAL, DMA_ATTR_SKIP_CPU_SYNC);
}

/**
 * srpt_buf_map() - map a context's kept pages for the commands to come
 * @ch: channel (@ch->keep_dma)
 * @ioctx: the context, its buffer allocated with srpt_buf_room() behind
 *	the scatterlist and not mapped
 *
 * rdma_rw maps a command's buffer when it arrives and unmaps it when it
 * ends: with an IOMMU that is an IOVA allocation, page table updates and
 * an IOTLB flush per command.  The pages a context keeps are mapped here
 * once, both ways, and stay mapped until the context gives them up
 * (srpt_buf_unmap()); each command only syncs what it uses and fills in
 * the RDMA requests (srpt_map_kept()).  The lengths of all SGEs are a
 * page but while a command shorter than the buffer runs.
 *
 * Return: true if mapped; false (nothing mapped) if the DMA API refused,
 * and the command goes through rdma_rw.
 */
bool srpt_buf_map(struct srpt_channel *ch, struct srpt_send_ioctx *ioctx)
{
	struct ib_device *ib_dev = ch->sport->sdev->ib_dev;
	struct ib_sge *sge = (struct ib_sge *)(ioctx->buf_sgl + ioctx->buf_cap);
	u32 lkey = ch->qp->pd->local_dma_lkey;
	u32 i;

	if (!srpt_buf_room(ch, ioctx->buf_cap))
		return false;
	for (i = 0; i < ioctx->buf_cap; i++) {
		struct page *page = sg_page(&ioctx->buf_sgl[i]);
		u64 addr;

		if (ch->virt_dma)
			addr = ib_dma_map_page(ib_dev, page, 0, PAGE_SIZE,
					       DMA_BIDIRECTIONAL);
		else
			addr = dma_map_page_attrs(ib_dev->dma_device, page, 0,
						  PAGE_SIZE, DMA_BIDIRECTIONAL,
						  DMA_ATTR_SKIP_CPU_SYNC);
		if (ib_dma_mapping_error(ib_dev, addr)) {
			srpt_unmap_pages(ch, sge, i);
			return false;
		}
		sge[i].addr = addr;
		sge[i].length = PAGE_SIZE;
		sge[i].lkey = lkey;
	}
	ioctx->buf_wr = (struct ib_rdma_wr *)(sge + ioctx->buf_cap);
	memset(ioctx->buf_wr, 0, srpt_buf_room(ch, ioctx->buf_cap) -
	       ioctx->buf_cap * sizeof(*sge));
	ioctx->buf_sge = sge;
	atomic64_inc(&ch->stats.dma_maps);
	return true;
}

/**
 * srpt_buf_unmap() - end the kept DMA mapping of a context's pages
 * @ioctx: the context; no RDMA request of it posted, its channel still
 *	attached to the device
 *
 * The pages stay with the context.  Does nothing without a mapping.
 */
void srpt_buf_unmap(struct srpt_send_ioctx *ioctx)
{
	if (!ioctx->buf_sge)
		return;
	srpt_unmap_pages(ioctx->ch, ioctx->buf_sge, ioctx->buf_cap);
	ioctx->buf_sge = NULL;
	ioctx->buf_wr = NULL;
}

/**
 * srpt_buf_release() - give the pages a context keeps to the channel's pool
 * @ioctx: the context, no command using its buffer
 */
void srpt_buf_release(struct srpt_send_ioctx *ioctx)
{
	if (!ioctx->buf_cap)
		return;
	srpt_buf_unmap(ioctx);
	srpt_pool_put(ioctx->ch, ioctx->buf_sgl, ioctx->buf_cap);
	kfree(ioctx->buf_sgl);
	ioctx->buf_sgl = NULL;
	ioctx->buf_cap = 0;
	ioctx->zeroed = 0;
}

/**
 * srpt_buf_shed() - give up an idle context's kept pages
 * @ioctx: the context, idle, its pages counted in kept_pages
 */
static void srpt_buf_shed(struct srpt_send_ioctx *ioctx)
{
	atomic_sub(ioctx->buf_cap, &ioctx->ch->kept_pages);
	srpt_buf_release(ioctx);
}

/**
 * srpt_buf_free() - free the pages a context keeps
 * @ioctx: the context, its channel being freed
 */
void srpt_buf_free(struct srpt_send_ioctx *ioctx)
{
	u32 i;

	srpt_buf_unmap(ioctx);
	for (i = 0; i < ioctx->buf_cap; i++)
		__free_page(sg_page(&ioctx->buf_sgl[i]));
	kfree(ioctx->buf_sgl);
	ioctx->buf_sgl = NULL;
	ioctx->buf_cap = 0;
	ioctx->zeroed = 0;
}

/**
 * srpt_shed_locked() - bound the pages idle contexts keep
 * @ch: the channel, its lock held, a context just put back on its free list
 *
 * Contexts are taken from the top of the free stack and put back there,
 * so the ones at the bottom are those used least recently: their buffers go
 * first (to the channel's pool), the one just put back last.  Buffers of a
 * single page are not counted (a channel has a bounded number of
 * contexts); beyond that, idle contexts keep at most @ch->kept_max.
 */
void srpt_shed_locked(struct srpt_channel *ch)
{
	u32 max = READ_ONCE(ch->kept_max);
	u32 n_free = ch->n_ioctx - ch->n_busy;
	struct srpt_send_ioctx *ioctx;
	u32 i;

	lockdep_assert_held(&ch->lock);
	for (i = 0; i < n_free && i < SRPT_SHED_LOOK; i++) {
		if (atomic_read(&ch->kept_pages) <= max)
			return;
		ioctx = ch->free_stack[i];
		if (ioctx->buf_cap > 1)
			srpt_buf_shed(ioctx);
	}
	/* Still over: the context just put back gives its pages too. */
	ioctx = ch->free_stack[n_free - 1];
	if (atomic_read(&ch->kept_pages) > max && ioctx->buf_cap > 1)
		srpt_buf_shed(ioctx);
}

/**
 * srpt_data_trim() - give up what a channel keeps beyond its allowance
 * @ch: the channel, its @kept_max or @pool_max just lowered
 * @own: the caller is the channel's release work, before it frees the
 *	contexts; otherwise a releasing channel is left alone (its release
 *	may be freeing them)
 *
 * Idle contexts give their pages up, least recently used first, until
 * the channel keeps at most @ch->kept_max; then the pool is cut to
 * @ch->pool_max.  Contexts busy now are bounded when they come back
 * (srpt_free_ioctx_locked()).
 */
void srpt_data_trim(struct srpt_channel *ch, bool own)
{
	u32 kept_max = READ_ONCE(ch->kept_max);
	struct srpt_send_ioctx *ioctx;
	struct page *page, *next;
	unsigned long flags;
	LIST_HEAD(drop);
	u32 i;

	spin_lock_irqsave(&ch->lock, flags);
	if (!own && ch->state == SRPT_CH_RELEASING)
		goto unlock;
	for (i = 0; i < ch->n_ioctx - ch->n_busy; i++) {
		if (atomic_read(&ch->kept_pages) <= kept_max)
			break;
		ioctx = ch->free_stack[i];
		if (ioctx->buf_cap > 1)
			srpt_buf_shed(ioctx);
	}
	spin_lock(&ch->pool_lock);
	while (ch->pool_n > READ_ONCE(ch->pool_max)) {
		list_move(ch->pool.next, &drop);
		ch->pool_n--;
	}
	spin_unlock(&ch->pool_lock);
unlock:
	spin_unlock_irqrestore(&ch->lock, flags);
	list_for_each_entry_safe(page, next, &drop, lru)
		__free_page(page);
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
 * The scatterlist's allocation also holds the channel's srpt_buf_room().
 *
 * Return: 0 or -ENOMEM (nothing allocated).
 */
int srpt_alloc_pages(struct srpt_channel *ch, u32 len,
		     struct scatterlist **sgl, u32 *nents)
{
	u32 n = DIV_ROUND_UP(len, PAGE_SIZE), i, j;
	struct scatterlist *sg;

	/* n is bounded by SRPT_MAX_CMD_DATA: no overflow. */
	sg = kmalloc(n * sizeof(*sg) + srpt_buf_room(ch, n), SRPT_DATA_GFP);
	if (!sg)
		return -ENOMEM;
	sg_init_table(sg, n);
	i = srpt_pool_get(ch, sg, n, len);
	while (i < n) {
		unsigned int order = min_t(unsigned int, ilog2(n - i),
					   SRPT_CHUNK_ORDER);
		struct page *page = NULL;

		if (order)
			page = alloc_pages(SRPT_DATA_GFP, order);
		if (page) {
			split_page(page, order);
		} else {
			order = 0;
			page = alloc_page(SRPT_DATA_GFP);
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
