/*
 * serial_port.c -- open a tty or pty for the link: raw 8N1, no flow control,
 * non-blocking. Arbitrary baud rates go through serial_baud.c (termios2),
 * which cannot share a translation unit with <termios.h>.
 */
#include "link/link_client.h"

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

int spu_serial_open(const char *path, unsigned baud)
{
    int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return SPU_ENODEV;
    struct termios t;
    if (tcgetattr(fd, &t) != 0) {
        close(fd);
        return SPU_ENODEV;   /* not a terminal */
    }
    cfmakeraw(&t);
    t.c_cflag |= CLOCAL | CREAD;
    t.c_cflag &= ~(tcflag_t)(CSTOPB | PARENB | CRTSCTS);
    t.c_iflag &= ~(tcflag_t)(IXON | IXOFF | IXANY);
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    if (tcsetattr(fd, TCSANOW, &t) != 0) {
        close(fd);
        return SPU_EIO;
    }
    if (baud) {
        int rc = spu_serial_set_baud(fd, baud);
        if (rc) {
            close(fd);
            return rc;
        }
    }
    tcflush(fd, TCIOFLUSH);
    return fd;
}
