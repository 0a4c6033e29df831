/*
 * spu_usbredir_peer.c -- a test peer for `make test-usb`: a USB device made of
 * software, attached to a QEMU guest through `-device usb-redir`.
 *
 *   spu-usbredir-peer --listen SOCKET (--tty PATH | --echo) [--vid 0x1209 --pid 0x0001]
 *
 * It listens on a unix socket (QEMU connects to it with
 * `-chardev socket,path=SOCKET`), speaks the usbredir protocol through
 * libusbredirparser as the "usb-host" side, and presents a high-speed
 * vendor-class device (class 0xff) with one bulk pair, OUT 0x01 / IN 0x81,
 * 512-byte packets: what a board with an FX2/FT60x-style bridge or a soft USB
 * core looks like to libspu's usb:// backend. Bytes the guest sends to 0x01
 * go to the tty (spu-sim's pty: the Verilated board); bytes from the tty are
 * returned on 0x81. --echo returns the OUT bytes instead (a raw pipe, for
 * throughput). A bulk IN is answered only when data exists (the guest's
 * controller sees a NAK until then) and never with more than requested.
 * QEMU does SET_ADDRESS itself; descriptors arrive as control packets.
 *
 * Prints "listening SOCKET" on stdout when ready, and at exit a byte count
 * on stderr. Exits when QEMU disconnects, on SIGTERM, or after --timeout s.
 */
#include <usbredirparser.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define EP_OUT 0x01
#define EP_IN 0x81
#define MPS 512
#define MAX_PENDING 64

typedef struct pending_in {
    uint64_t id;
    uint32_t len;
} pending_in;

static struct {
    struct usbredirparser *p;
    int sock;                   /* QEMU */
    int tty;                    /* spu-sim's pty, or -1 with --echo */
    int echo;
    int verbose;
    uint16_t vid, pid;
    uint8_t config;             /* 0 until SET_CONFIGURATION */
    pending_in in[MAX_PENDING]; /* bulk IN requests waiting for data */
    int nin;
    uint8_t *rx;                /* bytes for the guest (from the tty / echo) */
    size_t rx_len, rx_cap;
    uint8_t *tx;                /* bytes for the tty */
    size_t tx_len, tx_cap;
    unsigned long long bytes_out, bytes_in;
    int dead;
} g;

static volatile sig_atomic_t g_stop;
static void on_signal(int s)
{
    (void)s;
    g_stop = 1;
}

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("spu-usbredir-peer: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void append(uint8_t **buf, size_t *len, size_t *cap, const uint8_t *d, size_t n)
{
    if (*len + n > *cap) {
        size_t c = *cap ? *cap : 65536;
        while (c < *len + n)
            c *= 2;
        *buf = realloc(*buf, c);
        if (!*buf)
            die("out of memory");
        *cap = c;
    }
    memcpy(*buf + *len, d, n);
    *len += n;
}

static void consume(uint8_t *buf, size_t *len, size_t n)
{
    memmove(buf, buf + n, *len - n);
    *len -= n;
}

/* ---- parser I/O ------------------------------------------------------------ */
static void log_cb(void *priv, int level, const char *msg)
{
    (void)priv;
    if (level <= usbredirparser_warning || g.verbose)
        fprintf(stderr, "spu-usbredir-peer: usbredir: %s\n", msg);
}

static int read_cb(void *priv, uint8_t *data, int count)
{
    (void)priv;
    ssize_t n = read(g.sock, data, (size_t)count);
    if (n == 0) {
        g.dead = 1;
        return -1;
    }
    if (n < 0)
        return (errno == EAGAIN || errno == EINTR) ? 0 : -1;
    return (int)n;
}

static int write_cb(void *priv, uint8_t *data, int count)
{
    (void)priv;
    ssize_t n = send(g.sock, data, (size_t)count, MSG_NOSIGNAL);
    if (n < 0)
        return (errno == EAGAIN || errno == EINTR) ? 0 : -1;
    return (int)n;
}

/* ---- the device ------------------------------------------------------------ */
static const uint8_t dev_desc[18] = {
    18, 1, 0x00, 0x02,          /* bcdUSB 2.00 (no BOS request) */
    0x00, 0x00, 0x00, 64,       /* class in the interface; ep0 64 bytes */
    0, 0, 0, 0,                 /* idVendor, idProduct: filled in */
    0x00, 0x01, 1, 2, 3, 1,     /* bcdDevice 1.00, strings 1-3, 1 configuration */
};
static const uint8_t cfg_desc[32] = {
    9, 2, 32, 0, 1, 1, 0, 0x80, 50,       /* 1 interface, config 1, bus powered 100 mA */
    9, 4, 0, 0, 2, 0xff, 0x00, 0x00, 0,   /* interface 0: vendor class, 2 endpoints */
    7, 5, EP_OUT, 0x02, MPS & 0xff, MPS >> 8, 0,
    7, 5, EP_IN, 0x02, MPS & 0xff, MPS >> 8, 0,
};
static const uint8_t qualifier_desc[10] = { 10, 6, 0x00, 0x02, 0, 0, 0, 64, 1, 0 };
static const char *strings[] = { NULL, "SPU project", "SPU usbredir test bridge", "SPU-QEMU-0001" };

static int string_desc(int idx, uint8_t *out)
{
    if (idx == 0) {
        out[0] = 4, out[1] = 3, out[2] = 0x09, out[3] = 0x04;   /* English (US) */
        return 4;
    }
    if (idx < 1 || idx > 3)
        return -1;
    size_t n = strlen(strings[idx]);
    out[0] = (uint8_t)(2 + 2 * n);
    out[1] = 3;
    for (size_t i = 0; i < n; i++)
        out[2 + 2 * i] = (uint8_t)strings[idx][i], out[3 + 2 * i] = 0;
    return (int)(2 + 2 * n);
}

static void hello_cb(void *priv, struct usb_redir_hello_header *h)
{
    (void)priv;
    if (g.verbose)
        fprintf(stderr, "spu-usbredir-peer: hello from %s\n", h->version);
    struct usb_redir_interface_info_header ii;
    memset(&ii, 0, sizeof ii);
    ii.interface_count = 1;
    ii.interface[0] = 0;
    ii.interface_class[0] = 0xff;
    usbredirparser_send_interface_info(g.p, &ii);

    struct usb_redir_ep_info_header ep;
    memset(&ep, 0, sizeof ep);
    for (int i = 0; i < 32; i++)
        ep.type[i] = usb_redir_type_invalid;
    ep.type[0] = ep.type[16] = usb_redir_type_control;
    ep.max_packet_size[0] = ep.max_packet_size[16] = 64;
    ep.type[EP_OUT & 0x0f] = usb_redir_type_bulk;             /* index 1: OUT 0x01 */
    ep.type[16 | (EP_IN & 0x0f)] = usb_redir_type_bulk;       /* index 17: IN 0x81 */
    ep.max_packet_size[EP_OUT & 0x0f] = MPS;
    ep.max_packet_size[16 | (EP_IN & 0x0f)] = MPS;
    usbredirparser_send_ep_info(g.p, &ep);

    struct usb_redir_device_connect_header dc = {
        .speed = usb_redir_speed_high, .device_class = 0, .device_subclass = 0,
        .device_protocol = 0, .vendor_id = g.vid, .product_id = g.pid,
        .device_version_bcd = 0x0100,
    };
    usbredirparser_send_device_connect(g.p, &dc);
}

static void control_cb(void *priv, uint64_t id, struct usb_redir_control_packet_header *c,
                       uint8_t *data, int data_len)
{
    (void)priv;
    uint8_t buf[256];
    int n = -1;   /* -1: stall */
    struct usb_redir_control_packet_header r = *c;
    if (c->requesttype & 0x80) {
        if (c->requesttype == 0x80 && c->request == 6) {          /* GET_DESCRIPTOR */
            switch (c->value >> 8) {
            case 1:
                memcpy(buf, dev_desc, sizeof dev_desc);
                buf[8] = (uint8_t)g.vid, buf[9] = (uint8_t)(g.vid >> 8);
                buf[10] = (uint8_t)g.pid, buf[11] = (uint8_t)(g.pid >> 8);
                n = sizeof dev_desc;
                break;
            case 2: memcpy(buf, cfg_desc, sizeof cfg_desc); n = sizeof cfg_desc; break;
            case 3: n = string_desc(c->value & 0xff, buf); break;
            case 6: memcpy(buf, qualifier_desc, sizeof qualifier_desc); n = sizeof qualifier_desc; break;
            default: break;
            }
        } else if (c->request == 0) {                             /* GET_STATUS */
            buf[0] = buf[1] = 0;
            n = 2;
        }
        if (n > c->length)
            n = c->length;
    } else {
        n = 0;   /* CLEAR_FEATURE(halt) and the like: accepted */
    }
    if (g.verbose)
        fprintf(stderr, "spu-usbredir-peer: control type %02x req %02x value %04x len %u -> %d\n",
                c->requesttype, c->request, c->value, c->length, n);
    if (data)
        usbredirparser_free_packet_data(g.p, data);
    (void)data_len;
    r.status = n < 0 ? usb_redir_stall : usb_redir_success;
    r.length = (uint16_t)(n < 0 ? 0 : n);
    usbredirparser_send_control_packet(g.p, id, &r, (c->requesttype & 0x80) && n > 0 ? buf : NULL,
                                       (c->requesttype & 0x80) && n > 0 ? n : 0);
}

static void set_config_cb(void *priv, uint64_t id, struct usb_redir_set_configuration_header *s)
{
    (void)priv;
    struct usb_redir_configuration_status_header st = { usb_redir_success, s->configuration };
    if (s->configuration > 1)
        st.status = usb_redir_stall;
    else
        g.config = s->configuration;
    usbredirparser_send_configuration_status(g.p, id, &st);
}

static void get_config_cb(void *priv, uint64_t id)
{
    (void)priv;
    struct usb_redir_configuration_status_header st = { usb_redir_success, g.config };
    usbredirparser_send_configuration_status(g.p, id, &st);
}

static void set_alt_cb(void *priv, uint64_t id, struct usb_redir_set_alt_setting_header *s)
{
    (void)priv;
    struct usb_redir_alt_setting_status_header st = {
        (s->interface == 0 && s->alt == 0) ? usb_redir_success : usb_redir_stall, s->interface, 0 };
    usbredirparser_send_alt_setting_status(g.p, id, &st);
}

static void get_alt_cb(void *priv, uint64_t id, struct usb_redir_get_alt_setting_header *s)
{
    (void)priv;
    struct usb_redir_alt_setting_status_header st = {
        s->interface == 0 ? usb_redir_success : usb_redir_inval, s->interface, 0 };
    usbredirparser_send_alt_setting_status(g.p, id, &st);
}

static void reply_in(uint64_t id, uint8_t status, const uint8_t *d, uint32_t n)
{
    struct usb_redir_bulk_packet_header h;
    memset(&h, 0, sizeof h);
    h.endpoint = EP_IN;
    h.status = status;
    h.length = (uint16_t)(n & 0xffff);
    h.length_high = (uint16_t)(n >> 16);
    usbredirparser_send_bulk_packet(g.p, id, &h, (uint8_t *)d, (int)n);
}

/* Answer waiting IN requests, oldest first, while there are bytes. */
static void serve_in(void)
{
    while (g.nin && g.rx_len) {
        uint32_t n = g.in[0].len < g.rx_len ? g.in[0].len : (uint32_t)g.rx_len;
        reply_in(g.in[0].id, usb_redir_success, g.rx, n);
        consume(g.rx, &g.rx_len, n);
        g.bytes_in += n;
        memmove(g.in, g.in + 1, (size_t)(--g.nin) * sizeof g.in[0]);
    }
}

static void bulk_cb(void *priv, uint64_t id, struct usb_redir_bulk_packet_header *b, uint8_t *data,
                    int data_len)
{
    (void)priv;
    uint32_t len = b->length | ((uint32_t)b->length_high << 16);
    struct usb_redir_bulk_packet_header r = *b;
    if (b->endpoint == EP_OUT) {
        if (data_len > 0) {
            if (g.echo)
                append(&g.rx, &g.rx_len, &g.rx_cap, data, (size_t)data_len);
            else
                append(&g.tx, &g.tx_len, &g.tx_cap, data, (size_t)data_len);
            g.bytes_out += (unsigned long long)data_len;
        }
        r.status = usb_redir_success;
        usbredirparser_send_bulk_packet(g.p, id, &r, NULL, 0);
    } else if (b->endpoint == EP_IN && g.nin < MAX_PENDING) {
        g.in[g.nin].id = id;
        g.in[g.nin].len = len;
        g.nin++;
        serve_in();
    } else {
        r.status = usb_redir_stall;
        r.length = r.length_high = 0;
        usbredirparser_send_bulk_packet(g.p, id, &r, NULL, 0);
    }
    if (data)
        usbredirparser_free_packet_data(g.p, data);
}

static void cancel_cb(void *priv, uint64_t id)
{
    (void)priv;
    for (int i = 0; i < g.nin; i++)
        if (g.in[i].id == id) {
            reply_in(id, usb_redir_cancelled, NULL, 0);
            memmove(g.in + i, g.in + i + 1, (size_t)(g.nin - i - 1) * sizeof g.in[0]);
            g.nin--;
            return;
        }
}

static void reset_cb(void *priv)
{
    (void)priv;
    g.config = 0;
}

static void filter_cb(void *priv, struct usbredirfilter_rule *rules, int n)
{
    (void)priv, (void)n;
    free(rules);
}

static void nop_cb(void *priv)
{
    (void)priv;
}

static int open_tty(const char *path)
{
    int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        die("cannot open %s: %s", path, strerror(errno));
    struct termios t;
    if (tcgetattr(fd, &t) == 0) {
        cfmakeraw(&t);
        tcsetattr(fd, TCSANOW, &t);
    }
    return fd;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const char *sockpath = NULL, *tty = NULL;
    double timeout = 600;
    g.vid = 0x1209;
    g.pid = 0x0001;
    g.tty = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--listen") && v)
            sockpath = v, i++;
        else if (!strcmp(a, "--tty") && v)
            tty = v, i++;
        else if (!strcmp(a, "--echo"))
            g.echo = 1;
        else if (!strcmp(a, "--verbose"))
            g.verbose = 1;
        else if (!strcmp(a, "--vid") && v)
            g.vid = (uint16_t)strtoul(v, NULL, 0), i++;
        else if (!strcmp(a, "--pid") && v)
            g.pid = (uint16_t)strtoul(v, NULL, 0), i++;
        else if (!strcmp(a, "--timeout") && v)
            timeout = atof(v), i++;
        else {
            fprintf(stderr, "usage: spu-usbredir-peer --listen SOCKET (--tty PATH | --echo) "
                            "[--vid V --pid P] [--timeout S] [--verbose]\n");
            return 2;
        }
    }
    if (!sockpath || (!tty && !g.echo)) {
        fprintf(stderr, "spu-usbredir-peer: --listen and one of --tty/--echo are required\n");
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (tty)
        g.tty = open_tty(tty);

    int ls = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    if (ls < 0 || strlen(sockpath) >= sizeof addr.sun_path)
        die("bad socket path %s", sockpath);
    strcpy(addr.sun_path, sockpath);
    unlink(sockpath);
    if (bind(ls, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(ls, 1) != 0)
        die("cannot listen on %s: %s", sockpath, strerror(errno));
    printf("listening %s\n", sockpath);
    fflush(stdout);

    const double t0 = now_s();
    struct pollfd lp = { ls, POLLIN, 0 };
    while (!g_stop && poll(&lp, 1, 200) == 0)
        if (now_s() - t0 > timeout)
            die("nobody connected within %.0f s", timeout);
    if (g_stop)
        return 0;
    g.sock = accept4(ls, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    close(ls);
    unlink(sockpath);
    if (g.sock < 0)
        die("accept: %s", strerror(errno));

    g.p = usbredirparser_create();
    if (!g.p)
        die("usbredirparser_create failed");
    g.p->priv = NULL;
    g.p->log_func = log_cb;
    g.p->read_func = read_cb;
    g.p->write_func = write_cb;
    g.p->hello_func = hello_cb;
    g.p->reset_func = reset_cb;
    g.p->set_configuration_func = set_config_cb;
    g.p->get_configuration_func = get_config_cb;
    g.p->set_alt_setting_func = set_alt_cb;
    g.p->get_alt_setting_func = get_alt_cb;
    g.p->cancel_data_packet_func = cancel_cb;
    g.p->control_packet_func = control_cb;
    g.p->bulk_packet_func = bulk_cb;
    g.p->filter_filter_func = filter_cb;
    g.p->device_disconnect_ack_func = nop_cb;
    uint32_t caps[USB_REDIR_CAPS_SIZE] = { 0 };
    usbredirparser_caps_set_cap(caps, usb_redir_cap_connect_device_version);
    usbredirparser_caps_set_cap(caps, usb_redir_cap_filter);
    usbredirparser_caps_set_cap(caps, usb_redir_cap_device_disconnect_ack);
    usbredirparser_caps_set_cap(caps, usb_redir_cap_ep_info_max_packet_size);
    usbredirparser_caps_set_cap(caps, usb_redir_cap_64bits_ids);
    usbredirparser_caps_set_cap(caps, usb_redir_cap_32bits_bulk_length);
    usbredirparser_init(g.p, "spu-usbredir-peer 1", caps, USB_REDIR_CAPS_SIZE, usbredirparser_fl_usb_host);

    double first = 0, last = 0;
    uint8_t buf[65536];
    while (!g_stop && !g.dead) {
        struct pollfd pf[2] = { { g.sock, POLLIN, 0 }, { g.tty, 0, 0 } };
        if (usbredirparser_has_data_to_write(g.p))
            pf[0].events |= POLLOUT;
        if (g.tty >= 0)
            pf[1].events = POLLIN | (g.tx_len ? POLLOUT : 0);
        int r = poll(pf, g.tty >= 0 ? 2 : 1, 200);
        if (r < 0 && errno != EINTR)
            die("poll: %s", strerror(errno));
        if (now_s() - t0 > timeout)
            die("gave up after %.0f s", timeout);
        if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            if (usbredirparser_do_read(g.p) != 0 && g.dead)
                break;
        }
        if (g.tty >= 0 && (pf[1].revents & POLLIN)) {
            ssize_t n = read(g.tty, buf, sizeof buf);
            if (n > 0)
                append(&g.rx, &g.rx_len, &g.rx_cap, buf, (size_t)n);
        }
        if (g.tty >= 0 && g.tx_len) {
            ssize_t n = write(g.tty, g.tx, g.tx_len);
            if (n > 0)
                consume(g.tx, &g.tx_len, (size_t)n);
        }
        serve_in();
        if (usbredirparser_has_data_to_write(g.p) && usbredirparser_do_write(g.p) < 0)
            break;
        if (g.bytes_out + g.bytes_in) {
            if (!first)
                first = now_s();
            last = now_s();
        }
    }
    fprintf(stderr, "spu-usbredir-peer: %llu bytes OUT, %llu bytes IN in %.2f s\n", g.bytes_out,
            g.bytes_in, last - first);
    usbredirparser_destroy(g.p);
    close(g.sock);
    return 0;
}
