// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: device-management MAD agent.
 *
 * Initiators discover SRP targets on an InfiniBand fabric (srp_daemon,
 * ibsrpdm) by asking each port whose PortInfo has IsDeviceManagementSupported
 * for its IOUnitInfo, the IOControllerProfile of every populated slot and
 * the ServiceEntries of each controller.  Every port with a GSI QP (IB and
 * RoCE, not iWARP) gets a MAD agent for class 0x06 version 1 that answers
 * Get and Set; the answers are built by the pure code in srpt_dm.c.  On
 * RoCE, where no subnet administrator leads to the port, srp-dm asks it
 * by GID and reads the RDMA/CM port from the controller's ID string.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/build_bug.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "srpt_mad.h"
#include "srpt_param.h"
#include "srpt_device.h"
#include "srpt_tpg.h"
#include "srpt_dm.h"

#ifndef SRPT_VERSION
#define SRPT_VERSION "unknown"
#endif

/* The pure code and the kernel agree on the wire. */
static_assert(sizeof(struct srpt_wire_dm_mad) ==
	      IB_MGMT_DEVICE_HDR + IB_MGMT_DEVICE_DATA);
static_assert(offsetof(struct srpt_wire_dm_mad, data) == IB_MGMT_DEVICE_HDR);
static_assert(sizeof(struct srpt_wire_mad_hdr) == sizeof(struct ib_mad_hdr));
static_assert(SRPT_DM_MGMT_CLASS == IB_MGMT_CLASS_DEVICE_MGMT);
static_assert(SRPT_MAD_METHOD_GET_RESP == IB_MGMT_METHOD_GET_RESP);
static_assert(SRPT_MAD_STATUS_UNSUP_METHOD_ATTR ==
	      IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);

/**
 * srpt_mad_params() - what the I/O controller of a port reports
 * @sport: the port the request arrived on
 * @p: filled in
 *
 * The controller GUID, the identifier extension and the service ID are all
 * srpt_service_guid, which is what a login must carry as target port ID and
 * what the IB/CM listens on.  The queue depths are those a channel on this
 * device gets; the RDMA transfer size is that of the portal group logins
 * on this port go to (srpt_tpg_rdma_size()).  The RDMA/CM listener's port
 * is read for every request, so an answer shows a port set through
 * configfs (discovery_auth/rdma_cm_port) from then on; the ID string
 * carries it (srpt_dm_id_string()).
 */
static void srpt_mad_params(struct srpt_port *sport, struct srpt_dm_params *p)
{
	const struct ib_device_attr *attrs = &sport->sdev->ib_dev->attrs;
	u64 guid = srpt_service_guid();

	memset(p, 0, sizeof(*p));
	p->ioc_guid = guid;
	p->id_ext = guid;
	p->service_id = guid;
	p->vendor_id = attrs->vendor_id;
	p->device_id = attrs->vendor_part_id;
	p->device_version = attrs->hw_ver;
	p->subsys_vendor_id = attrs->vendor_id;
	p->send_queue_depth = srpt_rq_size(attrs);
	p->rdma_read_depth = min_t(u32, attrs->max_qp_rd_atom, U8_MAX);
	p->send_size = srpt_max_req_size;
	p->rdma_size = srpt_tpg_rdma_size(sport);
	p->change_id = 1;
	p->rdma_cm_port = srpt_get_rdma_cm_port();
	p->id_string = "Linux SRP target ib_srpt " SRPT_VERSION;
}

/**
 * srpt_mad_send_handler() - a response MAD was sent (or failed)
 * @agent: our agent
 * @mad_wc: the send completion
 *
 * Frees what srpt_mad_recv_handler() allocated for the response.
 */
static void srpt_mad_send_handler(struct ib_mad_agent *agent,
				  struct ib_mad_send_wc *mad_wc)
{
	rdma_destroy_ah(mad_wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(mad_wc->send_buf);
}

/**
 * srpt_mad_recv_handler() - answer a device-management request
 * @agent: our agent; its context is the srpt_port
 * @send_buf: the matching send for a response MAD (never, we send none)
 * @mad_wc: the received MAD; freed here on every path
 *
 * Runs in process context (the MAD layer's workqueue).  Responses,
 * TrapRepress and short MADs are dropped; every request is answered with a
 * GetResp to its sender, through an address handle built from the work
 * completion (and the GRH on RoCE).
 */
static void srpt_mad_recv_handler(struct ib_mad_agent *agent,
				  struct ib_mad_send_buf *send_buf,
				  struct ib_mad_recv_wc *mad_wc)
{
	struct srpt_port *sport = agent->context;
	struct ib_device *ib_dev = sport->sdev->ib_dev;
	struct srpt_dm_request req;
	struct srpt_dm_params p;
	struct ib_mad_send_buf *rsp;
	struct ib_ah *ah;
	int ret;

	if (!mad_wc->recv_buf.mad || mad_wc->mad_len < 0 ||
	    srpt_dm_parse_request(mad_wc->recv_buf.mad, mad_wc->mad_len, &req))
		goto free_recv;

	ah = ib_create_ah_from_wc(agent->qp->pd, mad_wc->wc,
				  mad_wc->recv_buf.grh, agent->port_num);
	if (IS_ERR(ah)) {
		ret = PTR_ERR(ah);
		goto fail;
	}
	rsp = ib_create_send_mad(agent, mad_wc->wc->src_qp,
				 mad_wc->wc->pkey_index, 0, IB_MGMT_DEVICE_HDR,
				 IB_MGMT_DEVICE_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(rsp)) {
		ret = PTR_ERR(rsp);
		goto destroy_ah;
	}
	rsp->ah = ah;

	srpt_mad_params(sport, &p);
	ret = srpt_dm_respond(mad_wc->recv_buf.mad, mad_wc->mad_len, &p,
			      rsp->mad);
	if (ret)
		goto free_rsp;
	pr_debug("%s port %u: DM method 0x%02x attribute 0x%04x modifier 0x%08x: status 0x%04x\n",
		 dev_name(&ib_dev->dev), sport->port_num, req.method,
		 req.attr_id, req.attr_mod,
		 be16_to_cpu(((struct ib_mad_hdr *)rsp->mad)->status));

	ret = ib_post_send_mad(rsp, NULL);
	if (ret)
		goto free_rsp;
	/* srpt_mad_send_handler() frees rsp and ah. */
	ib_free_recv_mad(mad_wc);
	return;

free_rsp:
	ib_free_send_mad(rsp);
destroy_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
fail:
	pr_warn_ratelimited("%s port %u: no answer to DM attribute 0x%04x (%d)\n",
			    dev_name(&ib_dev->dev), sport->port_num,
			    req.attr_id, ret);
free_recv:
	ib_free_recv_mad(mad_wc);
}

/**
 * srpt_mad_register() - start answering device-management MADs on a port
 * @sport: the port
 *
 * Ports without a GSI QP (iWARP) are skipped.  After the agent is
 * registered the port advertises IsDeviceManagementSupported with
 * ib_modify_port(), so a subnet manager never points initiators at a port
 * without an agent; if the bit is already set, it is neither set nor later
 * cleared by us.  A port whose driver cannot set that bit (e.g. RoCE,
 * where no subnet manager reads it) still answers MADs.  A registration
 * failure is logged and leaves the rest of the driver working.
 */
void srpt_mad_register(struct srpt_port *sport)
{
	struct ib_device *ib_dev = sport->sdev->ib_dev;
	struct ib_port_modify modify = {
		.set_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP,
	};
	struct ib_mad_reg_req reg = {
		.mgmt_class = IB_MGMT_CLASS_DEVICE_MGMT,
		.mgmt_class_version = SRPT_DM_CLASS_VERSION,
	};
	struct ib_mad_agent *agent;
	struct ib_port_attr attr;
	int ret;

	if (sport->mad_agent || !rdma_cap_ib_mad(ib_dev, sport->port_num) ||
	    rdma_protocol_iwarp(ib_dev, sport->port_num))
		return;

	set_bit(IB_MGMT_METHOD_GET, reg.method_mask);
	set_bit(IB_MGMT_METHOD_SET, reg.method_mask);
	agent = ib_register_mad_agent(ib_dev, sport->port_num, IB_QPT_GSI,
				      &reg, 0, srpt_mad_send_handler,
				      srpt_mad_recv_handler, sport, 0);
	if (IS_ERR(agent)) {
		pr_warn("%s port %u: registering the device-management MAD agent failed (%ld); srp_daemon cannot discover this port\n",
			dev_name(&ib_dev->dev), sport->port_num,
			PTR_ERR(agent));
		return;
	}
	sport->mad_agent = agent;

	/* A bit set by someone else is left alone, now and at unregister. */
	if (!ib_query_port(ib_dev, sport->port_num, &attr) &&
	    (attr.port_cap_flags & IB_PORT_DEVICE_MGMT_SUP)) {
		sport->dm_cap_set = false;
	} else {
		ret = ib_modify_port(ib_dev, sport->port_num, 0, &modify);
		if (ret)
			pr_info("%s port %u: cannot advertise device management (%d)\n",
				dev_name(&ib_dev->dev), sport->port_num, ret);
		sport->dm_cap_set = !ret;
	}
	pr_info("%s port %u: device-management MAD agent registered\n",
		dev_name(&ib_dev->dev), sport->port_num);
}

/**
 * srpt_mad_unregister() - stop answering device-management MADs on a port
 * @sport: the port; nothing happens if it has no agent
 *
 * Withdraws IsDeviceManagementSupported first, then unregisters the agent,
 * which waits for the handlers and frees responses still queued.
 */
void srpt_mad_unregister(struct srpt_port *sport)
{
	struct ib_device *ib_dev = sport->sdev->ib_dev;
	struct ib_port_modify modify = {
		.clr_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP,
	};

	if (!sport->mad_agent)
		return;
	if (sport->dm_cap_set)
		ib_modify_port(ib_dev, sport->port_num, 0, &modify);
	sport->dm_cap_set = false;
	ib_unregister_mad_agent(sport->mad_agent);
	sport->mad_agent = NULL;
	pr_info("%s port %u: device-management MAD agent unregistered\n",
		dev_name(&ib_dev->dev), sport->port_num);
}
