// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: the registry of target ports and portal groups.
 *
 * configfs (srpt_configfs.c) adds and removes them; a login looks up the
 * portal group it goes to here and holds a reference on it for as long as
 * its channel lives.  A group is freed only once no channel holds one.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/refcount.h>
#include <target/target_core_base.h>

#include "srpt_tpg.h"
#include "srpt_proto_wire.h"
#include "srpt_param.h"
#include "srpt_device.h"

/*
 * Target ports and their portal groups, for logins to search.  The mutex
 * also orders a login's "find the group and take a reference" against the
 * group's removal.
 */
static LIST_HEAD(srpt_tport_list);

static DEFINE_MUTEX(srpt_cfg_mutex);

static DECLARE_WAIT_QUEUE_HEAD(srpt_tpg_waitq);

/**
 * srpt_tport_add() - list a new target port
 * @tport: the port, with its name set
 */
void srpt_tport_add(struct srpt_tport *tport)
{
	INIT_LIST_HEAD(&tport->tpg_list);
	mutex_lock(&srpt_cfg_mutex);
	list_add_tail(&tport->list, &srpt_tport_list);
	mutex_unlock(&srpt_cfg_mutex);
}

/**
 * srpt_tport_del() - unlist a target port
 * @tport: the port; its portal groups are gone
 */
void srpt_tport_del(struct srpt_tport *tport)
{
	mutex_lock(&srpt_cfg_mutex);
	list_del(&tport->list);
	mutex_unlock(&srpt_cfg_mutex);
}

/**
 * srpt_tpg_add() - list a new portal group of a target port
 * @tpg: the group, registered with LIO
 *
 * The registry holds the group's first reference; srpt_tpg_remove() and
 * srpt_tpg_wait_unused() give it back.
 */
void srpt_tpg_add(struct srpt_tpg *tpg)
{
	refcount_set(&tpg->refs, 1);
	mutex_lock(&srpt_cfg_mutex);
	list_add_tail(&tpg->list, &tpg->tport->tpg_list);
	mutex_unlock(&srpt_cfg_mutex);
}

/**
 * srpt_tpg_remove() - unlist a portal group that is being removed
 * @tpg: the group
 *
 * From here on no login finds it; the channels it has keep their
 * references until they are released.
 */
void srpt_tpg_remove(struct srpt_tpg *tpg)
{
	mutex_lock(&srpt_cfg_mutex);
	tpg->dying = true;
	WRITE_ONCE(tpg->enabled, false);
	list_del(&tpg->list);
	mutex_unlock(&srpt_cfg_mutex);
}

/**
 * srpt_tpg_set_enabled() - the portal group's enable attribute was written
 * @tpg: the group
 * @enable: new state; logins only go to enabled groups
 */
void srpt_tpg_set_enabled(struct srpt_tpg *tpg, bool enable)
{
	mutex_lock(&srpt_cfg_mutex);
	WRITE_ONCE(tpg->enabled, enable);
	mutex_unlock(&srpt_cfg_mutex);
}

/**
 * srpt_tpg_put() - drop a reference on a portal group
 * @tpg: the group; a reference taken by srpt_tpg_for_login(), or the
 *	registry's own one (srpt_tpg_wait_unused())
 */
void srpt_tpg_put(struct srpt_tpg *tpg)
{
	if (refcount_dec_and_test(&tpg->refs))
		wake_up_all(&srpt_tpg_waitq);
}

/**
 * srpt_tpg_wait_unused() - wait until no channel or login uses a group
 * @tpg: the group, unlisted by srpt_tpg_remove() and with its channels
 *	closing
 *
 * Gives back the registry's reference, then waits for the others.
 * Channel release is bounded (see srpt_ch_release_work()), so this ends;
 * every ten seconds it says what it still waits for.  The group may be
 * freed afterwards.
 */
void srpt_tpg_wait_unused(struct srpt_tpg *tpg)
{
	srpt_tpg_put(tpg);
	while (!wait_event_timeout(srpt_tpg_waitq,
				   !refcount_read(&tpg->refs), 10 * HZ))
		pr_info("%s/%s: waiting for %u channel(s) to be released\n",
			tpg->tport->name_str, tpg->name,
			refcount_read(&tpg->refs));
}

/**
 * srpt_nacl_matches() - does a node ACL name the initiator?
 * @nacl: the ACL
 * @ini: the initiator logging in
 *
 * GUID and GID forms are compared with the initiator port ID of the login
 * request, IP forms with the source address of an RDMA/CM login.
 *
 * Return: true on a match.
 */
static bool srpt_nacl_matches(const struct srpt_nacl *nacl,
			      const struct srpt_initiator *ini)
{
	return srpt_name_matches_port_id(&nacl->name, ini->port_id) ||
	       (ini->ip_len &&
		srpt_name_matches_ip(&nacl->name, ini->ip, ini->ip_len));
}

/**
 * srpt_tpg_find_acl() - find the ACL of an initiator in a portal group
 * @tpg: the group
 * @ini: the initiator
 * @acl_name: receives the ACL's name, which the session is created with
 * @len: size of @acl_name
 *
 * Return: true if an ACL (not a dynamic demo-mode one) matches.
 */
static bool srpt_tpg_find_acl(struct srpt_tpg *tpg,
			      const struct srpt_initiator *ini,
			      char *acl_name, size_t len)
{
	struct se_portal_group *se_tpg = &tpg->se_tpg;
	struct se_node_acl *se_nacl;
	bool found = false;

	mutex_lock(&se_tpg->acl_node_mutex);
	list_for_each_entry(se_nacl, &se_tpg->acl_node_list, acl_list) {
		struct srpt_nacl *nacl = container_of(se_nacl, struct srpt_nacl,
						      nacl);

		if (se_nacl->dynamic_node_acl)
			continue;
		/* Pairs with srpt_init_nodeacl(): the name, once it has one. */
		if (smp_load_acquire(&nacl->name.kind) == SRPT_NAME_NONE)
			continue;
		if (srpt_nacl_matches(nacl, ini)) {
			strscpy(acl_name, se_nacl->initiatorname, len);
			found = true;
			break;
		}
	}
	mutex_unlock(&se_tpg->acl_node_mutex);
	return found;
}

/**
 * srpt_tpg_rdma_size() - the RDMA transfer size a port's I/O controller
 * reports
 * @sport: the port
 *
 * The srp_max_rdma_size of the portal group logins on @sport would go to
 * (the first enabled group of a target port named after its GID or GUID;
 * the first group when none is enabled), but no more than that group's
 * max_cmd_data: no single transfer can be larger than the command it
 * belongs to.  %SRPT_DEF_RDMA_SIZE when the port has no target port.
 *
 * Return: bytes.
 */
u32 srpt_tpg_rdma_size(struct srpt_port *sport)
{
	struct srpt_tpg *tpg, *pick = NULL;
	struct srpt_tport *tport;
	u32 size = SRPT_DEF_RDMA_SIZE;
	union ib_gid gid;

	srpt_port_get_gid(sport, &gid);
	mutex_lock(&srpt_cfg_mutex);
	list_for_each_entry(tport, &srpt_tport_list, list) {
		if (!srpt_name_matches_port_id(&tport->name, gid.raw))
			continue;
		list_for_each_entry(tpg, &tport->tpg_list, list) {
			if (tpg->dying)
				continue;
			if (!pick || (tpg->enabled && !pick->enabled))
				pick = tpg;
		}
	}
	if (pick)
		size = min(READ_ONCE(pick->max_rdma_size),
			   READ_ONCE(pick->max_cmd_data));
	mutex_unlock(&srpt_cfg_mutex);
	return size;
}

/**
 * srpt_tpg_for_login() - pick the portal group a login goes to
 * @sport: port the login arrived on
 * @ini: the initiator
 * @acl_name: receives the name of the initiator's ACL
 * @acl_name_len: size of @acl_name
 * @why: set to the reason when no group is returned
 * @rej: set to the SRP_LOGIN_REJ reason when no group is returned
 *
 * The first enabled group of a target port named after @sport's GID or GUID
 * with an ACL for @ini wins.
 *
 * Return: the group with a reference (release with srpt_tpg_put()), or NULL.
 */
struct srpt_tpg *srpt_tpg_for_login(struct srpt_port *sport,
				    const struct srpt_initiator *ini,
				    char *acl_name, size_t acl_name_len,
				    const char **why, u32 *rej)
{
	struct srpt_tport *tport;
	struct srpt_tpg *tpg;
	union ib_gid gid;
	bool any_tport = false, any_enabled = false;

	srpt_port_get_gid(sport, &gid);
	mutex_lock(&srpt_cfg_mutex);
	list_for_each_entry(tport, &srpt_tport_list, list) {
		if (!srpt_name_matches_port_id(&tport->name, gid.raw))
			continue;
		any_tport = true;
		list_for_each_entry(tpg, &tport->tpg_list, list) {
			if (!tpg->enabled || tpg->dying)
				continue;
			any_enabled = true;
			if (!srpt_tpg_find_acl(tpg, ini, acl_name,
					       acl_name_len))
				continue;
			refcount_inc(&tpg->refs);
			mutex_unlock(&srpt_cfg_mutex);
			return tpg;
		}
	}
	mutex_unlock(&srpt_cfg_mutex);
	*rej = SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	if (!any_tport) {
		*why = "no target port configured for this port";
	} else if (!any_enabled) {
		*why = "no enabled portal group on this port";
	} else {
		*why = "initiator not in the ACL";
		*rej = SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	}
	return NULL;
}
