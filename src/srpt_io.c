// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: the I/O path.  LIO command callbacks.
 *
 * No session can exist yet (logins are refused until the login path is in
 * place), so LIO never calls these with a command of ours.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "srpt.h"

int srpt_check_stop_free(struct se_cmd *se_cmd)
{
	return target_put_sess_cmd(se_cmd);
}

void srpt_release_cmd(struct se_cmd *se_cmd)
{
}

void srpt_close_session(struct se_session *se_sess)
{
}

int srpt_write_pending(struct se_cmd *se_cmd)
{
	return -EOPNOTSUPP;
}

int srpt_get_cmd_state(struct se_cmd *se_cmd)
{
	return 0;
}

int srpt_queue_data_in(struct se_cmd *se_cmd)
{
	return -EOPNOTSUPP;
}

int srpt_queue_status(struct se_cmd *se_cmd)
{
	return -EOPNOTSUPP;
}

void srpt_queue_tm_rsp(struct se_cmd *se_cmd)
{
}

void srpt_aborted_task(struct se_cmd *se_cmd)
{
}
