/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Port and ACL names of the pure layer (srpt_names.c): GUID, GID, IPv4
 * and IPv6 forms, parsed once and compared.
 */
#ifndef SRPT_NAMES_H
#define SRPT_NAMES_H

#include "srpt_portable.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum srpt_name_kind - textual forms of a port or initiator name
 * @SRPT_NAME_NONE: no name (a zeroed struct srpt_name): matches nothing
 * @SRPT_NAME_GUID: "xxxx:xxxx:xxxx:xxxx", stored in id[8..15]
 * @SRPT_NAME_GID: "0x" + 32 hex digits, stored in id[0..15]
 * @SRPT_NAME_IPV4: dotted quad, stored in id[0..3]
 * @SRPT_NAME_IPV6: RFC 4291 text, stored in id[0..15]
 */
enum srpt_name_kind {
	SRPT_NAME_NONE,
	SRPT_NAME_GUID,
	SRPT_NAME_GID,
	SRPT_NAME_IPV4,
	SRPT_NAME_IPV6,
};

/**
 * struct srpt_name - a parsed name
 * @kind: which form it was written in
 * @id: binary value, unused bytes zero
 */
struct srpt_name {
	enum srpt_name_kind	kind;
	u8			id[16];
};

int srpt_name_parse(const char *s, struct srpt_name *out);
bool srpt_name_matches_port_id(const struct srpt_name *n,
			       const u8 port_id[16]);
bool srpt_name_matches_ip(const struct srpt_name *n, const u8 *addr,
			  size_t addr_len);

#ifdef __cplusplus
}
#endif

#endif /* SRPT_NAMES_H */
