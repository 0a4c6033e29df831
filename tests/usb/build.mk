# tests/usb/build.mk -- the USB transports, end to end (docs/usb.md).
#   make test-usb   QEMU (TCG) guests with a real Linux USB stack: the emulated
#                   FTDI (ftdi://) and a usbredir vendor-class bridge (usb://),
#                   both in front of spu-sim; GEMMs bit-exact, link throughput.
#   make test-hw    the same device tests on a real board: SPU_DEVICE=URI
#                   (every test SKIPPED without it).
# Neither is part of `make test`.

DEBS += qemu-system-x86 linux-image-amd64 busybox-static libusbredirparser-dev cpio xz-utils zstd bc

USB_DIR       := $(BUILD)/usb
USBDEV_TESTS  := $(BUILD)/tests/spu_usbdev_tests
USBQEMU_TESTS := $(BUILD)/tests/spu_usbqemu_tests
USB_PEER      := $(USB_DIR)/spu-usbredir-peer
# the newest installed Debian kernel (the guest's; not necessarily the host's)
USB_KVER      := $(shell ls /boot/vmlinuz-* 2>/dev/null | sed 's|/boot/vmlinuz-||' | sort -V | tail -1)

# the device tests: on a real board (test-hw) and inside the guest
$(USBDEV_TESTS): $(BUILD)/obj/tests/usb/device/test_usb_device.o $(LIBSPU_A)
	@mkdir -p $(dir $@)
	$(CXX) -o $@ $< $(LIBSPU_A) $(GTEST_LIBS) $(LIBSPU_LIBS)

# the QEMU driver (host side)
$(USBQEMU_TESTS): $(BUILD)/obj/tests/usb/qemu/test_usb_qemu.o
	@mkdir -p $(dir $@)
	$(CXX) -o $@ $< $(GTEST_LIBS)

$(USB_PEER): tests/usb/spu_usbredir_peer.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -o $@ $< -lusbredirparser

# Guest binaries: libftdi1 and libusb linked statically (no libudev.a exists:
# libudev.so.1, libc and the loader are copied in by mkinitramfs.sh).
# (recursive: whatever else libspu links, e.g. -lz, comes from LIBSPU_LIBS)
USB_GUEST_LIBS = -Wl,-Bstatic -lftdi1 -lusb-1.0 -Wl,-Bdynamic -l:libudev.so.1 \
                 $(filter-out -lftdi1 -lusb-1.0,$(LIBSPU_LIBS))
$(USB_DIR)/guest/spu: $(CLI_OBJS) $(LIBSPU_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(CLI_OBJS) $(LIBSPU_A) $(USB_GUEST_LIBS)
$(USB_DIR)/guest/spu_usbdev_tests: $(BUILD)/obj/tests/usb/device/test_usb_device.o $(LIBSPU_A)
	@mkdir -p $(dir $@)
	$(CXX) -o $@ $< $(LIBSPU_A) $(GTEST_LIBS) $(USB_GUEST_LIBS)

$(USB_DIR)/guest/spu_usb_echo: tests/usb/spu_usb_echo.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(INCLUDES) -o $@ $< $(USB_GUEST_LIBS)

$(USB_DIR)/vmlinux: tests/usb/extract_vmlinux.sh
	@mkdir -p $(dir $@)
	@[ -n "$(USB_KVER)" ] || { echo "no /boot/vmlinuz-*: make deps installs linux-image-amd64"; exit 1; }
	tests/usb/extract_vmlinux.sh /boot/vmlinuz-$(USB_KVER) $@

USB_GUEST_BINS := $(USB_DIR)/guest/spu $(USB_DIR)/guest/spu_usbdev_tests $(USB_DIR)/guest/spu_usb_echo
$(USB_DIR)/initramfs.cpio.gz: tests/usb/mkinitramfs.sh tests/usb/guest_init.sh $(USB_GUEST_BINS)
	tests/usb/mkinitramfs.sh $@ $(USB_KVER) tests/usb/guest_init.sh $(USB_GUEST_BINS)

.PHONY: test-usb test-hw usb-guest
usb-guest: $(USB_DIR)/vmlinux $(USB_DIR)/initramfs.cpio.gz $(USB_PEER) $(SPU_SIM)

test-usb: deps usb-guest $(USBQEMU_TESTS)
	@BUILD=$(BUILD) tests/run_tests.sh $(USBQEMU_TESTS)

test-hw: $(USBDEV_TESTS)
	@tests/run_tests.sh $(USBDEV_TESTS)

-include $(wildcard $(BUILD)/obj/tests/usb/*/*.d)
