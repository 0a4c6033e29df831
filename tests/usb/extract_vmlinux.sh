#!/usr/bin/env bash
# extract_vmlinux.sh VMLINUZ OUT -- the uncompressed kernel inside a bzImage.
# Under TCG, QEMU boots the ELF vmlinux directly through its PVH entry (the
# Debian kernel has CONFIG_PVH) and saves the ~10 s of decompressing it.
set -euo pipefail
in=$1 out=$2
try() {   # try MAGIC DECOMPRESSOR...: each occurrence of the magic until an ELF comes out
  local magic=$1; shift
  for off in $(LC_ALL=C grep -aobUP "$magic" "$in" | cut -d: -f1); do
    tail -c +$((off + 1)) "$in" | "$@" > "$out.tmp" 2>/dev/null || true
    if [ "$(head -c 4 "$out.tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
      mv "$out.tmp" "$out"; return 0
    fi
  done
  return 1
}
try '\xFD\x37\x7A\x58\x5A\x00' xz -dc ||
try '\x28\xB5\x2F\xFD' zstd -dc ||
try '\x1F\x8B\x08' gzip -dc ||
{ rm -f "$out.tmp"; echo "extract_vmlinux: no ELF kernel found in $in" >&2; exit 1; }
