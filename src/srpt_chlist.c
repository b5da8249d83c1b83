// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: the list of channels.
 *
 * A channel is listed from its registration (srpt_ch_register(), which
 * applies the channel limits and the SRP multichannel rules of a login) until
 * its release work is done with the device (srpt_ch_unlist()).  Device
 * removal, a disabled or removed portal group and a port change close the
 * channels they concern through this list, and the configfs views read it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <target/target_core_base.h>

#include "srpt_chlist.h"
#include "srpt.h"
#include "srpt_device.h"
#include "srpt_tpg.h"
#include "srpt_qp.h"
#include "srpt_data.h"

static LIST_HEAD(srpt_ch_list);

static DEFINE_MUTEX(srpt_ch_mutex);

static DECLARE_WAIT_QUEUE_HEAD(srpt_ch_waitq);

static const char * const srpt_ch_state_name[] = {
	[SRPT_CH_CONNECTING]	= "connecting",
	[SRPT_CH_LIVE]		= "live",
	[SRPT_CH_DISCONNECTING]	= "disconnecting",
	[SRPT_CH_RELEASING]	= "releasing",
};

static bool srpt_ch_same_nexus(const struct srpt_channel *a,
			       const struct srpt_channel *b)
{
	return a->sport == b->sport && a->tpg == b->tpg &&
	       !memcmp(a->i_port_id, b->i_port_id, sizeof(a->i_port_id)) &&
	       !memcmp(a->t_port_id, b->t_port_id, sizeof(a->t_port_id));
}

/**
 * srpt_ch_over_limit() - would a new channel exceed its group's limits?
 * @ch: the new channel, its session (and so its node ACL) set up
 * @single: a SINGLE login: the live channels of its I_T nexus are about to
 *	be replaced and do not count
 *
 * A channel counts until it is freed, closing or not: one whose release
 * waits for the backend still holds its QP, its receive ring and its
 * command contexts, and an initiator that logs in again and again (SINGLE
 * logins replace the channels before them) while the backend holds a
 * command of each would otherwise pile them up without bound.  Called with
 * srpt_ch_mutex held, so that two logins cannot both take the last place.
 * (A channel that detached from a removed device is off the list: it holds
 * memory only, until the backend gives its commands back.)
 *
 * Return: true when max_channels or max_initiator_channels of the portal
 * group (0: no limit) is reached.
 */
static bool srpt_ch_over_limit(struct srpt_channel *ch, bool single)
{
	u32 max_all = READ_ONCE(ch->tpg->max_channels);
	u32 max_ini = READ_ONCE(ch->tpg->max_initiator_channels);
	struct srpt_channel *other;
	u32 n_all = 0, n_ini = 0;

	lockdep_assert_held(&srpt_ch_mutex);
	if (!max_all && !max_ini)
		return false;
	list_for_each_entry(other, &srpt_ch_list, list) {
		if (other->tpg != ch->tpg ||
		    (single && srpt_ch_same_nexus(ch, other) &&
		     READ_ONCE(other->state) < SRPT_CH_DISCONNECTING))
			continue;
		n_all++;
		if (other->nacl == ch->nacl)
			n_ini++;
	}
	return (max_all && n_all >= max_all) || (max_ini && n_ini >= max_ini);
}

/**
 * srpt_ch_share_locked() - share the module's idle bound among the channels
 *
 * Idle command contexts and the page pool keep data buffer pages for the
 * next commands, up to %SRPT_KEPT_PAGES and %SRPT_POOL_PAGES a channel.
 * With many channels that alone could take the machine's memory, so all
 * of them together keep at most the data bound (max_data_mb) divided by
 * %SRPT_IDLE_SHARE: each channel that is not releasing gets an equal
 * share, a fifth of it for its pool.  Recomputed whenever a channel joins
 * the list or starts its release; a channel whose share shrank gives up
 * the excess at once (srpt_data_trim()).  Called with srpt_ch_mutex held.
 */
static void srpt_ch_share_locked(void)
{
	unsigned long budget = (srpt_data_limit() / SRPT_IDLE_SHARE) >> PAGE_SHIFT;
	struct srpt_channel *ch;
	u32 n = 0, share, kept, pool;
	bool shrink;

	lockdep_assert_held(&srpt_ch_mutex);
	list_for_each_entry(ch, &srpt_ch_list, list)
		n += READ_ONCE(ch->state) != SRPT_CH_RELEASING;
	if (!n)
		return;
	share = min_t(unsigned long, budget / n,
		      SRPT_KEPT_PAGES + SRPT_POOL_PAGES);
	pool = min_t(u32, share / 5, SRPT_POOL_PAGES);
	kept = min_t(u32, share - pool, SRPT_KEPT_PAGES);
	list_for_each_entry(ch, &srpt_ch_list, list) {
		if (READ_ONCE(ch->state) == SRPT_CH_RELEASING)
			continue;
		shrink = kept < READ_ONCE(ch->kept_max) ||
			 pool < READ_ONCE(ch->pool_max);
		WRITE_ONCE(ch->kept_max, kept);
		WRITE_ONCE(ch->pool_max, pool);
		if (shrink)
			srpt_data_trim(ch, false);
	}
}

/**
 * srpt_ch_releasing() - a channel's release began: it keeps nothing idle
 * @ch: the channel, in state %SRPT_CH_RELEASING, run by its release work
 *
 * Its idle pages are freed now rather than when the backend has given
 * back the last command (which may take long), and its share of the idle
 * bound goes to the other channels (srpt_ch_share_locked()).
 */
void srpt_ch_releasing(struct srpt_channel *ch)
{
	mutex_lock(&srpt_ch_mutex);
	WRITE_ONCE(ch->kept_max, 0);
	WRITE_ONCE(ch->pool_max, 0);
	srpt_data_trim(ch, true);
	if (ch->registered)
		srpt_ch_share_locked();
	mutex_unlock(&srpt_ch_mutex);
}

/**
 * srpt_ch_register() - put a new channel on the channel list
 * @ch: the channel, fully set up
 * @single: the initiator asked for SINGLE channel operation
 * @multichan: receives the multichannel result for SRP_LOGIN_RSP
 *
 * With SINGLE, every other channel of the same I_T nexus (initiator port,
 * target port, RDMA port and portal group) is closed; with MULTI they stay.
 *
 * The channel is refused if it was closed while the login set it up (LIO's
 * close_session, a QP event: srpt_ch_close() only marks an unregistered
 * channel) or if its portal group was disabled since the lookup.  Both are
 * decided under srpt_ch_mutex, which srpt_ch_close_matching() takes after
 * clearing @tpg->enabled: a disable either sees the channel on the list or
 * the channel sees the disable.  So are the portal group's channel limits,
 * max_channels and max_initiator_channels (see srpt_ch_over_limit()).
 *
 * Return: 0, -ESHUTDOWN if the channel was refused, or -EDQUOT if a limit
 * is reached (the caller frees it and rejects the login).
 */
int srpt_ch_register(struct srpt_channel *ch, bool single, u8 *multichan)
{
	struct srpt_channel *other;
	bool others = false, ok;

	mutex_lock(&srpt_ch_mutex);
	if (srpt_ch_over_limit(ch, single)) {
		mutex_unlock(&srpt_ch_mutex);
		return -EDQUOT;
	}
	spin_lock_irq(&ch->lock);
	ok = ch->state == SRPT_CH_CONNECTING && READ_ONCE(ch->tpg->enabled) &&
	     !READ_ONCE(ch->tpg->dying);
	ch->registered = ok;
	spin_unlock_irq(&ch->lock);
	if (!ok) {
		mutex_unlock(&srpt_ch_mutex);
		return -ESHUTDOWN;
	}
	list_for_each_entry(other, &srpt_ch_list, list) {
		if (!srpt_ch_same_nexus(ch, other))
			continue;
		others = true;
		if (single)
			srpt_ch_close(other, "replaced by a SINGLE login");
	}
	list_add_tail(&ch->list, &srpt_ch_list);
	srpt_ch_share_locked();
	mutex_unlock(&srpt_ch_mutex);

	if (!others)
		*multichan = SRPT_LOGIN_RSP_MULTICHAN_NO_CHAN;
	else
		*multichan = single ? SRPT_LOGIN_RSP_MULTICHAN_TERMINATED :
				      SRPT_LOGIN_RSP_MULTICHAN_MAINTAINED;
	return 0;
}

/**
 * srpt_ch_unlist() - take a released channel off the channel list
 * @ch: the channel; its release work is done with the device
 *
 * Listed until here: srpt_remove_one() frees the device once no channel
 * of it is listed.
 */
void srpt_ch_unlist(struct srpt_channel *ch)
{
	mutex_lock(&srpt_ch_mutex);
	list_del(&ch->list);
	mutex_unlock(&srpt_ch_mutex);
}

/**
 * srpt_ch_released() - wake those who wait for a channel to go
 *
 * Called after a released channel was freed, and after a detached one
 * left the list (srpt_ch_close_matching() with @wait waits for both).
 */
void srpt_ch_released(void)
{
	wake_up_all(&srpt_ch_waitq);
}

static bool srpt_ch_matches(const struct srpt_channel *ch,
			    const struct srpt_device *sdev,
			    const struct srpt_tpg *tpg)
{
	return (!sdev || ch->sport->sdev == sdev) && (!tpg || ch->tpg == tpg);
}

/**
 * srpt_ch_count_matching() - count channels of a device and/or group
 * @sdev: device, or NULL for any
 * @tpg: portal group, or NULL for any
 * @first: if not NULL, receives a description of the first match
 * @len: size of @first
 *
 * Return: the number of channels on the list that match.
 */
static unsigned int srpt_ch_count_matching(struct srpt_device *sdev,
					   struct srpt_tpg *tpg, char *first,
					   size_t len)
{
	struct srpt_channel *ch;
	unsigned int n = 0;

	mutex_lock(&srpt_ch_mutex);
	list_for_each_entry(ch, &srpt_ch_list, list) {
		if (!srpt_ch_matches(ch, sdev, tpg))
			continue;
		if (!n++ && first)
			snprintf(first, len, "%s (%s)", ch->sess_name,
				 srpt_ch_state_name[ch->state]);
	}
	mutex_unlock(&srpt_ch_mutex);
	return n;
}

/**
 * srpt_ch_close_matching() - close the channels of a device and/or group
 * @sdev: device, or NULL for any
 * @tpg: portal group, or NULL for any
 * @wait: wait until they are released
 *
 * The wait ends because channel release ends (drain and LIO's own abort
 * of outstanding commands), or, for a device being removed
 * (@sdev->removing set), because its channels detach from it without
 * waiting for the backend (srpt_ch_detach()); while it lasts, a message
 * every ten seconds names a channel that is still there.
 */
void srpt_ch_close_matching(struct srpt_device *sdev, struct srpt_tpg *tpg,
			    bool wait)
{
	DEFINE_WAIT_FUNC(wq, woken_wake_function);
	struct srpt_channel *ch;
	char first[96];
	unsigned int n;

	mutex_lock(&srpt_ch_mutex);
	list_for_each_entry(ch, &srpt_ch_list, list) {
		if (!srpt_ch_matches(ch, sdev, tpg))
			continue;
		srpt_ch_close(ch, sdev ? "RDMA device removed" :
				  "portal group disabled or removed");
		/* A release waiting for the backend detaches now. */
		if (sdev)
			wake_up(&ch->idle_wq);
	}
	mutex_unlock(&srpt_ch_mutex);

	if (!wait)
		return;
	/*
	 * Counting takes srpt_ch_mutex, which must not be done as the
	 * condition of wait_event*() (the task is no longer running there):
	 * count while running, sleep with wait_woken() in between.
	 */
	add_wait_queue(&srpt_ch_waitq, &wq);
	while ((n = srpt_ch_count_matching(sdev, tpg, first, sizeof(first))))
		if (!wait_woken(&wq, TASK_UNINTERRUPTIBLE, 10 * HZ))
			pr_info("waiting for %u channel(s) to be released, e.g. %s\n",
				n, first);
	remove_wait_queue(&srpt_ch_waitq, &wq);
}

/* Channel states as LIO's iSCSI connection states, which rtslib parses. */
static const char *const srpt_ch_conn_state[] = {
	[SRPT_CH_CONNECTING] = "IN_LOGIN",
	[SRPT_CH_LIVE] = "LOGGED_IN",
	[SRPT_CH_DISCONNECTING] = "IN_LOGOUT",
	[SRPT_CH_RELEASING] = "CLEANUP_WAIT",
};

/**
 * srpt_nacl_show_info() - the "info" attribute of a node ACL
 * @se_nacl: the ACL
 * @page: configfs page (PAGE_SIZE bytes)
 *
 * Written in the layout of LIO's iSCSI ACL info, which rtslib-fb parses
 * for targetcli's "sessions" command: the initiator's channels form one
 * session (numbered by its first channel), each channel is shown as a
 * connection with its state and the initiator's address.  Without a
 * channel the text starts with "No active".
 *
 * Return: bytes written.
 */
ssize_t srpt_nacl_show_info(struct se_node_acl *se_nacl, char *page)
{
	struct srpt_channel *ch;
	unsigned int n = 0;
	ssize_t len = 0;

	mutex_lock(&srpt_ch_mutex);
	list_for_each_entry(ch, &srpt_ch_list, list) {
		if (ch->nacl != se_nacl)
			continue;
		if (!n++)
			len += scnprintf(page + len, PAGE_SIZE - len,
					 "InitiatorName: %s\nInitiatorAlias: %s\nLIO Session ID: %u   SessionType: Normal\nSession State: TARG_SESS_STATE_%s\n---------------------[SRP Channel Info]---------------------\n",
					 se_nacl->initiatorname, ch->sess_name,
					 ch->id, ch->state == SRPT_CH_LIVE ?
					 "LOGGED_IN" : "IN_LOGIN");
		len += scnprintf(page + len, PAGE_SIZE - len,
				 "CID: %u   Connection State: TARG_CONN_STATE_%s\n",
				 ch->id, srpt_ch_conn_state[ch->state]);
		if (ch->using_rdma_cm)
			len += scnprintf(page + len, PAGE_SIZE - len,
					 "   Address %pISc RDMA_CM qp 0x%x\n",
					 &ch->peer_addr, ch->qp_num);
		else
			len += scnprintf(page + len, PAGE_SIZE - len,
					 "   Address %pI6 IB_CM qp 0x%x\n",
					 ch->i_port_id, ch->qp_num);
	}
	mutex_unlock(&srpt_ch_mutex);
	if (!n)
		len = scnprintf(page, PAGE_SIZE,
				"No active SRP session for initiator %s\n",
				se_nacl->initiatorname);
	return len;
}

/**
 * srpt_tpg_show_channels() - describe the channels of a portal group
 * @tpg: the group
 * @page: configfs page (PAGE_SIZE bytes)
 *
 * One line per channel: initiator, state, credits, counters, completion
 * vector.  Stops before the page is full.
 *
 * Return: bytes written.
 */
ssize_t srpt_tpg_show_channels(struct srpt_tpg *tpg, char *page)
{
	struct srpt_channel *ch;
	ssize_t len = 0;

	mutex_lock(&srpt_ch_mutex);
	list_for_each_entry(ch, &srpt_ch_list, list) {
		int n;

		if (ch->tpg != tpg)
			continue;
		n = scnprintf(page + len, PAGE_SIZE - len,
			      "%s id=%u state=%s cm=%s qp=0x%x srq=%d credits=%d pending_credits=%d cmds=%lld imm_cmds=%lld bytes_in=%lld bytes_out=%lld malformed=%lld rdma_errors=%lld tmfs=%lld over_credit=%lld aborted=%lld cred_reqs=%lld sq_full=%lld stuck=%lld vector=%d keepalives=%lld data_full=%lld data_held=%d data_busy=%lld sq_size=%u data_kept=%lu rnr_retry=%u dma_maps=%lld sq_depth=%u\n",
			      ch->sess_name, ch->id,
			      srpt_ch_state_name[ch->state],
			      ch->using_rdma_cm ? "rdma" : "ib", ch->qp_num,
			      ch->use_srq, atomic_read(&ch->req_lim),
			      atomic_read(&ch->req_lim_delta),
			      atomic64_read(&ch->stats.cmds),
			      atomic64_read(&ch->stats.imm_cmds),
			      atomic64_read(&ch->stats.bytes_in),
			      atomic64_read(&ch->stats.bytes_out),
			      atomic64_read(&ch->stats.malformed),
			      atomic64_read(&ch->stats.rdma_errors),
			      atomic64_read(&ch->stats.tmfs),
			      atomic64_read(&ch->stats.over_credit),
			      atomic64_read(&ch->stats.aborted),
			      atomic64_read(&ch->stats.cred_reqs),
			      atomic64_read(&ch->stats.sq_full),
			      atomic64_read(&ch->stats.stuck),
			      ch->comp_vector,
			      atomic64_read(&ch->stats.keepalives),
			      atomic64_read(&ch->stats.data_full),
			      atomic_read(&ch->data_held),
			      atomic64_read(&ch->stats.data_busy),
			      ch->sq_size,
			      (unsigned long)(max(atomic_read(&ch->kept_pages), 0) +
					      READ_ONCE(ch->pool_n)) << PAGE_SHIFT,
			      ch->rnr_retry,
			      atomic64_read(&ch->stats.dma_maps),
			      ch->sq_depth);
		if (len + n >= PAGE_SIZE - 1)
			break;
		len += n;
	}
	mutex_unlock(&srpt_ch_mutex);
	return len;
}
