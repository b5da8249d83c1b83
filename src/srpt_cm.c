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
 *
 * The CMs deliver their events one at a time (the IB/CM's work queue runs
 * one item per CPU, the RDMA/CM's listener and iWARP CM are ordered), so a
 * login set up in the CM handler would hold up every other login and every
 * other event.  The handler only copies the request and queues the login;
 * its work (srpt_login_work()) sets the channel up, on a work queue that
 * runs logins side by side, and then sends the reply or the reject.
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
#include "srpt_admit.h"
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

/* Login set-ups, side by side (srpt_login_work()), this many at most. */
static struct workqueue_struct *srpt_login_wq;
#define SRPT_LOGINS_AT_ONCE	16

/*
 * Logins whose CM id's context is the login itself, not yet a channel: an
 * event for such an id marks the login aborted (srpt_cm_channel()).  The
 * lock also orders the hand-over of the id to the channel against events.
 */
static LIST_HEAD(srpt_logins);
static DEFINE_SPINLOCK(srpt_logins_lock);

static void srpt_login_work(struct work_struct *work);

/**
 * srpt_login_detach() - hand a login's CM id over to its channel
 * @l: the login
 * @context: the CM id's context, which points at @l
 * @ch: the channel, or NULL for a refused login
 *
 * From here on the id's events go to @ch (a refused login's to nobody).
 *
 * Return: true if the CM reported the connection gone before this.
 */
static bool srpt_login_detach(struct srpt_login *l, void **context,
			      struct srpt_channel *ch)
{
	bool aborted;

	spin_lock(&srpt_logins_lock);
	list_del(&l->entry);
	*context = ch;
	aborted = l->aborted;
	spin_unlock(&srpt_logins_lock);
	return aborted;
}

/**
 * srpt_cm_channel() - the channel a CM event is for
 * @context: address of the CM id's context
 *
 * While its login is being set up a CM id's context is the login: an event
 * then means the connection failed or the initiator gave up (a REJ, an
 * error); the login is marked aborted and its work ends it.
 *
 * Return: the channel, or NULL (a login in progress, or none).
 */
static struct srpt_channel *srpt_cm_channel(void **context)
{
	struct srpt_login *l;
	void *ctx;

	spin_lock(&srpt_logins_lock);
	ctx = *context;
	list_for_each_entry(l, &srpt_logins, entry) {
		if (l == ctx) {
			WRITE_ONCE(l->aborted, true);
			ctx = NULL;
			break;
		}
	}
	spin_unlock(&srpt_logins_lock);
	return ctx;
}

/**
 * srpt_login_start() - count a login and queue its set-up
 * @l: the login, with its CM id, depths and private data set
 * @ib_dev: device the request arrived on
 * @port_num: port it arrived on
 * @context: address of the CM id's context, which becomes @l
 *
 * Called by the CM handler.
 *
 * Return: 0 when queued (@l belongs to its work now), else a negative
 * errno with an SRP_LOGIN_REJ built in @l.
 */
static int srpt_login_start(struct srpt_login *l, struct ib_device *ib_dev,
			    u32 port_num, void **context)
{
	l->sport = srpt_port_get_login(ib_dev, port_num);
	if (!l->sport) {
		srpt_login_refuse(l, SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES,
				  "RDMA device not in use");
		return -ECONNREFUSED;
	}
	INIT_WORK(&l->work, srpt_login_work);
	spin_lock(&srpt_logins_lock);
	list_add_tail(&l->entry, &srpt_logins);
	*context = l;
	spin_unlock(&srpt_logins_lock);
	queue_work(srpt_login_wq, &l->work);
	return 0;
}

/**
 * srpt_rdma_cm_reply() - accept or reject an RDMA/CM login
 * @l: the login
 * @ch: its channel, or NULL with a reject built in @l
 *
 * A refused login's id is destroyed here; an accepted one belongs to the
 * channel, whose release destroys it.
 */
static void srpt_rdma_cm_reply(struct srpt_login *l, struct srpt_channel *ch)
{
	struct rdma_cm_id *cm_id = l->rdma_id;
	struct rdma_conn_param rep = { };
	const char *what = "the initiator gave up";
	int ret = -ECONNABORTED;

	/* The RDMA/CM's events of the id wait; rdma_accept() needs this. */
	rdma_lock_handler(cm_id);
	if (!ch) {
		srpt_login_detach(l, &cm_id->context, NULL);
		rdma_reject(cm_id, l->rsp, l->rsp_len,
			    IB_CM_REJ_CONSUMER_DEFINED);
		rdma_unlock_handler(cm_id);
		rdma_destroy_id(cm_id);
		return;
	}
	if (srpt_login_detach(l, &cm_id->context, ch))
		goto unlock;

	rep.private_data = l->rsp;
	rep.private_data_len = l->rsp_len;
	/*
	 * The CM reports the depths from our side already: initiator_depth
	 * is how many RDMA READs we may have outstanding (the initiator's
	 * responder resources).  The target issues READs, so this must not
	 * be 0.
	 */
	rep.responder_resources = l->resp_res;
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
unlock:
	rdma_unlock_handler(cm_id);
	if (ret) {
		pr_warn("login from %s: %s (%d)\n", l->ini.desc, what, ret);
		srpt_ch_close(ch, "accept failed");
	}
	srpt_ch_replied(ch);
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

	/* Both too large for the stack. */
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
 * srpt_ib_cm_reply() - send the REP or the REJ of an IB/CM login
 * @l: the login
 * @ch: its channel, or NULL with a reject built in @l
 *
 * A refused login's id is destroyed here; an accepted one belongs to the
 * channel, whose release destroys it (not before srpt_ch_replied()).
 */
static void srpt_ib_cm_reply(struct srpt_login *l, struct srpt_channel *ch)
{
	struct ib_cm_id *cm_id = l->ib_id;
	struct ib_cm_rep_param rep = { };
	const char *what = "the initiator gave up";
	int ret = -ECONNABORTED;

	if (!ch) {
		srpt_login_detach(l, &cm_id->context, NULL);
		ib_send_cm_rej(cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			       l->rsp, l->rsp_len);
		ib_destroy_cm_id(cm_id);
		return;
	}
	if (!srpt_login_detach(l, &cm_id->context, ch)) {
		rep.qp_num = ch->qp->qp_num;
		rep.private_data = l->rsp;
		rep.private_data_len = l->rsp_len;
		/* Depths as seen from our side, see srpt_rdma_cm_reply(). */
		rep.responder_resources = l->resp_res;
		rep.initiator_depth = l->rd_depth;
		rep.flow_control = 1;
		rep.rnr_retry_count = 7;
		rep.failover_accepted = 0;
		what = "sending the REP failed";
		ret = srpt_ib_cm_rq_psn(ch, &rep.starting_psn);
		if (!ret)
			ret = ib_send_cm_rep(cm_id, &rep);
	}
	if (ret) {
		pr_warn("login from %s: %s (%d)\n", l->ini.desc, what, ret);
		srpt_ch_close(ch, "REP failed");
	}
	srpt_ch_replied(ch);
}

/**
 * srpt_login_work() - set a queued login up and reply to it
 * @work: the login's work
 *
 * Logins run side by side: what they share (the channel list, the portal
 * group lookup, a device's SRQ) has locks of its own.  A login of a device
 * being removed is refused unless its channel is set up already, so the
 * removal waits for no set-up (srpt_device_unlist()).
 */
static void srpt_login_work(struct work_struct *work)
{
	struct srpt_login *l = container_of(work, struct srpt_login, work);
	struct srpt_device *sdev = l->sport->sdev;
	u32 delay = READ_ONCE(srpt_login_delay_ms);
	struct srpt_channel *ch = NULL;

	srpt_logins_busy_inc();
	if (delay)
		wait_event_timeout(sdev->login_wait, READ_ONCE(sdev->removing),
				   msecs_to_jiffies(delay));
	if (READ_ONCE(sdev->removing))
		srpt_login_refuse(l, SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES,
				  "RDMA device being removed");
	else if (READ_ONCE(l->aborted))
		srpt_login_refuse(l, SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL,
				  "the initiator gave up before the reply");
	else
		ch = srpt_login_run(l);
	if (l->rdma_cm)
		srpt_rdma_cm_reply(l, ch);
	else
		srpt_ib_cm_reply(l, ch);
	srpt_logins_busy_dec();
	srpt_port_put_login(l->sport);
	kfree(l);
}

/**
 * srpt_rdma_cm_req() - handle an RDMA/CM CONNECT_REQUEST
 * @cm_id: the new connection's id
 * @event: the event, with the login request as private data
 *
 * Return: 0 when the login is queued (its work owns @cm_id), non-zero after
 * a reject so that the RDMA/CM destroys @cm_id.
 */
static int srpt_rdma_cm_req(struct rdma_cm_id *cm_id,
			    struct rdma_cm_event *event)
{
	const struct rdma_conn_param *req_param = &event->param.conn;
	struct sockaddr *peer = (struct sockaddr *)&cm_id->route.addr.dst_addr;
	const struct ib_device_attr *attrs = &cm_id->device->attrs;
	struct srpt_login *l;
	int ret;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	l->rdma_cm = true;
	l->rdma_id = cm_id;
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
	/* The CM reports the depths from our side, see srpt_rdma_cm_reply(). */
	l->rd_depth = min_t(u8, req_param->initiator_depth,
			    attrs->max_qp_init_rd_atom);
	l->resp_res = min_t(u8, req_param->responder_resources,
			    attrs->max_qp_rd_atom);
	l->pdata_len = min_t(size_t, req_param->private_data_len,
			     sizeof(l->pdata));
	if (l->pdata_len)
		memcpy(l->pdata, req_param->private_data, l->pdata_len);

	ret = srpt_login_start(l, cm_id->device, cm_id->port_num,
			       &cm_id->context);
	if (!ret)
		return 0;
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
	struct srpt_channel *ch;

	if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return srpt_rdma_cm_req(cm_id, event);
	ch = srpt_cm_channel(&cm_id->context);
	switch (event->event) {
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
 * srpt_ib_cm_req() - handle an IB/CM REQ
 * @cm_id: the new connection's id
 * @event: the event; private data is the T10 SRP_LOGIN_REQ
 * @sdev: the device whose listener received it
 *
 * Return: 0 when the login is queued (its work owns @cm_id), non-zero after
 * a reject so that the IB/CM destroys @cm_id.
 */
static int srpt_ib_cm_req(struct ib_cm_id *cm_id,
			  const struct ib_cm_event *event,
			  struct srpt_device *sdev)
{
	const struct ib_cm_req_event_param *req = &event->param.req_rcvd;
	const struct ib_device_attr *attrs = &sdev->ib_dev->attrs;
	struct srpt_login *l;
	int ret;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	l->ib_id = cm_id;
	strscpy(l->ini.desc, "IB/CM initiator", sizeof(l->ini.desc));
	/* Depths as seen from our side, see srpt_rdma_cm_reply(). */
	l->rd_depth = min_t(u8, req->initiator_depth,
			    attrs->max_qp_init_rd_atom);
	l->resp_res = min_t(u8, req->responder_resources,
			    attrs->max_qp_rd_atom);
	l->pdata_len = IB_CM_REQ_PRIVATE_DATA_SIZE;
	memcpy(l->pdata, event->private_data, l->pdata_len);

	ret = srpt_login_start(l, sdev->ib_dev, req->port, &cm_id->context);
	if (!ret)
		return 0;
	ib_send_cm_rej(cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, l->rsp,
		       l->rsp_len);
	kfree(l);
	return ret;
}

/**
 * srpt_ib_cm_handler() - IB/CM events of a port's listener and channels
 * @cm_id: listener-created id (REQ), a login's or a channel's id
 * @event: the event
 *
 * Return: non-zero only to have the IB/CM destroy a rejected @cm_id.
 */
static int srpt_ib_cm_handler(struct ib_cm_id *cm_id,
			      const struct ib_cm_event *event)
{
	struct srpt_channel *ch;
	int ret;

	/* A new id carries the listener's context: the device. */
	if (event->event == IB_CM_REQ_RECEIVED)
		return srpt_ib_cm_req(cm_id, event, cm_id->context);
	ch = srpt_cm_channel(&cm_id->context);
	if (!ch)
		return 0;
	switch (event->event) {
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
 * srpt_cm_wq_init() - create the work queue logins are set up on
 *
 * Before any device is added: a device's IB/CM listener queues logins.
 *
 * Return: 0 or -ENOMEM.
 */
int srpt_cm_wq_init(void)
{
	/*
	 * Unbound, and several at a time: a login sleeps in allocations, QP
	 * creation and LIO's session set-up.  Not more: each one holds the
	 * memory of a whole channel before the channel limits are checked
	 * (srpt_ch_register()), and a storm of logins must not hold that of
	 * hundreds at once.
	 */
	srpt_login_wq = alloc_workqueue("ib_srpt_login", WQ_UNBOUND,
					SRPT_LOGINS_AT_ONCE);
	return srpt_login_wq ? 0 : -ENOMEM;
}

/**
 * srpt_cm_wq_exit() - destroy it, after every device was removed
 *
 * Device removal waits for the device's logins, so none is left here.
 */
void srpt_cm_wq_exit(void)
{
	destroy_workqueue(srpt_login_wq);
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
