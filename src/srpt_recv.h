/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: receive completions and their dispatch, the wait list, the
 * per-device SRQ (srpt_recv.c).
 */
#ifndef SRPT_RECV_H
#define SRPT_RECV_H

struct srpt_device;
struct work_struct;
struct ib_cq;
struct ib_wc;

void srpt_wait_work(struct work_struct *work);
void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc);
int srpt_device_get_srq(struct srpt_device *sdev);
void srpt_device_free_srq(struct srpt_device *sdev);

#endif /* SRPT_RECV_H */
