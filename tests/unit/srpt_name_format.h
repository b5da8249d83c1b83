/* SPDX-License-Identifier: GPL-2.0-only */
/* Test-only formatting of names (srpt_name_format.c). */
#ifndef SRPT_NAME_FORMAT_H
#define SRPT_NAME_FORMAT_H

#include "srpt_names.h"

#ifdef __cplusplus
extern "C" {
#endif

int srpt_name_format(const struct srpt_name *n, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* SRPT_NAME_FORMAT_H */
