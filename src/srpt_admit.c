// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: deciding a login and setting its channel up.
 *
 * The protocol checks and the negotiation are the pure srpt_login_decide();
 * here its inputs are gathered (the portal group and ACL the login names),
 * the channel of an accepted login is created and registered, and the
 * outcome is logged, counted and turned into SRP_LOGIN_RSP or
 * SRP_LOGIN_REJ.  The CM side (srpt_cm.c) queues logins and sends the
 * reply.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/rdma_cm.h>
#include <target/target_core_base.h>

#include "srpt_admit.h"
#include "srpt.h"
#include "srpt_param.h"
#include "srpt_device.h"
#include "srpt_tpg.h"
#include "srpt_qp.h"
#include "srpt_chlist.h"
#include "srpt_channel.h"
#include "srpt_trace.h"

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
 * srpt_login_refuse() - refuse a login for a reason found outside the
 * negotiation
 * @l: the login
 * @reason: SRP_LOGIN_REJ reason (%SRPT_LOGIN_REJ_*)
 * @why: the reason in words, for the log
 */
void srpt_login_refuse(struct srpt_login *l, u32 reason, const char *why)
{
	l->d.reject_reason = reason;
	l->d.why = why;
	srpt_login_reject(l);
}

/**
 * srpt_login_setup() - create the channel of an accepted login
 * @l: the login
 * @tpg: its portal group (reference passed to the channel)
 * @acl_name: initiator ACL name for the LIO session
 *
 * Creates the QP (for IB/CM moved to RTR), posts the receive ring, creates
 * the session, registers the channel and builds SRP_LOGIN_RSP.
 *
 * Return: the channel, or NULL with a reject built in @l.
 */
static struct srpt_channel *srpt_login_setup(struct srpt_login *l,
					     struct srpt_tpg *tpg,
					     const char *acl_name)
{
	struct rdma_cm_id *rdma_id = l->rdma_id;
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
	ch->ib_cm_id = l->ib_id;
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
		if (ret == -EDQUOT)
			srpt_login_refuse(l, SRPT_LOGIN_REJ_CHANNEL_LIMIT_REACHED,
					  "channel limit of the portal group reached");
		else
			srpt_login_refuse(l, SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL,
					  "portal group disabled or session closed during login");
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
	pr_warn("login from %s: channel setup failed (%d)\n", l->ini.desc,
		ret);
	srpt_login_refuse(l, SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES,
			  ret == -ENOMEM ? "out of memory" :
			  "creating the channel failed");
	return NULL;
}

/**
 * srpt_login_run() - parse and decide a login; set up its channel if accepted
 * @l: the login, its request copied
 *
 * Return: the channel, or NULL with an SRP_LOGIN_REJ built in @l.
 */
struct srpt_channel *srpt_login_run(struct srpt_login *l)
{
	char acl_name[TRANSPORT_IQN_LEN];
	struct srpt_tpg *tpg;

	if (srpt_login_parse(l->pdata, l->pdata_len,
			     l->rdma_cm ? SRPT_LOGIN_RDMA_CM : SRPT_LOGIN_IB_CM,
			     &l->req)) {
		srpt_login_refuse(l, SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL,
				  "malformed login request");
		return NULL;
	}
	memcpy(l->ini.port_id, l->req.initiator_port_id, 16);
	if (!l->rdma_cm)
		snprintf(l->ini.desc, sizeof(l->ini.desc), "0x%16phN",
			 l->req.initiator_port_id);

	tpg = srpt_login_decide_all(l, acl_name, sizeof(acl_name));
	if (!tpg) {
		srpt_login_reject(l);
		return NULL;
	}
	return srpt_login_setup(l, tpg, acl_name);
}
