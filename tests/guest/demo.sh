#!/bin/bash
# tests/guest/demo.sh: the README's demo, run inside the guest by
# scripts/demo.  Soft-RoCE, our ib_srpt, a target made with targetcli, the
# kernel's ib_srp logging in over RDMA/CM, a file system and fio with
# verification on the LUN, an IB/CM login of the test initiator module
# beside it (make testmod), and the figures.

# shellcheck source=tests/guest/lib.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"
# shellcheck source=tests/guest/login.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/login.sh"
# shellcheck source=tests/guest/ibcm.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/ibcm.sh"

CASE_NAME=demo
step() { printf '\n=== %s\n' "$*"; }
die() {
	echo "demo failed: $*"
	exit 1
}

step "Soft-RoCE device rxe0 on a guest-internal dummy netdev"
start_dbus || die "dbus"
setup_rxe || die "rxe"
rdma link show
step "Load our ib_srpt ($SRPT_KO) with an RDMA/CM listener on port $SRP_PORT"
load_srpt rdma_cm_port=$SRP_PORT || die "insmod"
modinfo -F version "$SRPT_KO"
step "Create the target with targetcli: ramdisk LUN, ACL for the initiator"
srp_target_up || die "target"
targetcli ls /srpt
step "Log in with the kernel's ib_srp (add_target, 2 channels)"
srp_login ch_count=2 || die "login"
dev=$(srp_disk) || die "no disk"
lsscsi | grep -i lio
sg_inq "$dev" | sed -n '1,12p'
sg_readcap "$dev"
step "ext4 on $dev: write files, unmount, fsck, compare checksums"
mnt=/tmp/demo-fs
mkdir -p "$mnt"
mkfs.ext4 -q -F "$dev" && mount "$dev" "$mnt" || die "mkfs/mount"
cp -a "$PROJECT/src" "$mnt/" && dd if=/dev/urandom of="$mnt/blob" bs=1M count=8 status=none
sums=$(cd "$mnt" && find . -type f -print0 | sort -z | xargs -0 md5sum)
umount "$mnt" && fsck.ext4 -f -n "$dev" || die "fsck"
mount "$dev" "$mnt" || die "remount"
[[ $(cd "$mnt" && find . -type f -print0 | sort -z | xargs -0 md5sum) == "$sums" ]] || die "checksums differ"
echo "checksums of $(wc -l <<<"$sums") files match"
umount "$mnt"
step "fio: 4k random writes with crc32c verification (immediate data)"
fio --name=demo4k --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite \
	--bs=4k --size=32M --iodepth=16 --verify=crc32c --do_verify=1 --verify_fatal=1 |
	grep -E 'IOPS|err=|lat \(usec\): min' || die "fio 4k"
step "fio: 1 MiB sequential writes with verification (RDMA READ/WRITE)"
fio --name=demo1m --filename="$dev" --ioengine=libaio --direct=1 --rw=write \
	--bs=1M --size=64M --iodepth=4 --verify=crc32c --do_verify=1 --verify_fatal=1 |
	grep -E 'IOPS|err=' || die "fio 1m"
step "Beside it, an IB/CM login: the test initiator srp_ibcm_init (tests/kmod)"
ibcm_acl "$IBCM_EXT" && ibcm_load && ibcm_login a "$IBCM_EXT" || die "IB/CM login"
[[ $(ibcm_get a login) == accepted ]] || die "IB/CM login: $(ibcm_get a login)"
ibcm_cmd io name=a || die "IB/CM I/O"
grep -E '^a\.(login|tur|write_direct|read_direct|write_indirect|read_indirect|write_imm|read_imm)=' \
	"$IBCM_DIR/status"
step "Target channels and their counters (cm=rdma: ib_srp, cm=ib: srp_ibcm_init)"
channels
ibcm_cmd dreq name=a && ibcm_cmd close name=a && ibcm_unload || die "IB/CM logout"
step "Log out, tear down, unload"
srp_target_down || die "teardown"
rmmod ib_srpt || die "rmmod"
dmesg | grep ib_srpt | tail -n 12
if dmesg | dmesg_splats; then
	die "kernel splat in dmesg"
fi
echo
echo "demo finished: no errors, dmesg clean"
