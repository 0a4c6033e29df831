/*
 * usb_uri.c -- VID:PID and numeric query values of USB URIs (usb_uri.h).
 */
#include "link/usb_uri.h"
#include "core/error_detail.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int hex16(const char *s, size_t n, int *out)
{
    if (n < 1 || n > 4)
        return -1;
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int d = (c >= '0' && c <= '9') ? c - '0'
              : (c >= 'a' && c <= 'f') ? c - 'a' + 10
              : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    *out = v;
    return 0;
}

int spu_usb_parse_ids(const char *scheme, const char *path, int *vid, int *pid, const char **rest)
{
    const char *colon = strchr(path, ':');
    size_t plen = colon ? strcspn(colon + 1, "/") : 0;
    if (!colon || hex16(path, (size_t)(colon - path), vid) || hex16(colon + 1, plen, pid)) {
        spu_error_detail_set("%s:// needs a USB id as hex VID:PID, e.g. %s://0403:6010; got '%s'",
                             scheme, scheme, path);
        return SPU_EINVAL;
    }
    *rest = colon + 1 + plen;
    return 0;
}

int spu_usb_param_uint(const spu_uri *u, const char *key, unsigned long lo, unsigned long hi,
                       unsigned long *out)
{
    char v[32];
    if (!spu_uri_param(u, key, v, sizeof v))
        return 0;
    char *end;
    errno = 0;
    unsigned long x = strtoul(v, &end, (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) ? 16 : 10);
    if (!v[0] || v[0] == '-' || *end || errno || x < lo || x > hi) {
        spu_error_detail_set(strncmp(key, "ep_", 3) ? "%s=%s: expected a number from %lu to %lu"
                                                    : "%s=%s: expected an endpoint address from 0x%02lx to 0x%02lx",
                             key, v, lo, hi);
        return SPU_EINVAL;
    }
    *out = x;
    return 0;
}
