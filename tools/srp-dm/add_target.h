// SPDX-License-Identifier: GPL-2.0-only
//
// srp-dm's add_target lines: what the kernel's SRP initiator (ib_srp) needs
// to log in to a target found by device-management discovery, and writing
// such a line to its add_target file.  The syntax is that of
// Documentation/ABI/stable/sysfs-driver-ib_srp; ib_srp's option parser
// wants id_ext, ioc_guid and dest for RDMA/CM, and id_ext, ioc_guid, dgid,
// pkey and service_id for IB/CM.
//
// Everything but write_add_target() is pure, for the unit tests
// (test_add_target.cpp).
#ifndef SRP_DM_ADD_TARGET_H
#define SRP_DM_ADD_TARGET_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace srp::dm {

using Gid = std::vector<uint8_t>;  // 16 bytes, network order

// The word of the IOControllerProfile ID string in which the target names
// its RDMA/CM listener's TCP port (ib_srpt: include/srpt_dm.h).
constexpr const char kRdmaCmPortWord[] = "rdma_cm_port=";

// The I/O class of SRP revision 10 controllers; ib_srp wants io_class=ff00
// in the line for them (the default is 0x0100, revision 16a).
constexpr uint16_t kSrpRev10IoClass = 0xff00;

// The port of a whitespace-separated "rdma_cm_port=N" word (N decimal,
// 1..65535) in an ID string; nullopt if there is none or N is not valid.
std::optional<uint16_t> rdma_cm_port_of(const std::string &id_string);

// A GID as the user may give it to --dgid: 32 hex digits with or without
// ':' (the sysfs form), an IPv6 address in any inet_pton form, or an IPv4
// address (the RoCE v2 GID ::ffff:a.b.c.d).  nullopt if none of these.
std::optional<Gid> parse_dgid(const std::string &s);

bool gid_is_v4mapped(const Gid &g);
bool gid_is_link_local(const Gid &g);  // fe80::/10
bool gid_is_zero(const Gid &g);

// The address of a RoCE GID as add_target's dest= takes it: "a.b.c.d" for
// an IPv4-mapped GID, "[v6]" for another (with "%scope" if @scope is not
// empty and the address is link-local).  nullopt for the zero GID and
// multicast GIDs, which name no port.
std::optional<std::string> dest_address(const Gid &g,
                                        const std::string &scope = "");

// One entry of a local port's GID table.
struct LocalGid {
  int index = 0;
  Gid gid;
  std::string type;  // sysfs gid_attrs/types: "RoCE v2", "IB/RoCE v1", ""
};

// The source GID index for Gets to @dgid on RoCE: an entry of the same
// family (IPv4-mapped or not: RoCE v2 routes by IP, and the two families
// do not mix), RoCE v2 before v1, the same scope (link-local or not)
// before another, then the lowest index.  nullopt if no entry has the
// family.
std::optional<int> choose_sgid_index(const std::vector<LocalGid> &table,
                                     const Gid &dgid);

// The SRP target port of one service entry.
struct SrpTarget {
  uint64_t id_ext = 0;      // from "SRP.T10:<id_ext>"
  uint64_t ioc_guid = 0;    // IOControllerProfile GUID
  uint64_t service_id = 0;  // the service entry's ID (IB/CM)
  uint16_t io_class = 0;    // IOControllerProfile I/O class
};

// "id_ext=<16 hex>,ioc_guid=<16 hex>,dest=<address>:<port>" (@address from
// dest_address()), plus ",io_class=ff00" for an SRP rev. 10 controller.
std::string rdma_cm_line(const SrpTarget &t, const std::string &address,
                         uint16_t port);
// "id_ext=<16 hex>,ioc_guid=<16 hex>,dgid=<32 hex>,pkey=<4 hex>,
// service_id=<16 hex>", plus io_class as above.
std::string ib_cm_line(const SrpTarget &t, const Gid &dgid, uint16_t pkey);

// The initiator's own fields of a line.
struct InitiatorFields {
  std::optional<uint64_t> initiator_ext;
  std::vector<std::string> options;  // "key=value", checked by check_option()
};

// Empty if @kv is a "key=value" ib_srp takes from the initiator's side
// (max_sect, max_cmd_per_lun, target_can_queue, cmd_sg_entries,
// allow_ext_sg, sg_tablesize, comp_vector, tl_retry_count, queue_size,
// src, max_it_iu_size, ch_count), else why not.  The target's fields are
// srp-dm's to fill in; initiator_ext has an option of its own.
std::string check_option(const std::string &kv);

// @line with ",initiator_ext=<16 hex>" and the options appended.
std::string with_initiator(const std::string &line, const InitiatorFields &f);

// /sys/class/infiniband_srp/srp-<device>-<port>/add_target: the file of
// ib_srp's port that srp-dm's own port is.
std::string add_target_path(const std::string &device, int port);

// Writes @line to @path with one write(2), as ib_srp requires (it parses
// each write as one login request and logs in before the write returns).
// Empty on success, else the error: the errno text, and for an add_target
// path that is missing whether ib_srp is not loaded or has no such port
// (with the ports it has).
std::string write_add_target(const std::string &path, const std::string &line);

}  // namespace srp::dm

#endif  // SRP_DM_ADD_TARGET_H
