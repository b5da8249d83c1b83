// SPDX-License-Identifier: GPL-2.0-only
//
// InfiniBand device-management (class 0x06) requests and decoders of the
// answers an SRP target gives: IOUnitInfo, IOControllerProfile and
// ServiceEntries (IBA Vol 1 section 16.3).  Written from the spec offsets,
// independently of the target's src/srpt_dm.c, so that srp-dm checks the
// target rather than agreeing with it by construction.  Pure code: the
// transport (libibumad) is in dm_umad.cpp.
#ifndef SRP_CLIENT_DM_H
#define SRP_CLIENT_DM_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace srp::dm {

constexpr size_t kMadSize = 256;
constexpr size_t kDataOffset = 64;  // 24-byte header + 40 reserved
constexpr size_t kDataSize = 192;
constexpr uint8_t kMgmtClass = 0x06;
constexpr uint8_t kClassVersion = 1;
constexpr uint8_t kMethodGet = 0x01;
constexpr uint8_t kMethodGetResp = 0x81;

constexpr uint16_t kAttrClassPortInfo = 0x0001;
constexpr uint16_t kAttrIouInfo = 0x0010;
constexpr uint16_t kAttrIocProfile = 0x0011;
constexpr uint16_t kAttrSvcEntries = 0x0012;

constexpr uint16_t kSrpIoClass = 0x0100;

// A Get request MAD (256 bytes).  The upper 32 bits of the TID are
// replaced by the kernel with the agent's.
std::vector<uint8_t> get_request(uint16_t attr_id, uint32_t attr_mod,
                                 uint64_t tid);
// Attribute modifier of a ServiceEntries Get: slot, first..last entry.
uint32_t svc_entries_mod(uint16_t slot, uint8_t first, uint8_t last);

struct MadHeader {
  uint8_t base_version = 0;
  uint8_t mgmt_class = 0;
  uint8_t class_version = 0;
  uint8_t method = 0;
  uint16_t status = 0;
  uint64_t tid = 0;
  uint16_t attr_id = 0;
  uint32_t attr_mod = 0;
};

// nullopt if shorter than a MAD header.
std::optional<MadHeader> decode_header(const uint8_t *mad, size_t len);
// "unsupported method/attribute combination" etc.; hex for others.
std::string status_name(uint16_t status);

enum class Slot { kEmpty, kPresent, kNone, kOther };

struct IouInfo {
  uint16_t change_id = 0;
  uint8_t max_controllers = 0;
  uint8_t flags = 0;        // byte 3: DiagDeviceID / OptionROM bits
  std::vector<Slot> slots;  // slots[0] is slot 1
};

struct IocProfile {
  uint64_t guid = 0;
  uint32_t vendor_id = 0;  // 24 bits
  uint32_t device_id = 0;
  uint16_t device_version = 0;
  uint32_t subsys_vendor_id = 0;  // 24 bits
  uint32_t subsys_id = 0;
  uint16_t io_class = 0;
  uint16_t io_subclass = 0;
  uint16_t protocol = 0;
  uint16_t protocol_version = 0;
  uint16_t send_queue_depth = 0;
  uint8_t rdma_read_depth = 0;
  uint32_t send_size = 0;
  uint32_t rdma_size = 0;
  uint8_t op_cap_mask = 0;
  uint8_t num_svc_entries = 0;
  std::string id_string;
};

struct ServiceEntry {
  std::string name;
  uint64_t id = 0;
};

// The decoders take the 192-byte data area (kDataOffset into the MAD).
// nullopt if it is shorter than the attribute.
std::optional<IouInfo> decode_iou_info(const uint8_t *data, size_t len);
std::optional<IocProfile> decode_ioc_profile(const uint8_t *data, size_t len);
// Entries first..last of a ServiceEntries answer (at most 4).
std::vector<ServiceEntry> decode_svc_entries(const uint8_t *data, size_t len,
                                             unsigned count);
// The id_ext of an "SRP.T10:<16 hex digits>" service name, as srp_daemon
// takes it (the 16 characters after the prefix), or nullopt.
std::optional<std::string> srp_id_ext(const std::string &name);

// A GID as 32 hex digits, with or without ':' separators (the sysfs
// form fe80:0000:...).  nullopt if malformed.
std::optional<std::vector<uint8_t>> parse_gid(const std::string &s);

// Human-readable report, one "key: value" per line.
std::string format_iou(const IouInfo &iou);
std::string format_ioc(unsigned slot, const IocProfile &ioc);
std::string format_svc(unsigned index, const ServiceEntry &e);

}  // namespace srp::dm

#endif  // SRP_CLIENT_DM_H
