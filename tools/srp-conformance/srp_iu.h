// SPDX-License-Identifier: GPL-2.0-only
//
// SRP (T10 SRP r16a, SRP-2 immediate data) information units: encoders and
// decoders of the initiator side, written independently of the target's C
// code. Every field is written and read with explicit big-endian accessors at
// the offsets the standard gives; nothing here depends on struct layout or
// host byte order.
//
// Tags are opaque 8-byte values. This client writes its 64-bit tag numbers
// big-endian into those 8 bytes and reads them back the same way, so a
// target that echoes the bytes gives back the same number.
#ifndef SRP_CLIENT_SRP_IU_H
#define SRP_CLIENT_SRP_IU_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace srp {

using Bytes = std::vector<uint8_t>;
using PortId = std::array<uint8_t, 16>;
using Lun = std::array<uint8_t, 8>;

// A read-only view of bytes (C++17 has no std::span).
struct ByteView {
  const uint8_t *data = nullptr;
  size_t size = 0;

  ByteView() = default;
  ByteView(const uint8_t *d, size_t n) : data(d), size(n) {}
  ByteView(const Bytes &b) : data(b.data()), size(b.size()) {}  // NOLINT
};

// ---------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------

enum Opcode : uint8_t {
  kOpLoginReq = 0x00,
  kOpTskMgmt = 0x01,
  kOpCmd = 0x02,
  kOpILogout = 0x03,
  kOpCredRsp = 0x41,
  kOpAerRsp = 0x42,
  kOpTLogout = 0x80,
  kOpCredReq = 0x81,
  kOpAerReq = 0x82,
  kOpLoginRsp = 0xc0,
  kOpRsp = 0xc1,
  kOpLoginRej = 0xc2,
};

// Fixed sizes of the information units, in bytes.
constexpr size_t kLoginReqSize = 64;
constexpr size_t kLoginReqRdmaSize = 56;
constexpr size_t kLoginRspSize = 52;
constexpr size_t kLoginRejSize = 32;
constexpr size_t kTskMgmtSize = 48;
constexpr size_t kCmdSize = 48;
constexpr size_t kILogoutSize = 16;
constexpr size_t kTLogoutSize = 16;
constexpr size_t kCredReqSize = 16;
constexpr size_t kCredRspSize = 16;
constexpr size_t kAerReqSize = 36;
constexpr size_t kAerRspSize = 16;
constexpr size_t kRspSize = 36;
constexpr size_t kDirectDescSize = 16;
constexpr size_t kIndirectHdrSize = 20;  // table descriptor + total length
constexpr size_t kImmDescSize = 4;
constexpr size_t kCdbSize = 16;        // CDB field inside SRP_CMD
constexpr size_t kMaxAddCdbLen = 252;  // 63 x 4 bytes
constexpr uint32_t kMinItIuLen = 64;
// imm_data_offset the Linux initiator uses: 48 + 16 (add. CDB) + 4.
constexpr uint16_t kLinuxImmDataOffset = 68;

// SRP_LOGIN_REQ req_buf_fmt / SRP_LOGIN_RSP buf_fmt bits.
constexpr uint16_t kBufFmtDirect = 0x2;
constexpr uint16_t kBufFmtIndirect = 0x4;

// Descriptor formats of the SRP_CMD buf_fmt nibbles.
enum DescFmt : uint8_t {
  kDescNone = 0,
  kDescDirect = 1,
  kDescIndirect = 2,
  kDescImmediate = 3,
};

// SRP_LOGIN_REQ req_flags.
constexpr uint8_t kMultichanSingle = 0x0;
constexpr uint8_t kMultichanMulti = 0x1;
constexpr uint8_t kMultichanMask = 0x3;
constexpr uint8_t kImmedRequested = 0x80;

// SRP_LOGIN_RSP rsp_flags.
constexpr uint8_t kRspMultichanNoChan = 0x0;
constexpr uint8_t kRspMultichanTerminated = 0x1;
constexpr uint8_t kRspMultichanMaintained = 0x2;
constexpr uint8_t kRspImmedSupported = 0x80;

// SRP_LOGIN_REJ reasons.
constexpr uint32_t kRejUnableEstablish = 0x10000;
constexpr uint32_t kRejInsufficientResources = 0x10001;
constexpr uint32_t kRejItIuLenTooLarge = 0x10002;
constexpr uint32_t kRejUnableAssociate = 0x10003;
constexpr uint32_t kRejUnsupportedFormat = 0x10004;
constexpr uint32_t kRejMultichanUnsupported = 0x10005;
constexpr uint32_t kRejChannelLimit = 0x10006;

// SRP_RSP flags.
constexpr uint8_t kRspFlagRspValid = 0x01;
constexpr uint8_t kRspFlagSnsValid = 0x02;
constexpr uint8_t kRspFlagDoOver = 0x04;
constexpr uint8_t kRspFlagDoUnder = 0x08;
constexpr uint8_t kRspFlagDiOver = 0x10;
constexpr uint8_t kRspFlagDiUnder = 0x20;

// SRP_TSK_MGMT functions and response codes (byte 3 of the response data).
constexpr uint8_t kTmfAbortTask = 0x01;
constexpr uint8_t kTmfAbortTaskSet = 0x02;
constexpr uint8_t kTmfClearTaskSet = 0x04;
constexpr uint8_t kTmfLunReset = 0x08;
constexpr uint8_t kTmfClearAca = 0x40;
constexpr uint8_t kTmfRspComplete = 0x00;
constexpr uint8_t kTmfRspInvalidFields = 0x02;
constexpr uint8_t kTmfRspNotSupported = 0x04;
constexpr uint8_t kTmfRspFailed = 0x05;
constexpr uint8_t kTmfRspIncorrectLun = 0x09;

// SRP_CMD task attributes and sol_not bits.
constexpr uint8_t kTaskSimple = 0;
constexpr uint8_t kTaskHeadOfQueue = 1;
constexpr uint8_t kTaskOrdered = 2;
constexpr uint8_t kTaskAca = 4;
constexpr uint8_t kSolNotSuccess = 0x02;  // SCSOLNT
constexpr uint8_t kSolNotFailure = 0x04;  // UCSOLNT

// SCSI status codes.
constexpr uint8_t kStatusGood = 0x00;
constexpr uint8_t kStatusCheckCondition = 0x02;
constexpr uint8_t kStatusBusy = 0x08;
constexpr uint8_t kStatusReservationConflict = 0x18;
constexpr uint8_t kStatusTaskSetFull = 0x28;
constexpr uint8_t kStatusTaskAborted = 0x40;

// Sense keys.
constexpr uint8_t kSenseNoSense = 0x0;
constexpr uint8_t kSenseNotReady = 0x2;
constexpr uint8_t kSenseIllegalRequest = 0x5;
constexpr uint8_t kSenseUnitAttention = 0x6;
constexpr uint8_t kSenseCopyAborted = 0xa;
constexpr uint8_t kSenseAbortedCommand = 0xb;
constexpr uint8_t kSenseMiscompare = 0xe;

// ---------------------------------------------------------------------------
// Byte access
// ---------------------------------------------------------------------------

// Writers grow @b when the field lies past its end.
void put_u8(Bytes &b, size_t off, uint8_t v);
void put_be16(Bytes &b, size_t off, uint16_t v);
void put_be32(Bytes &b, size_t off, uint32_t v);
void put_be64(Bytes &b, size_t off, uint64_t v);
void put_bytes(Bytes &b, size_t off, const uint8_t *p, size_t n);

// Readers require the field inside @v (callers check lengths first).
uint16_t get_be16(ByteView v, size_t off);
uint32_t get_be32(ByteView v, size_t off);
uint64_t get_be64(ByteView v, size_t off);

// "opcode 0x02 (SRP_CMD)"-style name of an opcode.
std::string opcode_name(uint8_t op);
// "0x10002 (IT IU length too large)"-style text of a reject reason.
std::string reject_reason_name(uint32_t reason);
std::string hex(ByteView v, size_t max_bytes = 64);

// Port ID from two 64-bit halves, each stored big-endian: the target port ID
// is id_ext followed by ioc_guid, the initiator port ID initiator_ext
// followed by the port's GUID (as ib_srp builds them for SRP r16a).
PortId make_port_id(uint64_t first, uint64_t second);

// 8-byte SCSI LUN as Linux's int_to_scsilun() builds it (LUN < 256: single
// level peripheral addressing, byte 1 = LUN), which is how LIO numbers LUNs.
Lun encode_lun(uint64_t lun);

// ---------------------------------------------------------------------------
// Initiator to target
// ---------------------------------------------------------------------------

struct LoginReq {
  uint8_t opcode = kOpLoginReq;  // overridable for malformed requests
  uint64_t tag = 0;
  uint32_t req_it_iu_len = 8260;
  uint16_t req_buf_fmt = kBufFmtDirect | kBufFmtIndirect;
  uint8_t req_flags = kMultichanSingle;
  uint16_t imm_data_offset = 0;
  PortId initiator_port_id{};
  PortId target_port_id{};
};

// T10 layout (64 bytes, IB/CM REQ private data).
Bytes encode_login_req(const LoginReq &r);
// Linux RDMA/CM layout (struct srp_login_req_rdma, 56 bytes).
Bytes encode_login_req_rdma(const LoginReq &r);

// A memory descriptor: remote address, key and length.
struct DirectDesc {
  uint64_t va = 0;
  uint32_t rkey = 0;
  uint32_t len = 0;
};

enum class DataDir { kNone, kOut, kIn };

// Builds an SRP_CMD. By default the fields are consistent; every setter
// ending in _raw overrides one wire field after the consistent layout was
// computed, which is how the malformed cases are made.
class CmdBuilder {
 public:
  CmdBuilder &tag(uint64_t t);
  CmdBuilder &lun(const Lun &l);
  CmdBuilder &task_attr(uint8_t a);
  CmdBuilder &sol_not(uint8_t s);
  // Up to 16 bytes go into the CDB field; the rest becomes the additional
  // CDB, padded to a multiple of 4 bytes.
  CmdBuilder &cdb(const Bytes &c);

  CmdBuilder &no_data();
  // One direct descriptor. @count is the descriptor count field of the
  // direction (the Linux initiator sends 0 for a direct descriptor).
  CmdBuilder &direct(DataDir dir, const DirectDesc &d, uint8_t count = 0);
  // Indirect table: the table descriptor (@table, len = 16 x descriptors
  // unless overridden), the total length (sum unless overridden) and the
  // descriptors, all inside the IU.
  CmdBuilder &indirect(DataDir dir, const std::vector<DirectDesc> &descs,
                       const DirectDesc &table = {});
  // SRP-2 immediate data (data-out only): 4-byte length after the CDB,
  // data at @imm_data_offset, zero padding in between.
  CmdBuilder &immediate(const Bytes &data, uint16_t imm_data_offset);

  // Raw overrides.
  CmdBuilder &opcode_raw(uint8_t op);
  CmdBuilder &buf_fmt_raw(uint8_t f);
  CmdBuilder &out_count_raw(uint8_t n);
  CmdBuilder &in_count_raw(uint8_t n);
  CmdBuilder &add_cdb_len_raw(uint8_t n);
  CmdBuilder &table_len_raw(uint32_t n);  // indirect table descriptor len
  CmdBuilder &total_len_raw(uint32_t n);  // indirect total length
  CmdBuilder &imm_len_raw(uint32_t n);    // immediate data length field
  // Resize the final IU (truncate or zero-extend).
  CmdBuilder &length_raw(size_t n);

  Bytes build() const;

  // Offset of the data buffer descriptor(s) = 48 + additional CDB length.
  size_t desc_offset() const;

 private:
  uint8_t opcode_ = kOpCmd;
  uint64_t tag_ = 0;
  Lun lun_{};
  uint8_t task_attr_ = kTaskSimple;
  uint8_t sol_not_ = 0;
  Bytes cdb_;
  DataDir dir_ = DataDir::kNone;
  uint8_t fmt_ = kDescNone;
  uint8_t count_ = 0;
  std::vector<DirectDesc> descs_;
  DirectDesc table_{};
  Bytes imm_data_;
  uint16_t imm_offset_ = 0;

  std::optional<uint8_t> buf_fmt_raw_, out_count_raw_, in_count_raw_,
      add_cdb_len_raw_;
  std::optional<uint32_t> table_len_raw_, total_len_raw_, imm_len_raw_;
  std::optional<size_t> length_raw_;
};

struct TskMgmt {
  uint64_t tag = 0;
  Lun lun{};
  uint8_t function = kTmfAbortTask;
  uint64_t task_tag = 0;
  uint8_t sol_not = 0;
};
Bytes encode_tsk_mgmt(const TskMgmt &t);  // 48 bytes
Bytes encode_i_logout(uint64_t tag);      // 16 bytes
Bytes encode_cred_rsp(uint64_t tag);      // 16 bytes
Bytes encode_aer_rsp(uint64_t tag);       // 16 bytes
inline Bytes encode_raw(ByteView v) { return Bytes(v.data, v.data + v.size); }

// ---------------------------------------------------------------------------
// Target to initiator
// ---------------------------------------------------------------------------

struct LoginRsp {
  int32_t req_lim_delta = 0;
  uint64_t tag = 0;
  uint32_t max_it_iu_len = 0;
  uint32_t max_ti_iu_len = 0;
  uint16_t buf_fmt = 0;
  uint8_t rsp_flags = 0;

  uint8_t multichannel_result() const { return rsp_flags & kMultichanMask; }
  bool immediate() const { return (rsp_flags & kRspImmedSupported) != 0; }
};

struct LoginRej {
  uint32_t reason = 0;
  uint64_t tag = 0;
  uint16_t buf_fmt = 0;
};

struct Rsp {
  uint8_t sol_not = 0;
  int32_t req_lim_delta = 0;
  uint64_t tag = 0;
  uint8_t flags = 0;
  uint8_t status = 0;
  uint32_t data_out_res_cnt = 0;
  uint32_t data_in_res_cnt = 0;
  uint32_t sense_data_len = 0;
  uint32_t resp_data_len = 0;
  Bytes resp_data;  // present when RSPVALID
  Bytes sense;      // present when SNSVALID

  // Response code of a task management function (byte 3 of the response
  // data), if RSPVALID and the response data holds it.
  std::optional<uint8_t> tmf_code() const;
};

struct CredReq {
  uint8_t sol_not = 0;
  int32_t req_lim_delta = 0;
  uint64_t tag = 0;
};

struct TLogout {
  uint8_t sol_not = 0;
  uint32_t reason = 0;
  uint64_t tag = 0;
};

struct AerReq {
  uint8_t sol_not = 0;
  int32_t req_lim_delta = 0;
  uint64_t tag = 0;
  Lun lun{};
  Bytes sense;
};

// Decoders check the opcode and every length; on failure they return
// nullopt and, if @why is given, say what was wrong.
std::optional<LoginRsp> decode_login_rsp(ByteView v,
                                         std::string *why = nullptr);
std::optional<LoginRej> decode_login_rej(ByteView v,
                                         std::string *why = nullptr);
std::optional<Rsp> decode_rsp(ByteView v, std::string *why = nullptr);
std::optional<CredReq> decode_cred_req(ByteView v, std::string *why = nullptr);
std::optional<TLogout> decode_t_logout(ByteView v, std::string *why = nullptr);
std::optional<AerReq> decode_aer_req(ByteView v, std::string *why = nullptr);

// ---------------------------------------------------------------------------
// SCSI
// ---------------------------------------------------------------------------

struct Sense {
  uint8_t key = 0;
  uint8_t asc = 0;
  uint8_t ascq = 0;
};
// Fixed (70h/71h) or descriptor (72h/73h) format sense data.
std::optional<Sense> decode_sense(ByteView v);
std::string sense_text(const Sense &s);  // "ILLEGAL REQUEST 0E/03"

namespace cdb {
Bytes test_unit_ready();
Bytes inquiry(uint16_t alloc_len, bool evpd = false, uint8_t page = 0);
Bytes read_capacity16(uint32_t alloc_len = 32);
Bytes read16(uint64_t lba, uint32_t blocks);
Bytes write16(uint64_t lba, uint32_t blocks);
Bytes report_luns(uint32_t alloc_len);
}  // namespace cdb

struct Capacity {
  uint64_t last_lba = 0;
  uint32_t block_size = 0;
};
std::optional<Capacity> decode_read_capacity16(ByteView v);

struct InquiryData {
  uint8_t peripheral_qualifier = 0;
  uint8_t device_type = 0;
  uint8_t additional_length = 0;
  std::string vendor;
  std::string product;
};
std::optional<InquiryData> decode_inquiry(ByteView v);

}  // namespace srp

#endif  // SRP_CLIENT_SRP_IU_H
