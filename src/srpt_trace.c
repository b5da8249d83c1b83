// SPDX-License-Identifier: GPL-2.0-only
/**
 * DOC: tracepoints
 *
 * The tracepoints of include/srpt_trace.h are defined here, at the bottom
 * of the layers, so that every file can use them.  Enable them with
 * ``echo 1 > /sys/kernel/tracing/events/ib_srpt/enable``.
 */

#define CREATE_TRACE_POINTS
#include "srpt_trace.h"
