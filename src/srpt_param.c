// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: module parameters.
 *
 * Every parameter is checked by its own set function, so a bad value given
 * to modprobe/insmod makes the load fail with a one-line reason in the
 * kernel log.  Other files read them through the getters declared in
 * srpt_param.h; the debugfs fault-injection knob used by the tests is here
 * too.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/atomic.h>
#include <linux/string.h>
#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/seq_file.h>

#include "srpt_param.h"
#include "srpt_compat.h"

unsigned int srpt_max_req_size = SRPT_DEF_REQ_SIZE;

unsigned int srpt_srq_size = SRPT_DEF_SRQ_SIZE;

static atomic64_t srpt_guid = ATOMIC64_INIT(0);

static unsigned int srpt_cm_port;

/**
 * srpt_param_set_range() - parse an unsigned parameter and check its range
 * @val: text given by the user
 * @kp: the parameter; kp->arg points at the unsigned int to set
 * @min: smallest accepted value
 * @max: largest accepted value
 *
 * Return: 0, or -EINVAL after logging which parameter was refused and why.
 */
static int srpt_param_set_range(const char *val, const struct kernel_param *kp,
				unsigned int min, unsigned int max)
{
	unsigned int v;
	int ret;

	ret = kstrtouint(val, 0, &v);
	if (ret) {
		pr_err("%s: '%.*s' is not a number\n", kp->name,
		       (int)strcspn(val, "\n"), val);
		return -EINVAL;
	}
	if (v < min || v > max) {
		pr_err("%s: %u is out of range [%u, %u]\n", kp->name, v, min,
		       max);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = v;
	return 0;
}

static int srpt_set_max_req_size(const char *val, const struct kernel_param *kp)
{
	return srpt_param_set_range(val, kp, SRPT_MIN_REQ_SIZE,
				    SRPT_MAX_REQ_SIZE);
}

static const struct kernel_param_ops srpt_max_req_size_ops = {
	.set = srpt_set_max_req_size,
	.get = param_get_uint,
};

module_param_cb(srp_max_req_size, &srpt_max_req_size_ops, &srpt_max_req_size,
		0444);

MODULE_PARM_DESC(srp_max_req_size,
		 "Largest SRP request IU accepted, in bytes (64..1048576, default 8276: 8 KiB immediate data)");

static int srpt_set_srq_size(const char *val, const struct kernel_param *kp)
{
	return srpt_param_set_range(val, kp, SRPT_MIN_SRQ_SIZE,
				    SRPT_MAX_SRQ_SIZE);
}

static const struct kernel_param_ops srpt_srq_size_ops = {
	.set = srpt_set_srq_size,
	.get = param_get_uint,
};

module_param_cb(srpt_srq_size, &srpt_srq_size_ops, &srpt_srq_size, 0444);

MODULE_PARM_DESC(srpt_srq_size,
		 "Receive buffers in each device's shared receive queue (4..65536, default 4095; capped by the device)");

static int srpt_set_cm_port(const char *val, const struct kernel_param *kp)
{
	return srpt_param_set_range(val, kp, 0, 65535);
}

static const struct kernel_param_ops srpt_cm_port_ops = {
	.set = srpt_set_cm_port,
	.get = param_get_uint,
};

module_param_cb(rdma_cm_port, &srpt_cm_port_ops, &srpt_cm_port, 0444);

MODULE_PARM_DESC(rdma_cm_port,
		 "TCP port number of the RDMA/CM listener (0 = no listener; also discovery_auth/rdma_cm_port in configfs)");

/*
 * Read by each login: keep the DMA mappings of the pages command contexts
 * keep, and post RDMA READs and WRITEs over them directly (srpt_buf_map());
 * 0 maps every command's buffer through rdma_rw, as iWARP channels always
 * do.
 */
bool srpt_keep_dma_maps = true;
module_param_named(keep_dma_maps, srpt_keep_dma_maps, bool, 0644);
MODULE_PARM_DESC(keep_dma_maps,
		 "Keep the data pages of command contexts DMA-mapped across commands (not on iWARP; new channels; default 1)");

/*
 * Read once, at load: how LIO completes the commands of backstores whose
 * complete_type is 0, the fabric's default (kernels with direct completion,
 * 7.3 on): in the backend's own context (Y) or from LIO's completion
 * workqueue (N).  docs/benchmark.md has what each costs.
 */
bool srpt_direct_compl;

/**
 * srpt_set_direct_compl() - parse the direct_compl module parameter
 * @val: a boolean as param_set_bool() takes it
 * @kp: the parameter
 *
 * Return: 0, or -EINVAL when @val is not a boolean, or asks for direct
 * completion from a kernel whose LIO cannot do it.
 */
static int srpt_set_direct_compl(const char *val,
				 const struct kernel_param *kp)
{
	bool v;

	if (kstrtobool(val, &v)) {
		pr_err("%s: '%.*s' is not a boolean\n", kp->name,
		       (int)strcspn(val, "\n"), val);
		return -EINVAL;
	}
	if (v && !SRPT_DIRECT_COMPL_SUPP) {
		pr_err("%s: this kernel's LIO cannot complete commands in the backend's context\n",
		       kp->name);
		return -EINVAL;
	}
	*(bool *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops srpt_direct_compl_ops = {
	.set = srpt_set_direct_compl,
	.get = param_get_bool,
};

module_param_cb(direct_compl, &srpt_direct_compl_ops, &srpt_direct_compl,
		0444);

MODULE_PARM_DESC(direct_compl,
		 "Complete commands of backstores with complete_type 0 in the backend's context (kernels from 7.3; default 0: LIO's completion queue)");

/**
 * srpt_set_guid() - parse the srpt_service_guid module parameter
 * @val: a 64-bit hexadecimal number, with or without a 0x prefix
 * @kp: the parameter
 *
 * The value is stored atomically, and 0 means "use the node GUID of the first
 * RDMA device".  The get and set functions both exist, unlike the driver
 * behind CVE-2024-26744.
 *
 * Return: 0, or -EINVAL after logging why.
 */
static int srpt_set_guid(const char *val, const struct kernel_param *kp)
{
	u64 guid;

	if (kstrtou64(val, 16, &guid)) {
		pr_err("%s: '%.*s' is not a 64-bit hexadecimal GUID\n", kp->name,
		       (int)strcspn(val, "\n"), val);
		return -EINVAL;
	}
	atomic64_set(&srpt_guid, guid);
	return 0;
}

static int srpt_get_guid(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "0x%016llx\n", (u64)atomic64_read(&srpt_guid));
}

static const struct kernel_param_ops srpt_guid_ops = {
	.set = srpt_set_guid,
	.get = srpt_get_guid,
};

module_param_cb(srpt_service_guid, &srpt_guid_ops, NULL, 0444);

MODULE_PARM_DESC(srpt_service_guid,
		 "IOC GUID, IB/CM service ID and target port ID of this target, 0x-hex (default: node GUID of the first RDMA device)");

static atomic64_t srpt_vector_mask = ATOMIC64_INIT(0);

/**
 * srpt_comp_vector_mask() - completion vectors channels may use
 *
 * Return: bit n set for vector n; 0 means every vector.
 */
u64 srpt_comp_vector_mask(void)
{
	return atomic64_read(&srpt_vector_mask);
}

/**
 * srpt_set_vector_mask() - parse the comp_vector_mask module parameter
 * @val: a 64-bit number (0x-hex, octal or decimal)
 * @kp: the parameter
 *
 * Return: 0, or -EINVAL after logging why.
 */
static int srpt_set_vector_mask(const char *val, const struct kernel_param *kp)
{
	u64 mask;

	if (kstrtou64(val, 0, &mask)) {
		pr_err("%s: '%.*s' is not a 64-bit number (e.g. 0x0f)\n",
		       kp->name, (int)strcspn(val, "\n"), val);
		return -EINVAL;
	}
	atomic64_set(&srpt_vector_mask, mask);
	return 0;
}

static int srpt_get_vector_mask(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "0x%llx\n", (u64)atomic64_read(&srpt_vector_mask));
}

static const struct kernel_param_ops srpt_vector_mask_ops = {
	.set = srpt_set_vector_mask,
	.get = srpt_get_vector_mask,
};

module_param_cb(comp_vector_mask, &srpt_vector_mask_ops, NULL, 0644);

MODULE_PARM_DESC(comp_vector_mask,
		 "Completion vectors new channels are spread over, bit n = vector n (default 0: all; vectors beyond 63 only with 0)");

/**
 * srpt_service_guid() - the service GUID in use
 *
 * Return: the srpt_service_guid parameter, or the node GUID of the first
 * RDMA device when none was given (0 before any device was added).
 */
u64 srpt_service_guid(void)
{
	return atomic64_read(&srpt_guid);
}

/**
 * srpt_set_default_service_guid() - set the service GUID if none is set
 * @guid: node GUID of a newly added device, in host byte order
 *
 * Only the first call with a non-zero GUID has an effect; a GUID given as a
 * module parameter is never overridden.
 */
void srpt_set_default_service_guid(u64 guid)
{
	if (guid && !atomic64_cmpxchg(&srpt_guid, 0, guid))
		pr_info("service GUID 0x%016llx (node GUID of the first device)\n",
			guid);
}

/**
 * srpt_get_rdma_cm_port() - TCP port of the RDMA/CM listener
 *
 * Return: the port number, 0 when RDMA/CM logins are off.
 */
u16 srpt_get_rdma_cm_port(void)
{
	return READ_ONCE(srpt_cm_port);
}

/**
 * srpt_set_rdma_cm_port() - record the port the RDMA/CM listener uses
 * @port: port number, 0 when not listening
 *
 * Called by srpt_rdma_cm_set_port(), which owns the listener.
 *
 * Return: 0.
 */
int srpt_set_rdma_cm_port(u16 port)
{
	WRITE_ONCE(srpt_cm_port, port);
	return 0;
}

/*
 * Data buffers the commands of all channels hold, and the bound on them
 * (max_data_mb; 0, the default, stands for srpt_default_data_mb()).  The
 * peak since the module was loaded is in debugfs (ib_srpt/data).
 */
atomic_long_t srpt_data_held = ATOMIC_LONG_INIT(0);
static unsigned int srpt_max_data_mb;
/* The bound in bytes, set with max_data_mb and at load: read per command. */
unsigned long srpt_data_limit_bytes;
long srpt_data_held_peak;

/**
 * srpt_default_data_mb() - default bound on the data buffers of all channels
 *
 * An eighth of the machine's memory, at least one largest command: what
 * the target's initiators can make it allocate at a time, so that no set
 * of them can take the memory the rest of the machine needs.
 *
 * Return: MiB.
 */
u32 srpt_default_data_mb(void)
{
	unsigned long mb = totalram_pages() >> (20 - PAGE_SHIFT);

	return clamp_t(unsigned long, mb / 8, SRPT_MIN_SHARED_DATA_MB,
		       SRPT_MAX_SHARED_DATA_MB);
}

/**
 * srpt_set_data_limit() - set the bound on the data buffers of all channels
 * @mb: max_data_mb, 0 for the default
 */
static void srpt_set_data_limit(unsigned int mb)
{
	WRITE_ONCE(srpt_max_data_mb, mb);
	WRITE_ONCE(srpt_data_limit_bytes,
		   (unsigned long)(mb ? mb : srpt_default_data_mb()) << 20);
}

static int srpt_set_max_data_mb(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || (v && (v < SRPT_MIN_SHARED_DATA_MB ||
					     v > SRPT_MAX_SHARED_DATA_MB))) {
		pr_err("%s: '%.*s' is not 0 (automatic) or a number of MiB in [%u, %u]\n",
		       kp->name, (int)strcspn(val, "\n"), val,
		       SRPT_MIN_SHARED_DATA_MB, SRPT_MAX_SHARED_DATA_MB);
		return -EINVAL;
	}
	srpt_set_data_limit(v);
	return 0;
}

static const struct kernel_param_ops srpt_max_data_mb_ops = {
	.set = srpt_set_max_data_mb,
	.get = param_get_uint,
};

module_param_cb(max_data_mb, &srpt_max_data_mb_ops, &srpt_max_data_mb, 0644);

MODULE_PARM_DESC(max_data_mb,
		 "Most MiB of data buffers the commands of all channels hold at a time; beyond it commands get TASK SET FULL (default 0: an eighth of the memory)");

/**
 * srpt_data_show() - debugfs ib_srpt/data: data buffers of all channels
 * @m: the file
 *
 * What commands hold now, the most they held since the module was loaded,
 * the bound on it (max_data_mb) and the bound on what idle channels keep
 * for their next commands (see srpt_ch_share_locked()), all in bytes.
 * @v: unused
 *
 * Return: 0.
 */
static int srpt_data_show(struct seq_file *m, void *v)
{
	seq_printf(m, "held=%ld peak=%ld limit=%lu idle_limit=%lu\n",
		   atomic_long_read(&srpt_data_held),
		   READ_ONCE(srpt_data_held_peak), srpt_data_limit(),
		   srpt_data_limit() / SRPT_IDLE_SHARE);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(srpt_data);

/*
 * Fault injection for tests, in debugfs (ib_srpt/fail_post_send): the
 * number of coming ib_post_send() calls to fail with -ENOMEM, as if the
 * device refused them.  0, the default, injects nothing.
 */
atomic_t srpt_fail_post_send = ATOMIC_INIT(0);

/*
 * Fault injection for tests, in debugfs (ib_srpt/max_qp_wr_cap): a QP
 * asking for more send queue entries and RDMA contexts together than this
 * is refused with -EINVAL before it reaches the device, as a device with
 * that max_qp_wr refuses one once rdma_rw has added the entries of its
 * contexts (mlx5 with max_sgl_rd).  Soft-RoCE takes any size, so the
 * shrink path of srpt_ch_create_qp() is tested with this.  0, the
 * default, refuses nothing.
 */
u32 srpt_max_qp_wr_cap;

/*
 * Fault injection for tests, in debugfs (ib_srpt/login_delay_ms): each
 * login waits this long before it sets up its channel (cut short when its
 * device is being removed), as a login does on a slow device or under a
 * storm of logins.  0, the default, delays nothing.
 */
u32 srpt_login_delay_ms;

/*
 * Logins being set up (their work running, until the CM reply), and the
 * most at any one time since the module was loaded: debugfs ib_srpt/logins.
 */
static atomic_t srpt_logins_busy = ATOMIC_INIT(0);
static int srpt_logins_busy_peak;

/**
 * srpt_logins_busy_inc() - a login starts its set-up; note the peak
 *
 * The peak is racy on purpose, as srpt_data_peak()'s: an observation.
 */
void srpt_logins_busy_inc(void)
{
	int n = atomic_inc_return(&srpt_logins_busy);

	if (n > READ_ONCE(srpt_logins_busy_peak))
		WRITE_ONCE(srpt_logins_busy_peak, n);
}

/**
 * srpt_logins_busy_dec() - a login's set-up ended (reply or reject sent)
 */
void srpt_logins_busy_dec(void)
{
	atomic_dec(&srpt_logins_busy);
}

/**
 * srpt_logins_show() - debugfs ib_srpt/logins: logins being set up
 * @m: seq file
 * @v: unused
 *
 * Return: 0.
 */
static int srpt_logins_show(struct seq_file *m, void *v)
{
	seq_printf(m, "in_progress=%d peak=%d\n",
		   atomic_read(&srpt_logins_busy),
		   READ_ONCE(srpt_logins_busy_peak));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(srpt_logins);

static struct dentry *srpt_debugfs;

/**
 * srpt_fault_post_send_take() - use up one injected post failure
 *
 * The caller, srpt_fault_post_send(), saw the counter set.
 *
 * Return: true if this post is to fail.
 */
bool srpt_fault_post_send_take(void)
{
	return atomic_add_unless(&srpt_fail_post_send, -1, 0);
}

/**
 * srpt_param_defaults() - defaults that depend on the machine
 *
 * The max_data_mb bound, before anything can log in (a max_data_mb given
 * at load has set it already).
 */
void srpt_param_defaults(void)
{
	if (!READ_ONCE(srpt_data_limit_bytes))
		srpt_set_data_limit(0);
}

/**
 * srpt_param_init() - create the debugfs directory of the module
 */
void srpt_param_init(void)
{
	srpt_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_atomic_t("fail_post_send", 0600, srpt_debugfs,
				&srpt_fail_post_send);
	debugfs_create_file("data", 0400, srpt_debugfs, NULL,
			    &srpt_data_fops);
	debugfs_create_u32("max_qp_wr_cap", 0600, srpt_debugfs,
			   &srpt_max_qp_wr_cap);
	debugfs_create_u32("login_delay_ms", 0600, srpt_debugfs,
			   &srpt_login_delay_ms);
	debugfs_create_file("logins", 0400, srpt_debugfs, NULL,
			    &srpt_logins_fops);
}

/**
 * srpt_param_exit() - remove it
 */
void srpt_param_exit(void)
{
	debugfs_remove_recursive(srpt_debugfs);
}
