/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: deciding a login and setting its channel up (srpt_admit.c).
 */
#ifndef SRPT_ADMIT_H
#define SRPT_ADMIT_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>

#include "srpt_login.h"
#include "srpt_tpg.h"

struct srpt_port;
struct srpt_channel;
struct rdma_cm_id;

/**
 * struct srpt_login - one login, from the CM request to the CM reply
 * @work: sets the channel up and replies (srpt_login_work())
 * @entry: in srpt_logins until the CM id is handed over
 * @sport: port the request arrived on; the login is counted in its
 *	device's logins (srpt_port_get_login())
 * @rdma_id: RDMA/CM id of the connection, or NULL
 * @ib_id: IB/CM id of the connection, or NULL
 * @rdma_cm: RDMA/CM login (else IB/CM)
 * @aborted: the CM reported the connection failed or the initiator gave up
 *	before the reply (under srpt_logins_lock)
 * @rd_depth: RDMA READs the target may have outstanding on the channel:
 *	the initiator's responder resources, capped by the device
 * @resp_res: responder resources of the reply: the initiator's RDMA READ
 *	depth, capped by the device
 * @pdata_len: bytes in @pdata
 * @pdata: the CM request's private data (the login request), copied
 * @req: the parsed login request
 * @ini: who logs in
 * @d: the decision
 * @rsp: SRP_LOGIN_RSP or SRP_LOGIN_REJ to send
 * @rsp_len: bytes of @rsp in use
 */
struct srpt_login {
	struct work_struct		work;
	struct list_head		entry;
	struct srpt_port		*sport;
	struct rdma_cm_id		*rdma_id;
	struct ib_cm_id			*ib_id;
	bool				rdma_cm;
	bool				aborted;
	u8				rd_depth;
	u8				resp_res;
	u8				pdata_len;
	u8				pdata[IB_CM_REQ_PRIVATE_DATA_SIZE];
	struct srpt_login_info		req;
	struct srpt_initiator		ini;
	struct srpt_login_decision	d;
	u8				rsp[64];
	size_t				rsp_len;
};

ssize_t srpt_show_logins(char *page);
void srpt_login_refuse(struct srpt_login *l, u32 reason, const char *why);
struct srpt_channel *srpt_login_run(struct srpt_login *l);

#endif /* SRPT_ADMIT_H */
