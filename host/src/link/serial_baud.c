/*
 * serial_baud.c -- any baud rate (e.g. 6000000 for an FT2232H at 12 MHz / 2)
 * through the Linux termios2 interface: TCGETS2 / TCSETS2 with BOTHER.
 * <asm/termbits.h> defines its own struct termios, so this file must not
 * include <termios.h> (see serial_port.c for the rest of the tty setup).
 */
#include "spu/spu.h"   /* plain C types only: no clash with asm/termbits.h */

#include <asm/ioctls.h>
#include <asm/termbits.h>
#include <errno.h>

/* <sys/ioctl.h> pulls in glibc's termios definitions; declare ioctl only. */
extern int ioctl(int fd, unsigned long request, ...);

int spu_serial_set_baud(int fd, unsigned baud);

int spu_serial_set_baud(int fd, unsigned baud)
{
    if (baud == 0)
        return SPU_EINVAL;
    struct termios2 t;
    if (ioctl(fd, TCGETS2, &t) != 0)
        return SPU_EIO;
    t.c_cflag &= ~(unsigned)CBAUD;
    t.c_cflag |= BOTHER;
    t.c_ispeed = baud;
    t.c_ospeed = baud;
    t.c_cflag &= ~(unsigned)(CBAUD << IBSHIFT);
    t.c_cflag |= BOTHER << IBSHIFT;
    if (ioctl(fd, TCSETS2, &t) != 0)
        return errno == EINVAL ? SPU_EINVAL : SPU_EIO;
    return 0;
}
