#!/bin/sh
# guest_init.sh -- /init of the QEMU guest of `make test-usb` (tests/usb/run_qemu.sh).
# Loads the USB stack, waits for the device under test, runs the checks of
# the case named on the kernel command line (spu.case=ftdi|usb|echo), prints one
# "SPU-CHECK name PASS|FAIL" line per check and "SPU-DONE", then leaves QEMU
# through isa-debug-exit (exit status 3 = all passed, 5 = a check failed).
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /tmp && mount -t tmpfs tmp /tmp
case_=$(sed -n 's/.*spu\.case=\([a-z]*\).*/\1/p' /proc/cmdline)
fails=0
check() {   # check NAME COMMAND...: run, keep the output, report
  name=$1; shift
  echo "SPU-RUN $name: $*"
  "$@" > /tmp/out 2>&1; rc=$?
  cat /tmp/out
  if [ $rc -eq 0 ]; then echo "SPU-CHECK $name PASS"; else echo "SPU-CHECK $name FAIL rc=$rc"; fails=$((fails + 1)); fi
}
expect_fail() {   # expect_fail NAME PATTERN COMMAND...: must exit 1 with PATTERN on stderr
  name=$1 pat=$2; shift 2
  echo "SPU-RUN $name: $*"
  "$@" > /tmp/out 2>&1; rc=$?
  cat /tmp/out
  if [ $rc -eq 1 ] && grep -q "$pat" /tmp/out; then echo "SPU-CHECK $name PASS"
  else echo "SPU-CHECK $name FAIL rc=$rc"; fails=$((fails + 1)); fi
}
finish() {
  echo "SPU-DONE fails=$fails"
  code=1; [ $fails -eq 0 ] || code=2
  printf "\\$(printf %o $code)" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null   # isa-debug-exit
  reboot -f
}
wait_usb() {   # wait_usb VID PID: until the device has enumerated (no udev here)
  i=0
  while [ $i -lt 200 ]; do
    for d in /sys/bus/usb/devices/*; do
      [ "$(cat $d/idVendor 2>/dev/null):$(cat $d/idProduct 2>/dev/null)" = "$1:$2" ] && return 0
    done
    sleep 0.1; i=$((i + 1))
  done
  echo "device $1:$2 did not enumerate in 20 s"; ls /sys/bus/usb/devices; return 1
}
for m in usb-common usbcore xhci-hcd xhci-pci usbserial ftdi_sio; do insmod /lib/modules/$m.ko || fails=$((fails + 1)); done
echo "SPU-GUEST case=$case_ kernel=$(uname -r)"
case "$case_" in
ftdi)
  dev=ftdi://0403:6001
  check enumerate wait_usb 0403 6001
  # ftdi_sio took the chip (ttyUSB0); libftdi must detach it
  i=0; while [ ! -e /dev/ttyUSB0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  check ftdi_sio_bound test -e /dev/ttyUSB0
  check devices_lists_ftdi sh -c "spu devices | grep -q '^ftdi://0403:6001/A'"
  check gemm spu gemm --device $dev --m 24 --n 20 --k 40 --seed 3
  check device_tests env SPU_DEVICE=$dev spu_usbdev_tests
  expect_fail absent_chip "FTDI device 0403:6010 interface B index 0 not found" spu info --device ftdi://0403:6010
  expect_fail refused_baud "baud=12000000 refused" spu info --device "$dev?baud=12000000"
  check still_answers spu info --device $dev
  ;;
usb)
  dev=usb://1209:0001
  check enumerate wait_usb 1209 0001
  check devices_lists_usb sh -c "spu devices | grep -q '^usb://1209:0001 '"
  check gemm spu gemm --device $dev --m 24 --n 20 --k 40 --seed 3
  check device_tests env SPU_DEVICE=$dev spu_usbdev_tests
  expect_fail absent_device "USB device 1209:0002 not found" spu info --device usb://1209:0002
  expect_fail no_interface "has no interface 1" spu info --device "$dev?interface=1"
  expect_fail wrong_endpoint "has no bulk endpoint 0x82" spu info --device "$dev?ep_in=0x82"
  check still_answers spu info --device $dev
  ;;
echo)
  check enumerate wait_usb 1209 0001
  check echo_64k spu_usb_echo 1209:0001 16 65536
  check echo_4k spu_usb_echo 1209:0001 2 4096
  # a device with the right id that is no SPU (it echoes the requests)
  expect_fail not_an_spu "opened, but no SPU answered" spu info --device "usb://1209:0001?timeout=300&retries=1"
  ;;
*)
  echo "unknown case '$case_'"; fails=$((fails + 1)) ;;
esac
finish
