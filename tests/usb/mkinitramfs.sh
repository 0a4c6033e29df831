#!/usr/bin/env bash
# mkinitramfs.sh OUT.cpio.gz KVER INIT BIN... -- the initramfs of the QEMU guest
# of `make test-usb`: busybox-static, the USB modules of kernel KVER (usbcore,
# xHCI, usbserial + ftdi_sio), the given binaries with every shared library
# they need (found by ldd) and the dynamic loader, and INIT as /init.
set -euo pipefail
out=$1 kver=$2 init=$3; shift 3
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,proc,sys,dev,tmp,lib/modules}
cp /bin/busybox "$root/bin/busybox"
# `busybox --list` names busybox itself: linking it would overwrite the binary
for a in $(/bin/busybox --list); do
  [ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"
done
mods=/lib/modules/$kver/kernel/drivers/usb
for m in common/usb-common core/usbcore host/xhci-hcd host/xhci-pci serial/usbserial serial/ftdi_sio; do
  f=$(ls "$mods/$m.ko"* 2>/dev/null | head -1)
  [ -n "$f" ] || { echo "mkinitramfs: no module $m for kernel $kver" >&2; exit 1; }
  case "$f" in
    *.xz) xz -dc "$f" > "$root/lib/modules/$(basename "$m").ko" ;;
    *.zst) zstd -qdc "$f" > "$root/lib/modules/$(basename "$m").ko" ;;
    *) cp "$f" "$root/lib/modules/$(basename "$m").ko" ;;
  esac
done
for b in "$@"; do
  cp "$b" "$root/bin/"
  # every library ldd resolves, at the same path, plus the loader
  ldd "$b" | awk '/=> \//{print $3} /^\t\/.*ld-linux/{print $1}' | while read -r lib; do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
done
cp "$init" "$root/init"
chmod 755 "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
