/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: the channel list (srpt_chlist.c).
 */
#ifndef SRPT_CHLIST_H
#define SRPT_CHLIST_H

#include <linux/types.h>

struct srpt_channel;
struct srpt_device;
struct srpt_tpg;
struct se_node_acl;

int srpt_ch_register(struct srpt_channel *ch, bool single, u8 *multichan);
void srpt_ch_unlist(struct srpt_channel *ch);
void srpt_ch_releasing(struct srpt_channel *ch);
void srpt_ch_released(void);
void srpt_ch_close_matching(struct srpt_device *sdev, struct srpt_tpg *tpg,
			    bool wait);
ssize_t srpt_nacl_show_info(struct se_node_acl *se_nacl, char *page);
ssize_t srpt_tpg_show_channels(struct srpt_tpg *tpg, char *page);

#endif /* SRPT_CHLIST_H */
