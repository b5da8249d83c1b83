// SPDX-License-Identifier: GPL-2.0-only
/*
 * srp_ibcm_init: a minimal SRP initiator that logs in over IB/CM on a RoCE
 * port, for the ib_srpt guest tests only (never installed).
 *
 * The kernel's ib_srp and the conformance client log in over RDMA/CM, where
 * the CM moves the target's QP.  Over IB/CM the target drives its QP itself;
 * this module is the initiator that makes it do so on Soft-RoCE: it builds a
 * RoCE path record from the local and remote GIDs, sends a CM REQ with a
 * T10 SRP_LOGIN_REQ to the target's service ID, handles the REP or REJ,
 * moves its own QP with ib_cm_init_qp_attr(), sends the RTU and then SRP
 * requests: TEST UNIT READY, READ CAPACITY, writes and reads back with
 * direct and indirect descriptors and with immediate data, task management,
 * SRP_I_LOGOUT, DREQ; or it "vanishes" (QP to ERR, no CM answers).
 *
 * The wire layouts are the kernel's own <scsi/srp.h>, not the target's
 * header, so that a layout error on one side cannot hide on the other.
 *
 * Interface (debugfs, /sys/kernel/debug/srp_ibcm_init/):
 *   control  write one command per write(2), "<verb> name=<session> ...";
 *            the write returns when the command is done (bounded), with 0
 *            if it ran (its outcome is in status), else a negative errno
 *   status   one "<session>.<key>=<value>" line per result
 *
 * Verbs: login, io, tmf, logout, dreq, vanish, close (see sic_control_write).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/gfp.h>
#include <linux/random.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/kstrtox.h>
#ifdef SIC_HAVE_LINUX_HEX_H
#include <linux/hex.h>
#endif
#include <linux/uaccess.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_addr.h>
#include <scsi/srp.h>
#include <scsi/scsi_proto.h>

#define SIC_NAME_LEN		16
#define SIC_RX_N		16	/* receive buffers posted */
#define SIC_RX_SIZE		4096	/* >= any max_ti_iu_len ib_srpt offers */
#define SIC_SQ_N		16
#define SIC_IU_SIZE		8192	/* request IU buffer */
#define SIC_XFER		4096	/* bytes of each data transfer */
#define SIC_DATA_ORDER		2	/* 4 regions of SIC_XFER */
#define SIC_NDESC		4	/* descriptors of the indirect transfers */
#define SIC_TIMEOUT		(30 * HZ)
#define SIC_MAX_RESULTS		64
#define SIC_KEY_LEN		24
#define SIC_VAL_LEN		128
#define SIC_CMD_MAX		512

static_assert(sizeof(struct srp_login_req) == 64);
static_assert(sizeof(struct srp_login_rej) == 32);
static_assert(sizeof(struct srp_cmd) == 48);
static_assert(sizeof(struct srp_tsk_mgmt) == 48);
/*
 * 5.10 declares these three packed, with a u64 member: bullseye's sparse
 * (0.6.3) sizes them as if aligned.  The compiler checks them everywhere.
 */
#ifndef __CHECKER__
static_assert(sizeof(struct srp_login_rsp) == 52);
static_assert(sizeof(struct srp_rsp) == 36);
static_assert(sizeof(struct srp_indirect_buf) == 20);
#endif
static_assert(SIC_XFER % SIC_NDESC == 0);

/* Regions of the data area, each SIC_XFER bytes. */
enum { SIC_W1, SIC_R1, SIC_W2, SIC_R2, SIC_NREGIONS };
static_assert(SIC_NREGIONS * SIC_XFER <= (PAGE_SIZE << SIC_DATA_ORDER));

/**
 * struct sic_dev - an RDMA device seen by our ib_client
 * @list: entry in sic_devs
 * @ib_dev: the device
 */
struct sic_dev {
	struct list_head	list;
	struct ib_device	*ib_dev;
};

/**
 * struct sic_result - one line of the status file
 * @key: name of the result
 * @val: its value
 */
struct sic_result {
	char	key[SIC_KEY_LEN];
	char	val[SIC_VAL_LEN];
};

/**
 * struct sic_rx - a receive buffer
 * @cqe: completion entry
 * @buf: the buffer, SIC_RX_SIZE bytes
 * @dma: its DMA address
 */
struct sic_rx {
	struct ib_cqe	cqe;
	void		*buf;
	u64		dma;
};

/**
 * struct sic_sess - one IB/CM connection to a target
 * @list: entry in sic_sessions
 * @name: name given by the login command
 * @ib_dev: device it runs on
 * @port: port number
 * @pd: protection domain (with an unsafe global rkey: a test module)
 * @cq: completion queue for sends and receives
 * @qp: the RC queue pair
 * @cm_id: the IB/CM id
 * @lock: protects the fields the CM handler and completions write
 * @cm_done: REP, REJ or REQ error arrived
 * @disc_done: a DREQ, DREP or DREQ error arrived
 * @send_done: the SEND of the current request completed
 * @rsp_done: the response to the current request arrived
 * @cm_event: the event that ended the REQ (IB_CM_*), 0 if none yet
 * @cm_pdata: private data of that event
 * @rej_reason: CM reject reason of a REJ
 * @remote_qpn: QP number of the target (REP)
 * @vanished: do not answer the CM any more
 * @closing: do not repost receive buffers
 * @dreq_rcvd: count of DREQs received
 * @drep_rcvd: count of DREPs received
 * @dreq_err: count of DREQ errors (no DREP)
 * @timewait: the id left the timewait state
 * @expect_tag: tag of the request awaiting a response
 * @send_status: work completion status of the last SEND
 * @rsp: copy of the response
 * @rsp_len: bytes in @rsp
 * @stale: responses to no request in flight
 * @other_ius: IUs other than SRP_RSP received
 * @t_logout: SRP_T_LOGOUTs received
 * @rx_errors: receive completions with an error other than a flush
 * @req_lim: credits held (initial grant plus each response's delta, minus
 *	each request sent)
 * @live: the login was accepted and the RTU sent
 * @qp_moved: the QP left the RESET state (so it has to be drained)
 * @imm: immediate data was negotiated
 * @imm_offset: offset of immediate data in an SRP_CMD
 * @max_it_iu_len: largest request IU the target accepts
 * @max_ti_iu_len: largest response IU the target sends
 * @next_tag: tag of the next request
 * @login_tag: tag of the SRP_LOGIN_REQ
 * @rx: receive buffers
 * @iu: request IU buffer
 * @iu_dma: its DMA address
 * @data: the data area, SIC_NREGIONS regions of SIC_XFER bytes
 * @data_dma: its DMA address
 * @results: the recorded results
 * @n_results: entries of @results in use
 */
struct sic_sess {
	struct list_head	list;
	char			name[SIC_NAME_LEN];
	struct ib_device	*ib_dev;
	u32			port;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct ib_qp		*qp;
	struct ib_cm_id		*cm_id;

	spinlock_t		lock;	/* fields the CM and CQ callbacks write */
	struct completion	cm_done;
	struct completion	disc_done;
	struct completion	send_done;
	struct completion	rsp_done;
	int			cm_event;
	u8			cm_pdata[IB_CM_REP_PRIVATE_DATA_SIZE];
	int			rej_reason;
	u32			remote_qpn;
	bool			vanished;
	bool			closing;
	u32			dreq_rcvd;
	u32			drep_rcvd;
	u32			dreq_err;
	bool			timewait;
	u64			expect_tag;
	int			send_status;
	u8			rsp[SIC_RX_SIZE];
	u32			rsp_len;
	u32			stale;
	u32			other_ius;
	u32			t_logout;
	u32			rx_errors;
	int			req_lim;

	bool			live;
	bool			qp_moved;
	bool			imm;
	u32			imm_offset;
	u32			max_it_iu_len;
	u32			max_ti_iu_len;
	u64			next_tag;
	u64			login_tag;

	struct sic_rx		rx[SIC_RX_N];
	void			*iu;
	u64			iu_dma;
	void			*data;
	u64			data_dma;

	struct sic_result	results[SIC_MAX_RESULTS];
	unsigned int		n_results;
};

/**
 * struct sic_args - the key=value arguments of a command
 * @name: session name
 * @dev: RDMA device name
 * @port: port number
 * @sgid_index: index of the source GID
 * @dgid: destination GID (default: the source GID, loopback)
 * @have_dgid: @dgid was given
 * @dmac: destination MAC (default: the source netdev's own, loopback)
 * @have_dmac: @dmac was given
 * @service_id: IB/CM service ID
 * @have_sid: @service_id was given
 * @id_ext: target port ID, first half (default @service_id)
 * @have_id_ext: @id_ext was given
 * @ioc_guid: target port ID, second half (default @service_id)
 * @have_ioc: @ioc_guid was given
 * @pkey: P_Key of the path (RoCE: 0xffff, the default)
 * @initiator: initiator port ID
 * @have_ini: @initiator was given
 * @it_iu_len: requested IT IU length
 * @buf_fmt: requested buffer formats (SRP_BUF_FORMAT_* mask)
 * @imm: request immediate data
 * @imm_offset: immediate data offset to request
 * @multi: multichannel action MULTI (else SINGLE)
 * @retry: transport retry count
 * @pkt_life: packet life time of the path (4.096 us * 2^n)
 * @hop: hop limit of the path
 * @lun: LUN for io and tmf
 * @lba: first block for io
 * @func: task management function
 */
struct sic_args {
	char		name[SIC_NAME_LEN];
	char		dev[IB_DEVICE_NAME_MAX];
	u32		port;
	u32		sgid_index;
	union ib_gid	dgid;
	bool		have_dgid;
	u8		dmac[ETH_ALEN];
	bool		have_dmac;
	u64		service_id;
	bool		have_sid;
	u64		id_ext;
	bool		have_id_ext;
	u64		ioc_guid;
	bool		have_ioc;
	u16		pkey;
	u8		initiator[16];
	bool		have_ini;
	u32		it_iu_len;
	u32		buf_fmt;
	u32		imm;
	u32		imm_offset;
	u32		multi;
	u32		retry;
	u32		pkt_life;
	u32		hop;
	u64		lun;
	u64		lba;
	u32		func;
};

static LIST_HEAD(sic_devs);
static LIST_HEAD(sic_sessions);
/* Devices, sessions and every command; never taken by the CM or the CQ. */
static DEFINE_MUTEX(sic_mutex);
static struct dentry *sic_dir;

/**
 * sic_set() - record a result of a session
 * @s: the session
 * @key: name of the result; an earlier result of that name is replaced
 * @fmt: printf format of the value
 *
 * Called with sic_mutex held.  Results beyond SIC_MAX_RESULTS are dropped
 * with a warning.
 */
static __printf(3, 4) void sic_set(struct sic_sess *s, const char *key,
				   const char *fmt, ...)
{
	struct sic_result *r = NULL;
	unsigned int i;
	va_list ap;

	lockdep_assert_held(&sic_mutex);
	for (i = 0; i < s->n_results; i++) {
		if (!strcmp(s->results[i].key, key)) {
			r = &s->results[i];
			break;
		}
	}
	if (!r) {
		if (s->n_results == SIC_MAX_RESULTS) {
			pr_warn("%s: no room for result %s\n", s->name, key);
			return;
		}
		r = &s->results[s->n_results++];
		strscpy(r->key, key, sizeof(r->key));
	}
	va_start(ap, fmt);
	vsnprintf(r->val, sizeof(r->val), fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------ CM side -- */

/**
 * sic_cm_handler() - IB/CM events of a session
 * @cm_id: the session's id
 * @event: the event
 *
 * Runs in the CM's work queue.  It copies what the command thread needs and
 * wakes it; the only CM call it makes is the DREP answering a DREQ, unless
 * the session vanished.
 *
 * Return: 0: the id is destroyed by the command thread, never by the CM.
 */
static int sic_cm_handler(struct ib_cm_id *cm_id,
			  const struct ib_cm_event *event)
{
	struct sic_sess *s = cm_id->context;
	unsigned long flags;
	bool drep = false;

	spin_lock_irqsave(&s->lock, flags);
	switch (event->event) {
	case IB_CM_REP_RECEIVED:
	case IB_CM_REJ_RECEIVED:
	case IB_CM_REQ_ERROR:
		if (s->cm_event)
			break;
		s->cm_event = event->event;
		if (event->event == IB_CM_REP_RECEIVED) {
			s->remote_qpn = event->param.rep_rcvd.remote_qpn;
			memcpy(s->cm_pdata, event->private_data,
			       IB_CM_REP_PRIVATE_DATA_SIZE);
		} else if (event->event == IB_CM_REJ_RECEIVED) {
			s->rej_reason = event->param.rej_rcvd.reason;
			if (event->private_data)
				memcpy(s->cm_pdata, event->private_data,
				       IB_CM_REJ_PRIVATE_DATA_SIZE);
		}
		complete(&s->cm_done);
		break;
	case IB_CM_DREQ_RECEIVED:
		s->dreq_rcvd++;
		drep = !s->vanished;
		complete(&s->disc_done);
		break;
	case IB_CM_DREP_RECEIVED:
		s->drep_rcvd++;
		complete(&s->disc_done);
		break;
	case IB_CM_DREQ_ERROR:
		s->dreq_err++;
		complete(&s->disc_done);
		break;
	case IB_CM_TIMEWAIT_EXIT:
		s->timewait = true;
		break;
	default:
		break;
	}
	spin_unlock_irqrestore(&s->lock, flags);
	if (drep && ib_send_cm_drep(cm_id, NULL, 0))
		pr_info("%s: sending the DREP failed\n", s->name);
	return 0;
}

/* ---------------------------------------------------------- data path -- */

/**
 * sic_post_recv() - post a receive buffer
 * @s: the session
 * @rx: the buffer
 *
 * Return: 0 or the errno of ib_post_recv().
 */
static int sic_post_recv(struct sic_sess *s, struct sic_rx *rx)
{
	struct ib_sge sge = {
		.addr = rx->dma,
		.length = SIC_RX_SIZE,
		.lkey = s->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &rx->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	ib_dma_sync_single_for_device(s->ib_dev, rx->dma, SIC_RX_SIZE,
				      DMA_FROM_DEVICE);
	return ib_post_recv(s->qp, &wr, NULL);
}

/**
 * sic_recv_done() - an IU from the target arrived
 * @cq: the session's CQ
 * @wc: the completion
 *
 * An SRP_RSP with the tag of the request in flight is copied and wakes the
 * command thread; other IUs are only counted.  The buffer is reposted.
 */
static void sic_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct sic_rx *rx = container_of(wc->wr_cqe, struct sic_rx, cqe);
	struct sic_sess *s = cq->cq_context;
	struct srp_rsp *rsp = rx->buf;
	bool wake = false, repost;
	unsigned long flags;
	u32 len;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			spin_lock_irqsave(&s->lock, flags);
			s->rx_errors++;
			spin_unlock_irqrestore(&s->lock, flags);
		}
		return;
	}
	ib_dma_sync_single_for_cpu(s->ib_dev, rx->dma, SIC_RX_SIZE,
				   DMA_FROM_DEVICE);
	len = min_t(u32, wc->byte_len, SIC_RX_SIZE);
	spin_lock_irqsave(&s->lock, flags);
	if (len >= sizeof(*rsp) && rsp->opcode == SRP_RSP) {
		s->req_lim += be32_to_cpu(rsp->req_lim_delta);
		if (s->expect_tag && rsp->tag == s->expect_tag) {
			memcpy(s->rsp, rx->buf, len);
			s->rsp_len = len;
			s->expect_tag = 0;
			wake = true;
		} else {
			s->stale++;
		}
	} else if (len && rsp->opcode == SRP_T_LOGOUT) {
		s->t_logout++;
	} else {
		s->other_ius++;
	}
	repost = !s->closing;
	spin_unlock_irqrestore(&s->lock, flags);
	if (wake)
		complete(&s->rsp_done);
	if (repost && sic_post_recv(s, rx))
		pr_info("%s: reposting a receive buffer failed\n", s->name);
}

/**
 * sic_send_done() - the SEND of a request completed
 * @cq: the session's CQ
 * @wc: the completion
 */
static void sic_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct sic_sess *s = cq->cq_context;

	WRITE_ONCE(s->send_status, wc->status);
	complete(&s->send_done);
}

static struct ib_cqe sic_send_cqe = { .done = sic_send_done };

/**
 * sic_wait() - wait for a completion, bounded and killable
 * @c: the completion
 * @timeout_err: what to return when SIC_TIMEOUT passes
 *
 * Killable, so that the guest suite's per-case watchdog can end a writer
 * (and its hold on the module) at once.
 *
 * Return: 0, @timeout_err, or -EINTR.
 */
static int sic_wait(struct completion *c, int timeout_err)
{
	long left = wait_for_completion_killable_timeout(c, SIC_TIMEOUT);

	if (left < 0)
		return -EINTR;
	return left ? 0 : timeout_err;
}

/**
 * sic_exec() - send the IU in s->iu and wait for its response
 * @s: the session, live
 * @len: bytes of the IU
 * @tag: its tag; 0 when no response is expected (SRP_I_LOGOUT)
 *
 * On success the response is in s->rsp.
 *
 * Return: 0, -ENOTCONN if the session is not live (or the target
 * disconnected), -EAGAIN without credits, -EMSGSIZE if @len exceeds the
 * negotiated IU length, -ETIME if the SEND did not complete in time, -EIO
 * if it failed, -ETIMEDOUT if no response came in time, -EINTR if the
 * writer was killed.
 */
static int sic_exec(struct sic_sess *s, u32 len, u64 tag)
{
	struct ib_sge sge = {
		.addr = s->iu_dma,
		.length = len,
		.lkey = s->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &sic_send_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	unsigned long flags;
	int ret;

	if (!s->live || s->vanished)
		return -ENOTCONN;
	if (len > s->max_it_iu_len)
		return -EMSGSIZE;
	spin_lock_irqsave(&s->lock, flags);
	if (s->dreq_rcvd || s->drep_rcvd) {
		spin_unlock_irqrestore(&s->lock, flags);
		return -ENOTCONN;
	}
	if (s->req_lim <= 0) {
		spin_unlock_irqrestore(&s->lock, flags);
		return -EAGAIN;
	}
	s->req_lim--;
	s->expect_tag = tag;
	spin_unlock_irqrestore(&s->lock, flags);
	reinit_completion(&s->send_done);
	reinit_completion(&s->rsp_done);
	ib_dma_sync_single_for_device(s->ib_dev, s->iu_dma, len,
				      DMA_TO_DEVICE);
	ret = ib_post_send(s->qp, &wr, NULL);
	if (ret)
		goto out;
	ret = sic_wait(&s->send_done, -ETIME);
	if (ret)
		goto out;
	if (READ_ONCE(s->send_status) != IB_WC_SUCCESS) {
		ret = -EIO;
		goto out;
	}
	if (tag)
		ret = sic_wait(&s->rsp_done, -ETIMEDOUT);
out:
	spin_lock_irqsave(&s->lock, flags);
	s->expect_tag = 0;
	spin_unlock_irqrestore(&s->lock, flags);
	return ret;
}

/* ------------------------------------------------------- SRP requests -- */

/**
 * struct sic_xfer - the data of one SCSI command
 * @write: data-out (else data-in, if @len)
 * @fmt: SRP_DATA_DESC_DIRECT, _INDIRECT or _IMM
 * @len: bytes to transfer, 0 for none
 * @ndesc: descriptors (indirect)
 * @off: per descriptor, offset into the data area
 * @dlen: per descriptor, length
 * @imm_src: the data of an immediate-data write
 */
struct sic_xfer {
	bool		write;
	int		fmt;
	u32		len;
	u32		ndesc;
	u32		off[SIC_NDESC];
	u32		dlen[SIC_NDESC];
	const void	*imm_src;
};

/**
 * struct sic_status - what an SRP_RSP said
 * @status: SCSI status
 * @flags: SRP_RSP flags
 * @resid: residual count of the command's direction
 * @sense_key: sense key (CHECK CONDITION)
 * @asc: additional sense code
 * @ascq: additional sense code qualifier
 * @resp_code: response code (task management), 0xff if none
 */
struct sic_status {
	u8	status;
	u8	flags;
	u32	resid;
	u8	sense_key;
	u8	asc;
	u8	ascq;
	u8	resp_code;
};

/**
 * sic_parse_rsp() - decode the SRP_RSP in s->rsp
 * @s: the session
 * @st: receives the fields
 *
 * Return: 0, or -EPROTO if the response is shorter than its lengths say.
 */
static int sic_parse_rsp(struct sic_sess *s, struct sic_status *st)
{
	const struct srp_rsp *rsp = (const void *)s->rsp;
	u32 rlen, slen;
	const u8 *sense;

	memset(st, 0, sizeof(*st));
	st->resp_code = 0xff;
	if (s->rsp_len < sizeof(*rsp))
		return -EPROTO;
	st->status = rsp->status;
	st->flags = rsp->flags;
	if (rsp->flags & (SRP_RSP_FLAG_DOUNDER | SRP_RSP_FLAG_DOOVER))
		st->resid = be32_to_cpu(rsp->data_out_res_cnt);
	if (rsp->flags & (SRP_RSP_FLAG_DIUNDER | SRP_RSP_FLAG_DIOVER))
		st->resid = be32_to_cpu(rsp->data_in_res_cnt);
	rlen = rsp->flags & SRP_RSP_FLAG_RSPVALID ?
	       be32_to_cpu(rsp->resp_data_len) : 0;
	slen = rsp->flags & SRP_RSP_FLAG_SNSVALID ?
	       be32_to_cpu(rsp->sense_data_len) : 0;
	if (rlen > s->rsp_len - sizeof(*rsp) ||
	    slen > s->rsp_len - sizeof(*rsp) - rlen)
		return -EPROTO;
	if (rlen >= 4)
		st->resp_code = rsp->data[3];
	sense = rsp->data + rlen;
	if (slen >= 14 && (sense[0] & 0x7f) <= 0x71) {
		st->sense_key = sense[2] & 0xf;
		st->asc = sense[12];
		st->ascq = sense[13];
	} else if (slen >= 4) {
		st->sense_key = sense[1] & 0xf;
		st->asc = sense[2];
		st->ascq = sense[3];
	}
	return 0;
}

static void sic_lun(struct scsi_lun *out, u64 lun)
{
	memset(out, 0, sizeof(*out));
	out->scsi_lun[0] = (lun >> 8) & 0x3f;	/* flat space above 255 */
	if (lun > 255)
		out->scsi_lun[0] |= 0x40;
	out->scsi_lun[1] = lun & 0xff;
}

/**
 * sic_scsi() - run one SCSI command
 * @s: the session, live
 * @lun: the LUN
 * @cdb: 16-byte CDB
 * @x: the data and how it is described
 * @st: receives the response
 *
 * Builds an SRP_CMD with a direct descriptor, an indirect descriptor table
 * in the IU or immediate data, syncs the data for the HCA and back.
 *
 * Return: 0 when a response arrived (its status is in @st), else an errno
 * from sic_exec() or -EPROTO for a malformed response.
 */
static int sic_scsi(struct sic_sess *s, u64 lun, const u8 *cdb,
		    const struct sic_xfer *x, struct sic_status *st)
{
	struct srp_cmd *cmd = s->iu;
	u32 rkey = s->pd->unsafe_global_rkey;
	u32 len = sizeof(*cmd), i;
	u64 tag = s->next_tag++;
	int ret;

	memset(cmd, 0, sizeof(*cmd));
	cmd->opcode = SRP_CMD;
	cmd->tag = tag;
	sic_lun(&cmd->lun, lun);
	memcpy(cmd->cdb, cdb, sizeof(cmd->cdb));
	if (x->len && x->fmt == SRP_DATA_DESC_DIRECT) {
		struct srp_direct_buf *d = (void *)cmd->add_data;

		d->va = cpu_to_be64(s->data_dma + x->off[0]);
		d->key = cpu_to_be32(rkey);
		d->len = cpu_to_be32(x->len);
		len += sizeof(*d);
	} else if (x->len && x->fmt == SRP_DATA_DESC_INDIRECT) {
		struct srp_indirect_buf *ib = (void *)cmd->add_data;
		u32 tlen = x->ndesc * sizeof(struct srp_direct_buf);

		ib->table_desc.va = cpu_to_be64(s->iu_dma + sizeof(*cmd) +
						sizeof(*ib));
		ib->table_desc.key = cpu_to_be32(rkey);
		ib->table_desc.len = cpu_to_be32(tlen);
		ib->len = cpu_to_be32(x->len);
		for (i = 0; i < x->ndesc; i++) {
			ib->desc_list[i].va = cpu_to_be64(s->data_dma +
							  x->off[i]);
			ib->desc_list[i].key = cpu_to_be32(rkey);
			ib->desc_list[i].len = cpu_to_be32(x->dlen[i]);
		}
		len += sizeof(*ib) + tlen;
	} else if (x->len && x->fmt == SRP_DATA_DESC_IMM) {
		struct srp_imm_buf *ib = (void *)cmd->add_data;

		if (s->imm_offset < sizeof(*cmd) + sizeof(*ib) ||
		    s->imm_offset + x->len > SIC_IU_SIZE)
			return -EMSGSIZE;
		ib->len = cpu_to_be32(x->len);
		memset(s->iu + sizeof(*cmd) + sizeof(*ib), 0,
		       s->imm_offset - sizeof(*cmd) - sizeof(*ib));
		memcpy(s->iu + s->imm_offset, x->imm_src, x->len);
		len = s->imm_offset + x->len;
	}
	if (x->len) {
		u32 cnt = x->fmt == SRP_DATA_DESC_INDIRECT ? x->ndesc :
			  x->fmt == SRP_DATA_DESC_DIRECT ? 1 : 0;

		if (x->write) {
			cmd->buf_fmt = x->fmt << 4;
			cmd->data_out_desc_cnt = cnt;
		} else {
			cmd->buf_fmt = x->fmt;
			cmd->data_in_desc_cnt = cnt;
		}
	}
	ib_dma_sync_single_for_device(s->ib_dev, s->data_dma,
				      PAGE_SIZE << SIC_DATA_ORDER,
				      DMA_BIDIRECTIONAL);
	ret = sic_exec(s, len, tag);
	ib_dma_sync_single_for_cpu(s->ib_dev, s->data_dma,
				   PAGE_SIZE << SIC_DATA_ORDER,
				   DMA_BIDIRECTIONAL);
	if (ret)
		return ret;
	return sic_parse_rsp(s, st);
}

/**
 * sic_scsi_ok() - run a SCSI command and record its outcome
 * @s: the session
 * @key: result name
 * @lun: the LUN
 * @cdb: 16-byte CDB
 * @x: the data
 *
 * Records "ok" for GOOD status without residual, else what went wrong.
 * A UNIT ATTENTION is retried (up to three times), as initiators do.
 *
 * Return: true for "ok".
 */
static bool sic_scsi_ok(struct sic_sess *s, const char *key, u64 lun,
			const u8 *cdb, const struct sic_xfer *x)
{
	struct sic_status st;
	int ret, tries = 0;

	do {
		ret = sic_scsi(s, lun, cdb, x, &st);
	} while (!ret && st.status == SAM_STAT_CHECK_CONDITION &&
		 st.sense_key == UNIT_ATTENTION && ++tries < 3);
	if (ret) {
		sic_set(s, key, "error %d", ret);
		return false;
	}
	if (st.status != SAM_STAT_GOOD) {
		sic_set(s, key, "status 0x%02x sense %x/%02x/%02x", st.status,
			st.sense_key, st.asc, st.ascq);
		return false;
	}
	if (st.resid || (st.flags & ~SRP_RSP_FLAG_RSPVALID)) {
		sic_set(s, key, "flags 0x%02x residual %u", st.flags,
			st.resid);
		return false;
	}
	sic_set(s, key, "ok");
	return true;
}

static void sic_cdb_rw(u8 *cdb, u8 opcode, u64 lba, u32 blocks)
{
	__be32 l = cpu_to_be32(lba);
	__be16 n = cpu_to_be16(blocks);

	memset(cdb, 0, 16);
	cdb[0] = opcode;
	memcpy(&cdb[2], &l, sizeof(l));
	memcpy(&cdb[7], &n, sizeof(n));
}

/* A big-endian 32-bit field of a (page-aligned) READ CAPACITY answer. */
static u32 sic_be32(const u8 *p)
{
	return be32_to_cpup((const __be32 *)p);
}

static void *sic_region(struct sic_sess *s, int r)
{
	return s->data + r * SIC_XFER;
}

/**
 * sic_compare() - compare a region with expected data, record the result
 * @s: the session
 * @key: result name
 * @got: what was read
 * @want: what should be there
 *
 * Return: true if equal.
 */
static bool sic_compare(struct sic_sess *s, const char *key, const u8 *got,
			const u8 *want)
{
	u32 i;

	for (i = 0; i < SIC_XFER; i++) {
		if (got[i] != want[i]) {
			sic_set(s, key, "mismatch at byte %u: 0x%02x, not 0x%02x",
				i, got[i], want[i]);
			return false;
		}
	}
	sic_set(s, key, "ok");
	return true;
}

/**
 * sic_io() - the "io" command: SCSI commands over every descriptor format
 * @s: the session, live
 * @a: lun= and lba=
 *
 * TEST UNIT READY; READ CAPACITY(10) (direct data-in) for the block size;
 * a 4 KiB WRITE(10) with a direct descriptor and a READ(10) back
 * (write_direct, read_direct); a write at lba + 4 KiB through an indirect
 * table of four descriptors pointing at the quarters of the buffer in
 * reverse order, read back directly (the quarters must appear in
 * descriptor order: indirect_order) and through the same indirect table
 * (read_indirect); if the target offered immediate data a write with the
 * data in the IU and a read back (write_imm, read_imm), else
 * write_imm=not offered.
 *
 * Return: 0 (the outcome is in the results), -ENOTCONN if not live.
 */
static int sic_io(struct sic_sess *s, const struct sic_args *a)
{
	struct sic_xfer x = { };
	struct sic_status st;
	u32 bs, blocks, q = SIC_XFER / SIC_NDESC, i;
	u8 cdb[16] = { };
	u8 *w1 = sic_region(s, SIC_W1), *r1 = sic_region(s, SIC_R1);
	u8 *w2 = sic_region(s, SIC_W2), *r2 = sic_region(s, SIC_R2);
	u64 lba;
	int ret;

	if (!s->live || s->vanished)
		return -ENOTCONN;
	cdb[0] = TEST_UNIT_READY;
	sic_scsi_ok(s, "tur", a->lun, cdb, &x);

	memset(cdb, 0, sizeof(cdb));
	cdb[0] = READ_CAPACITY;
	memset(r1, 0, SIC_XFER);
	x.fmt = SRP_DATA_DESC_DIRECT;
	x.len = 8;
	x.off[0] = SIC_R1 * SIC_XFER;
	if (!sic_scsi_ok(s, "read_capacity", a->lun, cdb, &x))
		return 0;
	bs = sic_be32(r1 + 4);
	sic_set(s, "block_size", "%u", bs);
	sic_set(s, "blocks", "%llu", (u64)sic_be32(r1) + 1);
	if (!bs || bs > SIC_XFER || SIC_XFER % bs) {
		sic_set(s, "io", "block size %u not usable", bs);
		return 0;
	}
	blocks = SIC_XFER / bs;
	if (a->lba + 3 * blocks > (u64)sic_be32(r1) + 1 ||
	    a->lba + 3 * blocks > U32_MAX) {
		sic_set(s, "io", "lba %llu beyond the LUN", a->lba);
		return 0;
	}

	/* Direct descriptors. */
	lba = a->lba;
	get_random_bytes(w1, SIC_XFER);
	memset(&x, 0, sizeof(x));
	x.write = true;
	x.fmt = SRP_DATA_DESC_DIRECT;
	x.len = SIC_XFER;
	x.off[0] = SIC_W1 * SIC_XFER;
	sic_cdb_rw(cdb, WRITE_10, lba, blocks);
	if (sic_scsi_ok(s, "write_direct", a->lun, cdb, &x)) {
		memset(r1, 0, SIC_XFER);
		x.write = false;
		x.off[0] = SIC_R1 * SIC_XFER;
		sic_cdb_rw(cdb, READ_10, lba, blocks);
		if (sic_scsi_ok(s, "read_direct_cmd", a->lun, cdb, &x))
			sic_compare(s, "read_direct", r1, w1);
	}

	/* Indirect: quarters of w2 in reverse order. */
	lba = a->lba + blocks;
	get_random_bytes(w2, SIC_XFER);
	memset(&x, 0, sizeof(x));
	x.write = true;
	x.fmt = SRP_DATA_DESC_INDIRECT;
	x.len = SIC_XFER;
	x.ndesc = SIC_NDESC;
	for (i = 0; i < SIC_NDESC; i++) {
		x.off[i] = SIC_W2 * SIC_XFER + (SIC_NDESC - 1 - i) * q;
		x.dlen[i] = q;
	}
	sic_cdb_rw(cdb, WRITE_10, lba, blocks);
	if (sic_scsi_ok(s, "write_indirect", a->lun, cdb, &x)) {
		struct sic_xfer d = {
			.fmt = SRP_DATA_DESC_DIRECT,
			.len = SIC_XFER,
			.off = { SIC_R1 * SIC_XFER },
		};
		u8 *want = kmalloc(SIC_XFER, GFP_KERNEL);

		memset(r1, 0, SIC_XFER);
		sic_cdb_rw(cdb, READ_10, lba, blocks);
		if (!want) {
			sic_set(s, "indirect_order", "out of memory");
		} else if (sic_scsi_ok(s, "indirect_order_cmd", a->lun, cdb,
				       &d)) {
			for (i = 0; i < SIC_NDESC; i++)
				memcpy(want + i * q,
				       w2 + (SIC_NDESC - 1 - i) * q, q);
			sic_compare(s, "indirect_order", r1, want);
		}
		kfree(want);
		memset(r2, 0, SIC_XFER);
		x.write = false;
		for (i = 0; i < SIC_NDESC; i++)
			x.off[i] = SIC_R2 * SIC_XFER + (SIC_NDESC - 1 - i) * q;
		if (sic_scsi_ok(s, "read_indirect_cmd", a->lun, cdb, &x))
			sic_compare(s, "read_indirect", r2, w2);
	}

	/* Immediate data. */
	if (!s->imm) {
		sic_set(s, "write_imm", "not offered");
		return 0;
	}
	lba = a->lba + 2 * blocks;
	get_random_bytes(w1, SIC_XFER);
	memset(&x, 0, sizeof(x));
	x.write = true;
	x.fmt = SRP_DATA_DESC_IMM;
	x.len = SIC_XFER;
	x.imm_src = w1;
	sic_cdb_rw(cdb, WRITE_10, lba, blocks);
	ret = sic_scsi(s, a->lun, cdb, &x, &st);
	if (ret == -EMSGSIZE) {
		sic_set(s, "write_imm", "IU of %u bytes too large",
			s->imm_offset + SIC_XFER);
		return 0;
	}
	/* Same checks as sic_scsi_ok(), without repeating the write. */
	if (ret)
		sic_set(s, "write_imm", "error %d", ret);
	else if (st.status != SAM_STAT_GOOD || st.resid)
		sic_set(s, "write_imm", "status 0x%02x sense %x/%02x/%02x",
			st.status, st.sense_key, st.asc, st.ascq);
	else
		sic_set(s, "write_imm", "ok");
	if (ret || st.status != SAM_STAT_GOOD || st.resid)
		return 0;
	memset(&x, 0, sizeof(x));
	x.fmt = SRP_DATA_DESC_DIRECT;
	x.len = SIC_XFER;
	x.off[0] = SIC_R1 * SIC_XFER;
	memset(r1, 0, SIC_XFER);
	sic_cdb_rw(cdb, READ_10, lba, blocks);
	if (sic_scsi_ok(s, "read_imm_cmd", a->lun, cdb, &x))
		sic_compare(s, "read_imm", r1, w1);
	return 0;
}

/**
 * sic_tmf() - the "tmf" command: one SRP_TSK_MGMT
 * @s: the session, live
 * @a: func= (SRP_TSK_*, default ABORT TASK) and lun=
 *
 * ABORT TASK names a tag that was never used.  Records tmf_<func in hex>
 * as the response code ("0x00" = function complete).
 *
 * Return: 0, or -ENOTCONN if not live.
 */
static int sic_tmf(struct sic_sess *s, const struct sic_args *a)
{
	struct srp_tsk_mgmt *t = s->iu;
	struct sic_status st;
	u64 tag = s->next_tag++;
	char key[SIC_KEY_LEN];
	int ret;

	if (!s->live || s->vanished)
		return -ENOTCONN;
	snprintf(key, sizeof(key), "tmf_0x%02x", a->func);
	memset(t, 0, sizeof(*t));
	t->opcode = SRP_TSK_MGMT;
	t->tag = tag;
	sic_lun(&t->lun, a->lun);
	t->tsk_mgmt_func = a->func;
	/* A tag this session never sent. */
	t->task_tag = 0xdead000000000000ULL | tag;
	ret = sic_exec(s, sizeof(*t), tag);
	if (!ret)
		ret = sic_parse_rsp(s, &st);
	if (ret)
		sic_set(s, key, "error %d", ret);
	else if (st.resp_code == 0xff)
		sic_set(s, key, "no response data, status 0x%02x", st.status);
	else
		sic_set(s, key, "0x%02x", st.resp_code);
	return 0;
}

/**
 * sic_wait_disc() - wait until a DREQ or DREP arrives or a DREQ failed
 * @s: the session
 * @what: result name
 *
 * Records "dreq" (the target disconnected), "drep" (it answered ours),
 * "dreq_error" or "timeout".
 */
static void sic_wait_disc(struct sic_sess *s, const char *what)
{
	unsigned long flags;
	u32 dreq, drep, err;

	sic_wait(&s->disc_done, -ETIMEDOUT);
	spin_lock_irqsave(&s->lock, flags);
	dreq = s->dreq_rcvd;
	drep = s->drep_rcvd;
	err = s->dreq_err;
	spin_unlock_irqrestore(&s->lock, flags);
	sic_set(s, what, "%s", dreq ? "dreq" : drep ? "drep" :
		err ? "dreq_error" : "timeout");
}

/**
 * sic_logout() - the "logout" command: SRP_I_LOGOUT
 * @s: the session, live
 *
 * SRP has no answer to SRP_I_LOGOUT but the target ending the connection:
 * waits for its DREQ (answered by the CM handler).
 *
 * Return: 0, or an errno if the IU could not be sent.
 */
static int sic_logout(struct sic_sess *s)
{
	struct srp_i_logout *lo = s->iu;
	int ret;

	memset(lo, 0, sizeof(*lo));
	lo->opcode = SRP_I_LOGOUT;
	lo->tag = s->next_tag++;
	reinit_completion(&s->disc_done);
	ret = sic_exec(s, sizeof(*lo), 0);
	if (ret) {
		sic_set(s, "logout", "error %d", ret);
		return ret;
	}
	sic_wait_disc(s, "logout");
	s->live = false;
	return 0;
}

/**
 * sic_dreq() - the "dreq" command: disconnect with a CM DREQ
 * @s: the session, live
 *
 * Return: 0, or the errno of ib_send_cm_dreq().
 */
static int sic_dreq(struct sic_sess *s)
{
	int ret;

	reinit_completion(&s->disc_done);
	ret = ib_send_cm_dreq(s->cm_id, NULL, 0);
	if (ret) {
		sic_set(s, "dreq", "error %d", ret);
		return ret;
	}
	sic_wait_disc(s, "dreq");
	s->live = false;
	return 0;
}

/**
 * sic_vanish() - the "vanish" command: QP to ERR, stop answering the CM
 * @s: the session
 *
 * Like an initiator that crashed: no DREQ, no DREP, and nothing the
 * target sends is acknowledged any more.
 *
 * Return: 0, or the errno of ib_modify_qp().
 */
static int sic_vanish(struct sic_sess *s)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&s->lock, flags);
	s->vanished = true;
	s->closing = true;
	spin_unlock_irqrestore(&s->lock, flags);
	ret = ib_modify_qp(s->qp, &attr, IB_QP_STATE);
	sic_set(s, "vanish", "%d", ret);
	return ret;
}

/* ------------------------------------------------------------ session -- */

/**
 * sic_sess_free() - tear a session down and free it
 * @s: the session, on no list
 *
 * Destroying the CM id first ends the CM's use of the session (a live
 * connection gets a DREQ from the CM); then the QP is drained, so no
 * completion can refer to the buffers, and everything is freed.
 */
static void sic_sess_free(struct sic_sess *s)
{
	unsigned long flags;
	int i;

	spin_lock_irqsave(&s->lock, flags);
	s->closing = true;
	spin_unlock_irqrestore(&s->lock, flags);
	if (s->cm_id)
		ib_destroy_cm_id(s->cm_id);
	if (s->qp) {
		if (s->qp_moved)
			ib_drain_qp(s->qp);
		ib_destroy_qp(s->qp);
	}
	if (s->cq)
		ib_free_cq(s->cq);
	for (i = 0; i < SIC_RX_N; i++) {
		if (!s->rx[i].buf)
			continue;
		ib_dma_unmap_single(s->ib_dev, s->rx[i].dma, SIC_RX_SIZE,
				    DMA_FROM_DEVICE);
		kfree(s->rx[i].buf);
	}
	if (s->iu) {
		ib_dma_unmap_single(s->ib_dev, s->iu_dma, SIC_IU_SIZE,
				    DMA_TO_DEVICE);
		kfree(s->iu);
	}
	if (s->data) {
		ib_dma_unmap_single(s->ib_dev, s->data_dma,
				    PAGE_SIZE << SIC_DATA_ORDER,
				    DMA_BIDIRECTIONAL);
		free_pages((unsigned long)s->data, SIC_DATA_ORDER);
	}
	if (s->pd)
		ib_dealloc_pd(s->pd);
	kfree(s);
}

/**
 * sic_sess_alloc() - allocate a session with its verbs resources
 * @ib_dev: the device
 * @port: port number
 * @name: session name
 *
 * PD, CQ, an RC QP in the RESET state, the receive buffers, the request IU
 * buffer and the data area, all DMA-mapped.
 *
 * Return: the session or an ERR_PTR.
 */
static struct sic_sess *sic_sess_alloc(struct ib_device *ib_dev, u32 port,
				       const char *name)
{
	struct ib_qp_init_attr init = { };
	struct sic_sess *s;
	int i, ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	strscpy(s->name, name, sizeof(s->name));
	s->ib_dev = ib_dev;
	s->port = port;
	spin_lock_init(&s->lock);
	init_completion(&s->cm_done);
	init_completion(&s->disc_done);
	init_completion(&s->send_done);
	init_completion(&s->rsp_done);
	INIT_LIST_HEAD(&s->list);
	s->next_tag = 0x5349430000000001ULL;	/* "SIC" */

	ret = -ENOMEM;
	s->pd = ib_alloc_pd(ib_dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(s->pd)) {
		ret = PTR_ERR(s->pd);
		s->pd = NULL;
		goto fail;
	}
	s->cq = ib_alloc_cq(ib_dev, s, 2 * (SIC_RX_N + SIC_SQ_N) + 2, 0,
			    IB_POLL_SOFTIRQ);
	if (IS_ERR(s->cq)) {
		ret = PTR_ERR(s->cq);
		s->cq = NULL;
		goto fail;
	}
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	init.qp_type = IB_QPT_RC;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	/* One more of each for ib_drain_qp(). */
	init.cap.max_send_wr = SIC_SQ_N + 1;
	init.cap.max_recv_wr = SIC_RX_N + 1;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	s->qp = ib_create_qp(s->pd, &init);
	if (IS_ERR(s->qp)) {
		ret = PTR_ERR(s->qp);
		s->qp = NULL;
		goto fail;
	}

	ret = -ENOMEM;
	for (i = 0; i < SIC_RX_N; i++) {
		struct sic_rx *rx = &s->rx[i];

		rx->cqe.done = sic_recv_done;
		rx->buf = kmalloc(SIC_RX_SIZE, GFP_KERNEL);
		if (!rx->buf)
			goto fail;
		rx->dma = ib_dma_map_single(ib_dev, rx->buf, SIC_RX_SIZE,
					    DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ib_dev, rx->dma)) {
			kfree(rx->buf);
			rx->buf = NULL;
			goto fail;
		}
	}
	s->iu = kzalloc(SIC_IU_SIZE, GFP_KERNEL);
	if (!s->iu)
		goto fail;
	s->iu_dma = ib_dma_map_single(ib_dev, s->iu, SIC_IU_SIZE,
				      DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ib_dev, s->iu_dma)) {
		kfree(s->iu);
		s->iu = NULL;
		goto fail;
	}
	s->data = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
					   SIC_DATA_ORDER);
	if (!s->data)
		goto fail;
	s->data_dma = ib_dma_map_single(ib_dev, s->data,
					PAGE_SIZE << SIC_DATA_ORDER,
					DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ib_dev, s->data_dma)) {
		free_pages((unsigned long)s->data, SIC_DATA_ORDER);
		s->data = NULL;
		goto fail;
	}
	return s;

fail:
	sic_sess_free(s);
	return ERR_PTR(ret);
}

/**
 * sic_qp_move() - move the session's QP with attributes from the CM
 * @s: the session
 * @state: IB_QPS_INIT, IB_QPS_RTR or IB_QPS_RTS
 * @key: result name, records the errno (0 on success)
 *
 * Return: 0 or a negative errno.
 */
static int sic_qp_move(struct sic_sess *s, enum ib_qp_state state,
		       const char *key)
{
	struct ib_qp_attr *attr;
	int mask = 0, ret;

	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	if (!attr)
		return -ENOMEM;
	attr->qp_state = state;
	ret = ib_cm_init_qp_attr(s->cm_id, attr, &mask);
	if (!ret)
		ret = ib_modify_qp(s->qp, attr, mask);
	if (!ret)
		s->qp_moved = true;
	kfree(attr);
	sic_set(s, key, "%d", ret);
	return ret;
}

/**
 * sic_path() - build the RoCE path record of a login
 * @s: the session
 * @a: the login arguments
 * @sgid_attr: the source GID
 * @path: receives the path record
 *
 * What RDMA/CM builds for RoCE (cma_resolve_iboe_route()): record type from
 * the GID type (RoCE v1 or v2), both GIDs, the default P_Key, the netdev's
 * MTU, the current rate, a packet life time, a hop limit, and the
 * destination MAC, with the route marked resolved.
 *
 * Return: 0, or -ENODEV/-EINVAL if the GID has no usable netdev.
 */
static int sic_path(struct sic_sess *s, const struct sic_args *a,
		    const struct ib_gid_attr *sgid_attr,
		    struct sa_path_rec *path)
{
	struct net_device *ndev;
	u8 dmac[ETH_ALEN];
	int mtu;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid_attr);
	if (IS_ERR(ndev)) {
		rcu_read_unlock();
		return -ENODEV;
	}
	mtu = ndev->mtu;
	ether_addr_copy(dmac, a->have_dmac ? a->dmac : ndev->dev_addr);
	rcu_read_unlock();

	memset(path, 0, sizeof(*path));
	path->rec_type = sa_conv_gid_to_pathrec_type(sgid_attr->gid_type);
	if (!sa_path_is_roce(path))
		return -EINVAL;
	path->sgid = sgid_attr->gid;
	path->dgid = a->have_dgid ? a->dgid : sgid_attr->gid;
	path->pkey = cpu_to_be16(a->pkey);
	path->reversible = 1;
	path->hop_limit = a->hop;
	path->mtu_selector = IB_SA_EQ;
	path->mtu = iboe_get_mtu(mtu);
	path->rate_selector = IB_SA_EQ;
	path->rate = IB_RATE_PORT_CURRENT;
	path->packet_life_time_selector = IB_SA_EQ;
	path->packet_life_time = a->pkt_life;
	path->service_id = cpu_to_be64(a->service_id);
	path->roce.route_resolved = true;
	sa_path_set_dmac(path, dmac);
	if (!path->mtu)
		return -EINVAL;
	sic_set(s, "path", "type %s mtu %d sgid %pI6 dgid %pI6",
		path->rec_type == SA_PATH_REC_TYPE_ROCE_V2 ? "v2" : "v1",
		ib_mtu_enum_to_int(path->mtu), path->sgid.raw,
		path->dgid.raw);
	return 0;
}

/**
 * sic_login_accepted() - finish an accepted login
 * @s: the session; s->cm_pdata holds the REP's private data
 *
 * Parses SRP_LOGIN_RSP, moves the QP to INIT, posts the receive buffers,
 * moves it to RTR and RTS and sends the RTU.
 *
 * Return: 0 or a negative errno (the step that failed is recorded).
 */
static int sic_login_accepted(struct sic_sess *s)
{
	struct srp_login_rsp *rsp = (void *)s->cm_pdata;
	int i, ret;

	if (rsp->opcode != SRP_LOGIN_RSP) {
		sic_set(s, "login", "REP without SRP_LOGIN_RSP (opcode 0x%02x)",
			rsp->opcode);
		return -EPROTO;
	}
	s->req_lim = be32_to_cpu(rsp->req_lim_delta);
	s->max_it_iu_len = min_t(u32, be32_to_cpu(rsp->max_it_iu_len),
				 SIC_IU_SIZE);
	s->max_ti_iu_len = be32_to_cpu(rsp->max_ti_iu_len);
	s->imm = s->imm && (rsp->rsp_flags & SRP_LOGIN_RSP_IMMED_SUPP);
	sic_set(s, "login", "accepted");
	sic_set(s, "rsp_tag", "%s", rsp->tag == s->login_tag ?
		"match" : "mismatch");
	sic_set(s, "credits", "%d", s->req_lim);
	sic_set(s, "max_it_iu_len", "%u", be32_to_cpu(rsp->max_it_iu_len));
	sic_set(s, "max_ti_iu_len", "%u", s->max_ti_iu_len);
	sic_set(s, "buf_fmt", "0x%x", be16_to_cpu(rsp->buf_fmt));
	sic_set(s, "rsp_flags", "0x%02x", rsp->rsp_flags);
	sic_set(s, "imm", "%d", s->imm);
	sic_set(s, "remote_qpn", "0x%x", s->remote_qpn);
	sic_set(s, "qpn", "0x%x", s->qp->qp_num);
	if (s->max_ti_iu_len > SIC_RX_SIZE) {
		sic_set(s, "login", "max_ti_iu_len %u above our %u",
			s->max_ti_iu_len, SIC_RX_SIZE);
		return -EMSGSIZE;
	}

	ret = sic_qp_move(s, IB_QPS_INIT, "qp_init");
	if (ret)
		return ret;
	for (i = 0; i < SIC_RX_N; i++) {
		ret = sic_post_recv(s, &s->rx[i]);
		if (ret) {
			sic_set(s, "post_recv", "%d", ret);
			return ret;
		}
	}
	ret = sic_qp_move(s, IB_QPS_RTR, "qp_rtr");
	if (ret)
		return ret;
	ret = sic_qp_move(s, IB_QPS_RTS, "qp_rts");
	if (ret)
		return ret;
	ret = ib_send_cm_rtu(s->cm_id, NULL, 0);
	sic_set(s, "rtu", "%d", ret);
	if (ret)
		return ret;
	s->live = true;
	return 0;
}

/**
 * sic_login_rejected() - record what a REJ said
 * @s: the session; s->cm_pdata holds the REJ's private data
 */
static void sic_login_rejected(struct sic_sess *s)
{
	struct srp_login_rej *rej = (void *)s->cm_pdata;

	sic_set(s, "login", "rejected");
	sic_set(s, "cm_rej_reason", "%d", s->rej_reason);
	if (s->rej_reason != IB_CM_REJ_CONSUMER_DEFINED)
		return;
	if (rej->opcode != SRP_LOGIN_REJ) {
		sic_set(s, "srp_rej", "no SRP_LOGIN_REJ (opcode 0x%02x)",
			rej->opcode);
		return;
	}
	sic_set(s, "srp_rej_reason", "0x%x", be32_to_cpu(rej->reason));
	sic_set(s, "srp_rej_buf_fmt", "0x%x", be16_to_cpu(rej->buf_fmt));
	sic_set(s, "rej_tag", "%s", rej->tag == s->login_tag ?
		"match" : "mismatch");
}

/**
 * sic_login() - the "login" command
 * @dev: the RDMA device named by dev=
 * @a: the arguments
 * @out: receives the new session (also after a REJ or timeout, so that
 *	its results can be read; "close" frees it)
 *
 * Builds the path record and SRP_LOGIN_REQ (T10 layout, target port ID =
 * id_ext + ioc_guid, initiator port ID from initiator=), sends the CM REQ
 * and waits for the REP or REJ; an accepted login is completed by
 * sic_login_accepted().
 *
 * Return: 0 when the target answered (accepted or rejected), else a
 * negative errno.
 */
static int sic_login(struct ib_device *dev, const struct sic_args *a,
		     struct sic_sess **out)
{
	const struct ib_gid_attr *sgid_attr;
	struct ib_cm_req_param req = { };
	struct srp_login_req lr = { };
	struct sa_path_rec path;
	struct sic_sess *s;
	__be64 v;
	int ret;

	if (!a->have_sid || !a->have_ini)
		return -EINVAL;
	if (a->port < rdma_start_port(dev) || a->port > rdma_end_port(dev))
		return -EINVAL;
	if (!rdma_protocol_roce(dev, a->port))
		return -EOPNOTSUPP;
	sgid_attr = rdma_get_gid_attr(dev, a->port, a->sgid_index);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);

	s = sic_sess_alloc(dev, a->port, a->name);
	if (IS_ERR(s)) {
		rdma_put_gid_attr(sgid_attr);
		return PTR_ERR(s);
	}
	*out = s;
	s->imm = a->imm;
	s->imm_offset = a->imm_offset;
	ret = sic_path(s, a, sgid_attr, &path);
	if (ret)
		goto put;

	s->cm_id = ib_create_cm_id(dev, sic_cm_handler, s);
	if (IS_ERR(s->cm_id)) {
		ret = PTR_ERR(s->cm_id);
		s->cm_id = NULL;
		goto put;
	}

	get_random_bytes(&s->login_tag, sizeof(s->login_tag));
	lr.opcode = SRP_LOGIN_REQ;
	lr.tag = s->login_tag;
	lr.req_it_iu_len = cpu_to_be32(a->it_iu_len);
	lr.req_buf_fmt = cpu_to_be16(a->buf_fmt);
	lr.req_flags = a->multi ? SRP_MULTICHAN_MULTI : SRP_MULTICHAN_SINGLE;
	if (a->imm) {
		lr.req_flags |= SRP_IMMED_REQUESTED;
		lr.imm_data_offset = cpu_to_be16(a->imm_offset);
	}
	memcpy(lr.initiator_port_id, a->initiator, 16);
	v = cpu_to_be64(a->have_id_ext ? a->id_ext : a->service_id);
	memcpy(lr.target_port_id, &v, 8);
	v = cpu_to_be64(a->have_ioc ? a->ioc_guid : a->service_id);
	memcpy(lr.target_port_id + 8, &v, 8);

	req.primary_path = &path;
	req.ppath_sgid_attr = sgid_attr;
	req.service_id = cpu_to_be64(a->service_id);
	req.qp_num = s->qp->qp_num;
	req.qp_type = IB_QPT_RC;
	req.starting_psn = get_random_u32() & 0xffffff;
	req.private_data = &lr;
	req.private_data_len = sizeof(lr);
	/* The target issues the RDMA READs: let it have some in flight. */
	req.responder_resources = min_t(int, dev->attrs.max_qp_rd_atom, 255);
	req.initiator_depth = min_t(int, dev->attrs.max_qp_init_rd_atom, 4);
	req.remote_cm_response_timeout = 20;
	req.local_cm_response_timeout = 20;
	req.retry_count = a->retry;
	req.rnr_retry_count = 7;
	req.max_cm_retries = 3;
	req.flow_control = 1;
	ret = ib_send_cm_req(s->cm_id, &req);
	sic_set(s, "req", "%d", ret);
	if (ret)
		goto put;
	rdma_put_gid_attr(sgid_attr);
	sgid_attr = NULL;

	ret = sic_wait(&s->cm_done, -ETIMEDOUT);
	if (ret) {
		sic_set(s, "login", "no answer (%d)", ret);
		return ret;
	}
	switch (s->cm_event) {
	case IB_CM_REP_RECEIVED:
		ret = sic_login_accepted(s);
		if (ret)
			ib_send_cm_rej(s->cm_id, IB_CM_REJ_CONSUMER_DEFINED,
				       NULL, 0, NULL, 0);
		return ret;
	case IB_CM_REJ_RECEIVED:
		sic_login_rejected(s);
		return 0;
	default:
		sic_set(s, "login", "REQ error (no answer)");
		return -ETIMEDOUT;
	}
put:
	if (sgid_attr)
		rdma_put_gid_attr(sgid_attr);
	sic_set(s, "login", "error %d", ret);
	return ret;
}

/* ------------------------------------------------------------ control -- */

static struct sic_sess *sic_find(const char *name)
{
	struct sic_sess *s;

	list_for_each_entry(s, &sic_sessions, list)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

static struct ib_device *sic_find_dev(const char *name)
{
	struct sic_dev *d;

	list_for_each_entry(d, &sic_devs, list)
		if (!strcmp(dev_name(&d->ib_dev->dev), name))
			return d->ib_dev;
	return NULL;
}

/**
 * sic_parse_hex() - parse a fixed-length hex string, colons ignored
 * @s: the text
 * @out: receives @len bytes
 * @len: bytes wanted (@s must have exactly 2 * @len hex digits)
 *
 * Return: 0 or -EINVAL.
 */
static int sic_parse_hex(const char *s, u8 *out, size_t len)
{
	char digits[33];
	size_t n = 0;

	if (len * 2 >= sizeof(digits))
		return -EINVAL;
	for (; *s; s++) {
		if (*s == ':')
			continue;
		if (n == len * 2)
			return -EINVAL;
		digits[n++] = *s;
	}
	if (n != len * 2)
		return -EINVAL;
	digits[n] = '\0';
	return hex2bin(out, digits, len);
}

/**
 * sic_parse_arg() - parse one key=value argument
 * @a: the arguments
 * @key: the key
 * @val: the value
 *
 * GUIDs and service IDs are hexadecimal with or without 0x; GIDs, MACs
 * and port IDs hex digits with optional colons; other numbers C-style.
 *
 * Return: 0 or -EINVAL.
 */
static int sic_parse_arg(struct sic_args *a, const char *key, const char *val)
{
	static const struct {
		const char	*key;
		size_t		off;
	} u32_keys[] = {
		{ "port", offsetof(struct sic_args, port) },
		{ "sgid_index", offsetof(struct sic_args, sgid_index) },
		{ "it_iu_len", offsetof(struct sic_args, it_iu_len) },
		{ "buf_fmt", offsetof(struct sic_args, buf_fmt) },
		{ "imm", offsetof(struct sic_args, imm) },
		{ "imm_offset", offsetof(struct sic_args, imm_offset) },
		{ "multi", offsetof(struct sic_args, multi) },
		{ "retry", offsetof(struct sic_args, retry) },
		{ "pkt_life", offsetof(struct sic_args, pkt_life) },
		{ "hop", offsetof(struct sic_args, hop) },
		{ "func", offsetof(struct sic_args, func) },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(u32_keys); i++)
		if (!strcmp(key, u32_keys[i].key))
			return kstrtou32(val, 0, (void *)a + u32_keys[i].off);
	if (!strcmp(key, "name")) {
		if (!*val || strscpy(a->name, val, sizeof(a->name)) < 0)
			return -EINVAL;
		return 0;
	}
	if (!strcmp(key, "dev"))
		return strscpy(a->dev, val, sizeof(a->dev)) < 0 ? -EINVAL : 0;
	if (!strcmp(key, "lun"))
		return kstrtou64(val, 0, &a->lun);
	if (!strcmp(key, "lba"))
		return kstrtou64(val, 0, &a->lba);
	if (!strcmp(key, "service_id")) {
		a->have_sid = true;
		return kstrtou64(val, 16, &a->service_id);
	}
	if (!strcmp(key, "id_ext")) {
		a->have_id_ext = true;
		return kstrtou64(val, 16, &a->id_ext);
	}
	if (!strcmp(key, "ioc_guid")) {
		a->have_ioc = true;
		return kstrtou64(val, 16, &a->ioc_guid);
	}
	if (!strcmp(key, "pkey"))
		return kstrtou16(val, 16, &a->pkey);
	if (!strcmp(key, "initiator")) {
		a->have_ini = true;
		return sic_parse_hex(val, a->initiator, 16);
	}
	if (!strcmp(key, "dgid")) {
		a->have_dgid = true;
		return sic_parse_hex(val, a->dgid.raw, 16);
	}
	if (!strcmp(key, "dmac")) {
		a->have_dmac = true;
		return sic_parse_hex(val, a->dmac, ETH_ALEN);
	}
	return -EINVAL;
}

/**
 * sic_run() - run one parsed command
 * @verb: the command
 * @a: its arguments
 *
 * Called with sic_mutex held.
 *
 * Return: 0 when the command ran (outcome in the results), else a
 * negative errno.
 */
static int sic_run(const char *verb, const struct sic_args *a)
{
	struct sic_sess *s = sic_find(a->name);
	struct ib_device *dev;
	int ret;

	lockdep_assert_held(&sic_mutex);
	if (!strcmp(verb, "login")) {
		if (s)
			return -EEXIST;
		dev = sic_find_dev(a->dev);
		if (!dev)
			return -ENODEV;
		s = NULL;
		ret = sic_login(dev, a, &s);
		if (s)
			list_add_tail(&s->list, &sic_sessions);
		return ret;
	}
	if (!s)
		return -ENOENT;
	if (!strcmp(verb, "close")) {
		list_del(&s->list);
		sic_sess_free(s);
		return 0;
	}
	if (!s->live)
		return -ENOTCONN;
	if (!strcmp(verb, "io"))
		return sic_io(s, a);
	if (!strcmp(verb, "tmf"))
		return sic_tmf(s, a);
	if (!strcmp(verb, "logout"))
		return sic_logout(s);
	if (!strcmp(verb, "dreq"))
		return sic_dreq(s);
	if (!strcmp(verb, "vanish"))
		return sic_vanish(s);
	return -EINVAL;
}

/**
 * sic_control_write() - parse and run a command written to "control"
 * @file: the file
 * @ubuf: "<verb> key=value ..."
 * @count: its length
 * @ppos: file position (unused)
 *
 * Verbs (every one takes name=<session>):
 *   login dev= port= [sgid_index= dgid= dmac=] service_id= initiator=
 *         [id_ext= ioc_guid= it_iu_len= buf_fmt= imm= imm_offset= multi=
 *          retry= pkt_life= hop=]
 *   io [lun= lba=]     tmf [func= lun=]     logout     dreq     vanish
 *   close              (frees the session; also after a refused login)
 *
 * Return: @count, or a negative errno.
 */
static ssize_t sic_control_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct sic_args *a;
	char *buf, *p, *tok, *verb;
	int ret;

	if (count >= SIC_CMD_MAX)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a) {
		ret = -ENOMEM;
		goto free_buf;
	}
	a->port = 1;
	a->it_iu_len = 8260;	/* what ib_srp asks for */
	a->buf_fmt = SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT;
	a->imm = 1;
	/* ib_srp's 68: room for 16 bytes of additional CDB. */
	a->imm_offset = sizeof(struct srp_cmd) + 16 + sizeof(struct srp_imm_buf);
	a->retry = 7;
	a->pkt_life = 18;
	a->hop = 64;
	a->func = SRP_TSK_ABORT_TASK;
	a->pkey = 0xffff;

	/* Commas too: an add_target line is taken as it is. */
	p = strim(buf);
	verb = strsep(&p, " \t");
	ret = -EINVAL;
	while ((tok = strsep(&p, " \t,"))) {
		char *val;

		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			goto free_a;
		*val++ = '\0';
		if (sic_parse_arg(a, tok, val))
			goto free_a;
	}
	if (!*a->name || a->buf_fmt > 0xffff ||
	    a->imm_offset > 0xffff || a->retry > 7 || a->pkt_life > 31 ||
	    a->hop > 255 || a->func > 0xff)
		goto free_a;

	ret = mutex_lock_killable(&sic_mutex);
	if (ret)
		goto free_a;
	ret = sic_run(verb, a);
	mutex_unlock(&sic_mutex);
free_a:
	kfree(a);
free_buf:
	kfree(buf);
	return ret ? ret : count;
}

static const struct file_operations sic_control_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = sic_control_write,
};

/**
 * sic_status_show() - the "status" file
 * @m: seq_file
 * @unused: unused
 *
 * For each session its state, the counters its CM handler and completions
 * keep, and every recorded result, as "<session>.<key>=<value>" lines.
 *
 * Return: 0.
 */
static int sic_status_show(struct seq_file *m, void *unused)
{
	struct sic_sess *s;
	unsigned int i;

	mutex_lock(&sic_mutex);
	list_for_each_entry(s, &sic_sessions, list) {
		unsigned long flags;
		u32 dreq, drep, derr, stale, other, tlo, rxe;
		bool tw;
		int credits;

		spin_lock_irqsave(&s->lock, flags);
		dreq = s->dreq_rcvd;
		drep = s->drep_rcvd;
		derr = s->dreq_err;
		tw = s->timewait;
		stale = s->stale;
		other = s->other_ius;
		tlo = s->t_logout;
		rxe = s->rx_errors;
		credits = s->req_lim;
		spin_unlock_irqrestore(&s->lock, flags);
		seq_printf(m, "%s.dev=%s\n%s.port=%u\n", s->name,
			   dev_name(&s->ib_dev->dev), s->name, s->port);
		seq_printf(m, "%s.state=%s\n", s->name,
			   s->vanished ? "vanished" :
			   s->live && (dreq || drep) ? "disconnected" :
			   s->live ? "live" : "down");
		seq_printf(m, "%s.dreq_received=%u\n%s.drep_received=%u\n%s.dreq_errors=%u\n%s.timewait_exit=%d\n",
			   s->name, dreq, s->name, drep, s->name, derr, s->name,
			   tw);
		seq_printf(m, "%s.credits_now=%d\n%s.stale_rsps=%u\n%s.other_ius=%u\n%s.t_logouts=%u\n%s.recv_errors=%u\n",
			   s->name, credits, s->name, stale, s->name, other,
			   s->name, tlo, s->name, rxe);
		for (i = 0; i < s->n_results; i++)
			seq_printf(m, "%s.%s=%s\n", s->name,
				   s->results[i].key, s->results[i].val);
	}
	mutex_unlock(&sic_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sic_status);

/* ---------------------------------------------------------- ib_client -- */

static int sic_add_one(struct ib_device *ib_dev)
{
	struct sic_dev *d = kzalloc(sizeof(*d), GFP_KERNEL);

	if (!d)
		return -ENOMEM;
	d->ib_dev = ib_dev;
	mutex_lock(&sic_mutex);
	list_add_tail(&d->list, &sic_devs);
	mutex_unlock(&sic_mutex);
	return 0;
}

/**
 * sic_remove_one() - a device goes away (or the module is unloaded)
 * @ib_dev: the device
 * @client_data: unused
 *
 * Frees the sessions on the device, so nothing of ours outlives it.
 */
static void sic_remove_one(struct ib_device *ib_dev, void *client_data)
{
	struct sic_sess *s, *ts;
	struct sic_dev *d, *td;

	mutex_lock(&sic_mutex);
	list_for_each_entry_safe(s, ts, &sic_sessions, list) {
		if (s->ib_dev != ib_dev)
			continue;
		list_del(&s->list);
		sic_sess_free(s);
	}
	list_for_each_entry_safe(d, td, &sic_devs, list) {
		if (d->ib_dev != ib_dev)
			continue;
		list_del(&d->list);
		kfree(d);
	}
	mutex_unlock(&sic_mutex);
}

static struct ib_client sic_client = {
	.name = KBUILD_MODNAME,
	.add = sic_add_one,
	.remove = sic_remove_one,
};

static int __init sic_init(void)
{
	int ret;

	ret = ib_register_client(&sic_client);
	if (ret)
		return ret;
	sic_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("control", 0200, sic_dir, NULL, &sic_control_fops);
	debugfs_create_file("status", 0400, sic_dir, NULL, &sic_status_fops);
	return 0;
}

static void __exit sic_exit(void)
{
	/* Waits for commands in progress; none can start afterwards. */
	debugfs_remove_recursive(sic_dir);
	/* Frees every session (sic_remove_one()). */
	ib_unregister_client(&sic_client);
}

module_init(sic_init);
module_exit(sic_exit);

MODULE_DESCRIPTION("SRP initiator over IB/CM on RoCE, for ib_srpt's tests only");
MODULE_LICENSE("GPL");
