// SPDX-License-Identifier: GPL-2.0-only
//
// Sizes and offsets of the client's own encoders cross-checked against the
// target's wire structs (include/srpt_proto.h). Only sizes and offsets are
// compared: the client's encoding stays independent of the target's code.
#include <gtest/gtest.h>

#include <cstddef>

#include "srp_iu.h"
#include "srpt_proto.h"

using namespace srp;

TEST(CrossCheck, FixedSizes) {
  EXPECT_EQ(kLoginReqSize, sizeof(struct srpt_wire_login_req));
  EXPECT_EQ(kLoginReqRdmaSize, sizeof(struct srpt_wire_login_req_rdma));
  EXPECT_EQ(kLoginRspSize, sizeof(struct srpt_wire_login_rsp));
  EXPECT_EQ(kLoginRejSize, sizeof(struct srpt_wire_login_rej));
  EXPECT_EQ(kTskMgmtSize, sizeof(struct srpt_wire_tsk_mgmt));
  EXPECT_EQ(kCmdSize, sizeof(struct srpt_wire_cmd));
  EXPECT_EQ(kILogoutSize, sizeof(struct srpt_wire_i_logout));
  EXPECT_EQ(kTLogoutSize, sizeof(struct srpt_wire_t_logout));
  EXPECT_EQ(kCredReqSize, sizeof(struct srpt_wire_cred_req));
  EXPECT_EQ(kCredRspSize, sizeof(struct srpt_wire_cred_rsp));
  EXPECT_EQ(kAerReqSize, sizeof(struct srpt_wire_aer_req));
  EXPECT_EQ(kAerRspSize, sizeof(struct srpt_wire_aer_rsp));
  EXPECT_EQ(kRspSize, sizeof(struct srpt_wire_rsp));
  EXPECT_EQ(kDirectDescSize, sizeof(struct srpt_wire_direct_buf));
  EXPECT_EQ(kIndirectHdrSize, sizeof(struct srpt_wire_indirect_buf));
  EXPECT_EQ(kImmDescSize, sizeof(struct srpt_wire_imm_buf));
}

TEST(CrossCheck, EncodedSizes) {
  EXPECT_EQ(encode_login_req(LoginReq{}).size(),
            sizeof(struct srpt_wire_login_req));
  EXPECT_EQ(encode_login_req_rdma(LoginReq{}).size(),
            sizeof(struct srpt_wire_login_req_rdma));
  EXPECT_EQ(encode_tsk_mgmt(TskMgmt{}).size(),
            sizeof(struct srpt_wire_tsk_mgmt));
  EXPECT_EQ(CmdBuilder().build().size(), sizeof(struct srpt_wire_cmd));
  EXPECT_EQ(encode_i_logout(0).size(), sizeof(struct srpt_wire_i_logout));
  EXPECT_EQ(encode_cred_rsp(0).size(), sizeof(struct srpt_wire_cred_rsp));
  EXPECT_EQ(encode_aer_rsp(0).size(), sizeof(struct srpt_wire_aer_rsp));
}

// The offsets the encoders write at, against offsetof() in the target's
// structs.
TEST(CrossCheck, FieldOffsets) {
#define OFF(s, f) offsetof(struct srpt_wire_##s, f)
  EXPECT_EQ(OFF(login_req, tag), 8u);
  EXPECT_EQ(OFF(login_req, req_it_iu_len), 16u);
  EXPECT_EQ(OFF(login_req, req_buf_fmt), 24u);
  EXPECT_EQ(OFF(login_req, req_flags), 26u);
  EXPECT_EQ(OFF(login_req, imm_data_offset), 28u);
  EXPECT_EQ(OFF(login_req, initiator_port_id), 32u);
  EXPECT_EQ(OFF(login_req, target_port_id), 48u);
  EXPECT_EQ(OFF(login_req_rdma, req_buf_fmt), 8u);
  EXPECT_EQ(OFF(login_req_rdma, req_flags), 10u);
  EXPECT_EQ(OFF(login_req_rdma, opcode), 11u);
  EXPECT_EQ(OFF(login_req_rdma, req_it_iu_len), 12u);
  EXPECT_EQ(OFF(login_req_rdma, initiator_port_id), 16u);
  EXPECT_EQ(OFF(login_req_rdma, target_port_id), 32u);
  EXPECT_EQ(OFF(login_req_rdma, imm_data_offset), 48u);
  EXPECT_EQ(OFF(login_rsp, req_lim_delta), 4u);
  EXPECT_EQ(OFF(login_rsp, max_it_iu_len), 16u);
  EXPECT_EQ(OFF(login_rsp, max_ti_iu_len), 20u);
  EXPECT_EQ(OFF(login_rsp, buf_fmt), 24u);
  EXPECT_EQ(OFF(login_rsp, rsp_flags), 26u);
  EXPECT_EQ(OFF(login_rej, reason), 4u);
  EXPECT_EQ(OFF(login_rej, buf_fmt), 24u);
  EXPECT_EQ(OFF(cmd, buf_fmt), 5u);
  EXPECT_EQ(OFF(cmd, data_out_desc_cnt), 6u);
  EXPECT_EQ(OFF(cmd, data_in_desc_cnt), 7u);
  EXPECT_EQ(OFF(cmd, lun), 20u);
  EXPECT_EQ(OFF(cmd, task_attr), 29u);
  EXPECT_EQ(OFF(cmd, add_cdb_len), 31u);
  EXPECT_EQ(OFF(cmd, cdb), 32u);
  EXPECT_EQ(OFF(tsk_mgmt, lun), 20u);
  EXPECT_EQ(OFF(tsk_mgmt, tsk_mgmt_func), 30u);
  EXPECT_EQ(OFF(tsk_mgmt, task_tag), 32u);
  EXPECT_EQ(OFF(rsp, flags), 18u);
  EXPECT_EQ(OFF(rsp, status), 19u);
  EXPECT_EQ(OFF(rsp, data_out_res_cnt), 20u);
  EXPECT_EQ(OFF(rsp, data_in_res_cnt), 24u);
  EXPECT_EQ(OFF(rsp, sense_data_len), 28u);
  EXPECT_EQ(OFF(rsp, resp_data_len), 32u);
  EXPECT_EQ(OFF(cred_req, req_lim_delta), 4u);
  EXPECT_EQ(OFF(t_logout, reason), 4u);
  EXPECT_EQ(OFF(aer_req, lun), 20u);
  EXPECT_EQ(OFF(aer_req, sense_data_len), 28u);
  EXPECT_EQ(OFF(indirect_buf, len), 16u);
  EXPECT_EQ(OFF(indirect_buf, desc_list), 20u);
#undef OFF
}

TEST(CrossCheck, Constants) {
  EXPECT_EQ(kRejItIuLenTooLarge,
            static_cast<uint32_t>(SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE));
  EXPECT_EQ(kRejUnableAssociate,
            static_cast<uint32_t>(SRPT_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL));
  EXPECT_EQ(kRejUnsupportedFormat,
            static_cast<uint32_t>(SRPT_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT));
  EXPECT_EQ(kImmedRequested, SRPT_IMMED_REQUESTED);
  EXPECT_EQ(kRspImmedSupported, SRPT_LOGIN_RSP_IMMED_SUPP);
  EXPECT_EQ(kTmfRspInvalidFields, SRPT_TMF_RSP_INVALID_FIELDS);
}
