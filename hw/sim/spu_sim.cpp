// spu_sim.cpp -- the simulated SPU board: Verilated spu_top behind a pty.
//
//   spu-sim [--uart] [--trace FILE.fst] [--rows R] [--cols C]
//           [--ber P] [--drop P] [--seed N]
//
// Opens a pseudo-terminal (posix_openpt, raw mode) and prints "pty PATH" as the
// first line of stdout; a host connects to PATH exactly like a USB serial port
// (libspu's "sim" device does this). Bytes from the pty go into the board's
// byte port (or, with --uart, onto its UART receive line as 8N1 bits) and the
// board's replies go back. The clock runs while the board has work (a frame,
// a reply, a running program) and stops while it waits for input. Exits when
// the host closes the pty (after it was opened once), on SIGTERM/SIGINT, or if
// nobody connects within 60 s. At exit it reports on stderr the simulated
// cycles and cycles per wall-clock second. Binds nothing but the pty.
// --ber/--drop/--seed inject seeded link faults in both directions between
// the pty and the board (spu_fault.h, docs/protocol.md "Fault injection").
#include "spu_board.h"
#include "spu_fault.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>
#include <vector>

#ifndef SPU_SIM_ROWS
#define SPU_SIM_ROWS 8
#endif
#ifndef SPU_SIM_COLS
#define SPU_SIM_COLS 8
#endif

static volatile sig_atomic_t g_stop = 0;
static void on_signal(int) { g_stop = 1; }

static int usage(void)
{
    fprintf(stderr,
            "usage: spu-sim [--uart] [--trace FILE.fst] [--rows R] [--cols C]\n"
            "  Simulated SPU board (%dx%d) behind a pty; prints \"pty PATH\" on stdout.\n"
            "  --uart         drive the board's UART PHY at bit level (%d clocks per bit)\n"
            "  --trace FILE   write an FST waveform (GTKWave)\n"
            "  --rows/--cols  geometry; must match the built one\n"
            "  --ber P        flip each bit on the link with probability P (both directions)\n"
            "  --drop P       drop, duplicate or insert a byte, each with probability P per byte\n"
            "  --seed N       seed of the fault generator (default 1)\n",
            SPU_SIM_ROWS, SPU_SIM_COLS, SPU_SIM_CLKS_PER_BIT);
    return 2;
}

int main(int argc, char **argv)
{
    bool uart = false;
    const char *trace = nullptr;
    double ber = 0, drop = 0;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        if ((!strcmp(argv[i], "--ber") || !strcmp(argv[i], "--drop")) && i + 1 < argc) {
            if (!spu_fault_parse_prob(argv[i + 1], !strcmp(argv[i], "--ber") ? &ber : &drop)) {
                fprintf(stderr, "spu-sim: %s wants a probability in [0, 1], not '%s'\n", argv[i],
                        argv[i + 1]);
                return 2;
            }
            i++;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            char *end = nullptr;
            errno = 0;
            seed = strtoull(argv[i + 1], &end, 10);
            if (errno || !*argv[i + 1] || *end || argv[i + 1][0] == '-') {
                fprintf(stderr, "spu-sim: --seed wants a decimal number, not '%s'\n", argv[i + 1]);
                return 2;
            }
            i++;
        } else if (!strcmp(argv[i], "--uart")) {
            uart = true;
        } else if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
            trace = argv[++i];
        } else if ((!strcmp(argv[i], "--rows") || !strcmp(argv[i], "--cols")) && i + 1 < argc) {
            int want = !strcmp(argv[i], "--rows") ? SPU_SIM_ROWS : SPU_SIM_COLS;
            if (atoi(argv[i + 1]) != want) {
                fprintf(stderr, "spu-sim: this build simulates %dx%d only\n", SPU_SIM_ROWS,
                        SPU_SIM_COLS);
                return 3;
            }
            i++;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage();
            return 0;
        } else {
            return usage();
        }
    }

    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0) {
        perror("spu-sim: posix_openpt");
        return 1;
    }
    const char *path = ptsname(m);
    if (!path) {
        perror("spu-sim: ptsname");
        return 1;
    }
    int s = open(path, O_RDWR | O_NOCTTY);
    if (s >= 0) {
        struct termios tio;
        if (tcgetattr(s, &tio) == 0) {
            cfmakeraw(&tio);
            tcsetattr(s, TCSANOW, &tio);
        }
        close(s);
    }
    fcntl(m, F_SETFL, fcntl(m, F_GETFL) | O_NONBLOCK);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);

    printf("pty %s\n", path);
    fflush(stdout);

    if (trace) {   // Verilator's FST writer aborts on an unwritable path: check it first
        FILE *f = fopen(trace, "w");
        if (!f) {
            fprintf(stderr, "spu-sim: cannot write trace file %s: %s\n", trace, strerror(errno));
            return 4;
        }
        fclose(f);
    }
    SpuBoard board(uart, trace);
    SpuFault up(ber, drop, seed), down(ber, drop, seed ^ 0xD1B54A32D192ED03ull);
    std::vector<uint8_t> faulted;
    using clk = std::chrono::steady_clock;
    const auto t0 = clk::now();
    double clocked_s = 0;
    bool connected = false;
    uint8_t buf[4096];

    while (!g_stop) {
        // host -> board
        ssize_t n = read(m, buf, sizeof buf);
        if (n > 0) {
            connected = true;
            if (up.active()) {
                faulted.clear();
                up.apply(buf, (size_t)n, faulted);
                board.send(faulted.data(), faulted.size());
            } else {
                board.send(buf, (size_t)n);
            }
        } else if (n < 0 && errno == EIO && connected) {
            break;   // the host closed the pty
        }
        // board runs while it has work
        if (!board.idle()) {
            const auto a = clk::now();
            board.run(board.pending_in() ? 20000 : 200000);
            clocked_s += std::chrono::duration<double>(clk::now() - a).count();
        }
        // board -> host
        auto &out = board.received();
        if (down.active() && !out.empty()) {   // board -> host faults, applied once per byte
            std::vector<uint8_t> raw(out.begin(), out.end());
            out.clear();
            faulted.clear();
            down.apply(raw.data(), raw.size(), faulted);
            out.insert(out.end(), faulted.begin(), faulted.end());
        }
        while (!out.empty()) {
            size_t k = 0;
            for (; k < out.size() && k < sizeof buf; k++)
                buf[k] = out[k];
            ssize_t w = write(m, buf, k);
            if (w > 0) {
                out.erase(out.begin(), out.begin() + w);
            } else if (w < 0 && errno == EAGAIN) {
                struct pollfd p = {m, POLLOUT, 0};
                poll(&p, 1, 100);
                if (g_stop)
                    break;
            } else {
                g_stop = 1;   // host gone
                break;
            }
        }
        if (!board.idle() || g_stop)
            continue;
        // idle: sleep until the host sends something or hangs up
        struct pollfd p = {m, POLLIN, 0};
        int r = poll(&p, 1, connected ? 1000 : 10);
        if (r > 0 && (p.revents & POLLHUP) && !(p.revents & POLLIN)) {
            if (connected)
                break;
            usleep(10000);   // no slave open yet
        } else if (r > 0) {
            connected = true;
        }
        if (!connected && std::chrono::duration<double>(clk::now() - t0).count() > 60) {
            fprintf(stderr, "spu-sim: nobody connected to %s within 60 s\n", path);
            break;
        }
    }

    const double wall = std::chrono::duration<double>(clk::now() - t0).count();
    const uint64_t cyc = board.cycles();
    fprintf(stderr,
            "spu-sim: %llu cycles simulated, %.3f s clocked, %.3f s wall: "
            "%.0f cycles/s while clocked, %.0f cycles/s overall\n",
            (unsigned long long)cyc, clocked_s, wall, clocked_s > 0 ? cyc / clocked_s : 0.0,
            wall > 0 ? cyc / wall : 0.0);
    if (up.active())
        fprintf(stderr,
                "spu-sim: faults host->board: %llu bytes, %llu bit flips, %llu dropped, %llu "
                "duplicated, %llu inserted; board->host: %llu bytes, %llu bit flips, %llu dropped, "
                "%llu duplicated, %llu inserted\n",
                (unsigned long long)up.bytes, (unsigned long long)up.flips,
                (unsigned long long)up.drops, (unsigned long long)up.dups,
                (unsigned long long)up.inserts, (unsigned long long)down.bytes,
                (unsigned long long)down.flips, (unsigned long long)down.drops,
                (unsigned long long)down.dups, (unsigned long long)down.inserts);
    close(m);
    return 0;
}
