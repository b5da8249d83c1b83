// Sizes and field offsets of every SRP wire structure, checked against the
// numbers of T10 SRP / SRP-2 (see shared/srp-notes.md) and the Linux
// <scsi/srp.h> layouts.
#include <gtest/gtest.h>

#include <cstddef>

#include "srpt_proto.h"

#define OFF(s, f) offsetof(struct srpt_wire_##s, f)
#define SZ(s) sizeof(struct srpt_wire_##s)

TEST(Layout, Sizes)
{
	EXPECT_EQ(SZ(login_req), 64u);
	EXPECT_EQ(SZ(login_req_rdma), 56u);
	EXPECT_EQ(SZ(login_rsp), 52u);
	EXPECT_EQ(SZ(login_rej), 32u);
	EXPECT_EQ(SZ(tsk_mgmt), 48u);
	EXPECT_EQ(SZ(cmd), 48u);
	EXPECT_EQ(SZ(rsp), 36u);
	EXPECT_EQ(SZ(i_logout), 16u);
	EXPECT_EQ(SZ(t_logout), 16u);
	EXPECT_EQ(SZ(cred_req), 16u);
	EXPECT_EQ(SZ(cred_rsp), 16u);
	EXPECT_EQ(SZ(aer_req), 36u);
	EXPECT_EQ(SZ(aer_rsp), 16u);
	EXPECT_EQ(SZ(direct_buf), 16u);
	EXPECT_EQ(SZ(indirect_buf), 20u);
	EXPECT_EQ(SZ(imm_buf), 4u);
}

// All wire structs are byte aligned so that a pointer to one may point
// anywhere inside a receive buffer.
TEST(Layout, ByteAligned)
{
	EXPECT_EQ(alignof(struct srpt_wire_login_req), 1u);
	EXPECT_EQ(alignof(struct srpt_wire_login_rsp), 1u);
	EXPECT_EQ(alignof(struct srpt_wire_cmd), 1u);
	EXPECT_EQ(alignof(struct srpt_wire_rsp), 1u);
	EXPECT_EQ(alignof(struct srpt_wire_direct_buf), 1u);
	EXPECT_EQ(alignof(struct srpt_wire_indirect_buf), 1u);
	EXPECT_EQ(alignof(struct srpt_wire_tsk_mgmt), 1u);
}

TEST(Layout, LoginReq)
{
	EXPECT_EQ(OFF(login_req, opcode), 0u);
	EXPECT_EQ(OFF(login_req, tag), 8u);
	EXPECT_EQ(OFF(login_req, req_it_iu_len), 16u);
	EXPECT_EQ(OFF(login_req, req_buf_fmt), 24u);
	EXPECT_EQ(OFF(login_req, req_flags), 26u);
	EXPECT_EQ(OFF(login_req, imm_data_offset), 28u);
	EXPECT_EQ(OFF(login_req, initiator_port_id), 32u);
	EXPECT_EQ(OFF(login_req, target_port_id), 48u);
}

TEST(Layout, LoginReqRdma)
{
	EXPECT_EQ(OFF(login_req_rdma, tag), 0u);
	EXPECT_EQ(OFF(login_req_rdma, req_buf_fmt), 8u);
	EXPECT_EQ(OFF(login_req_rdma, req_flags), 10u);
	EXPECT_EQ(OFF(login_req_rdma, opcode), 11u);
	EXPECT_EQ(OFF(login_req_rdma, req_it_iu_len), 12u);
	EXPECT_EQ(OFF(login_req_rdma, initiator_port_id), 16u);
	EXPECT_EQ(OFF(login_req_rdma, target_port_id), 32u);
	EXPECT_EQ(OFF(login_req_rdma, imm_data_offset), 48u);
	EXPECT_EQ(OFF(login_req_rdma, reserved), 50u);
}

TEST(Layout, LoginRsp)
{
	EXPECT_EQ(OFF(login_rsp, opcode), 0u);
	EXPECT_EQ(OFF(login_rsp, req_lim_delta), 4u);
	EXPECT_EQ(OFF(login_rsp, tag), 8u);
	EXPECT_EQ(OFF(login_rsp, max_it_iu_len), 16u);
	EXPECT_EQ(OFF(login_rsp, max_ti_iu_len), 20u);
	EXPECT_EQ(OFF(login_rsp, buf_fmt), 24u);
	EXPECT_EQ(OFF(login_rsp, rsp_flags), 26u);
	EXPECT_EQ(OFF(login_rsp, reserved2), 27u);
}

TEST(Layout, LoginRej)
{
	EXPECT_EQ(OFF(login_rej, opcode), 0u);
	EXPECT_EQ(OFF(login_rej, reason), 4u);
	EXPECT_EQ(OFF(login_rej, tag), 8u);
	EXPECT_EQ(OFF(login_rej, buf_fmt), 24u);
	EXPECT_EQ(OFF(login_rej, reserved3), 26u);
}

TEST(Layout, Logout)
{
	EXPECT_EQ(OFF(i_logout, opcode), 0u);
	EXPECT_EQ(OFF(i_logout, tag), 8u);
	EXPECT_EQ(OFF(t_logout, opcode), 0u);
	EXPECT_EQ(OFF(t_logout, sol_not), 1u);
	EXPECT_EQ(OFF(t_logout, reason), 4u);
	EXPECT_EQ(OFF(t_logout, tag), 8u);
}

TEST(Layout, TskMgmt)
{
	EXPECT_EQ(OFF(tsk_mgmt, opcode), 0u);
	EXPECT_EQ(OFF(tsk_mgmt, sol_not), 1u);
	EXPECT_EQ(OFF(tsk_mgmt, tag), 8u);
	EXPECT_EQ(OFF(tsk_mgmt, lun), 20u);
	EXPECT_EQ(OFF(tsk_mgmt, tsk_mgmt_func), 30u);
	EXPECT_EQ(OFF(tsk_mgmt, task_tag), 32u);
	EXPECT_EQ(OFF(tsk_mgmt, reserved5), 40u);
}

TEST(Layout, Cmd)
{
	EXPECT_EQ(OFF(cmd, opcode), 0u);
	EXPECT_EQ(OFF(cmd, sol_not), 1u);
	EXPECT_EQ(OFF(cmd, buf_fmt), 5u);
	EXPECT_EQ(OFF(cmd, data_out_desc_cnt), 6u);
	EXPECT_EQ(OFF(cmd, data_in_desc_cnt), 7u);
	EXPECT_EQ(OFF(cmd, tag), 8u);
	EXPECT_EQ(OFF(cmd, lun), 20u);
	EXPECT_EQ(OFF(cmd, task_attr), 29u);
	EXPECT_EQ(OFF(cmd, add_cdb_len), 31u);
	EXPECT_EQ(OFF(cmd, cdb), 32u);
	EXPECT_EQ(OFF(cmd, add_data), 48u);
}

TEST(Layout, Rsp)
{
	EXPECT_EQ(OFF(rsp, opcode), 0u);
	EXPECT_EQ(OFF(rsp, sol_not), 1u);
	EXPECT_EQ(OFF(rsp, req_lim_delta), 4u);
	EXPECT_EQ(OFF(rsp, tag), 8u);
	EXPECT_EQ(OFF(rsp, flags), 18u);
	EXPECT_EQ(OFF(rsp, status), 19u);
	EXPECT_EQ(OFF(rsp, data_out_res_cnt), 20u);
	EXPECT_EQ(OFF(rsp, data_in_res_cnt), 24u);
	EXPECT_EQ(OFF(rsp, sense_data_len), 28u);
	EXPECT_EQ(OFF(rsp, resp_data_len), 32u);
	EXPECT_EQ(OFF(rsp, data), 36u);
}

TEST(Layout, CredAer)
{
	EXPECT_EQ(OFF(cred_req, opcode), 0u);
	EXPECT_EQ(OFF(cred_req, sol_not), 1u);
	EXPECT_EQ(OFF(cred_req, req_lim_delta), 4u);
	EXPECT_EQ(OFF(cred_req, tag), 8u);
	EXPECT_EQ(OFF(cred_rsp, opcode), 0u);
	EXPECT_EQ(OFF(cred_rsp, tag), 8u);
	EXPECT_EQ(OFF(aer_req, opcode), 0u);
	EXPECT_EQ(OFF(aer_req, sol_not), 1u);
	EXPECT_EQ(OFF(aer_req, req_lim_delta), 4u);
	EXPECT_EQ(OFF(aer_req, tag), 8u);
	EXPECT_EQ(OFF(aer_req, lun), 20u);
	EXPECT_EQ(OFF(aer_req, sense_data_len), 28u);
	EXPECT_EQ(OFF(aer_req, sense_data), 36u);
	EXPECT_EQ(OFF(aer_rsp, opcode), 0u);
	EXPECT_EQ(OFF(aer_rsp, tag), 8u);
}

TEST(Layout, Descriptors)
{
	EXPECT_EQ(OFF(direct_buf, va), 0u);
	EXPECT_EQ(OFF(direct_buf, key), 8u);
	EXPECT_EQ(OFF(direct_buf, len), 12u);
	EXPECT_EQ(OFF(indirect_buf, table_desc), 0u);
	EXPECT_EQ(OFF(indirect_buf, len), 16u);
	EXPECT_EQ(OFF(indirect_buf, desc_list), 20u);
	EXPECT_EQ(OFF(imm_buf, len), 0u);
}

TEST(Layout, Constants)
{
	EXPECT_EQ(SRPT_OP_LOGIN_REQ, 0x00);
	EXPECT_EQ(SRPT_OP_TSK_MGMT, 0x01);
	EXPECT_EQ(SRPT_OP_CMD, 0x02);
	EXPECT_EQ(SRPT_OP_I_LOGOUT, 0x03);
	EXPECT_EQ(SRPT_OP_CRED_RSP, 0x41);
	EXPECT_EQ(SRPT_OP_AER_RSP, 0x42);
	EXPECT_EQ(SRPT_OP_T_LOGOUT, 0x80);
	EXPECT_EQ(SRPT_OP_CRED_REQ, 0x81);
	EXPECT_EQ(SRPT_OP_AER_REQ, 0x82);
	EXPECT_EQ(SRPT_OP_LOGIN_RSP, 0xc0);
	EXPECT_EQ(SRPT_OP_RSP, 0xc1);
	EXPECT_EQ(SRPT_OP_LOGIN_REJ, 0xc2);

	EXPECT_EQ(SRPT_BUF_FORMAT_DIRECT, 0x2);
	EXPECT_EQ(SRPT_BUF_FORMAT_INDIRECT, 0x4);
	EXPECT_EQ(SRPT_DATA_DESC_IMM, 3);

	EXPECT_EQ(SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL, 0x10000);
	EXPECT_EQ(SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES, 0x10001);
	EXPECT_EQ(SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE, 0x10002);
	EXPECT_EQ(SRPT_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL, 0x10003);
	EXPECT_EQ(SRPT_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT, 0x10004);
	EXPECT_EQ(SRPT_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED, 0x10005);
	EXPECT_EQ(SRPT_LOGIN_REJ_CHANNEL_LIMIT_REACHED, 0x10006);

	EXPECT_EQ(SRPT_IMMED_REQUESTED, 0x80);
	EXPECT_EQ(SRPT_LOGIN_RSP_IMMED_SUPP, 0x80);
	EXPECT_EQ(SRPT_LOGIN_RSP_MULTICHAN_TERMINATED, 1);
	EXPECT_EQ(SRPT_LOGIN_RSP_MULTICHAN_MAINTAINED, 2);

	EXPECT_EQ(SRPT_RSP_FLAG_RSPVALID, 0x01);
	EXPECT_EQ(SRPT_RSP_FLAG_SNSVALID, 0x02);
	EXPECT_EQ(SRPT_RSP_FLAG_DOOVER, 0x04);
	EXPECT_EQ(SRPT_RSP_FLAG_DOUNDER, 0x08);
	EXPECT_EQ(SRPT_RSP_FLAG_DIOVER, 0x10);
	EXPECT_EQ(SRPT_RSP_FLAG_DIUNDER, 0x20);

	EXPECT_EQ(SRPT_TSK_ABORT_TASK, 0x01);
	EXPECT_EQ(SRPT_TSK_ABORT_TASK_SET, 0x02);
	EXPECT_EQ(SRPT_TSK_CLEAR_TASK_SET, 0x04);
	EXPECT_EQ(SRPT_TSK_LUN_RESET, 0x08);
	EXPECT_EQ(SRPT_TSK_CLEAR_ACA, 0x40);

	EXPECT_EQ(SRPT_TMF_RSP_COMPLETE, 0x00);
	EXPECT_EQ(SRPT_TMF_RSP_INVALID_FIELDS, 0x02);
	EXPECT_EQ(SRPT_TMF_RSP_NOT_SUPPORTED, 0x04);
	EXPECT_EQ(SRPT_TMF_RSP_FAILED, 0x05);

	EXPECT_EQ(SRPT_TASK_ATTR_SIMPLE, 0);
	EXPECT_EQ(SRPT_TASK_ATTR_HEAD_OF_QUEUE, 1);
	EXPECT_EQ(SRPT_TASK_ATTR_ORDERED, 2);
	EXPECT_EQ(SRPT_TASK_ATTR_ACA, 4);

	EXPECT_EQ(SRPT_SOLNT_SC, 0x02);
	EXPECT_EQ(SRPT_SOLNT_UC, 0x04);
}
