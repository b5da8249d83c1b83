/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: SCSI RDMA Protocol target for LIO.  Objects shared by the
 * driver's source files.
 *
 * Object model:
 *   srpt_device  one per RDMA device (ib_client add/remove), owns the PD
 *   srpt_port    one per port of a device, caches GID/LID and link layer
 *   srpt_tport   a configfs target port (se_wwn), named by a port's GID or
 *                GUID; it refers to no device, it is matched against the
 *                ports by name, so device removal never leaves it dangling
 *   srpt_tpg     a target portal group (se_portal_group) with its attributes
 *   srpt_nacl    a node ACL, with the initiator name parsed once
 *   srpt_channel one RC queue pair logged in by an initiator, with its own
 *                LIO session, receive ring and command contexts
 *   srpt_recv_ioctx / srpt_send_ioctx  a receive buffer / a command context
 */
#ifndef SRPT_H
#define SRPT_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <linux/completion.h>
#include <linux/sizes.h>
#include <linux/kref.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>

#include "srpt_proto.h"

#define SRPT_FABRIC_NAME	"srpt"
#define SRPT_WWN_MAX		64	/* longest target port name + NUL */

/* Limits of the module parameters and TPG attributes (see docs/). */
/*
 * Every value the in-tree ib_srpt of 6.1 and 6.12 accepts is accepted with
 * the same meaning (docs/configuration.md has the side-by-side table).
 */
#define SRPT_MIN_REQ_SIZE	64
#define SRPT_MAX_REQ_SIZE	SZ_1M
#define SRPT_DEF_REQ_SIZE	8276	/* 80 + 4 + 8 KiB immediate data */
#define SRPT_MIN_SRQ_SIZE	4
#define SRPT_MAX_SRQ_SIZE	65536
#define SRPT_DEF_SRQ_SIZE	4095

#define SRPT_MIN_RDMA_SIZE	SZ_4K
#define SRPT_MAX_RDMA_SIZE	SZ_16M
#define SRPT_DEF_RDMA_SIZE	SZ_64K
#define SRPT_MIN_RSP_SIZE	40	/* SRP_RSP header and 4 bytes */
#define SRPT_MAX_RSP_SIZE	4096
#define SRPT_DEF_RSP_SIZE	256
/* srp_sq_size takes 4..65535; a channel gets at least SRPT_MIN_SQ_SIZE. */
#define SRPT_MIN_SQ_ATTR	4
#define SRPT_MIN_SQ_SIZE	16
#define SRPT_MAX_SQ_SIZE	65535
#define SRPT_DEF_CMD_REPORT_SECS 60
#define SRPT_MAX_CMD_REPORT_SECS 86400
#define SRPT_DEF_KEEPALIVE_SECS	30
#define SRPT_MAX_KEEPALIVE_SECS	3600
/* Seconds a keepalive probe may stay unacknowledged, at least. */
#define SRPT_KEEPALIVE_MIN_WAIT	10
#define SRPT_DEF_SQ_SIZE	2048
/* Channel limits of a portal group (0: none); a channel costs ~2 MiB. */
#define SRPT_DEF_MAX_CHANNELS	1024
#define SRPT_DEF_MAX_INI_CHANNELS 128
#define SRPT_MAX_CHANNELS_ATTR	65535
/*
 * Data of one command, and data buffers one channel holds at a time (a
 * channel's bound is at least the per-command one).
 */
#define SRPT_MIN_CMD_DATA	SZ_4K
#define SRPT_DEF_CHANNEL_DATA	SZ_128M
#define SRPT_MIN_CHANNEL_DATA	SZ_1M
#define SRPT_MAX_CHANNEL_DATA	SZ_1G
/*
 * Data buffers of all channels of one initiator (node ACL) in a portal
 * group, of a portal group and of the module, in MiB: at least one largest
 * command; the defaults follow the machine's memory (srpt_default_data_mb()).
 */
#define SRPT_MIN_SHARED_DATA_MB	(SRPT_MAX_CMD_DATA >> 20)
#define SRPT_MAX_SHARED_DATA_MB	SZ_4M	/* MiB: 4 TiB */
/* Receive buffers (= credits) of a channel with its own receive ring. */
#define SRPT_RQ_SIZE		128

/**
 * struct srpt_port - state of one port of an RDMA device
 * @sdev:	device this port belongs to
 * @port_num:	port number (1-based)
 * @lock:	protects the cached attributes below
 * @gid:	GID at index 0 (port GID; its interface ID is the port GUID)
 * @lid:	port LID (InfiniBand only)
 * @sm_lid:	LID of the subnet manager (InfiniBand only)
 * @state:	port state at the last refresh
 * @ib:		link layer is InfiniBand (IB/CM login and MADs possible)
 * @refresh_work: re-reads the attributes after an asynchronous event
 * @mad_agent:	device-management MAD agent (srpt_mad.c), or NULL
 * @dm_cap_set:	the port advertises IsDeviceManagementSupported
 */
struct srpt_port {
	struct srpt_device	*sdev;
	u32			port_num;
	spinlock_t		lock;	/* protects gid, lid, sm_lid, state */
	union ib_gid		gid;
	u16			lid;
	u16			sm_lid;
	enum ib_port_state	state;
	bool			ib;
	struct work_struct	refresh_work;
	struct ib_mad_agent	*mad_agent;
	bool			dm_cap_set;
};

/**
 * struct srpt_device - state of one RDMA device
 * @ib_dev:	the RDMA device
 * @pd:		protection domain for all channels of this device
 * @event_handler: asynchronous event handler (port changes)
 * @ib_cm_id:	IB/CM listener (InfiniBand and RoCE), or NULL if it could not
 *		be created; the IB/CM listens per device and reports the
 *		port of each REQ
 * @list:	entry in the driver's device list
 * @next_vector: completion vector of the next channel (round robin)
 * @srq:	shared receive queue for channels of use_srq portal groups,
 *		created by the first such login
 * @srq_ring:	its receive buffers
 * @srq_size:	number of buffers in @srq_ring
 * @removing:	the device is being removed: its closing channels detach
 *		from it instead of waiting for the backend (srpt_ch_detach())
 * @nports:	number of entries in @ports
 * @ports:	per-port state
 */
struct srpt_device {
	struct ib_device	*ib_dev;
	struct ib_pd		*pd;
	struct ib_event_handler	event_handler;
	struct ib_cm_id		*ib_cm_id;
	struct list_head	list;
	atomic_t		next_vector;
	struct ib_srq		*srq;
	struct srpt_recv_ioctx	*srq_ring;
	u32			srq_size;
	bool			removing;
	u32			nports;
	struct srpt_port	ports[];
};

/**
 * struct srpt_tport - configfs target port
 * @wwn:	LIO object; its configfs directory carries @name_str
 * @name:	the parsed name (GUID or GID form)
 * @name_str:	the name as created, returned by tpg_get_wwn
 * @list:	entry in the driver's target port list
 * @tpg_list:	portal groups of this target port
 */
struct srpt_tport {
	struct se_wwn		wwn;
	struct list_head	list;
	struct list_head	tpg_list;
	struct srpt_name	name;
	char			name_str[SRPT_WWN_MAX];
};

/**
 * struct srpt_tpg - target portal group
 * @se_tpg:	LIO object
 * @tport:	target port the group belongs to
 * @name:	configfs directory name (any name; see srpt_make_tpg())
 * @tag:	portal group tag (from a directory name tpgt_<tag>, else 1)
 * @enabled:	logins accepted
 * @max_rdma_size: largest single RDMA transfer, for the device-management
 *		agent's IOControllerProfile (srpt_tpg_rdma_size())
 * @max_rsp_size: largest target-to-initiator IU (max_ti_iu_len)
 * @sq_size:	send queue depth of each channel
 * @use_srq:	1: channels share the device's SRQ; 0: own receive rings
 * @cmd_report_secs: report a command still in the backend after this many
 *		seconds (0: never)
 * @keepalive_secs: probe each live channel this often (0: never), see
 *		srpt_keepalive()
 * @max_channels: most channels of the group at a time (0: no limit)
 * @max_initiator_channels: most channels of one initiator (node ACL) in the
 *		group at a time (0: no limit)
 * @max_cmd_data: most data bytes of one command
 * @max_channel_data: most bytes of data buffers one channel holds at a time
 * @max_initiator_data_mb: most MiB of data buffers the channels of one
 *		initiator (node ACL) in the group hold at a time
 * @max_tpg_data_mb: most MiB of data buffers the group's channels hold at
 *		a time
 * @data_held:	bytes of data buffers the group's commands hold
 * @list:	entry in the target port's list
 * @refs:	the registry's reference while listed (srpt_tpg.c), and one
 *		per channel and login in progress that uses the group
 * @dying:	being removed: no new logins
 */
struct srpt_tpg {
	struct se_portal_group	se_tpg;
	struct srpt_tport	*tport;
	struct list_head	list;
	refcount_t		refs;
	bool			dying;
	char			*name;
	u16			tag;
	bool			enabled;
	u32			max_rdma_size;
	u32			max_rsp_size;
	u32			sq_size;
	u32			use_srq;
	u32			cmd_report_secs;
	u32			keepalive_secs;
	u32			max_channels;
	u32			max_initiator_channels;
	u32			max_cmd_data;
	u32			max_channel_data;
	u32			max_initiator_data_mb;
	u32			max_tpg_data_mb;
	atomic_long_t		data_held;
};

/**
 * struct srpt_nacl - node ACL
 * @nacl:	LIO object
 * @name:	the initiator name, parsed (GUID, GID, IPv4 or IPv6 form)
 * @data_held:	bytes of data buffers the commands of the initiator's
 *		channels hold (LIO allocates dynamic ACLs with the fabric's
 *		size too, so every session's ACL has this)
 */
struct srpt_nacl {
	struct se_node_acl	nacl;
	struct srpt_name	name;
	atomic_long_t		data_held;
};

/**
 * struct srpt_recv_ioctx - a receive buffer
 * @cqe:	completion entry, done = srpt_recv_done()
 * @ch:		channel whose receive ring holds the buffer; for an SRQ
 *		buffer, the channel that received into it last
 * @sdev:	device whose SRQ the buffer belongs to, or NULL
 * @buf:	where IUs are received, srpt_max_req_size bytes; @pad bytes
 *		into the allocated (512-byte aligned) object
 * @dma:	DMA address of @buf
 * @mapped:	@dma is mapped (until the buffer's device goes)
 * @pad:	offset of @buf in its object: puts a channel's immediate data
 *		on a 512-byte boundary, as block devices want their buffers
 * @byte_len:	bytes received
 * @wait_entry:	entry in the channel's wait list while no command context
 *		is free
 * @sge:	the buffer as the receive request's one entry
 * @wr:		the receive request, set up once (srpt_alloc_recv_bufs())
 */
struct srpt_recv_ioctx {
	struct ib_cqe		cqe;
	struct srpt_channel	*ch;
	struct srpt_device	*sdev;
	void			*buf;
	u64			dma;
	bool			mapped;
	u32			byte_len;
	u32			pad;
	struct list_head	wait_entry;
	struct ib_sge		sge;
	struct ib_recv_wr	wr;
};

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

/* Life of a command context, as reported by get_cmd_state. */
enum srpt_cmd_state {
	SRPT_CMD_FREE,
	SRPT_CMD_NEW,
	SRPT_CMD_DATA_OUT,	/* RDMA READ of the write data posted */
	SRPT_CMD_EXECUTING,
	SRPT_CMD_SQ_WAIT,	/* response on the channel's sq_wait list */
	SRPT_CMD_RSP_SENT,	/* RDMA WRITE + SEND posted */
	SRPT_CMD_DONE,
};

#define SRPT_MAX_INLINE_RW	1
#define SRPT_FIXED_SENSE_LEN	18	/* fixed-format sense data */
#define SRPT_IMM_ALIGN		512	/* alignment of immediate data */
/* Local ACK timeout of RDMA/CM channels: 4.096 us << 18, about 1 s a try. */
#define SRPT_ACK_TIMEOUT	18
/* Tags of the target's SRP_CRED_REQs: this prefix, then the context index. */
#define SRPT_CRED_REQ_TAG	0x5352505443520000ULL
#define SRPT_MAX_CDB_LEN	(16 + 63 * 4)	/* CDB + largest additional CDB */
#define SRPT_MAX_CMD_DATA	SZ_32M		/* largest transfer of one command */
/* Data buffer pages are allocated in blocks of up to 2^this pages. */
#define SRPT_CHUNK_ORDER	3
/*
 * Pages a channel keeps from finished commands for the next ones: 1 MiB,
 * eight 128 KiB commands in flight (a fresh page costs the allocator and,
 * with init_on_alloc, clearing it).
 */
#define SRPT_POOL_PAGES		(SZ_1M / PAGE_SIZE)
/*
 * Pages the idle contexts of a channel keep in their data buffers (beyond
 * one each) for their next commands: 4 MiB, so that the contexts a queue
 * depth of 16 with 128 KiB commands cycles through keep theirs (a context
 * stays busy until its response completed, after the initiator may have
 * sent the next command).
 */
#define SRPT_KEPT_PAGES		(SZ_4M / PAGE_SIZE)
/* Contexts srpt_shed_locked() looks at before it sheds the newest. */
#define SRPT_SHED_LOOK		16

/**
 * struct srpt_send_ioctx - context of one SRP request (SCSI command or TMF)
 * @cmd:	LIO command
 * @ch:		channel the request arrived on
 * @free_entry:	entry in the channel's free list
 * @rdma_cqe:	completion of the RDMA READs of a write
 * @rdma_err_cqe: error completion of an unsignaled RDMA READ or WRITE (see
 *		srpt_rdma_err_done())
 * @send_cqe:	completion of the response SEND
 * @rsp_buf:	response IU buffer, max_ti_iu_len bytes
 * @rsp_dma:	its DMA address
 * @recv:	receive buffer holding immediate data, returned after use
 * @imm_sg:	scatterlist over the immediate data, page by page; points
 *		into the channel's @imm_sg_pool (NULL without immediate data)
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
 * @sq_need:	send queue entries the response on @sq_wait needs: 1, or 1 +
 *		@n_wr with @sq_data
 * @sq_lio:	the response on @sq_wait is a LIO callback's (queue_status,
 *		queue_data_in): its fields come from @cmd when it is posted,
 *		and a failed post drops the completion's reference of @cmd
 * @sq_data:	... and the command's RDMA WRITEs go in front of its SEND
 * @rsp:	fields of a response built by the driver itself (TMF result,
 *		error, SRP_CRED_REQ) waiting for send queue space
 * @cred_req:	the context carries an SRP_CRED_REQ, not an SRP_RSP
 * @t_logout:	the context carries an SRP_T_LOGOUT (with the channel's
 *		t_logout_reason)
 * @responded:	a response was posted for this request
 * @reported:	reported as stuck in the backend
 * @start:	jiffies when the request arrived
 * @sense:	sense buffer for LIO
 * @cdb:	copy of a CDB of up to 16 bytes, so the receive buffer can be
 *		reposted at once (the first byte names the command in logs)
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
 * @rsp_sge:	the response SEND's buffer: @rsp_buf, set up once
 * @rsp_wr:	the response SEND, set up once (srpt_ioctx_init()); only
 *		its length and chain change per response
 * @charged:	bytes of @data_sgl counted in the channel's data_held
 */
struct srpt_send_ioctx {
	struct se_cmd		cmd;
	struct srpt_channel	*ch;
	struct list_head	free_entry;
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
	bool			sq_lio;
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
 * @virt_dma:	the device does DMA to virtual addresses (soft-RoCE): no
 *		DMA syncs
 * @ib_cm_id:	IB/CM connection (IB/CM logins)
 * @rdma_cm_id:	RDMA/CM connection (RDMA/CM logins)
 * @peer_addr:	the initiator's address (RDMA/CM logins), a copy: the
 *		channel stays listed for a while after @rdma_cm_id is gone
 * @cq:		completion queue, from the device's CQ pool
 * @cq_size:	entries taken from the pool
 * @qp:		the queue pair
 * @qp_num:	its number, for messages and statistics
 * @lock:	protects @state, @free_list, @wait_list and @wait_busy
 * @state:	enum srpt_ch_state
 * @registered:	on the channel list: srpt_ch_close() queues the release
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
 * @sq_wr_avail: entries of @sq_size not in use (below 0 while a large
 *		command uses @sq_extra)
 * @req_lim:	credits the initiator holds
 * @req_lim_delta: credits freed and not yet returned
 * @kept_pages:	pages in the data buffers of idle command contexts
 *		(@buf_sgl) that keep more than one, see srpt_shed_locked()
 * @recv_ring:	receive buffers
 * @ioctx_ring:	command contexts
 * @n_ioctx:	entries in @ioctx_ring
 * @imm_sg_pool: the contexts' immediate-data scatterlists, @imm_sg_max
 *		entries each (NULL without immediate data)
 * @imm_sg_max:	entries per context: enough for max_it_iu_len bytes at any
 *		offset in a page
 * @max_cmd_data: most data bytes of one command (the portal group's
 *		max_cmd_data at login)
 * @max_data_held: bound of @data_held (max_channel_data at login, at least
 *		@max_cmd_data)
 * @data_held:	bytes of the data buffers the channel's commands hold
 * @ini_held:	the @data_held of the session's node ACL (struct srpt_nacl),
 *		which the session keeps while any command can be charged
 * @filled_dev:	dev_index + 1 of the LIO device the channel last saw
 *		filling the data-in buffers of its READs (0: none yet), see
 *		srpt_data_unfilled()
 * @nullio_dev:	dev_index + 1 of the last one seen not filling them
 * @pool_lock:	protects @pool and @pool_n
 * @pool:	pages of finished commands' data buffers, kept for the next
 *		ones (linked through page->lru), at most %SRPT_POOL_PAGES
 * @pool_n:	pages on @pool
 * @free_list:	unused command contexts
 * @wait_list:	requests received while @free_list was empty
 * @wait_busy:	srpt_process_wait_list() is handling a request it took off
 *		@wait_list: new requests queue behind it
 * @sq_wait:	responses waiting for send queue space, in the order they
 *		came (LIO's and the driver's own, see srpt_sq_kick())
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
	struct ib_cm_id		*ib_cm_id;
	struct rdma_cm_id	*rdma_cm_id;
	struct sockaddr_storage	peer_addr;
	struct ib_cq		*cq;
	u32			cq_size;
	struct ib_qp		*qp;
	u32			qp_num;
	spinlock_t		lock;	/* see above */
	enum srpt_ch_state	state;
	bool			registered;
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
	atomic_t		sq_wr_avail;
	atomic_t		req_lim;
	atomic_t		req_lim_delta;
	atomic_t		kept_pages;
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
	struct list_head	free_list;
	struct list_head	wait_list;
	bool			wait_busy;
	struct list_head	sq_wait;
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
	} stats;
};

/**
 * srpt_rq_size() - receive buffers (= credits) of a channel on a device
 * @attrs: the device's attributes
 *
 * Also what the device-management agent advertises as send queue depth.
 *
 * Return: %SRPT_RQ_SIZE, capped by the device's max_qp_wr.
 */
static inline u32 srpt_rq_size(const struct ib_device_attr *attrs)
{
	return min_t(u32, SRPT_RQ_SIZE, attrs->max_qp_wr);
}

static inline struct srpt_tpg *srpt_tpg(struct se_portal_group *se_tpg)
{
	return container_of(se_tpg, struct srpt_tpg, se_tpg);
}

static inline struct srpt_tport *srpt_tport(struct se_wwn *wwn)
{
	return container_of(wwn, struct srpt_tport, wwn);
}

/**
 * struct srpt_initiator - who is logging in
 * @port_id:	initiator port ID from the login request
 * @ip:		source address (RDMA/CM logins), network byte order
 * @ip_len:	4 (IPv4), 16 (IPv6) or 0 (IB/CM: no address)
 * @desc:	printable description for log messages
 */
struct srpt_initiator {
	u8	port_id[16];
	u8	ip[16];
	size_t	ip_len;
	char	desc[80];
};

static inline struct srpt_send_ioctx *srpt_ioctx(struct se_cmd *se_cmd)
{
	return container_of(se_cmd, struct srpt_send_ioctx, cmd);
}

/**
 * srpt_ch_detached() - has a channel let go of its RDMA device?
 * @ch: the channel
 *
 * Every I/O path that touches the device (posts, DMA syncs and unmaps,
 * rdma_rw contexts) calls this inside rcu_read_lock() and does its work
 * in the same read-side section only if it returns false: srpt_ch_detach()
 * sets @ch->detached and waits for those sections (synchronize_rcu())
 * before it destroys the QP and unmaps the buffers.
 *
 * Return: true once srpt_ch_detach() started.
 */
static inline bool srpt_ch_detached(const struct srpt_channel *ch)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_held(),
			 "channel state read outside rcu_read_lock()");
	return unlikely(READ_ONCE(ch->detached));
}

/**
 * srpt_take_ioctx_locked() - take a free command context
 * @ch: the channel, its lock held
 *
 * Only while the channel is live: a busy context keeps a closing channel's
 * release waiting (srpt_ch_wait_idle()), so none may be taken once it
 * could have stopped waiting.
 *
 * Return: the context, counted in @ch->n_busy, or NULL when all are in
 * use or the channel is not live.
 */
static inline struct srpt_send_ioctx *
srpt_take_ioctx_locked(struct srpt_channel *ch)
{
	struct srpt_send_ioctx *ioctx;

	lockdep_assert_held(&ch->lock);
	if (ch->state != SRPT_CH_LIVE || list_empty(&ch->free_list))
		return NULL;
	ioctx = list_first_entry(&ch->free_list, struct srpt_send_ioctx,
				 free_entry);
	list_del_init(&ioctx->free_entry);
	ch->n_busy++;
	return ioctx;
}

/**
 * srpt_ioctx_reset() - start a new request in a context just taken
 * @ioctx: the context, from srpt_take_ioctx_locked()
 *
 * A context comes back to the free list with no receive buffer, RDMA
 * context, data buffer or send queue entry of its request left
 * (srpt_put_ioctx()); what a request sets as it goes is reset here.
 */
static inline void srpt_ioctx_reset(struct srpt_send_ioctx *ioctx)
{
	ioctx->start = jiffies;
	ioctx->responded = false;
	ioctx->cred_req = false;
	ioctx->t_logout = false;
	ioctx->reported = false;
	ioctx->state = SRPT_CMD_NEW;
	ioctx->n_wr = 0;
	ioctx->dir = SRPT_DIR_NONE;
	ioctx->in_lio = false;
}

/**
 * srpt_opcode_uses_credit() - does a request IU spend one of the
 * initiator's credits?
 * @opcode: the IU's first byte
 *
 * SRP_CRED_RSP and SRP_AER_RSP answer the target's own requests and are
 * not counted against req_lim; everything else is.
 *
 * Return: true if the IU spends a credit.
 */
static inline bool srpt_opcode_uses_credit(u8 opcode)
{
	return opcode != SRPT_OP_CRED_RSP && opcode != SRPT_OP_AER_RSP;
}

/*
 * Declarations, one section per source file, in layer order: a file calls
 * the files of the sections above its own.  The one call upwards is
 * srpt_ch_close() (srpt_qp.c), which any layer may use to end a channel.
 */

/* srpt_param.c: module parameters */
extern unsigned int srpt_max_req_size;
extern unsigned int srpt_srq_size;
u64 srpt_comp_vector_mask(void);
u64 srpt_service_guid(void);
void srpt_set_default_service_guid(u64 guid);
u16 srpt_get_rdma_cm_port(void);
int srpt_set_rdma_cm_port(u16 port);
extern atomic_t srpt_fail_post_send;
extern u32 srpt_max_qp_wr_cap;
extern atomic_long_t srpt_data_held;
extern unsigned long srpt_data_limit_bytes;

/**
 * srpt_data_limit() - the bound on the data buffers of all channels
 *
 * Return: bytes (max_data_mb, or its default when it is 0).
 */
static inline unsigned long srpt_data_limit(void)
{
	return READ_ONCE(srpt_data_limit_bytes);
}

u32 srpt_default_data_mb(void);
extern long srpt_data_held_peak;

/**
 * srpt_data_peak() - note how much data buffers all channels hold
 * @held: bytes, just charged
 *
 * Racy on purpose: the peak is an observation for operators and tests
 * (debugfs ib_srpt/data), not a bound.
 */
static inline void srpt_data_peak(long held)
{
	if (unlikely(held > READ_ONCE(srpt_data_held_peak)))
		WRITE_ONCE(srpt_data_held_peak, held);
}

bool srpt_fault_post_send_take(void);

/**
 * srpt_fault_post_send() - should this send queue post fail?
 *
 * Return: true (and one injected failure fewer) while the debugfs counter
 * is set; one load when it is not.
 */
static inline bool srpt_fault_post_send(void)
{
	return unlikely(atomic_read(&srpt_fail_post_send)) &&
	       srpt_fault_post_send_take();
}

void srpt_param_defaults(void);
void srpt_param_init(void);
void srpt_param_exit(void);

/* srpt_device.c: devices and ports */
struct srpt_device *srpt_device_create(struct ib_device *ib_dev);
void srpt_device_unlist(struct srpt_device *sdev);
void srpt_device_destroy(struct srpt_device *sdev);
bool srpt_name_has_port(const struct srpt_name *name);
struct srpt_port *srpt_port_lookup_lock(struct ib_device *ib_dev, u32 port_num);
void srpt_port_unlock(void);
void srpt_device_assert_locked(void);
void srpt_port_get_gid(struct srpt_port *sport, union ib_gid *gid);
ssize_t srpt_show_login_info(const struct srpt_name *name, char *page);

/* srpt_tpg.c: the registry of target ports and portal groups */
void srpt_tport_add(struct srpt_tport *tport);
void srpt_tport_del(struct srpt_tport *tport);
void srpt_tpg_add(struct srpt_tpg *tpg);
void srpt_tpg_remove(struct srpt_tpg *tpg);
void srpt_tpg_set_enabled(struct srpt_tpg *tpg, bool enable);
void srpt_tpg_put(struct srpt_tpg *tpg);
void srpt_tpg_wait_unused(struct srpt_tpg *tpg);
u32 srpt_tpg_rdma_size(struct srpt_port *sport);
struct srpt_tpg *srpt_tpg_for_login(struct srpt_port *sport,
				    const struct srpt_initiator *ini,
				    char *acl_name, size_t acl_name_len,
				    const char **why, u32 *rej);

/* srpt_qp.c: the QP state machine; srpt_ch_close() for every layer */
int srpt_qp_init(void);
void srpt_qp_exit(void);
void srpt_qp_event(struct ib_event *event, void *ptr);
int srpt_ch_qp_init(struct srpt_channel *ch);
int srpt_ch_qp_rtr(struct srpt_channel *ch);
int srpt_ch_qp_rts(struct srpt_channel *ch);
int srpt_ch_qp_err(struct srpt_channel *ch);
void srpt_ch_close(struct srpt_channel *ch, const char *why);

/* srpt_ring.c: receive buffers */
void srpt_free_recv_bufs(struct ib_device *ib_dev, struct srpt_recv_ioctx *ring,
			 u32 n);
void srpt_unmap_recv_bufs(struct ib_device *ib_dev,
			  struct srpt_recv_ioctx *ring, u32 n);
int srpt_alloc_recv_bufs(struct ib_pd *pd, struct srpt_recv_ioctx *ring,
			 u32 n, u32 pad,
			 void (*done)(struct ib_cq *cq, struct ib_wc *wc));
void srpt_repost_failed(struct srpt_channel *ch, int ret);

/**
 * srpt_post_recv() - post one receive buffer
 * @ch: channel owning the buffer (unused, may be NULL, for SRQ buffers)
 * @r: the buffer; SRQ buffers go to their device's SRQ
 *
 * The buffer goes back to the device first: the CPU has read it since the
 * last receive (srpt_recv_done() synced it for the CPU).  Inline: every
 * request reposts its buffer.
 *
 * Return: 0 or the errno of ib_post_recv()/ib_post_srq_recv().
 */
static __always_inline int srpt_post_recv(struct srpt_channel *ch,
					  struct srpt_recv_ioctx *r)
{
	struct srpt_device *sdev = r->sdev;

	if (sdev) {
		ib_dma_sync_single_for_device(sdev->ib_dev, r->dma,
					      srpt_max_req_size,
					      DMA_FROM_DEVICE);
		return ib_post_srq_recv(sdev->srq, &r->wr, NULL);
	}
	if (!ch->virt_dma)
		ib_dma_sync_single_for_device(ch->sport->sdev->ib_dev, r->dma,
					      srpt_max_req_size,
					      DMA_FROM_DEVICE);
	return ib_post_recv(ch->qp, &r->wr, NULL);
}

/**
 * srpt_iu_uses_credit() - does a received IU spend one of the initiator's
 * credits?
 * @r: the receive buffer, byte_len set
 *
 * Return: true if the IU spends a credit (srpt_opcode_uses_credit()).
 */
static inline bool srpt_iu_uses_credit(const struct srpt_recv_ioctx *r)
{
	return srpt_opcode_uses_credit(r->byte_len ? *(u8 *)r->buf : 0xff);
}

/**
 * __srpt_repost_recv() - give a receive buffer back, which frees a credit
 * @ch: channel, attached to its device: the caller is in the receive path
 *	(which ends before the channel can detach, see srpt_ch_detach()) or
 *	checked srpt_ch_detached() in the same RCU read-side section
 * @r: the buffer
 *
 * A channel's own buffer is not posted once the channel is closing (it
 * stays idle until the ring is freed); an SRQ buffer always goes back to
 * the SRQ, which other channels share.  The buffer's IU must still be in
 * it: its opcode says whether reposting returns a credit.
 */
static __always_inline void __srpt_repost_recv(struct srpt_channel *ch,
					       struct srpt_recv_ioctx *r)
{
	bool live = READ_ONCE(ch->state) < SRPT_CH_DISCONNECTING;
	/* Before the post: the next IU may land in the buffer at once. */
	bool credit = live && srpt_iu_uses_credit(r);
	int ret;

	if (!live && !r->sdev)
		return;
	ret = srpt_post_recv(ch, r);
	if (unlikely(ret))
		srpt_repost_failed(ch, ret);
	else if (credit)
		atomic_inc(&ch->req_lim_delta);
}

void srpt_repost_recv(struct srpt_channel *ch, struct srpt_recv_ioctx *r);
int srpt_ring_init(void);
void srpt_ring_exit(void);

/* srpt_data.c: data buffers of commands */
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
 * __srpt_free_data() - give back the local data buffer of a command
 * @ioctx: the command, its RDMA contexts destroyed (srpt_unmap_rw())
 *
 * The context keeps the buffer's pages for its next command (see
 * srpt_alloc_data()); what idle contexts keep beyond a page each is
 * counted in the channel's kept_pages, and srpt_shed_locked() bounds it.
 * Nothing here touches the RDMA device.
 */
static __always_inline void __srpt_free_data(struct srpt_send_ioctx *ioctx)
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
		ioctx->data_sgl = NULL;
		ioctx->data_nents = 0;
		if (ioctx->buf_cap > 1)
			atomic_add(ioctx->buf_cap, &ch->kept_pages);
	}
	if (unlikely(ioctx->rdma_sg)) {
		kfree(ioctx->rdma_sg);
		ioctx->rdma_sg = NULL;
	}
}

/**
 * __srpt_unmap_rw() - destroy the RDMA contexts of a command
 * @ioctx: the command; its channel's QP still exists
 *
 * Unmaps the data buffer from the device; the buffer itself stays (see
 * srpt_free_data()).  Does nothing the second time.
 */
static __always_inline void __srpt_unmap_rw(struct srpt_send_ioctx *ioctx)
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
 * __srpt_unmap_data() - release the RDMA contexts and data buffer of a command
 * @ioctx: the command; its channel's QP still exists
 *
 * Inline for the release of every command (srpt_put_ioctx()); other
 * callers use srpt_unmap_data().
 */
static __always_inline void __srpt_unmap_data(struct srpt_send_ioctx *ioctx)
{
	__srpt_unmap_rw(ioctx);
	__srpt_free_data(ioctx);
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

	if (!ioctx->data_sgl || !dev ||
	    likely(dev->dev_index + 1 == READ_ONCE(ioctx->ch->filled_dev)))
		return false;
	return __srpt_data_unfilled(ioctx);
}

void srpt_pool_drain(struct srpt_channel *ch);
void srpt_free_data(struct srpt_send_ioctx *ioctx);
void srpt_buf_free(struct srpt_send_ioctx *ioctx);
void srpt_shed_locked(struct srpt_channel *ch);
void srpt_unmap_rw(struct srpt_send_ioctx *ioctx);
void srpt_unmap_data(struct srpt_send_ioctx *ioctx);
int srpt_map_data(struct srpt_channel *ch, struct srpt_send_ioctx *ioctx,
		  const struct srpt_cmd_info *ci, struct scatterlist **sgl,
		  u32 *nents);
unsigned int srpt_imm_sgl(struct scatterlist *sgl, unsigned int max, u8 *buf,
			  u32 len);
void srpt_zero_tail(struct srpt_send_ioctx *ioctx, u32 len);

/* srpt_sq.c: command contexts, credits and the send queue */
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
 * command waits at most for one other large command.  (The QP has one
 * entry more for the keepalive probe and one for the drain request, which
 * take nothing from sq_wr_avail.)
 *
 * Return: true if the entries are now reserved.
 */
static inline bool srpt_sq_reserve(struct srpt_channel *ch, unsigned int n)
{
	int left = atomic_sub_return(n, &ch->sq_wr_avail);

	if (left >= 0 || (n > ch->sq_size && left >= -(int)ch->sq_extra))
		return true;
	atomic_add(n, &ch->sq_wr_avail);
	return false;
}

struct srpt_send_ioctx *srpt_get_ioctx(struct srpt_channel *ch);
void srpt_put_ioctx(struct srpt_send_ioctx *ioctx);
void srpt_release_cmd(struct se_cmd *se_cmd);
void srpt_unget_ioctx(struct srpt_send_ioctx *ioctx);
void srpt_post_send_failed(struct srpt_channel *ch, const char *what, int ret);
/**
 * srpt_post_send() - post a chain of work requests to a channel's send queue
 * @ch: channel
 * @first: the chain; its entries are reserved in sq_wr_avail
 * @what: what is posted, for the log
 *
 * With the entries reserved, a full queue cannot be why a post fails: the
 * QP is unusable, and srpt_post_send_failed() closes the channel.
 * (Retrying would not help, and a response that is never sent leaves the
 * initiator waiting.)
 *
 * Return: 0 or the negative errno of ib_post_send().
 */
static __always_inline int srpt_post_send(struct srpt_channel *ch,
					  struct ib_send_wr *first,
					  const char *what)
{
	int ret = srpt_fault_post_send() ? -ENOMEM :
		  ib_post_send(ch->qp, first, NULL);

	if (unlikely(ret))
		srpt_post_send_failed(ch, what, ret);
	return ret;
}

void srpt_wc_error(struct srpt_channel *ch, const struct ib_wc *wc,
		   const char *what, u64 tag);
void srpt_watch_rdma_errors(struct srpt_send_ioctx *ioctx,
			    struct ib_send_wr *first);
int srpt_queue_data_in(struct se_cmd *se_cmd);
int srpt_queue_status(struct se_cmd *se_cmd);
void srpt_sq_kick(struct srpt_channel *ch);
void srpt_sq_released(struct srpt_channel *ch, unsigned int n);
void srpt_sq_wait(struct srpt_send_ioctx *ioctx, unsigned int n, bool lio,
		  bool with_data);

/**
 * srpt_queue_own() - send a response LIO cannot retry for us
 * @ioctx: the request, @ioctx->rsp filled in
 *
 * TMF results, answers to requests LIO never saw and SRP_CRED_REQs are
 * never dropped: when the send queue is full they wait, in order with
 * LIO's responses, on the channel's sq_wait list until a completion makes
 * room (srpt_sq_wait()).
 */
static inline void srpt_queue_own(struct srpt_send_ioctx *ioctx)
{
	srpt_sq_wait(ioctx, 1, false, false);
}

void srpt_t_logout(struct srpt_channel *ch, u32 reason);
void srpt_send_error_rsp(struct srpt_send_ioctx *ioctx, u64 tag, u8 status,
			 u8 key, u8 asc, u8 ascq, int tmf_code);
void srpt_rdma_err_done(struct ib_cq *cq, struct ib_wc *wc);
void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc);

/* srpt_watch.c: the watch work of a channel */
bool srpt_ch_wait_idle(struct srpt_channel *ch, bool detachable);
void srpt_watch_work(struct work_struct *work);
void srpt_watch_start(struct srpt_channel *ch);

/* srpt_cmd.c: SCSI commands, TMFs and LIO's command callbacks */
u64 srpt_iu_tag(const struct srpt_recv_ioctx *r);
bool srpt_handle_cmd(struct srpt_channel *ch, struct srpt_recv_ioctx *r,
		     struct srpt_send_ioctx *ioctx);
void srpt_handle_tmf(struct srpt_channel *ch, struct srpt_recv_ioctx *r,
		     struct srpt_send_ioctx *ioctx);
void srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc);
int srpt_check_stop_free(struct se_cmd *se_cmd);
void srpt_close_session(struct se_session *se_sess);
int srpt_write_pending(struct se_cmd *se_cmd);
int srpt_get_cmd_state(struct se_cmd *se_cmd);
void srpt_queue_tm_rsp(struct se_cmd *se_cmd);
void srpt_aborted_task(struct se_cmd *se_cmd);

/* srpt_recv.c: receive completions and their dispatch; the SRQ */
void srpt_wait_work(struct work_struct *work);
void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc);
int srpt_device_get_srq(struct srpt_device *sdev);
void srpt_device_free_srq(struct srpt_device *sdev);

/* srpt_chlist.c: the channel list */
int srpt_ch_register(struct srpt_channel *ch, bool single, u8 *multichan);
void srpt_ch_unlist(struct srpt_channel *ch);
void srpt_ch_released(void);
void srpt_ch_close_matching(struct srpt_device *sdev, struct srpt_tpg *tpg,
			    bool wait);
ssize_t srpt_nacl_show_info(struct se_node_acl *se_nacl, char *page);
ssize_t srpt_tpg_show_channels(struct srpt_tpg *tpg, char *page);

/* srpt_channel.c: channel set-up and release */
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

/* srpt_cm.c: logins over IB/CM and RDMA/CM */
ssize_t srpt_show_logins(char *page);
int srpt_rdma_cm_set_port(u16 port);
int srpt_ib_cm_listen(struct srpt_device *sdev);
void srpt_ib_cm_stop(struct srpt_device *sdev);
int srpt_cm_init(void);
void srpt_cm_exit(void);

/* srpt_mad.c: device-management MAD agent */
void srpt_mad_register(struct srpt_port *sport);
void srpt_mad_unregister(struct srpt_port *sport);

/* srpt_client.c: the RDMA client (device add/remove) */
int srpt_client_init(void);
void srpt_client_exit(void);

/* srpt_configfs.c: configfs objects */
extern struct configfs_attribute *srpt_discovery_attrs[];
extern struct configfs_attribute *srpt_wwn_attrs[];
extern struct configfs_attribute *srpt_tpg_attrib_attrs[];
extern struct configfs_attribute *srpt_tpg_base_attrs[];
extern struct configfs_attribute *srpt_nacl_base_attrs[];
extern struct configfs_attribute *srpt_nacl_auth_attrs[];
struct se_wwn *srpt_make_tport(struct target_fabric_configfs *tf,
			       struct config_group *group, const char *name);
void srpt_drop_tport(struct se_wwn *wwn);
struct se_portal_group *srpt_make_tpg(struct se_wwn *wwn, const char *name);
void srpt_drop_tpg(struct se_portal_group *se_tpg);
int srpt_enable_tpg(struct se_portal_group *se_tpg, bool enable);
int srpt_init_nodeacl(struct se_node_acl *se_nacl, const char *name);

/* srpt_fabric.c: the LIO fabric */
extern const struct target_core_fabric_ops srpt_fabric_ops;

#endif /* SRPT_H */
