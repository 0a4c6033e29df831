/*
 * usb_pump.c -- socketpair <-> USB bulk pipe (usb_pump.h).
 */
#include "link/usb_pump.h"
#include "spu/spu.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PUMP_POLL_MS 100   /* how often the threads look at the stop flag */

/* A dead transport: the link reads end-of-stream (SPU_EIO) from now on, while
 * the TX thread keeps draining what the link writes (a shut socket would
 * raise SIGPIPE in the application, a full one would block it). */
static void fail(spu_usb_pump *p, int err)
{
    int zero = 0;
    atomic_compare_exchange_strong(&p->error, &zero, err);
    shutdown(p->peer, SHUT_WR);
}

static void *tx_main(void *arg)
{
    spu_usb_pump *p = arg;
    uint8_t *buf = malloc(p->out_chunk);
    if (!buf) {
        fail(p, SPU_ENOMEM);
        return NULL;
    }
    while (!atomic_load(&p->stop)) {
        struct pollfd pf = { p->peer, POLLIN, 0 };
        int r = poll(&pf, 1, PUMP_POLL_MS);
        if (r <= 0)
            continue;
        ssize_t n = read(p->peer, buf, p->out_chunk);
        if (n == 0)
            break;   /* the link closed its end */
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            break;
        }
        size_t done = atomic_load(&p->error) ? (size_t)n : 0;   /* dead: drain only */
        while (done < (size_t)n && !atomic_load(&p->stop)) {
            int w = p->ops->out(p->ctx, buf + done, (size_t)n - done, PUMP_POLL_MS * 5);
            if (w < 0) {
                fail(p, w);
                break;
            }
            done += (size_t)w;
            atomic_fetch_add(&p->bytes_out, (unsigned long long)w);
        }
    }
    free(buf);
    return NULL;
}

static void *rx_main(void *arg)
{
    spu_usb_pump *p = arg;
    uint8_t *buf = malloc(p->in_chunk);
    if (!buf) {
        fail(p, SPU_ENOMEM);
        return NULL;
    }
    while (!atomic_load(&p->stop)) {
        int n = p->ops->in(p->ctx, buf, p->in_chunk, PUMP_POLL_MS);
        if (n < 0) {
            fail(p, n);
            break;
        }
        atomic_fetch_add(&p->bytes_in, (unsigned long long)n);
        size_t done = 0;
        while (done < (size_t)n && !atomic_load(&p->stop)) {
            ssize_t w = send(p->peer, buf + done, (size_t)n - done, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (w > 0) {
                done += (size_t)w;
            } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
                struct pollfd pf = { p->peer, POLLOUT, 0 };
                poll(&pf, 1, PUMP_POLL_MS);
            } else {
                goto out;   /* the link went away */
            }
        }
    }
out:
    free(buf);
    return NULL;
}

int spu_usb_pump_start(spu_usb_pump *p, const spu_usb_pump_ops *ops, void *ctx,
                       size_t out_chunk, size_t in_chunk)
{
    int sv[2];
    memset(p, 0, sizeof *p);
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return SPU_EIO;
    p->fd = sv[0];
    fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);   /* the link polls */
    p->peer = sv[1];
    p->ops = ops;
    p->ctx = ctx;
    p->out_chunk = out_chunk;
    p->in_chunk = in_chunk;
    if (pthread_create(&p->tx, NULL, tx_main, p) != 0)
        goto fail_threads;
    if (pthread_create(&p->rx, NULL, rx_main, p) != 0) {
        atomic_store(&p->stop, 1);
        pthread_join(p->tx, NULL);
        goto fail_threads;
    }
    p->started = 1;
    return 0;
fail_threads:
    close(sv[0]);
    close(sv[1]);
    return SPU_ENOMEM;
}

void spu_usb_pump_stop(spu_usb_pump *p)
{
    if (!p->started)
        return;
    atomic_store(&p->stop, 1);
    pthread_join(p->tx, NULL);
    pthread_join(p->rx, NULL);
    close(p->fd);
    close(p->peer);
    p->started = 0;
}
