// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: the RDMA client.
 *
 * The driver is an ib_client: the RDMA core calls srpt_add_one() for every
 * device present at load time or added later (e.g. "rdma link add"), and
 * srpt_remove_one() before the device goes away.  Adding a device starts its
 * IB/CM listener and device-management agents; removing it stops them and
 * closes every channel of the device before its memory goes.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <rdma/ib_verbs.h>

#include "srpt_client.h"
#include "srpt_device.h"
#include "srpt_recv.h"
#include "srpt_chlist.h"
#include "srpt_cm.h"
#include "srpt_mad.h"

static struct ib_client srpt_client;

/**
 * srpt_add_one() - ib_client callback: an RDMA device appeared
 * @ib_dev: the device
 *
 * Return: 0, or a negative errno (the device is then not used).
 */
static int srpt_add_one(struct ib_device *ib_dev)
{
	struct srpt_device *sdev;
	int ret;
	u32 i;

	sdev = srpt_device_create(ib_dev);
	if (IS_ERR(sdev))
		return PTR_ERR(sdev);
	ib_set_client_data(ib_dev, &srpt_client, sdev);

	/*
	 * IB/CM logins on every port, RoCE ones included: the IB CM runs over
	 * RoCE too (with a path record built from the GIDs).
	 */
	ret = srpt_ib_cm_listen(sdev);
	if (ret)
		pr_warn("%s: no IB/CM logins (%d)\n", dev_name(&ib_dev->dev),
			ret);
	for (i = 0; i < sdev->nports; i++)
		srpt_mad_register(&sdev->ports[i]);
	pr_info("%s: added, %u port(s), node GUID 0x%016llx\n",
		dev_name(&ib_dev->dev), sdev->nports,
		be64_to_cpu(ib_dev->node_guid));
	return 0;
}

/**
 * srpt_remove_one() - ib_client callback: an RDMA device is going away
 * @ib_dev: the device
 * @client_data: our srpt_device
 *
 * Nothing in configfs points at a device, so once the device is off the list
 * and every channel of it is released it can be freed.
 */
static void srpt_remove_one(struct ib_device *ib_dev, void *client_data)
{
	struct srpt_device *sdev = client_data;
	u32 i;

	for (i = 0; i < sdev->nports; i++)
		srpt_mad_unregister(&sdev->ports[i]);

	/*
	 * No login of the device is in progress after this, and none starts;
	 * closing channels stop waiting for the backend (srpt_ch_detach()).
	 */
	srpt_device_unlist(sdev);

	srpt_ib_cm_stop(sdev);
	srpt_ch_close_matching(sdev, NULL, true);

	srpt_device_free_srq(sdev);
	srpt_device_destroy(sdev);
	pr_info("%s: removed\n", dev_name(&ib_dev->dev));
}

static struct ib_client srpt_client = {
	.name = "srpt",
	.add = srpt_add_one,
	.remove = srpt_remove_one,
};

/**
 * srpt_client_init() - register the RDMA client; adds every device present
 *
 * Return: 0 or a negative errno.
 */
int srpt_client_init(void)
{
	return ib_register_client(&srpt_client);
}

/**
 * srpt_client_exit() - unregister the RDMA client; removes every device
 */
void srpt_client_exit(void)
{
	ib_unregister_client(&srpt_client);
}
