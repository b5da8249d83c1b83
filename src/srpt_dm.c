// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pure device-management MAD code of the SRP target: the attribute builders
 * of IBA Vol 1 section 16.3 and the decision which answer (attribute data
 * and MAD status) a request gets.  No kernel state, no allocation, no
 * printing: built both into the kernel module (srpt_mad.c sends the
 * answers) and into the userspace unit tests.
 */
#include "srpt_dm.h"

#ifdef __KERNEL__
#include <linux/build_bug.h>
#else
#include <assert.h>
#endif

static_assert(sizeof(struct srpt_wire_mad_hdr) == SRPT_MAD_HDR_SIZE,
	      "MAD header");
static_assert(sizeof(struct srpt_wire_dm_mad) == SRPT_MAD_SIZE, "DM MAD");
static_assert(offsetof(struct srpt_wire_dm_mad, data) == SRPT_DM_HDR_SIZE,
	      "DM data offset");
static_assert(sizeof(struct srpt_wire_class_port_info) == 72,
	      "ClassPortInfo");
static_assert(sizeof(struct srpt_wire_iou_info) == 132, "IOUnitInfo");
static_assert(sizeof(struct srpt_wire_ioc_profile) == 128,
	      "IOControllerProfile");
static_assert(sizeof(struct srpt_wire_svc_entry) == 48, "ServiceEntry");
static_assert(sizeof(struct srpt_wire_svc_entries) == SRPT_DM_DATA_SIZE,
	      "ServiceEntries");
static_assert(sizeof(struct srpt_wire_class_port_info) <= SRPT_DM_DATA_SIZE &&
	      sizeof(struct srpt_wire_iou_info) <= SRPT_DM_DATA_SIZE &&
	      sizeof(struct srpt_wire_ioc_profile) <= SRPT_DM_DATA_SIZE,
	      "every attribute fits the DM data area");

/**
 * srpt_dm_build_class_port_info() - ClassPortInfo of the DM class
 * @data: the 192-byte data area of the response; overwritten
 *
 * Base and class version 1, no capabilities (no traps, no redirection),
 * RespTimeValue %SRPT_DM_RESP_TIME_VALUE; every redirect and trap field is
 * zero.
 */
void srpt_dm_build_class_port_info(void *data)
{
	struct srpt_wire_class_port_info *cpi = data;

	memset(data, 0, SRPT_DM_DATA_SIZE);
	cpi->base_version = SRPT_MAD_BASE_VERSION;
	cpi->class_version = SRPT_DM_CLASS_VERSION;
	cpi->cap_mask2_resp_time = cpu_to_be32(SRPT_DM_RESP_TIME_VALUE & 0x1f);
}

/**
 * srpt_dm_build_iou_info() - IOUnitInfo: 16 slots, an IOC in slot 1
 * @data: the 192-byte data area of the response; overwritten
 * @change_id: value of the ChangeID field
 *
 * The controller list has a nibble per slot, slot 1 in the high nibble of
 * byte 0, slot 2 in its low nibble, and so on.  Slot %SRPT_DM_IOC_SLOT is
 * marked present, the other slots up to %SRPT_DM_SLOTS empty; nibbles past
 * MaxControllers stay zero.  No diagnostics device, no option ROM.
 */
void srpt_dm_build_iou_info(void *data, u16 change_id)
{
	struct srpt_wire_iou_info *iou = data;
	unsigned int slot = SRPT_DM_IOC_SLOT - 1;

	memset(data, 0, SRPT_DM_DATA_SIZE);
	iou->change_id = cpu_to_be16(change_id);
	iou->max_controllers = SRPT_DM_SLOTS;
	/* Empty slots are SRPT_DM_SLOT_EMPTY (0): only the IOC is set. */
	iou->controller_list[slot / 2] |=
		SRPT_DM_SLOT_PRESENT << (slot % 2 ? 0 : 4);
}

/**
 * srpt_dm_id_string() - the ID string of the IOControllerProfile
 * @dst: the %SRPT_DM_ID_STRING_LEN byte field; overwritten, NUL-padded
 * @desc: NUL-terminated description of the controller, or NULL
 * @rdma_cm_port: TCP port of the RDMA/CM listener, 0 when there is none
 *
 * Without a listener the field is @desc, cut to 63 bytes.  With one, the
 * word %SRPT_DM_ID_RDMA_CM_PORT followed by the port in decimal comes
 * after @desc and a space (alone if @desc is empty).  The word is never
 * cut: @desc is shortened instead, and spaces its cut leaves at its end
 * are dropped.  The last byte of the field is always a NUL.
 */
void srpt_dm_id_string(char *dst, const char *desc, u16 rdma_cm_port)
{
	size_t room = SRPT_DM_ID_STRING_LEN - 1;
	size_t klen = sizeof(SRPT_DM_ID_RDMA_CM_PORT) - 1;
	char digits[5];		/* a u16 has at most 5 decimal digits */
	unsigned int v = rdma_cm_port;
	size_t ndig = 0, len = 0, wlen = 0;

	memset(dst, 0, SRPT_DM_ID_STRING_LEN);
	if (rdma_cm_port) {
		do {
			digits[ndig++] = '0' + v % 10;
			v /= 10;
		} while (v);
		wlen = klen + ndig;
	}
	if (desc)
		len = strnlen(desc, room);
	if (wlen && len + 1 + wlen > room) {
		len = room - 1 - wlen;
		while (len && desc[len - 1] == ' ')
			len--;
	}
	if (len)
		memcpy(dst, desc, len);
	if (!wlen)
		return;
	if (len)
		dst[len++] = ' ';
	memcpy(dst + len, SRPT_DM_ID_RDMA_CM_PORT, klen);
	len += klen;
	while (ndig)
		dst[len++] = digits[--ndig];
}

/**
 * srpt_dm_build_ioc_profile() - IOControllerProfile of our SRP controller
 * @data: the 192-byte data area of the response; overwritten
 * @p: what to report
 *
 * I/O class, subclass, protocol and protocol version are SRP's (T10 SRP
 * r16a annex B); the controller receives sends (requests) and sends
 * (responses), and issues RDMA reads and writes.  The ID string is the
 * description and the RDMA/CM port (srpt_dm_id_string()), at most 63
 * bytes so that the field always ends with a NUL.
 */
void srpt_dm_build_ioc_profile(void *data, const struct srpt_dm_params *p)
{
	struct srpt_wire_ioc_profile *ioc = data;

	memset(data, 0, SRPT_DM_DATA_SIZE);
	ioc->guid = cpu_to_be64(p->ioc_guid);
	ioc->vendor_id = cpu_to_be32((p->vendor_id & 0xffffff) << 8);
	ioc->device_id = cpu_to_be32(p->device_id);
	ioc->device_version = cpu_to_be16(p->device_version);
	ioc->subsys_vendor_id = cpu_to_be32((p->subsys_vendor_id & 0xffffff)
					    << 8);
	ioc->subsys_id = cpu_to_be32(p->subsys_id);
	ioc->io_class = cpu_to_be16(SRPT_DM_IO_CLASS_SRP);
	ioc->io_subclass = cpu_to_be16(SRPT_DM_IO_SUBCLASS_SRP);
	ioc->protocol = cpu_to_be16(SRPT_DM_PROTOCOL_SRP);
	ioc->protocol_version = cpu_to_be16(SRPT_DM_PROTOCOL_VERSION_SRP);
	ioc->service_conns = cpu_to_be16(p->service_conns);
	ioc->initiators_supported = cpu_to_be16(p->initiators_supported);
	ioc->send_queue_depth = cpu_to_be16(p->send_queue_depth);
	ioc->rdma_read_depth = p->rdma_read_depth;
	ioc->send_size = cpu_to_be32(p->send_size);
	ioc->rdma_size = cpu_to_be32(p->rdma_size);
	ioc->op_cap_mask = SRPT_DM_CAP_SEND_TO_IOC | SRPT_DM_CAP_SEND_FROM_IOC |
			   SRPT_DM_CAP_RDMA_READ_FROM_IOC |
			   SRPT_DM_CAP_RDMA_WRITE_FROM_IOC;
	ioc->num_svc_entries = SRPT_DM_NUM_SVC_ENTRIES;
	srpt_dm_id_string((char *)ioc->id_string, p->id_string,
			  p->rdma_cm_port);
}

/**
 * srpt_dm_svc_name() - service name of the SRP target port
 * @name: receives "SRP.T10:" and @id_ext as 16 lowercase hex digits,
 *	NUL-padded to %SRPT_DM_SVC_NAME_LEN bytes
 * @id_ext: identifier extension
 *
 * srp_daemon takes the 16 characters after the prefix as the id_ext of its
 * add_target line; the initiator parses them as hex in either case.
 * Lowercase matches what the kernel's initiator shows in sysfs.
 */
void srpt_dm_svc_name(char *name, u64 id_ext)
{
	static const char hex[] = "0123456789abcdef";
	size_t plen = sizeof(SRPT_DM_SVC_NAME_PREFIX) - 1;
	unsigned int i;

	memset(name, 0, SRPT_DM_SVC_NAME_LEN);
	memcpy(name, SRPT_DM_SVC_NAME_PREFIX, plen);
	for (i = 0; i < 16; i++)
		name[plen + i] = hex[(id_ext >> (60 - 4 * i)) & 0xf];
}

/**
 * srpt_dm_build_svc_entries() - ServiceEntries of the IOC in slot 1
 * @data: the 192-byte data area of the response; zeroed, then filled on
 *	success
 * @p: what to report
 * @attr_mod: attribute modifier: slot in bits 31:16, index of the last
 *	entry wanted in bits 15:8, of the first in bits 7:0
 *
 * Return: %SRPT_MAD_STATUS_OK; %SRPT_MAD_STATUS_INVALID_FIELD for a slot
 * outside 1..16, a range that is reversed, longer than four entries or
 * past the last entry; %SRPT_DM_STATUS_NO_IOC for an empty slot.
 */
u16 srpt_dm_build_svc_entries(void *data, const struct srpt_dm_params *p,
			      u32 attr_mod)
{
	struct srpt_wire_svc_entries *se = data;
	u32 slot = attr_mod >> 16;
	u32 last = (attr_mod >> 8) & 0xff;
	u32 first = attr_mod & 0xff;

	memset(data, 0, SRPT_DM_DATA_SIZE);
	if (slot < 1 || slot > SRPT_DM_SLOTS)
		return SRPT_MAD_STATUS_INVALID_FIELD;
	if (slot != SRPT_DM_IOC_SLOT)
		return SRPT_DM_STATUS_NO_IOC;
	if (first > last || last - first >= SRPT_DM_SVC_PER_MAD ||
	    last >= SRPT_DM_NUM_SVC_ENTRIES)
		return SRPT_MAD_STATUS_INVALID_FIELD;

	/* Entry 0, the only one, is the SRP target port. */
	srpt_dm_svc_name(se->entry[0].name, p->id_ext);
	se->entry[0].id = cpu_to_be64(p->service_id);
	return SRPT_MAD_STATUS_OK;
}

/**
 * srpt_dm_dispatch() - answer a device-management request
 * @req: the request
 * @p: what the controller reports
 * @data: the 192-byte data area of the response; always overwritten (zero
 *	unless the status is %SRPT_MAD_STATUS_OK)
 *
 * Checks in order: base and class version, method (Get and Set are
 * supported), attribute with method (every attribute is read-only, so Set
 * is refused for all), attribute modifier.
 *
 * Return: the MAD status of the response (host order):
 * %SRPT_MAD_STATUS_BAD_VERSION, %SRPT_MAD_STATUS_UNSUP_METHOD,
 * %SRPT_MAD_STATUS_UNSUP_METHOD_ATTR, %SRPT_MAD_STATUS_INVALID_FIELD (a
 * nonzero modifier where none is defined, a bad slot or entry range),
 * %SRPT_DM_STATUS_NO_IOC (an empty slot) or %SRPT_MAD_STATUS_OK.
 */
u16 srpt_dm_dispatch(const struct srpt_dm_request *req,
		     const struct srpt_dm_params *p, void *data)
{
	u32 slot = req->attr_mod;

	memset(data, 0, SRPT_DM_DATA_SIZE);
	if (req->base_version != SRPT_MAD_BASE_VERSION ||
	    req->class_version != SRPT_DM_CLASS_VERSION)
		return SRPT_MAD_STATUS_BAD_VERSION;
	if (req->method != SRPT_MAD_METHOD_GET &&
	    req->method != SRPT_MAD_METHOD_SET)
		return SRPT_MAD_STATUS_UNSUP_METHOD;

	switch (req->attr_id) {
	case SRPT_DM_ATTR_CLASS_PORT_INFO:
	case SRPT_DM_ATTR_IOU_INFO:
	case SRPT_DM_ATTR_IOC_PROFILE:
	case SRPT_DM_ATTR_SVC_ENTRIES:
		break;
	default:
		return SRPT_MAD_STATUS_UNSUP_METHOD_ATTR;
	}
	if (req->method == SRPT_MAD_METHOD_SET)
		return SRPT_MAD_STATUS_UNSUP_METHOD_ATTR;

	switch (req->attr_id) {
	case SRPT_DM_ATTR_CLASS_PORT_INFO:
		if (req->attr_mod)
			return SRPT_MAD_STATUS_INVALID_FIELD;
		srpt_dm_build_class_port_info(data);
		return SRPT_MAD_STATUS_OK;
	case SRPT_DM_ATTR_IOU_INFO:
		if (req->attr_mod)
			return SRPT_MAD_STATUS_INVALID_FIELD;
		srpt_dm_build_iou_info(data, p->change_id);
		return SRPT_MAD_STATUS_OK;
	case SRPT_DM_ATTR_IOC_PROFILE:
		if (slot < 1 || slot > SRPT_DM_SLOTS)
			return SRPT_MAD_STATUS_INVALID_FIELD;
		if (slot != SRPT_DM_IOC_SLOT)
			return SRPT_DM_STATUS_NO_IOC;
		srpt_dm_build_ioc_profile(data, p);
		return SRPT_MAD_STATUS_OK;
	default: /* SRPT_DM_ATTR_SVC_ENTRIES */
		return srpt_dm_build_svc_entries(data, p, req->attr_mod);
	}
}

/**
 * srpt_dm_parse_request() - decode the header of a received MAD
 * @mad: the MAD as received (without GRH)
 * @len: bytes at @mad
 * @req: receives the header fields
 *
 * Return: 0 if the MAD is a device-management request that deserves an
 * answer; -EINVAL if it is shorter than a MAD header, of another class, a
 * response (method bit 7 set) or a TrapRepress, all of which are dropped.
 */
int srpt_dm_parse_request(const void *mad, size_t len,
			  struct srpt_dm_request *req)
{
	struct srpt_wire_mad_hdr hdr;

	if (!mad || len < sizeof(hdr))
		return -EINVAL;
	memcpy(&hdr, mad, sizeof(hdr));
	req->base_version = hdr.base_version;
	req->mgmt_class = hdr.mgmt_class;
	req->class_version = hdr.class_version;
	req->method = hdr.method;
	req->attr_id = be16_to_cpu(hdr.attr_id);
	req->attr_mod = be32_to_cpu(hdr.attr_mod);
	if (req->mgmt_class != SRPT_DM_MGMT_CLASS ||
	    (req->method & SRPT_MAD_METHOD_RESP_BIT) ||
	    req->method == SRPT_MAD_METHOD_TRAP_REPRESS)
		return -EINVAL;
	return 0;
}

/**
 * srpt_dm_respond() - build the whole response MAD to a request
 * @req_mad: the received MAD (without GRH)
 * @len: bytes at @req_mad
 * @p: what the controller reports
 * @rsp_mad: receives the %SRPT_MAD_SIZE byte response
 *
 * The response carries the request's header with the method changed to
 * GetResp and the status of srpt_dm_dispatch(); the transaction ID,
 * attribute ID and modifier are echoed, the reserved bytes are zero.
 *
 * Return: 0 if @rsp_mad should be sent; -EINVAL if the request is dropped
 * (see srpt_dm_parse_request()), @rsp_mad is then untouched.
 */
int srpt_dm_respond(const void *req_mad, size_t len,
		    const struct srpt_dm_params *p, void *rsp_mad)
{
	struct srpt_wire_dm_mad *rsp = rsp_mad;
	struct srpt_dm_request req;
	u16 status;

	if (srpt_dm_parse_request(req_mad, len, &req))
		return -EINVAL;
	memset(rsp, 0, sizeof(*rsp));
	memcpy(&rsp->hdr, req_mad, sizeof(rsp->hdr));
	status = srpt_dm_dispatch(&req, p, rsp->data);
	rsp->hdr.method = SRPT_MAD_METHOD_GET_RESP;
	rsp->hdr.status = cpu_to_be16(status);
	rsp->hdr.class_specific = 0;
	rsp->hdr.reserved = 0;
	return 0;
}
