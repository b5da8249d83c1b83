/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: the LIO fabric template (srpt_fabric.c).
 */
#ifndef SRPT_FABRIC_H
#define SRPT_FABRIC_H

#include <target/target_core_fabric.h>

#define SRPT_FABRIC_NAME	"srpt"

extern struct target_core_fabric_ops srpt_fabric_ops;

void srpt_fabric_setup(void);

#endif /* SRPT_FABRIC_H */
