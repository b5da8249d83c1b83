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
 */
#ifndef SRPT_H
#define SRPT_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <linux/sizes.h>
#include <rdma/ib_verbs.h>
#include <target/target_core_base.h>

#include "srpt_proto.h"

#define SRPT_FABRIC_NAME	"srpt"
#define SRPT_WWN_MAX		64	/* longest target port name + NUL */

/* Limits of the module parameters and TPG attributes (see docs/). */
#define SRPT_MIN_REQ_SIZE	64
#define SRPT_MAX_REQ_SIZE	SZ_256K
#define SRPT_DEF_REQ_SIZE	8260	/* 8 KiB immediate data + headers */
#define SRPT_MIN_SRQ_SIZE	16
#define SRPT_MAX_SRQ_SIZE	65536
#define SRPT_DEF_SRQ_SIZE	4095

#define SRPT_MIN_RDMA_SIZE	SZ_4K
#define SRPT_MAX_RDMA_SIZE	SZ_16M
#define SRPT_DEF_RDMA_SIZE	SZ_64K
#define SRPT_MIN_RSP_SIZE	64
#define SRPT_MAX_RSP_SIZE	4096
#define SRPT_DEF_RSP_SIZE	256
#define SRPT_MIN_SQ_SIZE	16
#define SRPT_MAX_SQ_SIZE	16384
#define SRPT_DEF_SQ_SIZE	4096

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
};

/**
 * struct srpt_device - state of one RDMA device
 * @ib_dev:	the RDMA device
 * @pd:		protection domain for all channels of this device
 * @event_handler: asynchronous event handler (port changes)
 * @list:	entry in the driver's device list
 * @nports:	number of entries in @ports
 * @ports:	per-port state
 */
struct srpt_device {
	struct ib_device	*ib_dev;
	struct ib_pd		*pd;
	struct ib_event_handler	event_handler;
	struct list_head	list;
	u32			nports;
	struct srpt_port	ports[];
};

/**
 * struct srpt_tport - configfs target port
 * @wwn:	LIO object; its configfs directory carries @name_str
 * @name:	the parsed name (GUID or GID form)
 * @name_str:	the name as created, returned by tpg_get_wwn
 */
struct srpt_tport {
	struct se_wwn		wwn;
	struct srpt_name	name;
	char			name_str[SRPT_WWN_MAX];
};

/**
 * struct srpt_tpg - target portal group
 * @se_tpg:	LIO object
 * @tport:	target port the group belongs to
 * @tag:	portal group tag (from the directory name tpgt_<tag>)
 * @enabled:	logins accepted
 * @max_rdma_size: largest single RDMA transfer advertised (bytes)
 * @max_rsp_size: largest target-to-initiator IU (max_ti_iu_len)
 * @sq_size:	send queue depth of each channel
 * @use_srq:	1: channels share the device's SRQ; 0: own receive rings
 */
struct srpt_tpg {
	struct se_portal_group	se_tpg;
	struct srpt_tport	*tport;
	u16			tag;
	bool			enabled;
	u32			max_rdma_size;
	u32			max_rsp_size;
	u32			sq_size;
	u32			use_srq;
};

/**
 * struct srpt_nacl - node ACL
 * @nacl:	LIO object
 * @name:	the initiator name, parsed (GUID, GID, IPv4 or IPv6 form)
 */
struct srpt_nacl {
	struct se_node_acl	nacl;
	struct srpt_name	name;
};

static inline struct srpt_tpg *srpt_tpg(struct se_portal_group *se_tpg)
{
	return container_of(se_tpg, struct srpt_tpg, se_tpg);
}

static inline struct srpt_tport *srpt_tport(struct se_wwn *wwn)
{
	return container_of(wwn, struct srpt_tport, wwn);
}

/* srpt_main.c: module parameters */
extern unsigned int srpt_max_req_size;
extern unsigned int srpt_srq_size;
u64 srpt_service_guid(void);
void srpt_set_default_service_guid(u64 guid);
u16 srpt_get_rdma_cm_port(void);
int srpt_set_rdma_cm_port(u16 port);

/* srpt_device.c */
int srpt_device_init(void);
void srpt_device_exit(void);
bool srpt_name_has_port(const struct srpt_name *name);

/* srpt_fabric.c / srpt_configfs.c */
extern const struct target_core_fabric_ops srpt_fabric_ops;
extern struct configfs_attribute *srpt_discovery_attrs[];
extern struct configfs_attribute *srpt_wwn_attrs[];
extern struct configfs_attribute *srpt_tpg_attrib_attrs[];
struct se_wwn *srpt_make_tport(struct target_fabric_configfs *tf,
			       struct config_group *group, const char *name);
void srpt_drop_tport(struct se_wwn *wwn);
struct se_portal_group *srpt_make_tpg(struct se_wwn *wwn, const char *name);
void srpt_drop_tpg(struct se_portal_group *se_tpg);
int srpt_enable_tpg(struct se_portal_group *se_tpg, bool enable);
int srpt_init_nodeacl(struct se_node_acl *se_nacl, const char *name);

/* srpt_io.c: LIO command callbacks */
int srpt_check_stop_free(struct se_cmd *se_cmd);
void srpt_release_cmd(struct se_cmd *se_cmd);
void srpt_close_session(struct se_session *se_sess);
int srpt_write_pending(struct se_cmd *se_cmd);
int srpt_get_cmd_state(struct se_cmd *se_cmd);
int srpt_queue_data_in(struct se_cmd *se_cmd);
int srpt_queue_status(struct se_cmd *se_cmd);
void srpt_queue_tm_rsp(struct se_cmd *se_cmd);
void srpt_aborted_task(struct se_cmd *se_cmd);

#endif /* SRPT_H */
