/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: LIO's command callbacks (srpt_lio.c), which the fabric template
 * (srpt_fabric.c) names.
 */
#ifndef SRPT_LIO_H
#define SRPT_LIO_H

struct se_cmd;
struct se_session;
struct ib_cq;
struct ib_wc;

int srpt_check_stop_free(struct se_cmd *se_cmd);
void srpt_release_cmd(struct se_cmd *se_cmd);
void srpt_close_session(struct se_session *se_sess);
void srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc);
int srpt_write_pending(struct se_cmd *se_cmd);
int srpt_get_cmd_state(struct se_cmd *se_cmd);
int srpt_queue_data_in(struct se_cmd *se_cmd);
int srpt_queue_status(struct se_cmd *se_cmd);
void srpt_queue_tm_rsp(struct se_cmd *se_cmd);
void srpt_aborted_task(struct se_cmd *se_cmd);

#endif /* SRPT_LIO_H */
