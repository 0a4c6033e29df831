/*
 * usb_uri.h -- the "VID:PID[/REST]" part of ftdi:// and usb:// URIs and
 * small numeric query values (private to libspu).
 */
#ifndef SPU_USB_URI_H
#define SPU_USB_URI_H

#include "core/backend.h"

/* Parse "VVVV:PPPP" (hex, 1-4 digits each) at the start of path; *rest points
 * after it ("" or "/..."). 0 or SPU_EINVAL (with an error detail). */
int spu_usb_parse_ids(const char *scheme, const char *path, int *vid, int *pid, const char **rest);
/* Optional unsigned query value in [lo, hi] (decimal or 0x-hex): 0 and *out
 * (unchanged when the key is absent), or SPU_EINVAL with an error detail. */
int spu_usb_param_uint(const spu_uri *u, const char *key, unsigned long lo, unsigned long hi,
                       unsigned long *out);

#endif
