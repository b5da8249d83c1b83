/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: RDMA devices and their ports (srpt_device.c).
 */
#ifndef SRPT_DEVICE_H
#define SRPT_DEVICE_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "srpt_names.h"

struct srpt_recv_ioctx;
struct ib_mad_agent;

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
 * @srq_mutex:	serializes the creation of @srq by logins in parallel
 * @srq:	shared receive queue for channels of use_srq portal groups,
 *		created by the first such login
 * @srq_ring:	its receive buffers
 * @srq_size:	number of buffers in @srq_ring
 * @removing:	the device is being removed: logins not yet set up are
 *		refused, closing channels detach from it instead of waiting
 *		for the backend (srpt_ch_detach())
 * @logins:	logins of the device queued or in progress (srpt_cm.c);
 *		removal waits for them, and only for them
 * @login_wait:	woken when @logins drops to 0 and when @removing is set
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
	struct mutex		srq_mutex;	/* see above */
	struct ib_srq		*srq;
	struct srpt_recv_ioctx	*srq_ring;
	u32			srq_size;
	bool			removing;
	atomic_t		logins;
	wait_queue_head_t	login_wait;
	u32			nports;
	struct srpt_port	ports[];
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

struct srpt_device *srpt_device_create(struct ib_device *ib_dev);
void srpt_device_unlist(struct srpt_device *sdev);
void srpt_device_destroy(struct srpt_device *sdev);
bool srpt_name_has_port(const struct srpt_name *name);
struct srpt_port *srpt_port_get_login(struct ib_device *ib_dev, u32 port_num);
void srpt_port_put_login(struct srpt_port *sport);
void srpt_port_get_gid(struct srpt_port *sport, union ib_gid *gid);
ssize_t srpt_show_login_info(const struct srpt_name *name, char *page);

#endif /* SRPT_DEVICE_H */
