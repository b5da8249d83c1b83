/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: SCSI RDMA Protocol target for LIO.  The objects every I/O layer
 * shares: a channel, its command contexts and their remote buffers.
 *
 * Each layer's own types and inlines are in the header beside its source
 * (src/srpt_<file>.h); this one holds what the layers from the QP up share:
 *   srpt_device  one per RDMA device (src/srpt_device.h), owns the PD
 *   srpt_port    one per port of a device, caches GID/LID and link layer
 *   srpt_tport   a configfs target port, named by a GID or GUID (srpt_tpg.h)
 *   srpt_tpg     a target portal group with its attributes
 *   srpt_nacl    a node ACL, with the initiator name parsed once
 *   srpt_channel an initiator's RC QP, LIO session and contexts (here)
 *   srpt_recv_ioctx  a receive buffer (src/srpt_ring.h)
 *   srpt_send_ioctx  a command context (here)
 */
#ifndef SRPT_H
#define SRPT_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/workqueue.h>
#include <linux/completion.h>
#include <linux/wait.h>
#include <linux/rcupdate.h>
#include <linux/socket.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>

#include "srpt_proto.h"

struct srpt_port;
struct srpt_tpg;
struct srpt_recv_ioctx;
struct ib_cm_id;
struct rdma_cm_id;

#define SRPT_MAX_INLINE_RW	1

/**
 * struct srpt_rw - one remote buffer of a command
 * @rw:		RDMA READ/WRITE context
 * @sg:		local scatterlist of this buffer's part of the data: the
 *		command's data buffer, or a slice of it (several buffers)
 * @nents:	entries in @sg
 */
struct srpt_rw {
	struct rdma_rw_ctx	rw;
	struct scatterlist	*sg;
	unsigned int		nents;
};

/* What waits on sq_wait: see srpt_post_waiting() and @sq_kind. */
enum srpt_sq_kind { SRPT_SQ_OWN, SRPT_SQ_LIO, SRPT_SQ_READS };

/* Life of a command context, as reported by get_cmd_state. */
enum srpt_cmd_state {
	SRPT_CMD_FREE,
	SRPT_CMD_NEW,
	SRPT_CMD_DATA_OUT,	/* RDMA READ of the write data posted */
	SRPT_CMD_EXECUTING,
	SRPT_CMD_SQ_WAIT,	/* response or RDMA READs on the sq_wait list */
	SRPT_CMD_RSP_SENT,	/* RDMA WRITE + SEND posted */
	SRPT_CMD_DONE,
};

/**
 * struct srpt_send_ioctx - context of one SRP request (SCSI command or TMF)
 * @cmd:	LIO command
 * @ch:		channel the request arrived on
 * @rdma_cqe:	completion of the RDMA READs of a write
 * @rdma_err_cqe: error completion of an unsignaled RDMA READ or WRITE (see
 *		srpt_rdma_err_done())
 * @send_cqe:	completion of the response SEND
 * @rsp_buf:	response IU buffer, max_ti_iu_len bytes
 * @rsp_dma:	its DMA address
 * @recv:	receive buffer holding immediate data, returned after use
 * @imm_sg:	scatterlist over immediate data too long for the receive
 *		buffer's own list, page by page; points into the channel's
 *		@imm_sg_pool (NULL without immediate data)
 * @rw:		remote buffers (points at @rw_inline or an allocated array)
 * @n_rw:	entries in @rw
 * @rw_inline:	storage for the common single-buffer case
 * @n_wr:	send queue entries taken by the RDMA operations
 * @state:	enum srpt_cmd_state
 * @dir:	SRPT_DIR_* of the command
 * @tag:	initiator tag
 * @in_lio:	@cmd was handed to LIO (else freed by the send completion)
 * @rsp_wrs:	send queue entries taken by the response (and RDMA WRITEs)
 * @sq_entry:	entry in the channel's @sq_wait list
 * @sq_need:	send queue entries what waits on @sq_wait needs: 1, or 1 +
 *		@n_wr with @sq_data, or @n_wr for RDMA READs
 * @sq_kind:	what waits on @sq_wait: the driver's own response (@rsp),
 *		a LIO callback's, or a write's RDMA READs (enum srpt_sq_kind)
 * @sq_data:	... and the command's RDMA WRITEs go in front of its SEND
 * @rsp:	fields of a response built by the driver itself (TMF result,
 *		error, SRP_CRED_REQ) waiting for send queue space
 * @cred_req:	the context carries an SRP_CRED_REQ, not an SRP_RSP
 * @t_logout:	the context carries an SRP_T_LOGOUT (ch->t_logout_reason)
 * @responded:	a response was posted for this request
 * @reported:	reported as stuck in the backend
 * @start:	jiffies when the request arrived
 * @sense:	sense buffer for LIO
 * @cdb:	copy of a CDB of up to 16 bytes (the buffer is reposted at once)
 * @cdb_ext:	allocated copy of a longer CDB (additional CDB), or NULL
 * @data_sgl:	the command's data buffer, as LIO gets it: whole pages but
 *		for the last (the first entries of @buf_sgl)
 * @data_nents:	entries in @data_sgl
 * @data_len:	bytes in @data_sgl: the sum of the remote buffers
 * @rdma_sg:	the slices of @data_sgl of a command with several remote
 *		buffers, or NULL
 * @buf_sgl:	the pages the context keeps for the data of its commands,
 *		one page per entry (see srpt_alloc_data()), or NULL
 * @buf_cap:	entries (pages) in @buf_sgl
 * @buf_sge:	one SGE per page of @buf_sgl, whose DMA mapping is kept while
 *		the context keeps the page (srpt_buf_map()), or NULL
 * @buf_wr:	RDMA READ or WRITE requests over @buf_sge (same allocation)
 * @n_dwr:	requests of @buf_wr the command uses; 0 when its data goes
 *		through rdma_rw (@rw)
 * @zeroed:	bytes at the start of @buf_sgl left zero (srpt_zero_unfilled())
 * @zeroed_next: what @zeroed becomes when the command ends
 * @rsp_sge:	the response SEND's buffer: @rsp_buf, set up once
 * @rsp_wr:	the response SEND, set up once (srpt_ioctx_init()); only
 *		its length and chain change per response
 * @charged:	bytes of @data_sgl counted in the channel's data_held
 */
struct srpt_send_ioctx {
	struct se_cmd		cmd;
	struct srpt_channel	*ch;
	struct ib_cqe		rdma_cqe;
	struct ib_cqe		rdma_err_cqe;
	struct ib_cqe		send_cqe;
	void			*rsp_buf;
	u64			rsp_dma;
	struct srpt_recv_ioctx	*recv;
	struct scatterlist	*imm_sg;
	struct srpt_rw		*rw;
	unsigned int		n_rw;
	struct srpt_rw		rw_inline[SRPT_MAX_INLINE_RW];
	unsigned int		n_wr;
	enum srpt_cmd_state	state;
	int			dir;
	u64			tag;
	bool			in_lio;
	unsigned int		rsp_wrs;
	struct list_head	sq_entry;
	unsigned int		sq_need;
	u8			sq_kind;
	bool			sq_data;
	struct srpt_rsp_args	rsp;
	bool			cred_req;
	bool			t_logout;
	bool			responded;
	bool			reported;
	unsigned long		start;
	u8			sense[TRANSPORT_SENSE_BUFFER];
	u8			cdb[16];
	u8			*cdb_ext;
	struct scatterlist	*data_sgl;
	u32			data_nents;
	u32			data_len;
	struct scatterlist	*rdma_sg;
	struct scatterlist	*buf_sgl;
	u32			buf_cap;
	struct ib_sge		*buf_sge;
	struct ib_rdma_wr	*buf_wr;
	u32			n_dwr;
	u32			zeroed;
	u32			zeroed_next;
	u32			charged;
	struct ib_sge		rsp_sge;
	struct ib_send_wr	rsp_wr;
};

/* Channel states; a channel only moves forward through them. */
enum srpt_ch_state {
	SRPT_CH_CONNECTING,	/* login accepted, waiting for RTU/ESTABLISHED */
	SRPT_CH_LIVE,
	SRPT_CH_DISCONNECTING,	/* DREQ sent or received, QP in ERR */
	SRPT_CH_RELEASING,	/* release work queued */
};

/**
 * struct srpt_channel - one RDMA channel (RC QP) of an initiator
 * @sport:	port the login arrived on
 * @tpg:	portal group the channel logged in to
 * @using_rdma_cm: logged in over RDMA/CM (else IB/CM)
 * @use_srq:	receives through the device's SRQ (no own receive ring)
 * @virt_dma:	DMA to virtual addresses (soft-RoCE): no DMA syncs
 * @keep_dma:	contexts keep their data pages mapped and build their own
 *		RDMA requests (keep_dma_maps, not on iWARP)
 * @ib_cm_id:	IB/CM connection (IB/CM logins)
 * @rdma_cm_id:	RDMA/CM connection (RDMA/CM logins)
 * @peer_addr:	the initiator's address (RDMA/CM logins), a copy: the
 *		channel stays listed for a while after @rdma_cm_id is gone
 * @cq:		completion queue, from the device's CQ pool
 * @cq_size:	entries taken from the pool
 * @qp:		the queue pair
 * @qp_num:	its number, for messages and statistics
 * @rnr_retry:	its RNR retry count in RTS, as the device reports it
 * @lock:	protects @state, @free_stack, @n_busy, @wait_list and @wait_busy
 * @state:	enum srpt_ch_state
 * @registered:	on the channel list
 * @replied:	the login path is done with the CM reply: only then does
 *		srpt_ch_close() of a registered channel queue the release
 * @list:	entry in the driver's channel list
 * @release_work: tears the channel down in process context
 * @wait_work:	processes @wait_list once command contexts are free
 * @sess:	LIO session
 * @sess_name:	initiator name the session was created with
 * @nacl:	the session's node ACL (compared, never dereferenced)
 * @id:		number of the channel, unique while the module is loaded
 * @i_port_id:	initiator port ID from the login request
 * @t_port_id:	target port ID from the login request
 * @max_it_iu_len: negotiated largest request IU
 * @max_ti_iu_len: largest response IU
 * @imm_data:	immediate data negotiated
 * @imm_data_offset: offset of immediate data in SRP_CMD
 * @rq_size:	receive buffers of the channel = credits at login
 * @sq_size:	send queue entries that commands share
 * @sq_extra:	entries beyond @sq_size in the QP, for one command too large
 *		for @sq_size alone (srpt_sq_reserve())
 * @sq_depth:	send queue depth of the QP as created (srpt_ch_create_qp())
 * @sq_wr_avail: entries of @sq_size not in use (below 0 while a large
 *		command uses @sq_extra)
 * @bad_send_wr: where the device reports the request that failed to post
 *		(written on failure only, never read)
 * @req_lim:	credits the initiator holds
 * @req_lim_delta: credits freed and not yet returned
 * @kept_pages:	pages in the data buffers of idle command contexts
 *		(@buf_sgl) that keep more than one, see srpt_shed_locked()
 * @kept_max:	most @kept_pages: %SRPT_KEPT_PAGES, or the channel's share
 *		of the module's idle bound if smaller (0 once it releases)
 * @pool_max:	most @pool_n, likewise (%SRPT_POOL_PAGES at most)
 * @recv_ring:	receive buffers
 * @ioctx_ring:	command contexts
 * @n_ioctx:	entries in @ioctx_ring
 * @imm_sg_pool: the contexts' immediate-data scatterlists, @imm_sg_max
 *		entries each (NULL without immediate data)
 * @imm_sg_max:	entries per context: enough for max_it_iu_len bytes at any
 *		offset in a page
 * @max_cmd_data: most data bytes of one command (max_cmd_data at login)
 * @max_data_held: bound of @data_held (max_channel_data at login, at least
 *		@max_cmd_data)
 * @data_held:	bytes of the data buffers the channel's commands hold
 * @ini_held:	the @data_held of the session's node ACL (struct srpt_nacl),
 *		which the session keeps while any command can be charged
 * @filled_dev:	dev_index + 1 of the LIO device last seen filling READ
 *		buffers (0: none yet), see srpt_data_unfilled()
 * @nullio_dev:	dev_index + 1 of the last one seen not filling them
 * @pool_lock:	protects @pool and @pool_n
 * @pool:	pages of finished commands' data buffers, kept for the next
 *		ones (linked through page->lru), at most @pool_max
 * @pool_n:	pages on @pool
 * @free_stack:	unused command contexts, @n_ioctx - @n_busy of them, the
 *		one used last on top
 * @wait_list:	requests received while no context was free
 * @wait_busy:	srpt_process_wait_list() is handling a request it took off
 *		@wait_list: new requests queue behind it
 * @sq_wait:	responses and RDMA READs waiting for send queue space, in
 *		the order they came (see srpt_sq_kick())
 * @sq_kicking:	a srpt_sq_kick() is serving @sq_wait (one at a time)
 * @sq_kick_again: room came back while it ran: it looks again
 * @n_busy:	command contexts in use
 * @idle_wq:	woken when @n_busy drops to zero on a closing channel
 * @watch_work:	reports commands stuck in the backend and sends keepalives
 * @keepalive_cqe: completion of the keepalive probe, which has a send
 *		queue entry of its own in the QP (not one of @sq_wr_avail)
 * @keepalive_busy: a probe is posted and has not completed
 * @keepalive_at: jiffies of the last probe
 * @comp_vector: completion vector of @cq
 * @last_wqe:	the QP reported IB_EVENT_QP_LAST_WQE_REACHED (SRQ channels)
 * @t_logout_reason: an SRP_T_LOGOUT with this reason is being sent; the
 *		channel takes no more requests and closes once it is out
 * @t_logout:	@t_logout_reason is set
 * @detached:	the channel let go of its RDMA device with requests still in
 *		the backend (srpt_ch_detach()); read under rcu_read_lock() by
 *		every I/O path that touches the device (srpt_ch_detached())
 * @stats:	counters, see srpt_ch_stats
 */
struct srpt_channel {
	struct srpt_port	*sport;
	struct srpt_tpg		*tpg;
	bool			using_rdma_cm;
	bool			use_srq;
	bool			virt_dma;
	bool			keep_dma;
	struct ib_cm_id		*ib_cm_id;
	struct rdma_cm_id	*rdma_cm_id;
	struct sockaddr_storage	peer_addr;
	struct ib_cq		*cq;
	u32			cq_size;
	struct ib_qp		*qp;
	u32			qp_num;
	u8			rnr_retry;
	spinlock_t		lock;	/* see above */
	enum srpt_ch_state	state;
	bool			registered;
	bool			replied;
	struct list_head	list;
	struct work_struct	release_work;
	struct work_struct	wait_work;
	struct se_session	*sess;
	char			sess_name[64];
	const struct se_node_acl *nacl;
	u32			id;
	u8			i_port_id[16];
	u8			t_port_id[16];
	u32			max_it_iu_len;
	u32			max_ti_iu_len;
	bool			imm_data;
	u32			imm_data_offset;
	u32			rq_size;
	u32			sq_size;
	u32			sq_extra;
	u32			sq_depth;
	atomic_t		sq_wr_avail;
	const struct ib_send_wr	*bad_send_wr;
	atomic_t		req_lim;
	atomic_t		req_lim_delta;
	atomic_t		kept_pages;
	u32			kept_max;
	u32			pool_max;
	struct srpt_recv_ioctx	*recv_ring;
	struct srpt_send_ioctx	*ioctx_ring;
	u32			n_ioctx;
	struct scatterlist	*imm_sg_pool;
	u32			imm_sg_max;
	u32			max_cmd_data;
	u32			max_data_held;
	atomic_t		data_held;
	atomic_long_t		*ini_held;
	u32			filled_dev;
	u32			nullio_dev;
	spinlock_t		pool_lock;	/* see above */
	struct list_head	pool;
	u32			pool_n;
	struct srpt_send_ioctx	**free_stack;
	struct list_head	wait_list;
	bool			wait_busy;
	struct list_head	sq_wait;
	bool			sq_kicking;
	bool			sq_kick_again;
	u32			n_busy;
	wait_queue_head_t	idle_wq;
	struct delayed_work	watch_work;
	struct ib_cqe		keepalive_cqe;
	bool			keepalive_busy;
	unsigned long		keepalive_at;
	int			comp_vector;
	struct completion	last_wqe;
	u32			t_logout_reason;
	bool			t_logout;
	bool			detached;
	struct srpt_ch_stats {
		atomic64_t	cmds;
		atomic64_t	imm_cmds;
		atomic64_t	bytes_in;
		atomic64_t	bytes_out;
		atomic64_t	malformed;
		atomic64_t	rdma_errors;
		atomic64_t	tmfs;
		atomic64_t	over_credit;
		atomic64_t	aborted;
		atomic64_t	cred_reqs;
		atomic64_t	sq_full;
		atomic64_t	stuck;
		atomic64_t	keepalives;
		atomic64_t	data_full;
		atomic64_t	data_busy;
		atomic64_t	dma_maps;
	} stats;
};

static inline struct srpt_send_ioctx *srpt_ioctx(struct se_cmd *se_cmd)
{
	return container_of(se_cmd, struct srpt_send_ioctx, cmd);
}

#endif /* SRPT_H */
