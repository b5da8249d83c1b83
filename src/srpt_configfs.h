/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: the configfs objects of LIO (srpt_configfs.c).
 */
#ifndef SRPT_CONFIGFS_H
#define SRPT_CONFIGFS_H

#include <linux/types.h>

struct configfs_attribute;
struct config_group;
struct target_fabric_configfs;
struct se_wwn;
struct se_portal_group;
struct se_node_acl;

extern struct configfs_attribute *srpt_discovery_attrs[];
extern struct configfs_attribute *srpt_wwn_attrs[];
extern struct configfs_attribute *srpt_tpg_attrib_attrs[];
extern struct configfs_attribute *srpt_tpg_base_attrs[];
extern struct configfs_attribute *srpt_nacl_base_attrs[];
extern struct configfs_attribute *srpt_nacl_auth_attrs[];
struct se_wwn *srpt_make_tport(struct target_fabric_configfs *tf,
			       struct config_group *group, const char *name);
void srpt_drop_tport(struct se_wwn *wwn);
struct se_portal_group *srpt_make_tpg(struct se_wwn *wwn, const char *name);
void srpt_drop_tpg(struct se_portal_group *se_tpg);
int srpt_enable_tpg(struct se_portal_group *se_tpg, bool enable);
int srpt_init_nodeacl(struct se_node_acl *se_nacl, const char *name);

#endif /* SRPT_CONFIGFS_H */
