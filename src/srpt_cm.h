/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: logins over IB/CM and RDMA/CM (srpt_cm.c).
 */
#ifndef SRPT_CM_H
#define SRPT_CM_H

#include <linux/types.h>

struct srpt_device;

int srpt_rdma_cm_set_port(u16 port);
int srpt_ib_cm_listen(struct srpt_device *sdev);
void srpt_ib_cm_stop(struct srpt_device *sdev);
int srpt_cm_wq_init(void);
void srpt_cm_wq_exit(void);
int srpt_cm_init(void);
void srpt_cm_exit(void);

#endif /* SRPT_CM_H */
