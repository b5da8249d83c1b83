// SPDX-License-Identifier: GPL-2.0-only
/*
 * Canonical text of SRP target port and ACL names, for the unit tests: a
 * name parsed by srpt_name_parse() (src/srpt_names.c) and formatted again
 * must give the same name.  Not part of the kernel module, which never
 * prints a name it did not receive as text.
 */
#include "srpt_name_format.h"

/* Longest text srpt_name_format() produces is 39 (full IPv6) plus NUL. */
#define SRPT_NAME_TEXT_MAX	48

static const char srpt_hex_digits[] = "0123456789abcdef";

static size_t srpt_fmt_hex16(char *p, u16 v, bool pad)
{
	size_t n = 0;
	int shift;

	for (shift = 12; shift >= 0; shift -= 4) {
		if (!pad && !n && shift && !(v >> shift))
			continue;
		p[n++] = srpt_hex_digits[(v >> shift) & 0xf];
	}
	return n;
}

static size_t srpt_fmt_ipv4(char *p, const u8 *a)
{
	size_t n = 0;
	int i;

	for (i = 0; i < 4; i++) {
		if (i)
			p[n++] = '.';
		if (a[i] >= 100)
			p[n++] = (char)('0' + a[i] / 100);
		if (a[i] >= 10)
			p[n++] = (char)('0' + a[i] / 10 % 10);
		p[n++] = (char)('0' + a[i] % 10);
	}
	return n;
}

static bool srpt_is_v4_mapped(const u8 *a)
{
	static const u8 prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	return memcmp(a, prefix, sizeof(prefix)) == 0;
}

/**
 * srpt_fmt_ipv6() - RFC 5952 text of an IPv6 address
 * @p: output, at least 40 bytes; not NUL-terminated
 * @a: the 16 address bytes
 *
 * Lowercase hex without leading zeros; the longest run of two or more zero
 * groups (the first of equally long runs) becomes "::"; IPv4-mapped
 * addresses are written as "::ffff:a.b.c.d".
 *
 * Return: number of characters written.
 */
static size_t srpt_fmt_ipv6(char *p, const u8 *a)
{
	int best = -1, best_len = 0, run = 0, g;
	size_t n = 0;
	u16 w[8];

	if (srpt_is_v4_mapped(a)) {
		memcpy(p, "::ffff:", 7);
		return 7 + srpt_fmt_ipv4(p + 7, a + 12);
	}
	for (g = 0; g < 8; g++) {
		w[g] = (u16)(a[2 * g] << 8 | a[2 * g + 1]);
		run = w[g] ? 0 : run + 1;
		if (run > best_len) {
			best_len = run;
			best = g - run + 1;
		}
	}
	if (best_len < 2) {
		best = -1;
		best_len = 0;
	}

	for (g = 0; g < 8; g++) {
		if (g == best) {
			p[n++] = ':';
			p[n++] = ':';
			g += best_len - 1;
			continue;
		}
		if (g && g != best + best_len)
			p[n++] = ':';
		n += srpt_fmt_hex16(p + n, w[g], false);
	}
	return n;
}

/**
 * srpt_name_format() - canonical text of a name
 * @n: the name
 * @buf: output buffer
 * @len: size of @buf including room for the terminating NUL
 *
 * GUID: "xxxx:xxxx:xxxx:xxxx" in lowercase; GID: "0x" + 32 lowercase hex
 * digits; IPv4: dotted quad; IPv6: RFC 5952 form (IPv4-mapped addresses as
 * "::ffff:a.b.c.d"). If @buf is too small it is set to "" (when @len > 0).
 *
 * Return: length written excluding the NUL, -EINVAL for a bad argument or
 * -ENOSPC if @len is too small.
 */
int srpt_name_format(const struct srpt_name *n, char *buf, size_t len)
{
	char tmp[SRPT_NAME_TEXT_MAX];
	size_t k = 0;
	int i;

	if (!n || !buf)
		return -EINVAL;

	switch (n->kind) {
	case SRPT_NAME_GUID:
		for (i = 0; i < 4; i++) {
			if (i)
				tmp[k++] = ':';
			k += srpt_fmt_hex16(tmp + k,
					    (u16)(n->id[8 + 2 * i] << 8 |
						  n->id[9 + 2 * i]), true);
		}
		break;
	case SRPT_NAME_GID:
		tmp[k++] = '0';
		tmp[k++] = 'x';
		for (i = 0; i < 16; i++) {
			tmp[k++] = srpt_hex_digits[n->id[i] >> 4];
			tmp[k++] = srpt_hex_digits[n->id[i] & 0xf];
		}
		break;
	case SRPT_NAME_IPV4:
		k = srpt_fmt_ipv4(tmp, n->id);
		break;
	case SRPT_NAME_IPV6:
		k = srpt_fmt_ipv6(tmp, n->id);
		break;
	default:
		return -EINVAL;
	}

	if (k + 1 > len) {
		if (len)
			buf[0] = '\0';
		return -ENOSPC;
	}
	memcpy(buf, tmp, k);
	buf[k] = '\0';
	return (int)k;
}
