// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: logins over IB/CM and RDMA/CM.
 *
 * IB/CM: one listener per device, InfiniBand or RoCE (the IB/CM keys
 * listeners by device and service ID and reports the port of each REQ),
 * service ID = srpt_service_guid, the T10 SRP_LOGIN_REQ (64 bytes) in the
 * REQ private data.
 * RDMA/CM: one listener on the rdma_cm_port TCP port (IPv6 any-address,
 * which also takes IPv4, with an IPv4 fallback), Linux's reordered login
 * request (56 bytes) in the private data.
 *
 * The decision (accept, or which SRP_LOGIN_REJ reason) is taken by the pure
 * srpt_login_decide(); this file gathers its inputs and carries it out.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/inet.h>
#include <linux/in6.h>
#include <net/ipv6.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <target/target_core_base.h>

#include "srpt_cm.h"
#include "srpt.h"
#include "srpt_param.h"
#include "srpt_device.h"
#include "srpt_tpg.h"
#include "srpt_login.h"
#include "srpt_qp.h"
#include "srpt_chlist.h"
#include "srpt_channel.h"
#include "srpt_compat.h"
#include "srpt_trace.h"

/* Local ACK timeout of RDMA/CM channels: 4.096 us << 18, about 1 s a try. */
#define SRPT_ACK_TIMEOUT	18

static struct rdma_cm_id *srpt_rdma_listener;
static DEFINE_MUTEX(srpt_rdma_listener_mutex);

/**
 * struct srpt_login - one login in progress
 * @sport: port the request arrived on (device list mutex held)
 * @rdma_cm: RDMA/CM login (else IB/CM)
 * @req: the parsed login request
 * @ini: who logs in
 * @d: the decision
 * @rsp: SRP_LOGIN_RSP or SRP_LOGIN_REJ to send
 * @rsp_len: bytes of @rsp in use
 * @rd_depth: RDMA READs the target may have outstanding on the channel:
 *	the initiator's responder resources, capped by the device
 */
struct srpt_login {
	struct srpt_port		*sport;
	bool				rdma_cm;
	u8				rd_depth;
	struct srpt_login_info		req;
	struct srpt_initiator		ini;
	struct srpt_login_decision	d;
	u8				rsp[64];
	size_t				rsp_len;
};

/**
 * srpt_target_port_id() - the target port ID this target answers to
 * @id: receives id_ext followed by ioc_guid, both srpt_service_guid
 *
 * These are the values the device-management agent advertises (IOC GUID and
 * the ID extension of the service entry), and what ib_srp's add_target is
 * given as ioc_guid and id_ext.
 */
static void srpt_target_port_id(u8 id[16])
{
	__be64 guid = cpu_to_be64(srpt_service_guid());

	memcpy(id, &guid, 8);
	memcpy(id + 8, &guid, 8);
}

/**
 * srpt_login_decide_all() - decide a login: protocol checks, then the ACL
 * @l: the login; @l->req and @l->ini are set
 * @acl_name: receives the initiator's ACL name on success
 * @len: size of @acl_name
 *
 * Return: the portal group with a reference when accepted, else NULL with
 * @l->d.reject_reason and @l->d.why set.
 */
static struct srpt_tpg *srpt_login_decide_all(struct srpt_login *l,
					      char *acl_name, size_t len)
{
	struct srpt_login_limits lim = {
		.max_req_size = srpt_max_req_size,
		.supported_buf_fmt = SRPT_BUF_FORMAT_DIRECT |
				     SRPT_BUF_FORMAT_INDIRECT,
	};
	const char *why = NULL;
	struct srpt_tpg *tpg;
	u32 rej = 0;

	tpg = srpt_tpg_for_login(l->sport, &l->ini, acl_name, len, &why, &rej);
	srpt_target_port_id(lim.target_port_id);
	/* "Not in the ACL" comes after the protocol checks. */
	lim.enabled = tpg || rej == SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	lim.max_rsp_size = tpg ? READ_ONCE(tpg->max_rsp_size) :
				 SRPT_DEF_RSP_SIZE;
	lim.imm_data_capable = tpg && !READ_ONCE(tpg->use_srq);
	lim.no_rdma_read = !l->rd_depth;
	srpt_login_decide(&l->req, &lim, &l->d);
	if (!lim.enabled && l->d.reject_reason ==
	    SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES)
		l->d.why = why;
	if (tpg && l->d.reject_reason) {
		srpt_tpg_put(tpg);
		tpg = NULL;
	} else if (!tpg && !l->d.reject_reason) {
		l->d.reject_reason = rej;
		l->d.why = why;
	}
	return tpg;
}

/*
 * Login outcomes since the module was loaded: accepted, then rejected by
 * reason (SRP_LOGIN_REJ 0x10000 + index, index 7 for anything else).
 */
static atomic64_t srpt_logins_accepted = ATOMIC64_INIT(0);
static atomic64_t srpt_logins_rejected[8];

/**
 * srpt_show_logins() - the login counters, for configfs
 * @page: configfs page
 *
 * Return: bytes written: "accepted=N rejected=N 0x10000=N ... 0x10006=N
 * other=N".
 */
ssize_t srpt_show_logins(char *page)
{
	s64 n[8], total = 0;
	int i;

	for (i = 0; i < 8; i++) {
		n[i] = atomic64_read(&srpt_logins_rejected[i]);
		total += n[i];
	}
	return sysfs_emit(page,
			  "accepted=%lld rejected=%lld 0x10000=%lld 0x10001=%lld 0x10002=%lld 0x10003=%lld 0x10004=%lld 0x10005=%lld 0x10006=%lld other=%lld\n",
			  atomic64_read(&srpt_logins_accepted), total, n[0],
			  n[1], n[2], n[3], n[4], n[5], n[6], n[7]);
}

/**
 * srpt_login_reject() - log a refused login and build its SRP_LOGIN_REJ
 * @l: the login, with @l->d.reject_reason and @l->d.why set
 */
static void srpt_login_reject(struct srpt_login *l)
{
	u32 i = l->d.reject_reason - SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;

	atomic64_inc(&srpt_logins_rejected[i < 7 ? i : 7]);
	pr_info("login from %s refused (reason 0x%05x): %s\n", l->ini.desc,
		l->d.reject_reason, l->d.why ? l->d.why : "unknown");
	trace_srpt_login(l->ini.desc, 0, l->d.reject_reason, 0, 0, 0, false);
	l->rsp_len = srpt_build_login_rej(l->rsp, sizeof(l->rsp), l->req.tag,
					  l->d.reject_reason,
					  SRPT_BUF_FORMAT_DIRECT |
					  SRPT_BUF_FORMAT_INDIRECT);
}

/**
 * srpt_login_setup() - create the channel of an accepted login
 * @l: the login
 * @tpg: its portal group (reference passed to the channel)
 * @acl_name: initiator ACL name for the LIO session
 * @rdma_id: RDMA/CM id of the connection, or NULL
 * @ib_id: IB/CM id of the connection, or NULL
 *
 * Creates the QP (for IB/CM moved to RTR), posts the receive ring, creates
 * the session, registers the channel and builds SRP_LOGIN_RSP.
 *
 * Return: the channel, or NULL with a reject built in @l.
 */
static struct srpt_channel *srpt_login_setup(struct srpt_login *l,
					     struct srpt_tpg *tpg,
					     const char *acl_name,
					     struct rdma_cm_id *rdma_id,
					     struct ib_cm_id *ib_id)
{
	struct srpt_channel *ch;
	u8 multichan;
	int ret;

	ch = srpt_ch_alloc(l->sport, tpg, &l->d, l->rdma_cm);
	if (IS_ERR(ch)) {
		srpt_tpg_put(tpg);
		ret = PTR_ERR(ch);
		goto reject;
	}
	ch->rdma_cm_id = rdma_id;
	if (rdma_id)
		memcpy(&ch->peer_addr, &rdma_id->route.addr.dst_addr,
		       sizeof(ch->peer_addr));
	ch->ib_cm_id = ib_id;
	memcpy(ch->i_port_id, l->req.initiator_port_id, 16);
	memcpy(ch->t_port_id, l->req.target_port_id, 16);
	strscpy(ch->sess_name, l->ini.desc, sizeof(ch->sess_name));

	ret = srpt_ch_create_qp(ch);
	if (!ret)
		ret = srpt_ch_qp_init(ch);
	if (!ret)
		ret = srpt_ch_post_recvs(ch);
	if (!ret)
		ret = srpt_ch_qp_rtr(ch);
	if (ret)
		goto free_ch;
	ret = srpt_ch_start_session(ch, acl_name);
	if (ret)
		goto free_ch;

	atomic_set(&ch->req_lim, ch->rq_size);
	ret = srpt_ch_register(ch, !l->d.multichannel, &multichan);
	if (ret) {
		srpt_ch_free(ch);
		if (ret == -EDQUOT) {
			l->d.reject_reason =
				SRPT_LOGIN_REJ_CHANNEL_LIMIT_REACHED;
			l->d.why = "channel limit of the portal group reached";
		} else {
			l->d.reject_reason =
				SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
			l->d.why = "portal group disabled or session closed during login";
		}
		srpt_login_reject(l);
		return NULL;
	}
	l->rsp_len = srpt_build_login_rsp(l->rsp, sizeof(l->rsp), l->req.tag,
					  &l->d, ch->rq_size, multichan);
	atomic64_inc(&srpt_logins_accepted);
	trace_srpt_login(l->ini.desc, ch->id, 0, ch->max_it_iu_len,
			 ch->max_ti_iu_len, ch->rq_size, ch->imm_data);
	pr_info("login from %s accepted: it_iu %u ti_iu %u credits %u sq %u immediate data %s, %s\n",
		l->ini.desc, ch->max_it_iu_len, ch->max_ti_iu_len, ch->rq_size,
		ch->sq_size, ch->imm_data ? "on" : "off",
		multichan == SRPT_LOGIN_RSP_MULTICHAN_TERMINATED ?
		"other channels terminated" :
		multichan == SRPT_LOGIN_RSP_MULTICHAN_MAINTAINED ?
		"other channels maintained" : "first channel");
	return ch;

free_ch:
	srpt_ch_free(ch);
reject:
	l->d.reject_reason = SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	l->d.why = ret == -ENOMEM ? "out of memory" :
		   "creating the channel failed";
	pr_warn("login from %s: channel setup failed (%d)\n", l->ini.desc,
		ret);
	srpt_login_reject(l);
	return NULL;
}

/**
 * srpt_login_run() - parse and decide a login; set up its channel if accepted
 * @l: the login, with @l->rdma_cm and (RDMA/CM) the source address set
 * @ib_dev: device the request arrived on
 * @port_num: port it arrived on
 * @pdata: private data of the CM request (the login request)
 * @len: length of @pdata
 * @rdma_id: RDMA/CM id of the connection, or NULL
 * @ib_id: IB/CM id of the connection, or NULL
 *
 * When a channel is returned the device list mutex is still held, so that
 * the device cannot go away before the caller has sent the CM reply; the
 * caller then calls srpt_port_unlock().
 *
 * Return: the channel, or NULL (mutex not held) with an SRP_LOGIN_REJ built
 * in @l.
 */
static struct srpt_channel *srpt_login_run(struct srpt_login *l,
					   struct ib_device *ib_dev,
					   u32 port_num, const void *pdata,
					   size_t len, struct rdma_cm_id *rdma_id,
					   struct ib_cm_id *ib_id)
{
	char acl_name[TRANSPORT_IQN_LEN];
	struct srpt_channel *ch;
	struct srpt_tpg *tpg;

	l->sport = srpt_port_lookup_lock(ib_dev, port_num);
	if (!l->sport) {
		l->d.reject_reason = SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES;
		l->d.why = "RDMA device not in use";
		srpt_login_reject(l);
		return NULL;
	}
	if (srpt_login_parse(pdata, len, l->rdma_cm ? SRPT_LOGIN_RDMA_CM :
			     SRPT_LOGIN_IB_CM, &l->req)) {
		l->d.reject_reason = SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
		l->d.why = "malformed login request";
		srpt_login_reject(l);
		goto unlock;
	}
	memcpy(l->ini.port_id, l->req.initiator_port_id, 16);
	if (!l->rdma_cm)
		snprintf(l->ini.desc, sizeof(l->ini.desc), "0x%16phN",
			 l->req.initiator_port_id);

	tpg = srpt_login_decide_all(l, acl_name, sizeof(acl_name));
	if (!tpg) {
		srpt_login_reject(l);
		goto unlock;
	}
	ch = srpt_login_setup(l, tpg, acl_name, rdma_id, ib_id);
	if (ch)
		return ch;
unlock:
	srpt_port_unlock();
	return NULL;
}

/**
 * srpt_rdma_cm_req() - handle an RDMA/CM CONNECT_REQUEST
 * @cm_id: the new connection's id
 * @event: the event, with the login request as private data
 *
 * Return: 0 when accepted (the channel now owns @cm_id), non-zero after a
 * reject so that the RDMA/CM destroys @cm_id.
 */
static int srpt_rdma_cm_req(struct rdma_cm_id *cm_id,
			    struct rdma_cm_event *event)
{
	const struct rdma_conn_param *req_param = &event->param.conn;
	struct sockaddr *peer = (struct sockaddr *)&cm_id->route.addr.dst_addr;
	const struct ib_device_attr *attrs;
	struct rdma_conn_param rep = { };
	struct srpt_channel *ch;
	struct srpt_login *l;
	const char *what;
	int ret = -ECONNREFUSED;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	l->rdma_cm = true;
	if (peer->sa_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)peer;

		memcpy(l->ini.ip, &sin->sin_addr, 4);
		l->ini.ip_len = 4;
	} else if (peer->sa_family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)peer;

		memcpy(l->ini.ip, &sin6->sin6_addr, 16);
		l->ini.ip_len = 16;
	}
	snprintf(l->ini.desc, sizeof(l->ini.desc), "%pISc", peer);
	attrs = &cm_id->device->attrs;
	/* The CM reports the depths from our side, see below. */
	l->rd_depth = min_t(u8, req_param->initiator_depth,
			    attrs->max_qp_init_rd_atom);

	ch = srpt_login_run(l, cm_id->device, cm_id->port_num,
			    req_param->private_data, req_param->private_data_len,
			    cm_id, NULL);
	if (!ch)
		goto reject;

	cm_id->context = ch;
	rep.private_data = l->rsp;
	rep.private_data_len = l->rsp_len;
	/*
	 * The CM reports the depths from our side already: initiator_depth
	 * is how many RDMA READs we may have outstanding (the initiator's
	 * responder resources).  The target issues READs, so this must not
	 * be 0.
	 */
	rep.responder_resources = min_t(u8, req_param->responder_resources,
					attrs->max_qp_rd_atom);
	rep.initiator_depth = l->rd_depth;
	rep.flow_control = 1;
	rep.rnr_retry_count = 7;
	/* The QP is the channel's own: the REP names it. */
	rep.qp_num = ch->qp->qp_num;
	rep.srq = ch->use_srq;
	/*
	 * Without a path record (RoCE, iWARP) the QP may get no ACK timeout
	 * at all: a transfer to an initiator that vanished without a DREQ
	 * would then never fail, and the channel would live forever.  Set
	 * before RTS, which takes it (rdma_init_qp_attr()).
	 */
	if (rdma_set_ack_timeout(cm_id, SRPT_ACK_TIMEOUT))
		pr_debug("login from %s: no ACK timeout set\n", l->ini.desc);
	what = "QP to RTS";
	ret = srpt_ch_qp_rts(ch);
	if (ret) {
		rdma_reject(cm_id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	} else {
		what = "rdma_accept";
		ret = rdma_accept(cm_id, &rep);
	}
	srpt_port_unlock();
	if (ret) {
		pr_warn("login from %s: %s failed (%d)\n", l->ini.desc, what,
			ret);
		srpt_ch_close(ch, "accept failed");
	}
	kfree(l);
	/* The channel's release work destroys cm_id. */
	return 0;

reject:
	rdma_reject(cm_id, l->rsp, l->rsp_len, IB_CM_REJ_CONSUMER_DEFINED);
	kfree(l);
	return ret;
}

/**
 * srpt_rdma_cm_handler() - RDMA/CM events of the listener and the channels
 * @cm_id: listener (CONNECT_REQUEST) or a channel's id
 * @event: the event
 *
 * Return: non-zero only to have the RDMA/CM destroy a rejected @cm_id.
 */
static int srpt_rdma_cm_handler(struct rdma_cm_id *cm_id,
				struct rdma_cm_event *event)
{
	struct srpt_channel *ch = cm_id->context;

	switch (event->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return srpt_rdma_cm_req(cm_id, event);
	case RDMA_CM_EVENT_ESTABLISHED:
		if (ch)
			srpt_ch_established(ch);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		if (ch)
			srpt_ch_close(ch, rdma_event_msg(event->event));
		else if (event->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
			pr_info("RDMA/CM listener: device removal\n");
		break;
	default:
		pr_debug("RDMA/CM event %s\n", rdma_event_msg(event->event));
		break;
	}
	return 0;
}

/**
 * srpt_rdma_cm_create_listener() - listen for RDMA/CM logins on a port
 * @port: TCP port number, not 0
 *
 * Return: the listening id or an ERR_PTR.
 */
static struct rdma_cm_id *srpt_rdma_cm_create_listener(u16 port)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_port = cpu_to_be16(port),
		.sin6_addr = IN6ADDR_ANY_INIT,
	};
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = cpu_to_be16(port),
	};
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, srpt_rdma_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	ret = rdma_bind_addr(id, (struct sockaddr *)&sin6);
	if (ret) {
		pr_info("RDMA/CM: binding [::]:%u failed (%d), trying 0.0.0.0\n",
			port, ret);
		ret = rdma_bind_addr(id, (struct sockaddr *)&sin);
	}
	if (!ret)
		ret = rdma_listen(id, 128);
	if (ret) {
		rdma_destroy_id(id);
		return ERR_PTR(ret);
	}
	return id;
}

/**
 * srpt_rdma_cm_set_port() - (re)start the RDMA/CM listener
 * @port: new TCP port number; 0 stops listening
 *
 * The new listener is created before the old one goes, so a failure leaves
 * the previous configuration working.
 *
 * Return: 0 or a negative errno (e.g. -EADDRINUSE).
 */
int srpt_rdma_cm_set_port(u16 port)
{
	struct rdma_cm_id *id = NULL, *old;

	mutex_lock(&srpt_rdma_listener_mutex);
	if (port && port == srpt_get_rdma_cm_port() && srpt_rdma_listener) {
		/* Already listening there. */
		mutex_unlock(&srpt_rdma_listener_mutex);
		return 0;
	}
	if (port) {
		id = srpt_rdma_cm_create_listener(port);
		if (IS_ERR(id)) {
			mutex_unlock(&srpt_rdma_listener_mutex);
			pr_err("RDMA/CM: cannot listen on port %u (%ld)\n", port,
			       PTR_ERR(id));
			return PTR_ERR(id);
		}
	}
	old = srpt_rdma_listener;
	srpt_rdma_listener = id;
	srpt_set_rdma_cm_port(port);
	mutex_unlock(&srpt_rdma_listener_mutex);

	if (old)
		rdma_destroy_id(old);
	if (port)
		pr_info("RDMA/CM: listening on port %u\n", port);
	return 0;
}

/**
 * srpt_ib_cm_rq_psn() - the receive PSN of an IB/CM channel's QP, for the REP
 * @ch: the channel, its QP in RTR
 * @psn: receives the PSN
 *
 * The REP's starting PSN is the PSN the initiator's first request carries,
 * so it must be the one the target's QP expects.  The QP went to RTR before
 * the REP (srpt_ch_qp_rtr()) with the receive PSN the IB/CM had for it then
 * (the IB/CM takes the passive side's PSN from the REP, once it is sent):
 * the REP announces what the QP got.  A QP that expects another PSN treats
 * every request as a duplicate (acknowledged, never delivered) or as out of
 * sequence (never acknowledged).
 *
 * Return: 0 or the errno of ib_query_qp().
 */
static int srpt_ib_cm_rq_psn(struct srpt_channel *ch, u32 *psn)
{
	struct ib_qp_init_attr *init;
	struct ib_qp_attr *attr;
	int ret = -ENOMEM;

	/* Both too large for the CM handler's stack. */
	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	init = kzalloc(sizeof(*init), GFP_KERNEL);
	if (attr && init)
		ret = ib_query_qp(ch->qp, attr, IB_QP_RQ_PSN, init);
	if (!ret)
		*psn = attr->rq_psn;
	kfree(init);
	kfree(attr);
	return ret;
}

/**
 * srpt_ib_cm_req() - handle an IB/CM REQ
 * @cm_id: the new connection's id
 * @event: the event; private data is the T10 SRP_LOGIN_REQ
 * @sdev: the device whose listener received it
 *
 * Return: 0 when accepted, non-zero after a reject so that the IB/CM
 * destroys @cm_id.
 */
static int srpt_ib_cm_req(struct ib_cm_id *cm_id,
			  const struct ib_cm_event *event,
			  struct srpt_device *sdev)
{
	const struct ib_cm_req_event_param *req = &event->param.req_rcvd;
	struct ib_cm_rep_param rep = { };
	struct srpt_channel *ch;
	struct srpt_login *l;
	int ret = -ECONNREFUSED;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	strscpy(l->ini.desc, "IB/CM initiator", sizeof(l->ini.desc));
	/* Depths as seen from our side, see srpt_rdma_cm_req(). */
	l->rd_depth = min_t(u8, req->initiator_depth,
			    sdev->ib_dev->attrs.max_qp_init_rd_atom);

	ch = srpt_login_run(l, sdev->ib_dev, req->port, event->private_data,
			    IB_CM_REQ_PRIVATE_DATA_SIZE, NULL, cm_id);
	if (!ch)
		goto reject;

	cm_id->context = ch;
	rep.qp_num = ch->qp->qp_num;
	rep.private_data = l->rsp;
	rep.private_data_len = l->rsp_len;
	/* Depths as seen from our side, see srpt_rdma_cm_req(). */
	rep.responder_resources = min_t(u8, req->responder_resources,
					sdev->ib_dev->attrs.max_qp_rd_atom);
	rep.initiator_depth = l->rd_depth;
	rep.flow_control = 1;
	rep.rnr_retry_count = 7;
	rep.failover_accepted = 0;
	ret = srpt_ib_cm_rq_psn(ch, &rep.starting_psn);
	if (!ret)
		ret = ib_send_cm_rep(cm_id, &rep);
	srpt_port_unlock();
	if (ret) {
		pr_warn("login from %s: sending the REP failed (%d)\n",
			l->ini.desc, ret);
		srpt_ch_close(ch, "REP failed");
	}
	kfree(l);
	return 0;

reject:
	ib_send_cm_rej(cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, l->rsp,
		       l->rsp_len);
	kfree(l);
	return ret;
}

/**
 * srpt_ib_cm_handler() - IB/CM events of a port's listener and channels
 * @cm_id: listener-created id (REQ) or a channel's id
 * @event: the event
 *
 * Return: non-zero only to have the IB/CM destroy a rejected @cm_id.
 */
static int srpt_ib_cm_handler(struct ib_cm_id *cm_id,
			      const struct ib_cm_event *event)
{
	struct srpt_channel *ch = cm_id->context;
	int ret;

	switch (event->event) {
	case IB_CM_REQ_RECEIVED:
		/* A new id carries the listener's context: the device. */
		return srpt_ib_cm_req(cm_id, event, cm_id->context);
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		ret = srpt_ch_qp_rts(ch);
		if (ret) {
			pr_warn("%s: QP to RTS failed (%d)\n", ch->sess_name,
				ret);
			srpt_ch_close(ch, "QP to RTS failed");
		} else {
			srpt_ch_established(ch);
		}
		break;
	case IB_CM_DREQ_RECEIVED:
	case IB_CM_DREQ_ERROR:
	case IB_CM_DREP_RECEIVED:
	case IB_CM_TIMEWAIT_EXIT:
	case IB_CM_REJ_RECEIVED:
	case IB_CM_REP_ERROR:
		srpt_ch_close(ch, event->event == IB_CM_REJ_RECEIVED ?
			      "REJ received" : "disconnected");
		break;
	default:
		pr_debug("IB/CM event %d\n", event->event);
		break;
	}
	return 0;
}

/**
 * srpt_ib_cm_listen() - create the IB/CM listener of a device
 * @sdev: the device (InfiniBand or RoCE: the IB CM serves both)
 *
 * Return: 0 or a negative errno.
 */
int srpt_ib_cm_listen(struct srpt_device *sdev)
{
	struct ib_cm_id *id;
	int ret;

	id = ib_create_cm_id(sdev->ib_dev, srpt_ib_cm_handler, sdev);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = srpt_compat_cm_listen(id, cpu_to_be64(srpt_service_guid()));
	if (ret) {
		ib_destroy_cm_id(id);
		return ret;
	}
	sdev->ib_cm_id = id;
	return 0;
}

/**
 * srpt_ib_cm_stop() - destroy a device's IB/CM listener, if it has one
 * @sdev: the device
 */
void srpt_ib_cm_stop(struct srpt_device *sdev)
{
	if (sdev->ib_cm_id) {
		ib_destroy_cm_id(sdev->ib_cm_id);
		sdev->ib_cm_id = NULL;
	}
}

/**
 * srpt_cm_init() - start the RDMA/CM listener if rdma_cm_port is set
 *
 * Return: 0 or a negative errno.
 */
int srpt_cm_init(void)
{
	u16 port = srpt_get_rdma_cm_port();

	return port ? srpt_rdma_cm_set_port(port) : 0;
}

/**
 * srpt_cm_exit() - stop the RDMA/CM listener
 */
void srpt_cm_exit(void)
{
	srpt_rdma_cm_set_port(0);
}
