// SPDX-License-Identifier: GPL-2.0-only
//
// Device-management MAD encoding and decoding (see dm.h).
#include "dm.h"

#include <cctype>
#include <cstdio>
#include <sstream>

namespace srp::dm {
namespace {

uint16_t rd16(const uint8_t *p) { return uint16_t(p[0] << 8 | p[1]); }

uint32_t rd32(const uint8_t *p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 |
         p[3];
}

uint64_t rd64(const uint8_t *p) {
  return uint64_t(rd32(p)) << 32 | rd32(p + 4);
}

void wr16(uint8_t *p, uint16_t v) {
  p[0] = uint8_t(v >> 8);
  p[1] = uint8_t(v);
}

void wr32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = uint8_t(v >> (24 - 8 * i));
}

void wr64(uint8_t *p, uint64_t v) {
  wr32(p, uint32_t(v >> 32));
  wr32(p + 4, uint32_t(v));
}

// A NUL-terminated (or full-length) string field.
std::string cstr(const uint8_t *p, size_t max) {
  size_t n = 0;
  while (n < max && p[n]) n++;
  return std::string(reinterpret_cast<const char *>(p), n);
}

std::string hex(uint64_t v, int width) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%0*llx", width,
           static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::vector<uint8_t> get_request(uint16_t attr_id, uint32_t attr_mod,
                                 uint64_t tid) {
  std::vector<uint8_t> m(kMadSize, 0);
  m[0] = 1;  // base version
  m[1] = kMgmtClass;
  m[2] = kClassVersion;
  m[3] = kMethodGet;
  wr64(&m[8], tid);
  wr16(&m[16], attr_id);
  wr32(&m[20], attr_mod);
  return m;
}

uint32_t svc_entries_mod(uint16_t slot, uint8_t first, uint8_t last) {
  return uint32_t(slot) << 16 | uint32_t(last) << 8 | first;
}

std::optional<MadHeader> decode_header(const uint8_t *mad, size_t len) {
  if (len < 24) return std::nullopt;
  MadHeader h;
  h.base_version = mad[0];
  h.mgmt_class = mad[1];
  h.class_version = mad[2];
  h.method = mad[3];
  h.status = rd16(&mad[4]);
  h.tid = rd64(&mad[8]);
  h.attr_id = rd16(&mad[16]);
  h.attr_mod = rd32(&mad[20]);
  return h;
}

std::string status_name(uint16_t status) {
  switch (status) {
    case 0x0000:
      return "success";
    case 0x0004:
      return "bad version";
    case 0x0008:
      return "method not supported";
    case 0x000c:
      return "method/attribute combination not supported";
    case 0x001c:
      return "invalid attribute or modifier";
    case 0x0100:
      return "no I/O controller in the slot";
    default:
      return "status 0x" + hex(status, 4);
  }
}

std::optional<IouInfo> decode_iou_info(const uint8_t *d, size_t len) {
  if (len < 132) return std::nullopt;
  IouInfo iou;
  iou.change_id = rd16(&d[0]);
  iou.max_controllers = d[2];
  iou.flags = d[3];
  for (unsigned i = 0; i < iou.max_controllers; i++) {
    unsigned v = (d[4 + i / 2] >> (i % 2 ? 0 : 4)) & 0xf;
    iou.slots.push_back(v == 0x0   ? Slot::kEmpty
                        : v == 0x1 ? Slot::kPresent
                        : v == 0xf ? Slot::kNone
                                   : Slot::kOther);
  }
  return iou;
}

std::optional<IocProfile> decode_ioc_profile(const uint8_t *d, size_t len) {
  if (len < 128) return std::nullopt;
  IocProfile p;
  p.guid = rd64(&d[0]);
  p.vendor_id = rd32(&d[8]) >> 8;
  p.device_id = rd32(&d[12]);
  p.device_version = rd16(&d[16]);
  p.subsys_vendor_id = rd32(&d[20]) >> 8;
  p.subsys_id = rd32(&d[24]);
  p.io_class = rd16(&d[28]);
  p.io_subclass = rd16(&d[30]);
  p.protocol = rd16(&d[32]);
  p.protocol_version = rd16(&d[34]);
  p.send_queue_depth = rd16(&d[40]);
  p.rdma_read_depth = d[43];
  p.send_size = rd32(&d[44]);
  p.rdma_size = rd32(&d[48]);
  p.op_cap_mask = d[52];
  p.num_svc_entries = d[54];
  p.id_string = cstr(&d[64], 64);
  return p;
}

std::vector<ServiceEntry> decode_svc_entries(const uint8_t *d, size_t len,
                                             unsigned count) {
  std::vector<ServiceEntry> v;
  for (unsigned i = 0; i < count && i < 4 && (i + 1) * 48 <= len; i++) {
    ServiceEntry e;
    e.name = cstr(&d[i * 48], 40);
    e.id = rd64(&d[i * 48 + 40]);
    v.push_back(e);
  }
  return v;
}

std::optional<std::string> srp_id_ext(const std::string &name) {
  static const std::string prefix = "SRP.T10:";
  if (name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  std::string id = name.substr(prefix.size());
  if (id.size() != 16) return std::nullopt;
  for (char c : id)
    if (!isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return id;
}

std::optional<std::vector<uint8_t>> parse_gid(const std::string &s) {
  std::string digits;
  for (char c : s) {
    if (c == ':') continue;
    if (!isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    digits += c;
  }
  if (digits.size() != 32) return std::nullopt;
  std::vector<uint8_t> gid(16);
  for (size_t i = 0; i < 16; i++)
    gid[i] = uint8_t(std::stoul(digits.substr(2 * i, 2), nullptr, 16));
  return gid;
}

std::string format_iou(const IouInfo &iou) {
  std::ostringstream o;
  o << "change_id: 0x" << hex(iou.change_id, 4) << "\n"
    << "max_controllers: " << unsigned(iou.max_controllers) << "\n";
  for (size_t i = 0; i < iou.slots.size(); i++) {
    if (iou.slots[i] != Slot::kPresent) continue;
    o << "controller: slot " << i + 1 << " present\n";
  }
  return o.str();
}

std::string format_ioc(unsigned slot, const IocProfile &p) {
  std::ostringstream o;
  o << "ioc[" << slot << "].guid: 0x" << hex(p.guid, 16) << "\n"
    << "ioc[" << slot << "].vendor_id: 0x" << hex(p.vendor_id, 6) << "\n"
    << "ioc[" << slot << "].device_id: 0x" << hex(p.device_id, 8) << "\n"
    << "ioc[" << slot << "].device_version: 0x" << hex(p.device_version, 4)
    << "\n"
    << "ioc[" << slot << "].io_class: 0x" << hex(p.io_class, 4) << "\n"
    << "ioc[" << slot << "].io_subclass: 0x" << hex(p.io_subclass, 4) << "\n"
    << "ioc[" << slot << "].protocol: 0x" << hex(p.protocol, 4) << "\n"
    << "ioc[" << slot << "].protocol_version: " << p.protocol_version << "\n"
    << "ioc[" << slot << "].send_queue_depth: " << p.send_queue_depth << "\n"
    << "ioc[" << slot << "].rdma_read_depth: " << unsigned(p.rdma_read_depth)
    << "\n"
    << "ioc[" << slot << "].send_size: " << p.send_size << "\n"
    << "ioc[" << slot << "].rdma_size: " << p.rdma_size << "\n"
    << "ioc[" << slot << "].op_cap_mask: 0x" << hex(p.op_cap_mask, 2) << "\n"
    << "ioc[" << slot << "].service_entries: " << unsigned(p.num_svc_entries)
    << "\n"
    << "ioc[" << slot << "].id_string: " << p.id_string << "\n";
  return o.str();
}

std::string format_svc(unsigned index, const ServiceEntry &e) {
  std::ostringstream o;
  o << "service[" << index << "].name: " << e.name << "\n"
    << "service[" << index << "].id: 0x" << hex(e.id, 16) << "\n";
  auto id_ext = srp_id_ext(e.name);
  if (id_ext) o << "service[" << index << "].id_ext: " << *id_ext << "\n";
  return o.str();
}

}  // namespace srp::dm
