// SPDX-License-Identifier: GPL-2.0-only
#include "srp_iu.h"

#include <cstdio>

namespace srp {

// ---------------------------------------------------------------------------
// Byte access
// ---------------------------------------------------------------------------

namespace {

void ensure(Bytes &b, size_t end) {
  if (b.size() < end) b.resize(end, 0);
}

size_t round_up4(size_t n) { return (n + 3) & ~static_cast<size_t>(3); }

}  // namespace

void put_u8(Bytes &b, size_t off, uint8_t v) {
  ensure(b, off + 1);
  b[off] = v;
}

void put_be16(Bytes &b, size_t off, uint16_t v) {
  ensure(b, off + 2);
  b[off] = static_cast<uint8_t>(v >> 8);
  b[off + 1] = static_cast<uint8_t>(v);
}

void put_be32(Bytes &b, size_t off, uint32_t v) {
  ensure(b, off + 4);
  for (int i = 0; i < 4; i++)
    b[off + i] = static_cast<uint8_t>(v >> (8 * (3 - i)));
}

void put_be64(Bytes &b, size_t off, uint64_t v) {
  ensure(b, off + 8);
  for (int i = 0; i < 8; i++)
    b[off + i] = static_cast<uint8_t>(v >> (8 * (7 - i)));
}

void put_bytes(Bytes &b, size_t off, const uint8_t *p, size_t n) {
  ensure(b, off + n);
  for (size_t i = 0; i < n; i++) b[off + i] = p[i];
}

uint16_t get_be16(ByteView v, size_t off) {
  return static_cast<uint16_t>((v.data[off] << 8) | v.data[off + 1]);
}

uint32_t get_be32(ByteView v, size_t off) {
  uint32_t r = 0;
  for (int i = 0; i < 4; i++) r = (r << 8) | v.data[off + i];
  return r;
}

uint64_t get_be64(ByteView v, size_t off) {
  uint64_t r = 0;
  for (int i = 0; i < 8; i++) r = (r << 8) | v.data[off + i];
  return r;
}

std::string opcode_name(uint8_t op) {
  const char *n = "unknown";
  switch (op) {
    case kOpLoginReq:
      n = "SRP_LOGIN_REQ";
      break;
    case kOpTskMgmt:
      n = "SRP_TSK_MGMT";
      break;
    case kOpCmd:
      n = "SRP_CMD";
      break;
    case kOpILogout:
      n = "SRP_I_LOGOUT";
      break;
    case kOpCredRsp:
      n = "SRP_CRED_RSP";
      break;
    case kOpAerRsp:
      n = "SRP_AER_RSP";
      break;
    case kOpTLogout:
      n = "SRP_T_LOGOUT";
      break;
    case kOpCredReq:
      n = "SRP_CRED_REQ";
      break;
    case kOpAerReq:
      n = "SRP_AER_REQ";
      break;
    case kOpLoginRsp:
      n = "SRP_LOGIN_RSP";
      break;
    case kOpRsp:
      n = "SRP_RSP";
      break;
    case kOpLoginRej:
      n = "SRP_LOGIN_REJ";
      break;
    default:
      break;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "opcode 0x%02x (%s)", op, n);
  return buf;
}

std::string reject_reason_name(uint32_t reason) {
  const char *n = "unknown";
  switch (reason) {
    case kRejUnableEstablish:
      n = "unable to establish channel";
      break;
    case kRejInsufficientResources:
      n = "insufficient resources";
      break;
    case kRejItIuLenTooLarge:
      n = "IT IU length too large";
      break;
    case kRejUnableAssociate:
      n = "unable to associate channel";
      break;
    case kRejUnsupportedFormat:
      n = "unsupported descriptor format";
      break;
    case kRejMultichanUnsupported:
      n = "multichannel unsupported";
      break;
    case kRejChannelLimit:
      n = "channel limit reached";
      break;
    default:
      break;
  }
  char buf[80];
  std::snprintf(buf, sizeof(buf), "0x%05x (%s)", reason, n);
  return buf;
}

std::string hex(ByteView v, size_t max_bytes) {
  std::string s;
  char buf[4];
  for (size_t i = 0; i < v.size && i < max_bytes; i++) {
    std::snprintf(buf, sizeof(buf), "%02x", v.data[i]);
    s += buf;
  }
  if (v.size > max_bytes) s += "...";
  return s;
}

PortId make_port_id(uint64_t first, uint64_t second) {
  Bytes b;
  put_be64(b, 0, first);
  put_be64(b, 8, second);
  PortId id{};
  for (size_t i = 0; i < id.size(); i++) id[i] = b[i];
  return id;
}

Lun encode_lun(uint64_t lun) {
  // int_to_scsilun(): each 16-bit level, most significant byte first.
  Lun l{};
  for (size_t i = 0; i < l.size(); i += 2) {
    l[i] = static_cast<uint8_t>(lun >> 8);
    l[i + 1] = static_cast<uint8_t>(lun);
    lun >>= 16;
  }
  return l;
}

// ---------------------------------------------------------------------------
// Initiator to target
// ---------------------------------------------------------------------------

Bytes encode_login_req(const LoginReq &r) {
  Bytes b(kLoginReqSize, 0);
  put_u8(b, 0, r.opcode);
  put_be64(b, 8, r.tag);
  put_be32(b, 16, r.req_it_iu_len);
  put_be16(b, 24, r.req_buf_fmt);
  put_u8(b, 26, r.req_flags);
  put_be16(b, 28, r.imm_data_offset);
  put_bytes(b, 32, r.initiator_port_id.data(), 16);
  put_bytes(b, 48, r.target_port_id.data(), 16);
  return b;
}

Bytes encode_login_req_rdma(const LoginReq &r) {
  Bytes b(kLoginReqRdmaSize, 0);
  put_be64(b, 0, r.tag);
  put_be16(b, 8, r.req_buf_fmt);
  put_u8(b, 10, r.req_flags);
  put_u8(b, 11, r.opcode);
  put_be32(b, 12, r.req_it_iu_len);
  put_bytes(b, 16, r.initiator_port_id.data(), 16);
  put_bytes(b, 32, r.target_port_id.data(), 16);
  put_be16(b, 48, r.imm_data_offset);
  return b;
}

CmdBuilder &CmdBuilder::tag(uint64_t t) {
  tag_ = t;
  return *this;
}
CmdBuilder &CmdBuilder::lun(const Lun &l) {
  lun_ = l;
  return *this;
}
CmdBuilder &CmdBuilder::task_attr(uint8_t a) {
  task_attr_ = a;
  return *this;
}
CmdBuilder &CmdBuilder::sol_not(uint8_t s) {
  sol_not_ = s;
  return *this;
}
CmdBuilder &CmdBuilder::cdb(const Bytes &c) {
  cdb_ = c;
  return *this;
}

CmdBuilder &CmdBuilder::no_data() {
  dir_ = DataDir::kNone;
  fmt_ = kDescNone;
  count_ = 0;
  descs_.clear();
  imm_data_.clear();
  return *this;
}

CmdBuilder &CmdBuilder::direct(DataDir dir, const DirectDesc &d,
                               uint8_t count) {
  no_data();
  dir_ = dir;
  fmt_ = kDescDirect;
  count_ = count;
  descs_ = {d};
  return *this;
}

CmdBuilder &CmdBuilder::indirect(DataDir dir,
                                 const std::vector<DirectDesc> &descs,
                                 const DirectDesc &table) {
  no_data();
  dir_ = dir;
  fmt_ = kDescIndirect;
  count_ = static_cast<uint8_t>(descs.size());
  descs_ = descs;
  table_ = table;
  return *this;
}

CmdBuilder &CmdBuilder::immediate(const Bytes &data, uint16_t imm_data_offset) {
  no_data();
  dir_ = DataDir::kOut;
  fmt_ = kDescImmediate;
  imm_data_ = data;
  imm_offset_ = imm_data_offset;
  return *this;
}

CmdBuilder &CmdBuilder::opcode_raw(uint8_t op) {
  opcode_ = op;
  return *this;
}
CmdBuilder &CmdBuilder::buf_fmt_raw(uint8_t f) {
  buf_fmt_raw_ = f;
  return *this;
}
CmdBuilder &CmdBuilder::out_count_raw(uint8_t n) {
  out_count_raw_ = n;
  return *this;
}
CmdBuilder &CmdBuilder::in_count_raw(uint8_t n) {
  in_count_raw_ = n;
  return *this;
}
CmdBuilder &CmdBuilder::add_cdb_len_raw(uint8_t n) {
  add_cdb_len_raw_ = n;
  return *this;
}
CmdBuilder &CmdBuilder::table_len_raw(uint32_t n) {
  table_len_raw_ = n;
  return *this;
}
CmdBuilder &CmdBuilder::total_len_raw(uint32_t n) {
  total_len_raw_ = n;
  return *this;
}
CmdBuilder &CmdBuilder::imm_len_raw(uint32_t n) {
  imm_len_raw_ = n;
  return *this;
}
CmdBuilder &CmdBuilder::length_raw(size_t n) {
  length_raw_ = n;
  return *this;
}

size_t CmdBuilder::desc_offset() const {
  size_t add = cdb_.size() > kCdbSize ? round_up4(cdb_.size() - kCdbSize) : 0;
  return kCmdSize + add;
}

Bytes CmdBuilder::build() const {
  const size_t off = desc_offset();
  const size_t add = off - kCmdSize;
  Bytes b(off, 0);

  put_u8(b, 0, opcode_);
  put_u8(b, 1, sol_not_);
  uint8_t fmt = 0;
  if (dir_ == DataDir::kOut) fmt = static_cast<uint8_t>(fmt_ << 4);
  if (dir_ == DataDir::kIn) fmt = fmt_;
  put_u8(b, 5, fmt);
  const uint8_t count =
      fmt_ == kDescIndirect ? static_cast<uint8_t>(descs_.size()) : count_;
  if (fmt_ == kDescDirect || fmt_ == kDescIndirect) {
    put_u8(b, dir_ == DataDir::kOut ? 6 : 7, count);
  }
  put_be64(b, 8, tag_);
  put_bytes(b, 20, lun_.data(), lun_.size());
  put_u8(b, 29, task_attr_);
  put_u8(b, 31, static_cast<uint8_t>(add));
  for (size_t i = 0; i < cdb_.size(); i++) {
    put_u8(b, i < kCdbSize ? 32 + i : kCmdSize + (i - kCdbSize), cdb_[i]);
  }

  switch (fmt_) {
    case kDescDirect:
      put_be64(b, off, descs_[0].va);
      put_be32(b, off + 8, descs_[0].rkey);
      put_be32(b, off + 12, descs_[0].len);
      break;
    case kDescIndirect: {
      uint64_t total = 0;
      put_be64(b, off, table_.va);
      put_be32(b, off + 8, table_.rkey);
      put_be32(b, off + 12,
               static_cast<uint32_t>(descs_.size() * kDirectDescSize));
      for (size_t i = 0; i < descs_.size(); i++) {
        const size_t d = off + kIndirectHdrSize + i * kDirectDescSize;
        put_be64(b, d, descs_[i].va);
        put_be32(b, d + 8, descs_[i].rkey);
        put_be32(b, d + 12, descs_[i].len);
        total += descs_[i].len;
      }
      put_be32(b, off + 16, static_cast<uint32_t>(total));
      break;
    }
    case kDescImmediate:
      put_be32(b, off, static_cast<uint32_t>(imm_data_.size()));
      ensure(b, off + kImmDescSize);
      if (!imm_data_.empty())
        put_bytes(b, imm_offset_, imm_data_.data(), imm_data_.size());
      else
        ensure(b, imm_offset_);
      break;
    default:
      break;
  }

  if (buf_fmt_raw_) b[5] = *buf_fmt_raw_;
  if (out_count_raw_) b[6] = *out_count_raw_;
  if (in_count_raw_) b[7] = *in_count_raw_;
  if (add_cdb_len_raw_) b[31] = *add_cdb_len_raw_;
  if (table_len_raw_) put_be32(b, off + 12, *table_len_raw_);
  if (total_len_raw_) put_be32(b, off + 16, *total_len_raw_);
  if (imm_len_raw_) put_be32(b, off, *imm_len_raw_);
  if (length_raw_) b.resize(*length_raw_, 0);
  return b;
}

Bytes encode_tsk_mgmt(const TskMgmt &t) {
  Bytes b(kTskMgmtSize, 0);
  put_u8(b, 0, kOpTskMgmt);
  put_u8(b, 1, t.sol_not);
  put_be64(b, 8, t.tag);
  put_bytes(b, 20, t.lun.data(), t.lun.size());
  put_u8(b, 30, t.function);
  put_be64(b, 32, t.task_tag);
  return b;
}

namespace {
Bytes encode_16(uint8_t op, uint64_t tag) {
  Bytes b(16, 0);
  put_u8(b, 0, op);
  put_be64(b, 8, tag);
  return b;
}
}  // namespace

Bytes encode_i_logout(uint64_t tag) { return encode_16(kOpILogout, tag); }
Bytes encode_cred_rsp(uint64_t tag) { return encode_16(kOpCredRsp, tag); }
Bytes encode_aer_rsp(uint64_t tag) { return encode_16(kOpAerRsp, tag); }

// ---------------------------------------------------------------------------
// Target to initiator
// ---------------------------------------------------------------------------

namespace {

bool check_iu(ByteView v, uint8_t op, size_t min, std::string *why) {
  char buf[128];
  if (v.size < min) {
    std::snprintf(buf, sizeof(buf), "%zu bytes, %s needs %zu", v.size,
                  opcode_name(op).c_str(), min);
    if (why) *why = buf;
    return false;
  }
  if (v.data[0] != op) {
    if (why)
      *why = "expected " + opcode_name(op) + ", got " + opcode_name(v.data[0]);
    return false;
  }
  return true;
}

}  // namespace

std::optional<LoginRsp> decode_login_rsp(ByteView v, std::string *why) {
  if (!check_iu(v, kOpLoginRsp, kLoginRspSize, why)) return std::nullopt;
  LoginRsp r;
  r.req_lim_delta = static_cast<int32_t>(get_be32(v, 4));
  r.tag = get_be64(v, 8);
  r.max_it_iu_len = get_be32(v, 16);
  r.max_ti_iu_len = get_be32(v, 20);
  r.buf_fmt = get_be16(v, 24);
  r.rsp_flags = v.data[26];
  return r;
}

std::optional<LoginRej> decode_login_rej(ByteView v, std::string *why) {
  if (!check_iu(v, kOpLoginRej, kLoginRejSize, why)) return std::nullopt;
  LoginRej r;
  r.reason = get_be32(v, 4);
  r.tag = get_be64(v, 8);
  r.buf_fmt = get_be16(v, 24);
  return r;
}

std::optional<uint8_t> Rsp::tmf_code() const {
  if (!(flags & kRspFlagRspValid) || resp_data.size() < 4) return std::nullopt;
  return resp_data[3];
}

std::optional<Rsp> decode_rsp(ByteView v, std::string *why) {
  if (!check_iu(v, kOpRsp, kRspSize, why)) return std::nullopt;
  Rsp r;
  r.sol_not = v.data[1];
  r.req_lim_delta = static_cast<int32_t>(get_be32(v, 4));
  r.tag = get_be64(v, 8);
  r.flags = v.data[18];
  r.status = v.data[19];
  r.data_out_res_cnt = get_be32(v, 20);
  r.data_in_res_cnt = get_be32(v, 24);
  r.sense_data_len = get_be32(v, 28);
  r.resp_data_len = get_be32(v, 32);

  // Response data first, then sense data (SRP r16a, SRP_RSP).
  uint64_t pos = kRspSize;
  if (r.flags & kRspFlagRspValid) {
    if (pos + r.resp_data_len > v.size) {
      if (why)
        *why = "response data length " + std::to_string(r.resp_data_len) +
               " runs past the " + std::to_string(v.size) + "-byte SRP_RSP";
      return std::nullopt;
    }
    r.resp_data.assign(v.data + pos, v.data + pos + r.resp_data_len);
    pos += r.resp_data_len;
  }
  if (r.flags & kRspFlagSnsValid) {
    if (pos + r.sense_data_len > v.size) {
      if (why)
        *why = "sense data length " + std::to_string(r.sense_data_len) +
               " runs past the " + std::to_string(v.size) + "-byte SRP_RSP";
      return std::nullopt;
    }
    r.sense.assign(v.data + pos, v.data + pos + r.sense_data_len);
  }
  return r;
}

std::optional<CredReq> decode_cred_req(ByteView v, std::string *why) {
  if (!check_iu(v, kOpCredReq, kCredReqSize, why)) return std::nullopt;
  CredReq r;
  r.sol_not = v.data[1];
  r.req_lim_delta = static_cast<int32_t>(get_be32(v, 4));
  r.tag = get_be64(v, 8);
  return r;
}

std::optional<TLogout> decode_t_logout(ByteView v, std::string *why) {
  if (!check_iu(v, kOpTLogout, kTLogoutSize, why)) return std::nullopt;
  TLogout r;
  r.sol_not = v.data[1];
  r.reason = get_be32(v, 4);
  r.tag = get_be64(v, 8);
  return r;
}

std::optional<AerReq> decode_aer_req(ByteView v, std::string *why) {
  if (!check_iu(v, kOpAerReq, kAerReqSize, why)) return std::nullopt;
  AerReq r;
  r.sol_not = v.data[1];
  r.req_lim_delta = static_cast<int32_t>(get_be32(v, 4));
  r.tag = get_be64(v, 8);
  for (size_t i = 0; i < r.lun.size(); i++) r.lun[i] = v.data[20 + i];
  const uint64_t len = get_be32(v, 28);
  if (kAerReqSize + len > v.size) {
    if (why) *why = "AER sense data length runs past the IU";
    return std::nullopt;
  }
  r.sense.assign(v.data + kAerReqSize, v.data + kAerReqSize + len);
  return r;
}

// ---------------------------------------------------------------------------
// SCSI
// ---------------------------------------------------------------------------

std::optional<Sense> decode_sense(ByteView v) {
  if (v.size < 1) return std::nullopt;
  const uint8_t code = v.data[0] & 0x7f;
  Sense s;
  if (code == 0x70 || code == 0x71) {
    if (v.size < 3) return std::nullopt;
    s.key = v.data[2] & 0x0f;
    if (v.size > 12) s.asc = v.data[12];
    if (v.size > 13) s.ascq = v.data[13];
    return s;
  }
  if (code == 0x72 || code == 0x73) {
    if (v.size < 4) return std::nullopt;
    s.key = v.data[1] & 0x0f;
    s.asc = v.data[2];
    s.ascq = v.data[3];
    return s;
  }
  return std::nullopt;
}

std::string sense_text(const Sense &s) {
  static const char *const keys[16] = {
      "NO SENSE",       "RECOVERED ERROR", "NOT READY",      "MEDIUM ERROR",
      "HARDWARE ERROR", "ILLEGAL REQUEST", "UNIT ATTENTION", "DATA PROTECT",
      "BLANK CHECK",    "VENDOR SPECIFIC", "COPY ABORTED",   "ABORTED COMMAND",
      "RESERVED (0Ch)", "VOLUME OVERFLOW", "MISCOMPARE",     "COMPLETED"};
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s %02X/%02X", keys[s.key & 0xf], s.asc,
                s.ascq);
  return buf;
}

namespace cdb {

Bytes test_unit_ready() { return Bytes(6, 0); }

Bytes inquiry(uint16_t alloc_len, bool evpd, uint8_t page) {
  Bytes c(6, 0);
  c[0] = 0x12;
  c[1] = evpd ? 1 : 0;
  c[2] = page;
  put_be16(c, 3, alloc_len);
  return c;
}

Bytes read_capacity16(uint32_t alloc_len) {
  Bytes c(16, 0);
  c[0] = 0x9e;
  c[1] = 0x10;  // SERVICE ACTION: READ CAPACITY (16)
  put_be32(c, 10, alloc_len);
  return c;
}

Bytes read16(uint64_t lba, uint32_t blocks) {
  Bytes c(16, 0);
  c[0] = 0x88;
  put_be64(c, 2, lba);
  put_be32(c, 10, blocks);
  return c;
}

Bytes write16(uint64_t lba, uint32_t blocks) {
  Bytes c = read16(lba, blocks);
  c[0] = 0x8a;
  return c;
}

Bytes report_luns(uint32_t alloc_len) {
  Bytes c(12, 0);
  c[0] = 0xa0;
  put_be32(c, 6, alloc_len);
  return c;
}

}  // namespace cdb

std::optional<Capacity> decode_read_capacity16(ByteView v) {
  if (v.size < 12) return std::nullopt;
  Capacity c;
  c.last_lba = get_be64(v, 0);
  c.block_size = get_be32(v, 8);
  return c;
}

std::optional<InquiryData> decode_inquiry(ByteView v) {
  if (v.size < 36) return std::nullopt;
  InquiryData d;
  d.peripheral_qualifier = v.data[0] >> 5;
  d.device_type = v.data[0] & 0x1f;
  d.additional_length = v.data[4];
  auto text = [&](size_t off, size_t n) {
    std::string s(reinterpret_cast<const char *>(v.data + off), n);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
    return s;
  };
  d.vendor = text(8, 8);
  d.product = text(16, 16);
  return d;
}

}  // namespace srp
