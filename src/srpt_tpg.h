/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: target ports, portal groups and node ACLs, and the registry
 * that logins find them in (srpt_tpg.c).
 */
#ifndef SRPT_TPG_H
#define SRPT_TPG_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <target/target_core_base.h>

#include "srpt_names.h"

struct srpt_port;

#define SRPT_WWN_MAX		64	/* longest target port name + NUL */

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
 * @rnr_retry:	most RNR retries of a channel's sends (7: as many as the
 *		initiator's REQ asks), see srpt_ch_qp_modify()
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
	u32			rnr_retry;
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

#endif /* SRPT_TPG_H */
