// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: the LIO fabric template.
 *
 * The portal-group callbacks are here; the configfs objects are created in
 * srpt_configfs.c and the per-command callbacks are LIO's side of a command
 * in srpt_lio.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "srpt_fabric.h"
#include "srpt_tpg.h"
#include "srpt_lio.h"
#include "srpt_configfs.h"
#include "srpt_param.h"
#include "srpt_compat.h"

/**
 * srpt_tpg_get_wwn() - name of the target port of a portal group
 * @se_tpg: the portal group
 *
 * Return: the target port's configfs name (GUID or 0x-GID form), which LIO
 * also stores with persistent reservations and ALUA state.
 */
static char *srpt_tpg_get_wwn(struct se_portal_group *se_tpg)
{
	return srpt_tpg(se_tpg)->tport->name_str;
}

static u16 srpt_tpg_get_tag(struct se_portal_group *se_tpg)
{
	return srpt_tpg(se_tpg)->tag;
}

/* Logins are checked against the ACLs: no demo mode, no write protect. */
static int srpt_check_false(struct se_portal_group *se_tpg)
{
	return 0;
}

static int srpt_check_true(struct se_portal_group *se_tpg)
{
	return 1;
}

static u32 srpt_tpg_get_inst_index(struct se_portal_group *se_tpg)
{
	return 1;
}

static u32 srpt_sess_get_index(struct se_session *se_sess)
{
	return 0;
}

static void srpt_set_default_node_attrs(struct se_node_acl *nacl)
{
}

/*
 * Callbacks that were mandatory before 6.4 are set unconditionally: they are
 * harmless where LIO would supply a default.  Written only by
 * srpt_fabric_setup(), before LIO knows the template; read-only after the
 * module's init.
 */
struct target_core_fabric_ops srpt_fabric_ops __ro_after_init = {
	.module				= THIS_MODULE,
	.fabric_name			= SRPT_FABRIC_NAME,
	.node_acl_size			= sizeof(struct srpt_nacl),
	.tpg_get_wwn			= srpt_tpg_get_wwn,
	.tpg_get_tag			= srpt_tpg_get_tag,
	.tpg_check_demo_mode		= srpt_check_false,
	.tpg_check_demo_mode_cache	= srpt_check_true,
	.tpg_check_demo_mode_write_protect = srpt_check_false,
	.tpg_check_prod_mode_write_protect = srpt_check_false,
	.tpg_get_inst_index		= srpt_tpg_get_inst_index,
	.sess_get_index			= srpt_sess_get_index,
	.set_default_node_attributes	= srpt_set_default_node_attrs,
	.check_stop_free		= srpt_check_stop_free,
	.release_cmd			= srpt_release_cmd,
	.close_session			= srpt_close_session,
	.write_pending			= srpt_write_pending,
	.get_cmd_state			= srpt_get_cmd_state,
	.queue_data_in			= srpt_queue_data_in,
	.queue_status			= srpt_queue_status,
	.queue_tm_rsp			= srpt_queue_tm_rsp,
	.aborted_task			= srpt_aborted_task,
	.fabric_make_wwn		= srpt_make_tport,
	.fabric_drop_wwn		= srpt_drop_tport,
	.fabric_make_tpg		= srpt_make_tpg,
	SRPT_COMPAT_ENABLE_OPS
	.fabric_drop_tpg		= srpt_drop_tpg,
	.fabric_init_nodeacl		= srpt_init_nodeacl,
	.tfc_discovery_attrs		= srpt_discovery_attrs,
	.tfc_wwn_attrs			= srpt_wwn_attrs,
	.tfc_tpg_base_attrs		= srpt_tpg_base_attrs,
	.tfc_tpg_attrib_attrs		= srpt_tpg_attrib_attrs,
	.tfc_tpg_nacl_base_attrs	= srpt_nacl_base_attrs,
	.tfc_tpg_nacl_auth_attrs	= srpt_nacl_auth_attrs,
	SRPT_COMPAT_SUBMIT_OPS
	SRPT_COMPAT_COMPL_OPS
};

/**
 * srpt_fabric_setup() - apply the module parameters to the template
 *
 * Called once at load, before target_register_template(): LIO reads the
 * default completion type of a command from the template it was given.
 */
void srpt_fabric_setup(void)
{
	srpt_compat_set_compl(&srpt_fabric_ops, srpt_direct_compl);
}
