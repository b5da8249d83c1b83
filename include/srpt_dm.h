/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * InfiniBand device-management class (management class 0x06, class version
 * 1) as an SRP target answers it: the MAD header, the attribute layouts of
 * IBA Vol 1 section 16.3 (ClassPortInfo, IOUnitInfo, IOControllerProfile,
 * ServiceEntries) and pure builders for them.  Like srpt_proto.h, nothing in
 * here touches kernel state, so the same code is built into the module and
 * into the userspace unit tests.
 *
 * The target presents one I/O unit with 16 controller slots; slot 1 holds
 * the single I/O controller, whose only service entry is the SRP target
 * port ("SRP.T10:" + id_ext as 16 hex digits, service ID = id_ext).  While
 * the RDMA/CM listener is on, the controller's ID string ends in the word
 * "rdma_cm_port=<TCP port>", so that an initiator without a subnet
 * administrator (RoCE) learns where to log in over RDMA/CM; discovery
 * tools for InfiniBand only print that string.
 */
#ifndef SRPT_DM_H
#define SRPT_DM_H

#include "srpt_portable.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Common MAD header values (IBA 13.4.2 - 13.4.7). */
enum {
	SRPT_MAD_BASE_VERSION		= 1,
	SRPT_MAD_METHOD_GET		= 0x01,
	SRPT_MAD_METHOD_SET		= 0x02,
	SRPT_MAD_METHOD_GET_RESP	= 0x81,
	SRPT_MAD_METHOD_RESP_BIT	= 0x80,	/* set in every response method */
	SRPT_MAD_METHOD_TRAP_REPRESS	= 0x07,
};

/* Device management class. */
enum {
	SRPT_DM_MGMT_CLASS	= 0x06,
	SRPT_DM_CLASS_VERSION	= 1,
};

/* MAD status values (host order; big endian on the wire). */
enum {
	SRPT_MAD_STATUS_OK			= 0x0000,
	SRPT_MAD_STATUS_BAD_VERSION		= 0x0004,
	SRPT_MAD_STATUS_UNSUP_METHOD		= 0x0008,
	SRPT_MAD_STATUS_UNSUP_METHOD_ATTR	= 0x000c,
	SRPT_MAD_STATUS_INVALID_FIELD		= 0x001c,
	/* class specific (bits 14:8): no I/O controller in the slot */
	SRPT_DM_STATUS_NO_IOC			= 0x0100,
};

/* Device management attributes (IBA 16.3.3). */
enum {
	SRPT_DM_ATTR_CLASS_PORT_INFO	= 0x0001,
	SRPT_DM_ATTR_IOU_INFO		= 0x0010,
	SRPT_DM_ATTR_IOC_PROFILE	= 0x0011,
	SRPT_DM_ATTR_SVC_ENTRIES	= 0x0012,
};

/* The I/O unit we present. */
enum {
	SRPT_DM_SLOTS		= 16,	/* MaxControllers */
	SRPT_DM_IOC_SLOT	= 1,	/* the only populated slot */
	SRPT_DM_NUM_SVC_ENTRIES	= 1,	/* service entries of our IOC */
	SRPT_DM_SVC_PER_MAD	= 4,	/* ServiceEntries per MAD */
	SRPT_DM_RESP_TIME_VALUE	= 18,	/* 4.096 us * 2^18 = about 1 s */
};

/* ControllerList nibble values (IOUnitInfo). */
enum {
	SRPT_DM_SLOT_EMPTY	= 0x0,	/* no IOC installed */
	SRPT_DM_SLOT_PRESENT	= 0x1,	/* IOC present */
	SRPT_DM_SLOT_NONE	= 0xf,	/* slot does not exist */
};

/* IOControllerProfile values for SRP (T10 SRP r16a annex B). */
enum {
	SRPT_DM_IO_CLASS_SRP		= 0x0100,	/* SRP rev. 16a */
	SRPT_DM_IO_SUBCLASS_SRP		= 0x609e,	/* T10 OUI 00609e */
	SRPT_DM_PROTOCOL_SRP		= 0x0108,	/* SCSI, SRP */
	SRPT_DM_PROTOCOL_VERSION_SRP	= 0x0001,
};

/* IOControllerProfile controller operations capability mask bits. */
enum {
	SRPT_DM_CAP_SEND_TO_IOC		= 0x01,	/* ST */
	SRPT_DM_CAP_SEND_FROM_IOC	= 0x02,	/* SF */
	SRPT_DM_CAP_RDMA_READ_TO_IOC	= 0x04,	/* RT */
	SRPT_DM_CAP_RDMA_READ_FROM_IOC	= 0x08,	/* RF */
	SRPT_DM_CAP_RDMA_WRITE_TO_IOC	= 0x10,	/* WT */
	SRPT_DM_CAP_RDMA_WRITE_FROM_IOC	= 0x20,	/* WF */
};

#define SRPT_DM_SVC_NAME_PREFIX	"SRP.T10:"
/* The word of the ID string that names the RDMA/CM listener's port. */
#define SRPT_DM_ID_RDMA_CM_PORT	"rdma_cm_port="

/* Sizes of the MAD and its parts. */
enum {
	SRPT_MAD_SIZE		= 256,
	SRPT_MAD_HDR_SIZE	= 24,
	SRPT_DM_HDR_SIZE	= 64,	/* common header + 40 reserved bytes */
	SRPT_DM_DATA_SIZE	= 192,
	SRPT_DM_SVC_NAME_LEN	= 40,
	SRPT_DM_ID_STRING_LEN	= 64,
};

/*
 * Wire layouts, all packed and big endian.  Reserved fields are named
 * reservedN and always sent as zero.
 */
struct srpt_wire_mad_hdr {
	u8	base_version;
	u8	mgmt_class;
	u8	class_version;
	u8	method;
	__be16	status;
	__be16	class_specific;
	__be64	tid;
	__be16	attr_id;
	__be16	reserved;
	__be32	attr_mod;
} __packed;

struct srpt_wire_dm_mad {
	struct srpt_wire_mad_hdr	hdr;
	u8				reserved[40];
	u8				data[SRPT_DM_DATA_SIZE];
} __packed;

/* IBA 13.4.8.1 ClassPortInfo (72 bytes). */
struct srpt_wire_class_port_info {
	u8	base_version;
	u8	class_version;
	__be16	cap_mask;
	__be32	cap_mask2_resp_time;	/* CapabilityMask2:27, RespTimeValue:5 */
	u8	redirect_gid[16];
	__be32	redirect_tc_sl_fl;
	__be16	redirect_lid;
	__be16	redirect_pkey;
	__be32	redirect_qp;		/* reserved:8, QP:24 */
	__be32	redirect_qkey;
	u8	trap_gid[16];
	__be32	trap_tc_sl_fl;
	__be16	trap_lid;
	__be16	trap_pkey;
	__be32	trap_hl_qp;		/* HopLimit:8, QP:24 */
	__be32	trap_qkey;
} __packed;

/* IBA 16.3.3.3 IOUnitInfo (132 bytes). */
struct srpt_wire_iou_info {
	__be16	change_id;
	u8	max_controllers;
	u8	diag_option_rom;	/* DiagDeviceID and OptionROM flags */
	u8	controller_list[128];	/* a nibble per slot, slot 1 = high
					 * nibble of byte 0
					 */
} __packed;

/* IBA 16.3.3.4 IOControllerProfile (128 bytes). */
struct srpt_wire_ioc_profile {
	__be64	guid;
	__be32	vendor_id;		/* VendorID:24, reserved:8 */
	__be32	device_id;
	__be16	device_version;
	__be16	reserved1;
	__be32	subsys_vendor_id;	/* SubsystemVendorID:24, reserved:8 */
	__be32	subsys_id;
	__be16	io_class;
	__be16	io_subclass;
	__be16	protocol;
	__be16	protocol_version;
	__be16	service_conns;
	__be16	initiators_supported;
	__be16	send_queue_depth;
	u8	reserved2;
	u8	rdma_read_depth;
	__be32	send_size;
	__be32	rdma_size;
	u8	op_cap_mask;
	u8	reserved3;
	u8	num_svc_entries;
	u8	reserved4[9];
	u8	id_string[SRPT_DM_ID_STRING_LEN];
} __packed;

/* IBA 16.3.3.5 ServiceEntries: up to four 48-byte entries per MAD. */
struct srpt_wire_svc_entry {
	char	name[SRPT_DM_SVC_NAME_LEN];
	__be64	id;
} __packed;

struct srpt_wire_svc_entries {
	struct srpt_wire_svc_entry	entry[SRPT_DM_SVC_PER_MAD];
} __packed;

/**
 * struct srpt_dm_params - what the I/O controller reports about itself
 * @ioc_guid:	I/O controller GUID (srpt_service_guid)
 * @id_ext:	identifier extension of the target port, put in the service
 *		name (srpt_service_guid)
 * @service_id:	service ID of the SRP service entry (the IB/CM service ID)
 * @vendor_id:	IEEE OUI of the vendor (24 bits)
 * @device_id:	vendor's device ID
 * @device_version: device version
 * @subsys_vendor_id: OUI of the subsystem vendor (24 bits)
 * @subsys_id:	subsystem ID
 * @send_queue_depth: requests an initiator may have outstanding per channel
 * @rdma_read_depth: RDMA reads the target has outstanding per channel
 * @send_size:	largest request IU accepted (srp_max_req_size)
 * @rdma_size:	largest RDMA transfer per descriptor (srp_max_rdma_size)
 * @service_conns: service connections, 0 when not limited
 * @initiators_supported: initiators supported, 0 when not limited
 * @change_id:	IOUnitInfo change ID
 * @rdma_cm_port: TCP port of the RDMA/CM listener, 0 when there is none;
 *		named at the end of the ID string (srpt_dm_id_string())
 * @id_string:	NUL-terminated description; at most 63 bytes are sent,
 *		fewer with @rdma_cm_port
 */
struct srpt_dm_params {
	u64		ioc_guid;
	u64		id_ext;
	u64		service_id;
	u32		vendor_id;
	u32		device_id;
	u16		device_version;
	u32		subsys_vendor_id;
	u32		subsys_id;
	u16		send_queue_depth;
	u8		rdma_read_depth;
	u32		send_size;
	u32		rdma_size;
	u16		service_conns;
	u16		initiators_supported;
	u16		change_id;
	u16		rdma_cm_port;
	const char	*id_string;
};

/**
 * struct srpt_dm_request - the fields of a received MAD that decide the
 * answer
 * @base_version: MAD base version
 * @mgmt_class: management class
 * @class_version: class version
 * @method:	method
 * @attr_id:	attribute ID
 * @attr_mod:	attribute modifier
 */
struct srpt_dm_request {
	u8	base_version;
	u8	mgmt_class;
	u8	class_version;
	u8	method;
	u16	attr_id;
	u32	attr_mod;
};

void srpt_dm_build_class_port_info(void *data);
void srpt_dm_build_iou_info(void *data, u16 change_id);
void srpt_dm_id_string(char *dst, const char *desc, u16 rdma_cm_port);
void srpt_dm_build_ioc_profile(void *data, const struct srpt_dm_params *p);
void srpt_dm_svc_name(char *name, u64 id_ext);
u16 srpt_dm_build_svc_entries(void *data, const struct srpt_dm_params *p,
			      u32 attr_mod);
u16 srpt_dm_dispatch(const struct srpt_dm_request *req,
		     const struct srpt_dm_params *p, void *data);
int srpt_dm_parse_request(const void *mad, size_t len,
			  struct srpt_dm_request *req);
int srpt_dm_respond(const void *req_mad, size_t len,
		    const struct srpt_dm_params *p, void *rsp_mad);

#ifdef __cplusplus
}
#endif

#endif /* SRPT_DM_H */
