#!/usr/bin/env bash
# run_qemu.sh CASE OUTDIR -- one QEMU (TCG) guest run of `make test-usb`.
#   CASE ftdi: -device usb-serial (QEMU's FT232BM, 0403:6001) whose chardev is
#              spu-sim's pty: guest libftdi1 -> libusb -> usbfs -> xHCI -> FTDI
#              -> chardev -> the Verilated board.
#   CASE usb:  -device usb-redir whose chardev is tests/usb/spu_usbredir_peer
#              (a vendor-class bulk device made of software) in front of spu-sim.
#   CASE echo: the same bridge returning every bulk OUT byte on bulk IN: raw
#              USB throughput without the link protocol or spu-sim.
# Everything is started here and stopped by pid; the guest is killed after
# $SPU_USB_TIMEOUT s (default 150). Writes OUTDIR/console.log (the guest's
# serial console: SPU-CHECK lines) and exits 0 only if the guest reported
# SPU-DONE fails=0 through isa-debug-exit.
# Environment: BUILD (default build), SPU_USB_TIMEOUT.
set -uo pipefail
case_=$1 out=$2
B=${BUILD:-build}
T=${SPU_USB_TIMEOUT:-150}
mkdir -p "$out"
rm -f "$out"/*.log "$out"/*.out "$out"/*.err
sock_dir=$(mktemp -d /tmp/spu-usb.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null
  done
  rm -rf "$sock_dir"
}
trap cleanup EXIT
fail() { echo "run_qemu: $*" >&2; exit 1; }
wait_line() {   # wait_line FILE PATTERN SECONDS
  for _ in $(seq $(($3 * 10))); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
for f in "$B/usb/vmlinux" "$B/usb/initramfs.cpio.gz" "$B/bin/spu-sim"; do
  [ -e "$f" ] || fail "missing $f (make test-usb builds it)"
done
command -v qemu-system-x86_64 >/dev/null || fail "qemu-system-x86_64 not installed (make deps)"

if [ "$case_" != echo ]; then
  "$B/bin/spu-sim" > "$out/sim.out" 2> "$out/sim.err" &
  pids+=($!)
  wait_line "$out/sim.out" '^pty ' 20 || fail "spu-sim did not start: $(cat "$out/sim.err")"
  pty=$(sed -n 's/^pty //p' "$out/sim.out" | head -1)
fi

case "$case_" in
ftdi)
  usbdev=(-chardev "serial,id=ser0,path=$pty" -device usb-serial,bus=xhci.0,chardev=ser0) ;;
usb)
  # the peer must listen before QEMU starts
  "$B/usb/spu-usbredir-peer" --listen "$sock_dir/redir.sock" --tty "$pty" --timeout $((T + 30)) \
      > "$out/peer.out" 2> "$out/peer.err" &
  pids+=($!)
  wait_line "$out/peer.out" '^listening ' 20 || fail "usbredir peer did not start: $(cat "$out/peer.err")"
  usbdev=(-chardev "socket,id=redir0,path=$sock_dir/redir.sock" -device usb-redir,bus=xhci.0,chardev=redir0) ;;
echo)
  # the raw bulk pipe: the peer returns every OUT byte on IN (no link protocol, no spu-sim)
  "$B/usb/spu-usbredir-peer" --listen "$sock_dir/redir.sock" --echo --timeout $((T + 30)) \
      > "$out/peer.out" 2> "$out/peer.err" &
  pids+=($!)
  wait_line "$out/peer.out" '^listening ' 20 || fail "usbredir peer did not start: $(cat "$out/peer.err")"
  usbdev=(-chardev "socket,id=redir0,path=$sock_dir/redir.sock" -device usb-redir,bus=xhci.0,chardev=redir0) ;;
*) fail "unknown case $case_" ;;
esac

start=$(date +%s.%N)
timeout -k 5 "$T" qemu-system-x86_64 -M q35 -accel tcg -cpu max -smp 1 -m 512 \
  -nodefaults -display none -no-reboot \
  -kernel "$B/usb/vmlinux" -initrd "$B/usb/initramfs.cpio.gz" \
  -append "console=ttyS0 panic=-1 quiet loglevel=3 spu.case=$case_" \
  -serial "file:$out/console.log" \
  -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
  -device qemu-xhci,id=xhci "${usbdev[@]}" \
  > "$out/qemu.out" 2>&1
rc=$?
end=$(date +%s.%N)
echo "run_qemu: case $case_: qemu exit $rc after $(echo "$end - $start" | bc 2>/dev/null || echo "?") s" >> "$out/qemu.out"
[ $rc -eq 124 ] && echo "run_qemu: guest killed after $T s" >> "$out/qemu.out"
cat "$out/qemu.out" >&2
# isa-debug-exit: status (1 << 1) | 1 = 3 when the guest wrote 1 (all passed)
[ $rc -eq 3 ] && grep -q '^SPU-DONE fails=0' "$out/console.log"
