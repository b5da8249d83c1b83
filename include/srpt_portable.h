/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Minimal type and byte-order shim so that the pure SRP protocol code builds
 * both inside the kernel module and in userspace unit tests.
 */
#ifndef SRPT_PORTABLE_H
#define SRPT_PORTABLE_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/stddef.h>
#include <asm/byteorder.h>

#else /* !__KERNEL__ */

#include <stddef.h>
#include <string.h>
#include <errno.h>
#include <endian.h>
#include <linux/types.h>	/* __u8..__u64 and __be16/32/64 (UAPI) */
#ifndef __cplusplus
#include <stdbool.h>
#endif

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;

#define cpu_to_be16(x) ((__be16)htobe16(x))
#define cpu_to_be32(x) ((__be32)htobe32(x))
#define cpu_to_be64(x) ((__be64)htobe64(x))
#define be16_to_cpu(x) ((u16)be16toh(x))
#define be32_to_cpu(x) ((u32)be32toh(x))
#define be64_to_cpu(x) ((u64)be64toh(x))

/* Userspace builds define __packed and __always_inline on the compiler
 * command line.
 */
#if !defined(__packed) || !defined(__always_inline)
#error "userspace builds define __packed and __always_inline: see tests/unit/CMakeLists.txt"
#endif

#endif /* __KERNEL__ */

#endif /* SRPT_PORTABLE_H */
