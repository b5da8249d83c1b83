// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: per-RDMA-device and per-port state.
 *
 * The list of devices (srpt_client.c adds and removes them), the cached
 * attributes of their ports, refreshed from asynchronous events, the
 * lookups the login path and configfs make, and the add_target lines that
 * reach a target port (configfs login_info).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cache.h>

#include "srpt_device.h"
#include "srpt_param.h"

/* All devices; the mutex also serializes add/remove against lookups. */
static LIST_HEAD(srpt_dev_list);

static DEFINE_MUTEX(srpt_dev_mutex);

/**
 * srpt_port_refresh() - re-read the cached attributes of a port
 * @sport: the port
 *
 * Called at device add, from the refresh work after port events, and before
 * a port is matched against a name.  Must run in process context.
 */
static void srpt_port_refresh(struct srpt_port *sport)
{
	struct ib_device *ib_dev = sport->sdev->ib_dev;
	struct ib_port_attr attr;
	union ib_gid gid;
	unsigned long flags;

	if (rdma_query_gid(ib_dev, sport->port_num, 0, &gid))
		memset(&gid, 0, sizeof(gid));
	if (ib_query_port(ib_dev, sport->port_num, &attr))
		memset(&attr, 0, sizeof(attr));

	spin_lock_irqsave(&sport->lock, flags);
	sport->gid = gid;
	sport->lid = attr.lid;
	sport->sm_lid = attr.sm_lid;
	sport->state = attr.state;
	spin_unlock_irqrestore(&sport->lock, flags);
}

static void srpt_port_refresh_work(struct work_struct *work)
{
	srpt_port_refresh(container_of(work, struct srpt_port, refresh_work));
}

/**
 * srpt_event_handler() - asynchronous event of an RDMA device
 * @handler: our handler, embedded in the srpt_device
 * @event: the event
 *
 * May run in interrupt context: port events only queue a refresh.
 */
static void srpt_event_handler(struct ib_event_handler *handler,
			       struct ib_event *event)
{
	struct srpt_device *sdev =
		container_of(handler, struct srpt_device, event_handler);
	u32 port_num;

	switch (event->event) {
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
		port_num = event->element.port_num;
		if (port_num < rdma_start_port(sdev->ib_dev) ||
		    port_num > rdma_end_port(sdev->ib_dev)) {
			pr_warn_ratelimited("%s: event %s for unknown port %u\n",
					    dev_name(&sdev->ib_dev->dev),
					    ib_event_msg(event->event),
					    port_num);
			return;
		}
		schedule_work(&sdev->ports[port_num -
					   rdma_start_port(sdev->ib_dev)]
				       .refresh_work);
		break;
	default:
		pr_debug("%s: event %s\n", dev_name(&sdev->ib_dev->dev),
			 ib_event_msg(event->event));
		break;
	}
}

/**
 * srpt_device_create() - set up and list the state of a new RDMA device
 * @ib_dev: the device
 *
 * Allocates the protection domain, caches each port's attributes and
 * registers the event handler that keeps them current.
 *
 * Return: the device, listed, or an ERR_PTR.
 */
struct srpt_device *srpt_device_create(struct ib_device *ib_dev)
{
	struct srpt_device *sdev;
	u32 i, nports = rdma_end_port(ib_dev) - rdma_start_port(ib_dev) + 1;
	int ret;

	sdev = kzalloc(struct_size(sdev, ports, nports), GFP_KERNEL);
	if (!sdev)
		return ERR_PTR(-ENOMEM);
	sdev->ib_dev = ib_dev;
	sdev->nports = nports;
	INIT_LIST_HEAD(&sdev->list);
	mutex_init(&sdev->srq_mutex);
	init_waitqueue_head(&sdev->login_wait);

	sdev->pd = ib_alloc_pd(ib_dev, 0);
	if (IS_ERR(sdev->pd)) {
		ret = PTR_ERR(sdev->pd);
		pr_err("%s: allocating a protection domain failed (%d)\n",
		       dev_name(&ib_dev->dev), ret);
		kfree(sdev);
		return ERR_PTR(ret);
	}

	for (i = 0; i < nports; i++) {
		struct srpt_port *sport = &sdev->ports[i];

		sport->sdev = sdev;
		sport->port_num = rdma_start_port(ib_dev) + i;
		sport->ib = rdma_protocol_ib(ib_dev, sport->port_num);
		spin_lock_init(&sport->lock);
		INIT_WORK(&sport->refresh_work, srpt_port_refresh_work);
		srpt_port_refresh(sport);
	}

	/* From here on events may queue refresh work. */
	INIT_IB_EVENT_HANDLER(&sdev->event_handler, ib_dev, srpt_event_handler);
	ib_register_event_handler(&sdev->event_handler);

	srpt_set_default_service_guid(be64_to_cpu(ib_dev->node_guid));

	mutex_lock(&srpt_dev_mutex);
	list_add_tail(&sdev->list, &srpt_dev_list);
	mutex_unlock(&srpt_dev_mutex);
	return sdev;
}

/**
 * srpt_device_unlist() - take a device off the list and end its logins
 * @sdev: the device, being removed
 *
 * No new login finds the device after this.  Logins that found it before
 * see @sdev->removing and refuse themselves if they have not set up their
 * channel yet; the wait is for those that have (their CM reply goes out
 * before the device may go) and never for logins on other devices.
 */
void srpt_device_unlist(struct srpt_device *sdev)
{
	mutex_lock(&srpt_dev_mutex);
	list_del(&sdev->list);
	WRITE_ONCE(sdev->removing, true);
	mutex_unlock(&srpt_dev_mutex);
	wake_up_all(&sdev->login_wait);
	wait_event(sdev->login_wait, !atomic_read(&sdev->logins));
	/*
	 * The last login drops the count under the queue's lock: once the
	 * lock is had here, it has left srpt_port_put_login() and the device
	 * may be freed.
	 */
	spin_lock_irq(&sdev->login_wait.lock);
	spin_unlock_irq(&sdev->login_wait.lock);
}

/**
 * srpt_device_destroy() - free an unlisted device's state
 * @sdev: the device; no channel, listener or SRQ of it is left
 */
void srpt_device_destroy(struct srpt_device *sdev)
{
	u32 i;

	ib_unregister_event_handler(&sdev->event_handler);
	for (i = 0; i < sdev->nports; i++)
		cancel_work_sync(&sdev->ports[i].refresh_work);
	ib_dealloc_pd(sdev->pd);
	kfree(sdev);
}

/**
 * srpt_name_has_port() - does a target port name match a port of ours?
 * @name: parsed GUID-form or GID-form name
 *
 * Every port is refreshed before the comparison, so a GID that changed
 * without an event (or before its event was handled) is seen.
 *
 * Return: true if some port of some device has that GID (or GUID).
 */
bool srpt_name_has_port(const struct srpt_name *name)
{
	struct srpt_device *sdev;
	bool found = false;
	u32 i;

	mutex_lock(&srpt_dev_mutex);
	list_for_each_entry(sdev, &srpt_dev_list, list) {
		for (i = 0; i < sdev->nports && !found; i++) {
			struct srpt_port *sport = &sdev->ports[i];

			union ib_gid gid;

			srpt_port_refresh(sport);
			srpt_port_get_gid(sport, &gid);
			found = srpt_name_matches_port_id(name, gid.raw);
		}
		if (found)
			break;
	}
	mutex_unlock(&srpt_dev_mutex);
	return found;
}

/**
 * srpt_port_get_login() - find our port for a new login and count the login
 * @ib_dev: device the login arrived on
 * @port_num: port number
 *
 * The login is counted in the device's @logins until srpt_port_put_login():
 * srpt_remove_one() waits for the count to drop to zero before it closes the
 * device's channels, and so sees every channel a login created.
 *
 * Return: the port, or NULL when the device is not (or no longer) ours.
 */
struct srpt_port *srpt_port_get_login(struct ib_device *ib_dev, u32 port_num)
{
	struct srpt_port *sport = NULL;
	struct srpt_device *sdev;

	mutex_lock(&srpt_dev_mutex);
	list_for_each_entry(sdev, &srpt_dev_list, list) {
		if (sdev->ib_dev != ib_dev)
			continue;
		if (port_num >= rdma_start_port(ib_dev) &&
		    port_num <= rdma_end_port(ib_dev)) {
			sport = &sdev->ports[port_num -
					     rdma_start_port(ib_dev)];
			atomic_inc(&sdev->logins);
		}
		break;
	}
	mutex_unlock(&srpt_dev_mutex);
	return sport;
}

/**
 * srpt_port_put_login() - a login counted by srpt_port_get_login() ended
 * @sport: its port
 *
 * The login's CM reply (or reject) is out and the login touches the
 * device no more.
 */
void srpt_port_put_login(struct srpt_port *sport)
{
	struct srpt_device *sdev = sport->sdev;
	unsigned long flags;

	spin_lock_irqsave(&sdev->login_wait.lock, flags);
	if (atomic_dec_and_test(&sdev->logins))
		wake_up_locked(&sdev->login_wait);
	spin_unlock_irqrestore(&sdev->login_wait.lock, flags);
}

/**
 * srpt_port_get_gid() - current GID (index 0) of a port
 * @sport: the port
 * @gid: receives the GID
 */
void srpt_port_get_gid(struct srpt_port *sport, union ib_gid *gid)
{
	unsigned long flags;

	spin_lock_irqsave(&sport->lock, flags);
	*gid = sport->gid;
	spin_unlock_irqrestore(&sport->lock, flags);
}

/* Addresses listed per port in login_info; a page holds some 40 lines. */
#define SRPT_LOGIN_MAX_ADDRS	32

/**
 * struct srpt_addr_set - distinct unicast addresses of one port
 * @n:		entries in @addr
 * @addr:	IPv6 form (IPv4 as ::ffff:a.b.c.d)
 */
struct srpt_addr_set {
	unsigned int	n;
	struct in6_addr	addr[SRPT_LOGIN_MAX_ADDRS];
};

/**
 * srpt_addr_set_add() - add an address an initiator can name in dest=
 * @set: the set
 * @a: the address
 *
 * Link-local IPv6 addresses are left out: dest= would need the zone of
 * the initiator's interface, which the target cannot know.  So are the
 * unspecified address and duplicates (a RoCE GID table holds each address
 * once per RoCE version).
 */
static void srpt_addr_set_add(struct srpt_addr_set *set,
			      const struct in6_addr *a)
{
	unsigned int i;

	if (ipv6_addr_any(a) ||
	    (!ipv6_addr_v4mapped(a) &&
	     (ipv6_addr_type(a) & (IPV6_ADDR_LINKLOCAL | IPV6_ADDR_LOOPBACK))))
		return;
	for (i = 0; i < set->n; i++)
		if (ipv6_addr_equal(&set->addr[i], a))
			return;
	if (set->n < ARRAY_SIZE(set->addr))
		set->addr[set->n++] = *a;
}

/**
 * srpt_port_roce_addrs() - the IP addresses in a RoCE port's GID table
 * @sport: the port
 * @set: receives them
 *
 * A RoCE GID is the IPv6 (or IPv4-mapped) address of the port's network
 * device or of a device stacked on it (VLAN, bond): exactly the addresses
 * RDMA/CM can resolve to this port.
 */
static void srpt_port_roce_addrs(struct srpt_port *sport,
				 struct srpt_addr_set *set)
{
	struct ib_device *ib_dev = sport->sdev->ib_dev;
	const struct ib_gid_attr *attr;
	struct ib_port_attr pattr;
	int i;

	if (ib_query_port(ib_dev, sport->port_num, &pattr))
		return;
	for (i = 0; i < pattr.gid_tbl_len; i++) {
		attr = rdma_get_gid_attr(ib_dev, sport->port_num, i);
		if (IS_ERR(attr))
			continue;
		srpt_addr_set_add(set, (const struct in6_addr *)attr->gid.raw);
		rdma_put_gid_attr(attr);
	}
}

/**
 * srpt_port_netdev_addrs() - the IP addresses of a port's network device
 * @sport: the port (iWARP: its GID table holds no addresses)
 * @set: receives them
 *
 * Needs ib_device_get_netdev(), which 6.1 and older keep private (6.12
 * exports it): there an iWARP port lists no RDMA/CM line.
 */
static void srpt_port_netdev_addrs(struct srpt_port *sport,
				   struct srpt_addr_set *set)
{
#ifdef SRPT_HAVE_IB_DEVICE_GET_NETDEV
	struct net_device *ndev;
	struct in_device *in_dev;
	struct inet6_dev *idev;
	const struct in_ifaddr *ifa;
	struct inet6_ifaddr *ifp;
	struct in6_addr a;

	ndev = ib_device_get_netdev(sport->sdev->ib_dev, sport->port_num);
	if (!ndev)
		return;
	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			ipv6_addr_set_v4mapped(ifa->ifa_local, &a);
			srpt_addr_set_add(set, &a);
		}
	}
	rcu_read_unlock();
	idev = in6_dev_get(ndev);
	if (idev) {
		read_lock_bh(&idev->lock);
		list_for_each_entry(ifp, &idev->addr_list, if_list)
			srpt_addr_set_add(set, &ifp->addr);
		read_unlock_bh(&idev->lock);
		in6_dev_put(idev);
	}
	dev_put(ndev);
#endif
}

/* Longest line: the IB/CM one, or dest=[<IPv6 text>]:<port>. */
#define SRPT_LOGIN_LINE_MAX	160

/**
 * srpt_login_line() - append one add_target line to the page if it fits
 * @page: the configfs page
 * @at: bytes of @page already used
 * @fmt: printf format of the line, with its newline
 *
 * A line that would not fit whole is left out (with the ones after it),
 * so a reader never gets half a line.
 *
 * Return: the new @at.
 */
static __printf(3, 4) int srpt_login_line(char *page, int at,
					  const char *fmt, ...)
{
	char line[SRPT_LOGIN_LINE_MAX];
	va_list args;
	int len;

	va_start(args, fmt);
	len = vsnprintf(line, sizeof(line), fmt, args);
	va_end(args);
	if (len >= sizeof(line) || at + len >= PAGE_SIZE)
		return at;
	memcpy(page + at, line, len + 1);
	return at + len;
}

/**
 * srpt_port_login_info() - the add_target lines of one port
 * @sport: the port
 * @guid: srpt_service_guid(): id_ext, ioc_guid and IB/CM service ID
 * @cm_port: TCP port of the RDMA/CM listener, 0 if there is none
 * @page: the configfs page
 * @at: bytes of @page already used
 *
 * IB/CM: the port's GID and its first P_Key (0xffff on RoCE).  RDMA/CM:
 * one line per address: from the GID table on RoCE, from the network
 * device on iWARP.  InfiniBand ports list no RDMA/CM line (the IPoIB
 * interface is not tied to the port; its address works in dest= too).
 *
 * Return: the new @at.
 */
static int srpt_port_login_info(struct srpt_port *sport, u64 guid,
				u16 cm_port, char *page, int at)
{
	struct ib_device *ib_dev = sport->sdev->ib_dev;
	u32 pn = sport->port_num;
	struct srpt_addr_set *set;
	union ib_gid gid;
	unsigned int i;
	u16 pkey;

	if (rdma_cap_ib_cm(ib_dev, pn) && READ_ONCE(sport->sdev->ib_cm_id)) {
		if (ib_query_pkey(ib_dev, pn, 0, &pkey) || !pkey)
			pkey = 0xffff;
		srpt_port_get_gid(sport, &gid);
		at = srpt_login_line(page, at,
				     "id_ext=%016llx,ioc_guid=%016llx,dgid=%16phN,pkey=%04x,service_id=%016llx\n",
				     guid, guid, gid.raw, pkey, guid);
	}
	if (!cm_port || rdma_protocol_ib(ib_dev, pn))
		return at;
	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		return at;
	if (rdma_protocol_roce(ib_dev, pn))
		srpt_port_roce_addrs(sport, set);
	else
		srpt_port_netdev_addrs(sport, set);
	for (i = 0; i < set->n; i++) {
		const struct in6_addr *a = &set->addr[i];

		if (ipv6_addr_v4mapped(a))
			at = srpt_login_line(page, at,
					     "id_ext=%016llx,ioc_guid=%016llx,dest=%pI4:%u\n",
					     guid, guid, &a->s6_addr32[3], cm_port);
		else
			at = srpt_login_line(page, at,
					     "id_ext=%016llx,ioc_guid=%016llx,dest=[%pI6c]:%u\n",
					     guid, guid, a, cm_port);
	}
	kfree(set);
	return at;
}

/**
 * srpt_show_login_info() - the add_target lines that reach a target port
 * @name: the target port's parsed name
 * @page: the configfs page
 *
 * One line per way in, for every port whose GID the name matches, each
 * complete for ib_srp's add_target but for the initiator's own fields
 * (initiator_ext, max_cmd_per_lun, ...), as many whole lines as the page
 * holds.
 *
 * Return: bytes written to @page.
 */
ssize_t srpt_show_login_info(const struct srpt_name *name, char *page)
{
	u64 guid = srpt_service_guid();
	u16 cm_port = srpt_get_rdma_cm_port();
	struct srpt_device *sdev;
	union ib_gid gid;
	int at = 0;
	u32 i;

	mutex_lock(&srpt_dev_mutex);
	list_for_each_entry(sdev, &srpt_dev_list, list) {
		for (i = 0; i < sdev->nports; i++) {
			struct srpt_port *sport = &sdev->ports[i];

			srpt_port_get_gid(sport, &gid);
			if (srpt_name_matches_port_id(name, gid.raw))
				at = srpt_port_login_info(sport, guid, cm_port,
							  page, at);
		}
	}
	mutex_unlock(&srpt_dev_mutex);
	return at;
}
