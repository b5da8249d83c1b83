// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: configfs objects under /sys/kernel/config/target/srpt.
 *
 *   discovery_auth/rdma_cm_port       RDMA/CM listener port (0 = off)
 *   <port name>/                      target port: GUID or GID form
 *   <port name>/<tpg>/                portal group (tpgt_<n> or any name),
 *                                     with enable, channels and login_info
 *                                     (the add_target lines that reach it)
 *   <port name>/<tpg>/attrib/         srp_max_rdma_size, srp_max_rsp_size,
 *                                     srp_sq_size, use_srq, cmd_report_secs,
 *                                     keepalive_secs, rnr_retry, channel
 *                                     and data limits
 *   <port name>/<tpg>/acls/<name>     initiator: GUID, port ID, IPv4, IPv6
 *
 * Every name, value and layout the in-tree ib_srpt accepts is accepted with
 * the same meaning.  A name that does not parse, or a target port name that
 * matches no RDMA port, is refused with -EINVAL and a message saying which
 * forms are valid.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/configfs.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <net/net_namespace.h>
#include <scsi/scsi_proto.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "srpt_configfs.h"
#include "srpt_param.h"
#include "srpt_device.h"
#include "srpt_tpg.h"
#include "srpt_chlist.h"
#include "srpt_cm.h"
#include "srpt_admit.h"
#include "srpt_compat.h"

/**
 * srpt_make_tport() - create a target port (mkdir srpt/<name>)
 * @tf: the fabric
 * @group: parent configfs group
 * @name: port GUID (xxxx:xxxx:xxxx:xxxx) or port GID (0x + 32 hex digits)
 *
 * Return: the new se_wwn, or ERR_PTR(-EINVAL) when @name is not a valid
 * name or names no port of any RDMA device, ERR_PTR(-ENOMEM).
 */
struct se_wwn *srpt_make_tport(struct target_fabric_configfs *tf,
			       struct config_group *group, const char *name)
{
	struct srpt_tport *tport;
	struct srpt_name parsed;

	if (srpt_name_parse(name, &parsed) ||
	    (parsed.kind != SRPT_NAME_GUID && parsed.kind != SRPT_NAME_GID) ||
	    strlen(name) >= SRPT_WWN_MAX) {
		pr_warn("target port '%s' refused: use the port GUID (xxxx:xxxx:xxxx:xxxx) or GID (0x and 32 hex digits)\n",
			name);
		return ERR_PTR(-EINVAL);
	}
	if (!srpt_name_has_port(&parsed)) {
		pr_warn("target port '%s' refused: no RDMA port has that %s\n",
			name, parsed.kind == SRPT_NAME_GUID ? "GUID" : "GID");
		return ERR_PTR(-EINVAL);
	}

	tport = kzalloc(sizeof(*tport), GFP_KERNEL);
	if (!tport)
		return ERR_PTR(-ENOMEM);
	tport->name = parsed;
	strscpy(tport->name_str, name, sizeof(tport->name_str));
	srpt_tport_add(tport);
	pr_debug("target port %s created\n", name);
	return &tport->wwn;
}

/**
 * srpt_drop_tport() - remove a target port (rmdir srpt/<name>)
 * @wwn: its se_wwn; configfs removed its portal groups first
 */
void srpt_drop_tport(struct se_wwn *wwn)
{
	struct srpt_tport *tport = srpt_tport(wwn);

	srpt_tport_del(tport);
	pr_debug("target port %s removed\n", tport->name_str);
	kfree(tport);
}

/**
 * srpt_make_tpg() - create a portal group (mkdir <port>/<name>)
 * @wwn: target port
 * @name: any name; "tpgt_<1..65535>" (what targetcli creates) sets the tag,
 *	any other name (scripts written for the in-tree driver use the
 *	port's own name) gets tag 1, as every group of the in-tree driver
 *
 * Return: the new se_portal_group or an ERR_PTR.
 */
struct se_portal_group *srpt_make_tpg(struct se_wwn *wwn, const char *name)
{
	struct srpt_tpg *tpg;
	u16 tag;
	int ret;

	if (!str_has_prefix(name, "tpgt_") || kstrtou16(name + 5, 10, &tag) ||
	    !tag)
		tag = 1;

	tpg = kzalloc(sizeof(*tpg), GFP_KERNEL);
	if (!tpg)
		return ERR_PTR(-ENOMEM);
	tpg->name = kstrdup(name, GFP_KERNEL);
	if (!tpg->name) {
		kfree(tpg);
		return ERR_PTR(-ENOMEM);
	}
	tpg->tport = srpt_tport(wwn);
	tpg->tag = tag;
	tpg->max_rdma_size = SRPT_DEF_RDMA_SIZE;
	tpg->max_rsp_size = SRPT_DEF_RSP_SIZE;
	tpg->sq_size = SRPT_DEF_SQ_SIZE;
	tpg->use_srq = 0;
	tpg->cmd_report_secs = SRPT_DEF_CMD_REPORT_SECS;
	tpg->keepalive_secs = SRPT_DEF_KEEPALIVE_SECS;
	tpg->rnr_retry = SRPT_DEF_RNR_RETRY;
	tpg->max_channels = SRPT_DEF_MAX_CHANNELS;
	tpg->max_initiator_channels = SRPT_DEF_MAX_INI_CHANNELS;
	tpg->max_cmd_data = SRPT_MAX_CMD_DATA;
	tpg->max_channel_data = SRPT_DEF_CHANNEL_DATA;
	tpg->max_tpg_data_mb = srpt_default_data_mb();
	/* A quarter of that: no one initiator takes all of it. */
	tpg->max_initiator_data_mb = max_t(u32, tpg->max_tpg_data_mb / 4,
					   SRPT_MIN_SHARED_DATA_MB);

	ret = core_tpg_register(wwn, &tpg->se_tpg, SCSI_PROTOCOL_SRP);
	if (ret) {
		kfree(tpg->name);
		kfree(tpg);
		return ERR_PTR(ret);
	}
	srpt_tpg_add(tpg);
	return &tpg->se_tpg;
}

/**
 * srpt_drop_tpg() - remove a portal group
 * @se_tpg: the group; LIO removed its LUNs and ACLs first
 */
void srpt_drop_tpg(struct se_portal_group *se_tpg)
{
	struct srpt_tpg *tpg = srpt_tpg(se_tpg);

	srpt_tpg_remove(tpg);
	srpt_ch_close_matching(NULL, tpg, false);
	srpt_tpg_wait_unused(tpg);
	core_tpg_deregister(se_tpg);
	kfree(tpg->name);
	kfree(tpg);
}

/**
 * srpt_enable_tpg() - the portal group's enable attribute was written
 * @se_tpg: the group
 * @enable: new state
 *
 * Return: 0.
 */
int srpt_enable_tpg(struct se_portal_group *se_tpg, bool enable)
{
	struct srpt_tpg *tpg = srpt_tpg(se_tpg);

	srpt_tpg_set_enabled(tpg, enable);
	if (!enable)
		srpt_ch_close_matching(NULL, tpg, false);
	pr_info("%s/%s %s\n", tpg->tport->name_str, tpg->name,
		enable ? "enabled" : "disabled");
	return 0;
}

/**
 * srpt_parse_ip_scope() - parse an IP address the way the in-tree driver does
 * @name: IPv4 or IPv6 text; a link-local IPv6 address may carry a scope
 *	("%eth0" or "%2": an interface that exists, or a number)
 * @out: receives an IPv4 or IPv6 name
 *
 * inet_pton_with_scope() takes forms srpt_name_parse() does not (leading
 * zeros in IPv4 octets, a zone index), and the in-tree driver accepted
 * every ACL name it takes.  The scope only checks the name: logins are
 * matched on the address.
 *
 * Return: 0 or -EINVAL.
 */
static int srpt_parse_ip_scope(const char *name, struct srpt_name *out)
{
	struct sockaddr_storage ss = { };
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)&ss;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)&ss;

	if (inet_pton_with_scope(&init_net, AF_UNSPEC, name, NULL, &ss))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (ss.ss_family == AF_INET) {
		out->kind = SRPT_NAME_IPV4;
		memcpy(out->id, &sin->sin_addr, 4);
	} else {
		out->kind = SRPT_NAME_IPV6;
		memcpy(out->id, &sin6->sin6_addr, 16);
	}
	return 0;
}

/**
 * srpt_init_nodeacl() - check and parse the name of a new node ACL
 * @se_nacl: the ACL, embedded in a struct srpt_nacl
 * @name: initiator port GUID, port ID (hex), IPv4 or IPv6 address
 *
 * Every name the in-tree driver takes is taken: see srpt_name_parse() and
 * srpt_parse_ip_scope().
 *
 * Return: 0, or -EINVAL when @name is in none of those forms.
 */
int srpt_init_nodeacl(struct se_node_acl *se_nacl, const char *name)
{
	struct srpt_nacl *nacl = container_of(se_nacl, struct srpt_nacl, nacl);
	struct srpt_name parsed;

	if (srpt_name_parse(name, &parsed) &&
	    srpt_parse_ip_scope(name, &parsed)) {
		pr_warn("ACL '%s' refused: use an initiator GUID (xxxx:xxxx:xxxx:xxxx), port ID (hex, up to 32 digits, 0x optional), IPv4 or IPv6 address (with %%scope)\n",
			name);
		return -EINVAL;
	}
	memcpy(nacl->name.id, parsed.id, sizeof(parsed.id));
	/*
	 * LIO lists the ACL before calling us, and logins may look at it
	 * meanwhile (srpt_tpg_find_acl()): until the kind is published, after
	 * the bytes, the zeroed name is SRPT_NAME_NONE, which matches nothing.
	 */
	smp_store_release(&nacl->name.kind, parsed.kind);
	return 0;
}

/**
 * srpt_store_u32() - parse and range-check a numeric attribute
 * @page: text written by the user
 * @count: its length
 * @field: where to store the value
 * @min: smallest accepted value
 * @max: largest accepted value
 * @what: attribute name, for the message
 *
 * Return: @count, or -EINVAL after logging the accepted range.
 */
static ssize_t srpt_store_u32(const char *page, size_t count, u32 *field,
			      u32 min, u32 max, const char *what)
{
	u32 val;

	if (kstrtou32(page, 0, &val) || val < min || val > max) {
		pr_warn("%s: refused '%.*s': accepted range is %u..%u\n", what,
			(int)strcspn(page, "\n"), page, min, max);
		return -EINVAL;
	}
	WRITE_ONCE(*field, val);
	return count;
}

/*
 * TPG attributes.  New values apply to channels that log in afterwards;
 * existing channels keep what they negotiated (cmd_report_secs and
 * keepalive_secs apply to live channels at their next check, and a change
 * of use_srq logs the group's channels out).
 */
static u32 *srpt_tpg_attrib_srp_max_rdma_size_ptr(struct config_item *item)
{
	return &srpt_tpg(attrib_to_tpg(item))->max_rdma_size;
}

static u32 *srpt_tpg_attrib_srp_max_rsp_size_ptr(struct config_item *item)
{
	return &srpt_tpg(attrib_to_tpg(item))->max_rsp_size;
}

static u32 *srpt_tpg_attrib_srp_sq_size_ptr(struct config_item *item)
{
	return &srpt_tpg(attrib_to_tpg(item))->sq_size;
}

static u32 *srpt_tpg_attrib_cmd_report_secs_ptr(struct config_item *item)
{
	return &srpt_tpg(attrib_to_tpg(item))->cmd_report_secs;
}

static u32 *srpt_tpg_attrib_keepalive_secs_ptr(struct config_item *item)
{
	return &srpt_tpg(attrib_to_tpg(item))->keepalive_secs;
}

static u32 *srpt_tpg_attrib_rnr_retry_ptr(struct config_item *item)
{
	return &srpt_tpg(attrib_to_tpg(item))->rnr_retry;
}

static u32 *srpt_tpg_attrib_max_channels_ptr(struct config_item *item)
{
	return &srpt_tpg(attrib_to_tpg(item))->max_channels;
}

static u32 *
srpt_tpg_attrib_max_initiator_channels_ptr(struct config_item *item)
{
	return &srpt_tpg(attrib_to_tpg(item))->max_initiator_channels;
}

static u32 *srpt_tpg_attrib_max_cmd_data_ptr(struct config_item *item)
{
	return &srpt_tpg(attrib_to_tpg(item))->max_cmd_data;
}

static u32 *srpt_tpg_attrib_max_channel_data_ptr(struct config_item *item)
{
	return &srpt_tpg(attrib_to_tpg(item))->max_channel_data;
}

static u32 *
srpt_tpg_attrib_max_initiator_data_mb_ptr(struct config_item *item)
{
	return &srpt_tpg(attrib_to_tpg(item))->max_initiator_data_mb;
}

static u32 *srpt_tpg_attrib_max_tpg_data_mb_ptr(struct config_item *item)
{
	return &srpt_tpg(attrib_to_tpg(item))->max_tpg_data_mb;
}

/* Show and store of attribute _name, through srpt_tpg_attrib_<_name>_ptr(). */
#define SRPT_TPG_ATTRIB(_name, _min, _max)				\
static ssize_t srpt_tpg_attrib_##_name##_show(struct config_item *item,\
					      char *page)		\
{									\
	return sysfs_emit(page, "%u\n",					\
			  READ_ONCE(*srpt_tpg_attrib_##_name##_ptr(item)));\
}									\
static ssize_t srpt_tpg_attrib_##_name##_store(struct config_item *item,\
					       const char *page,	\
					       size_t count)		\
{									\
	return srpt_store_u32(page, count,				\
			      srpt_tpg_attrib_##_name##_ptr(item),	\
			      _min, _max, #_name);			\
}									\
CONFIGFS_ATTR(srpt_tpg_attrib_, _name)

SRPT_TPG_ATTRIB(srp_max_rdma_size, SRPT_MIN_RDMA_SIZE, SRPT_MAX_RDMA_SIZE);
SRPT_TPG_ATTRIB(srp_max_rsp_size, SRPT_MIN_RSP_SIZE, SRPT_MAX_RSP_SIZE);
SRPT_TPG_ATTRIB(srp_sq_size, SRPT_MIN_SQ_ATTR, SRPT_MAX_SQ_SIZE);
SRPT_TPG_ATTRIB(cmd_report_secs, 0, SRPT_MAX_CMD_REPORT_SECS);
SRPT_TPG_ATTRIB(keepalive_secs, 0, SRPT_MAX_KEEPALIVE_SECS);
SRPT_TPG_ATTRIB(rnr_retry, 0, SRPT_MAX_RNR_RETRY);
SRPT_TPG_ATTRIB(max_channels, 0, SRPT_MAX_CHANNELS_ATTR);
SRPT_TPG_ATTRIB(max_initiator_channels, 0, SRPT_MAX_CHANNELS_ATTR);
SRPT_TPG_ATTRIB(max_cmd_data, SRPT_MIN_CMD_DATA, SRPT_MAX_CMD_DATA);
SRPT_TPG_ATTRIB(max_channel_data, SRPT_MIN_CHANNEL_DATA,
		SRPT_MAX_CHANNEL_DATA);
SRPT_TPG_ATTRIB(max_initiator_data_mb, SRPT_MIN_SHARED_DATA_MB,
		SRPT_MAX_SHARED_DATA_MB);
SRPT_TPG_ATTRIB(max_tpg_data_mb, SRPT_MIN_SHARED_DATA_MB,
		SRPT_MAX_SHARED_DATA_MB);

static ssize_t srpt_tpg_attrib_use_srq_show(struct config_item *item,
					    char *page)
{
	return sysfs_emit(page, "%u\n",
			  READ_ONCE(srpt_tpg(attrib_to_tpg(item))->use_srq));
}

/**
 * srpt_tpg_attrib_use_srq_store() - switch a portal group to or from the SRQ
 * @item: the attrib group
 * @page: "0" or "1"
 * @count: length of @page
 *
 * As with the in-tree driver, a change logs the group's channels out: the
 * initiators log in again and get channels of the new kind at once.
 *
 * Return: @count, or -EINVAL.
 */
static ssize_t srpt_tpg_attrib_use_srq_store(struct config_item *item,
					     const char *page, size_t count)
{
	struct srpt_tpg *tpg = srpt_tpg(attrib_to_tpg(item));
	u32 old = READ_ONCE(tpg->use_srq);
	ssize_t ret;

	ret = srpt_store_u32(page, count, &tpg->use_srq, 0, 1, "use_srq");
	if (ret > 0 && READ_ONCE(tpg->use_srq) != old) {
		pr_info("%s/%s: use_srq %u: closing the channels\n",
			tpg->tport->name_str, tpg->name, tpg->use_srq);
		srpt_ch_close_matching(NULL, tpg, false);
	}
	return ret;
}

CONFIGFS_ATTR(srpt_tpg_attrib_, use_srq);

struct configfs_attribute *srpt_tpg_attrib_attrs[] = {
	&srpt_tpg_attrib_attr_srp_max_rdma_size,
	&srpt_tpg_attrib_attr_srp_max_rsp_size,
	&srpt_tpg_attrib_attr_srp_sq_size,
	&srpt_tpg_attrib_attr_use_srq,
	&srpt_tpg_attrib_attr_cmd_report_secs,
	&srpt_tpg_attrib_attr_keepalive_secs,
	&srpt_tpg_attrib_attr_rnr_retry,
	&srpt_tpg_attrib_attr_max_channels,
	&srpt_tpg_attrib_attr_max_initiator_channels,
	&srpt_tpg_attrib_attr_max_cmd_data,
	&srpt_tpg_attrib_attr_max_channel_data,
	&srpt_tpg_attrib_attr_max_initiator_data_mb,
	&srpt_tpg_attrib_attr_max_tpg_data_mb,
	NULL,
};

static ssize_t srpt_tpg_channels_show(struct config_item *item, char *page)
{
	return srpt_tpg_show_channels(srpt_tpg(to_tpg(item)), page);
}

CONFIGFS_ATTR_RO(srpt_tpg_, channels);

static ssize_t srpt_tpg_login_info_show(struct config_item *item, char *page)
{
	return srpt_show_login_info(&srpt_tpg(to_tpg(item))->tport->name, page);
}

CONFIGFS_ATTR_RO(srpt_tpg_, login_info);

static ssize_t srpt_tpg_enable_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n",
			  READ_ONCE(srpt_tpg(to_tpg(item))->enabled));
}

/**
 * srpt_tpg_enable_store() - the enable attribute, where LIO has none
 * @item: the portal group's configfs item
 * @page: the value written
 * @count: its length
 *
 * The in-tree driver of such kernels (5.10) takes 0 or 1 in any base
 * kstrtoul() reads; LIO's own attribute on later kernels takes
 * kstrtobool()'s forms, and so does this.
 *
 * Return: @count, or -EINVAL for any other value.
 */
static ssize_t srpt_tpg_enable_store(struct config_item *item,
				     const char *page, size_t count)
{
	unsigned long v;
	bool enable;

	if (!kstrtoul(page, 0, &v)) {
		if (v > 1) {
			pr_err("enable: %lu is not 0 or 1\n", v);
			return -EINVAL;
		}
		enable = v;
	} else if (kstrtobool(page, &enable)) {
		pr_err("enable: '%.*s' is not 0 or 1\n", (int)strcspn(page, "\n"),
		       page);
		return -EINVAL;
	}
	srpt_enable_tpg(to_tpg(item), enable);
	return count;
}

/* Listed only where LIO has no enable attribute (SRPT_COMPAT_ENABLE_ATTR). */
static struct configfs_attribute srpt_tpg_attr_enable __maybe_unused = {
	.ca_name	= "enable",
	.ca_mode	= 0644,
	.ca_owner	= THIS_MODULE,
	.show		= srpt_tpg_enable_show,
	.store		= srpt_tpg_enable_store,
};

struct configfs_attribute *srpt_tpg_base_attrs[] = {
	&srpt_tpg_attr_channels,
	&srpt_tpg_attr_login_info,
	SRPT_COMPAT_ENABLE_ATTR
	NULL,
};

static ssize_t srpt_wwn_version_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", SRPT_VERSION);
}

CONFIGFS_ATTR_RO(srpt_wwn_, version);

static ssize_t srpt_nacl_info_show(struct config_item *item, char *page)
{
	return srpt_nacl_show_info(acl_to_nacl(item), page);
}

CONFIGFS_ATTR_RO(srpt_nacl_, info);

struct configfs_attribute *srpt_nacl_base_attrs[] = {
	&srpt_nacl_attr_info,
	NULL,
};

/* SRP has no authentication; rtslib reads this for "sessions detail". */
static ssize_t srpt_nacl_auth_authenticate_target_show(struct config_item *item,
						       char *page)
{
	return sysfs_emit(page, "0\n");
}

CONFIGFS_ATTR_RO(srpt_nacl_auth_, authenticate_target);

struct configfs_attribute *srpt_nacl_auth_attrs[] = {
	&srpt_nacl_auth_attr_authenticate_target,
	NULL,
};

struct configfs_attribute *srpt_wwn_attrs[] = {
	&srpt_wwn_attr_version,
	NULL,
};

static ssize_t srpt_da_rdma_cm_port_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", srpt_get_rdma_cm_port());
}

static ssize_t srpt_da_rdma_cm_port_store(struct config_item *item,
					  const char *page, size_t count)
{
	u16 port;
	int ret;

	if (kstrtou16(page, 0, &port)) {
		pr_warn("rdma_cm_port: refused '%.*s': accepted range is 0..65535\n",
			(int)strcspn(page, "\n"), page);
		return -EINVAL;
	}
	ret = srpt_rdma_cm_set_port(port);
	return ret ? ret : count;
}

CONFIGFS_ATTR(srpt_da_, rdma_cm_port);

static ssize_t srpt_da_logins_show(struct config_item *item, char *page)
{
	return srpt_show_logins(page);
}

CONFIGFS_ATTR_RO(srpt_da_, logins);

struct configfs_attribute *srpt_discovery_attrs[] = {
	&srpt_da_attr_rdma_cm_port,
	&srpt_da_attr_logins,
	NULL,
};
