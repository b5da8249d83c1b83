// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parsing and matching of SRP target port and initiator ACL names: IB GUIDs
 * and GIDs and IPv4/IPv6 addresses (the tests format them with
 * tests/unit/srpt_name_format.c). Pure code shared by the kernel module and
 * the userspace unit tests, so it parses by hand instead of relying on
 * inet_pton(), sscanf() or kstrto*().
 */
#include "srpt_names.h"

static int srpt_hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/**
 * srpt_parse_gid() - parse the hexadecimal port ID form
 * @s: text (not NUL-terminated)
 * @n: length of @s
 * @id: receives the 16 bytes
 *
 * An optional "0x" or "0X", then an even number of hex digits, 2 to 32,
 * right-aligned in the 16 bytes (left-padded with zero bytes): "0x" and 32
 * digits is the GID form, shorter strings are what the in-tree driver
 * also accepts for initiator port IDs.
 *
 * Return: true if @s is in this form.
 */
static bool srpt_parse_gid(const char *s, size_t n, u8 *id)
{
	size_t i, m;
	int hi, lo;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	if (!n || n % 2 || n > 32)
		return false;
	m = n / 2;
	memset(id, 0, 16 - m);
	for (i = 0; i < m; i++) {
		hi = srpt_hex_val(s[2 * i]);
		lo = srpt_hex_val(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		id[16 - m + i] = (u8)(hi << 4 | lo);
	}
	return true;
}

/**
 * srpt_parse_guid() - parse the GUID form "xxxx:xxxx:xxxx:xxxx"
 * @s: text (not NUL-terminated)
 * @n: length of @s
 * @id: 16-byte id; bytes 8..15 receive the GUID
 *
 * Exactly four groups of one to four hex digits (leading zeros may be
 * left out, as the in-tree driver's sscanf() allows).
 *
 * Return: true if @s is in this form.
 */
static bool srpt_parse_guid(const char *s, size_t n, u8 *id)
{
	size_t g, i = 0, start;
	int v;
	u16 w;

	for (g = 0; g < 4; g++) {
		if (g) {
			if (i >= n || s[i] != ':')
				return false;
			i++;
		}
		start = i;
		w = 0;
		while (i < n && (v = srpt_hex_val(s[i])) >= 0) {
			if (i - start == 4)
				return false;
			w = (u16)(w << 4 | v);
			i++;
		}
		if (i == start)
			return false;
		id[8 + 2 * g] = (u8)(w >> 8);
		id[9 + 2 * g] = (u8)w;
	}
	return i == n;
}

/**
 * srpt_parse_ipv4() - parse a strict dotted quad
 * @s: text (not NUL-terminated)
 * @n: length of @s
 * @out: receives the 4 address bytes
 *
 * Four decimal octets of one to three digits, no sign, no leading zero
 * unless the octet is "0", each at most 255, and nothing after them.
 *
 * Return: true if @s is a valid address.
 */
static bool srpt_parse_ipv4(const char *s, size_t n, u8 *out)
{
	size_t i = 0, start;
	int part;
	u32 v;

	for (part = 0; part < 4; part++) {
		if (part) {
			if (i >= n || s[i] != '.')
				return false;
			i++;
		}
		start = i;
		v = 0;
		while (i < n && s[i] >= '0' && s[i] <= '9') {
			if (i - start == 3)
				return false;
			v = v * 10 + (u32)(s[i] - '0');
			i++;
		}
		if (i == start || v > 255)
			return false;
		if (i - start > 1 && s[start] == '0')
			return false;
		out[part] = (u8)v;
	}
	return i == n;
}

/**
 * srpt_parse_ipv6() - parse RFC 4291 section 2.2 IPv6 text
 * @s: text (not NUL-terminated)
 * @n: length of @s
 * @out: receives the 16 address bytes
 *
 * Eight groups of one to four hex digits, at most one "::" standing for one
 * or more zero groups, optionally ending in a dotted quad that stands for
 * the last two groups. No zone index, no brackets.
 *
 * Return: true if @s is a valid address.
 */
static bool srpt_parse_ipv6(const char *s, size_t n, u8 *out)
{
	u16 grp[8];
	int ng = 0, gap = -1, g, k;
	size_t i = 0, start;
	u32 v;

	if (n >= 2 && s[0] == ':' && s[1] == ':') {
		gap = 0;
		i = 2;
	} else if (n == 0 || s[0] == ':') {
		return false;
	}

	while (i < n) {
		start = i;
		v = 0;
		while (i < n && srpt_hex_val(s[i]) >= 0) {
			if (i - start < 4)
				v = v << 4 | (u32)srpt_hex_val(s[i]);
			i++;
		}
		if (i < n && s[i] == '.') {
			u8 q[4];

			if (ng > 6 || !srpt_parse_ipv4(s + start, n - start, q))
				return false;
			grp[ng++] = (u16)(q[0] << 8 | q[1]);
			grp[ng++] = (u16)(q[2] << 8 | q[3]);
			i = n;
			break;
		}
		if (i == start || i - start > 4 || ng == 8)
			return false;
		grp[ng++] = (u16)v;
		if (i == n)
			break;
		if (s[i] != ':')
			return false;
		i++;
		if (i < n && s[i] == ':') {
			if (gap >= 0)
				return false;
			gap = ng;
			i++;
		} else if (i == n) {
			return false;
		}
	}

	if (gap < 0 ? ng != 8 : ng > 7)
		return false;

	memset(out, 0, 16);
	for (g = 0, k = 0; g < ng; g++, k++) {
		if (g == gap)
			k += 8 - ng;
		out[2 * k] = (u8)(grp[g] >> 8);
		out[2 * k + 1] = (u8)grp[g];
	}
	return true;
}

/**
 * srpt_name_parse() - parse a port or ACL name
 * @s: NUL-terminated text; one trailing newline is ignored
 * @out: receives the kind and the binary value (unused bytes zero)
 *
 * Accepted forms: GUID "xxxx:xxxx:xxxx:xxxx" with groups of one to four
 * digits (id[8..15]); a port ID or GID of 2 to 32 hex digits (an even
 * number), with or without "0x", right-aligned in id[0..15]; strict IPv4
 * dotted quad (id[0..3]) and RFC 4291 IPv6 text (id[0..15]). Hex digits
 * may be of either case.
 *
 * Return: 0 on success, -EINVAL if @s is none of these forms.
 */
int srpt_name_parse(const char *s, struct srpt_name *out)
{
	size_t n;

	if (!s || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	n = strlen(s);
	if (n && s[n - 1] == '\n')
		n--;
	if (!n)
		return -EINVAL;

	/* Each form is tried on a zeroed id: a failed one leaves bytes behind. */
	if (srpt_parse_gid(s, n, out->id)) {
		out->kind = SRPT_NAME_GID;
		return 0;
	}
	memset(out->id, 0, sizeof(out->id));
	if (srpt_parse_guid(s, n, out->id)) {
		out->kind = SRPT_NAME_GUID;
		return 0;
	}
	memset(out->id, 0, sizeof(out->id));
	if (srpt_parse_ipv4(s, n, out->id)) {
		out->kind = SRPT_NAME_IPV4;
		return 0;
	}
	memset(out->id, 0, sizeof(out->id));
	if (srpt_parse_ipv6(s, n, out->id)) {
		out->kind = SRPT_NAME_IPV6;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	return -EINVAL;
}

/**
 * srpt_name_matches_port_id() - does a name identify a 16-byte port id
 * @n: the name
 * @port_id: InfiniBand port identifier (or GID)
 *
 * A GID-form name compares all 16 bytes, a GUID-form name the low 8 bytes
 * (bytes 8..15). IP names never match a port id.
 *
 * Return: true on a match.
 */
bool srpt_name_matches_port_id(const struct srpt_name *n,
			       const u8 port_id[16])
{
	switch (n->kind) {
	case SRPT_NAME_GID:
		return memcmp(n->id, port_id, 16) == 0;
	case SRPT_NAME_GUID:
		return memcmp(n->id + 8, port_id + 8, 8) == 0;
	default:
		return false;
	}
}

/* Put an IPv4 (4 bytes) or IPv6 (16 bytes) address in IPv6 form. */
static bool srpt_ip_to_v6(const u8 *addr, size_t addr_len, u8 *v6)
{
	if (addr_len == 4) {
		memset(v6, 0, 10);
		v6[10] = 0xff;
		v6[11] = 0xff;
		memcpy(v6 + 12, addr, 4);
		return true;
	}
	if (addr_len == 16) {
		memcpy(v6, addr, 16);
		return true;
	}
	return false;
}

/**
 * srpt_name_matches_ip() - does a name identify an IP address
 * @n: the name
 * @addr: IPv4 (4 bytes) or IPv6 (16 bytes) address in network order
 * @addr_len: 4 or 16
 *
 * IPv4 addresses are compared in their IPv4-mapped IPv6 form, so that an
 * IPv4 name matches ::ffff:a.b.c.d and vice versa. GUID and GID names never
 * match an IP address.
 *
 * Return: true on a match.
 */
bool srpt_name_matches_ip(const struct srpt_name *n, const u8 *addr,
			  size_t addr_len)
{
	u8 a[16], b[16];

	if (!addr)
		return false;
	switch (n->kind) {
	case SRPT_NAME_IPV4:
		srpt_ip_to_v6(n->id, 4, a);
		break;
	case SRPT_NAME_IPV6:
		srpt_ip_to_v6(n->id, 16, a);
		break;
	default:
		return false;
	}
	if (!srpt_ip_to_v6(addr, addr_len, b))
		return false;
	return memcmp(a, b, sizeof(a)) == 0;
}
