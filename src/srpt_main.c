// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: SCSI RDMA Protocol target for LIO.
 *
 * Module initialization: the layers from the bottom up (receive buffer
 * cache, LIO fabric, RDMA client, RDMA/CM listener), and back down at
 * unload.  The parameters are in srpt_param.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "srpt_param.h"
#include "srpt_qp.h"
#include "srpt_ring.h"
#include "srpt_cm.h"
#include "srpt_client.h"
#include "srpt_fabric.h"

/**
 * srpt_init_module() - load the driver
 *
 * The LIO fabric is registered before the RDMA client: adding a device may
 * look up configfs objects, and configfs objects never point at a device.
 *
 * Return: 0 or a negative errno.
 */
static int __init srpt_init_module(void)
{
	int ret;

	srpt_param_defaults();
	srpt_fabric_setup();
	ret = target_register_template(&srpt_fabric_ops);
	if (ret) {
		pr_err("registering the LIO fabric '%s' failed (%d)\n",
		       SRPT_FABRIC_NAME, ret);
		return ret;
	}

	ret = srpt_ring_init();
	if (ret)
		goto unregister_template;

	ret = srpt_qp_init();
	if (ret)
		goto ring_exit;

	ret = srpt_cm_wq_init();
	if (ret)
		goto qp_exit;

	ret = srpt_client_init();
	if (ret) {
		pr_err("registering the RDMA client failed (%d)\n", ret);
		goto cm_wq_exit;
	}

	ret = srpt_cm_init();
	if (ret)
		goto client_exit;

	srpt_param_init();
	pr_info("SRP target %s loaded: srp_max_req_size=%u srpt_srq_size=%u rdma_cm_port=%u direct_compl=%d\n",
		SRPT_VERSION, srpt_max_req_size, srpt_srq_size,
		srpt_get_rdma_cm_port(), srpt_direct_compl);
	return 0;

client_exit:
	srpt_client_exit();
cm_wq_exit:
	srpt_cm_wq_exit();
qp_exit:
	srpt_qp_exit();
ring_exit:
	srpt_ring_exit();
unregister_template:
	target_unregister_template(&srpt_fabric_ops);
	return ret;
}

/**
 * srpt_exit_module() - unload the driver
 *
 * LIO holds a reference on this module while configfs objects of the fabric
 * exist, so by the time this runs they are all gone.
 */
static void __exit srpt_exit_module(void)
{
	srpt_param_exit();
	srpt_cm_exit();
	srpt_client_exit();
	srpt_cm_wq_exit();
	srpt_qp_exit();
	srpt_ring_exit();
	target_unregister_template(&srpt_fabric_ops);
	pr_info("SRP target unloaded\n");
}

module_init(srpt_init_module);

module_exit(srpt_exit_module);

MODULE_DESCRIPTION("SCSI RDMA Protocol (SRP) target for LIO");

MODULE_AUTHOR("ib_srpt developers");

MODULE_LICENSE("GPL");

MODULE_VERSION(SRPT_VERSION);
