// spu_sim.cpp -- the simulated SPU board: Verilated spu_top behind a pty.
//
//   spu-sim [--uart] [--trace FILE.fst] [--rows R] [--cols C] [--stats-fd N]
//           [--ber P] [--drop P] [--seed N]
//   spu-sim-BOARD [--stats-fd N] [--ber P] [--drop P] [--seed N]
//                                     (built with -DSPU_SIM_BOARD=\"BOARD\")
//
// spu-sim-BOARD (icebreaker, hx8k) is the same harness around spu_board_spu
// built with that board's parameters: its UART at the board's clocks per bit,
// so the simulated cycles are the board's, link included (docs/sim.md).
// --stats-fd N publishes the simulated clock in the shared file N
// (spu_sim_stats.h), a side channel outside the link protocol.
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
#include "spu_sim_stats.h"
#ifdef SPU_SIM_BOARD
#include "Vboard.h"
using SimBoard = SpuBoardT<Vboard, true>;
#else
using SimBoard = SpuBoard;
#endif

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <termios.h>
#include <unistd.h>
#include <vector>

#ifndef SPU_SIM_ROWS
#define SPU_SIM_ROWS 8
#endif
#ifndef SPU_SIM_COLS
#define SPU_SIM_COLS 8
#endif
#ifndef SPU_SIM_CLOCK_HZ
#define SPU_SIM_CLOCK_HZ 12000000
#endif
#ifdef SPU_SIM_BOARD
#define SPU_SIM_NAME "spu-sim-" SPU_SIM_BOARD
#else
#define SPU_SIM_NAME "spu-sim"
#endif

// The simulated clock, published through --stats-fd (seqlock, spu_sim_stats.h).
class StatsPage {
public:
    bool open(int fd)
    {
        if (ftruncate(fd, sizeof(SpuSimStats)) != 0)
            return false;
        void *p = mmap(nullptr, sizeof(SpuSimStats), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED)
            return false;
        s_ = static_cast<SpuSimStats *>(p);
        return true;
    }
    void publish(const SimBoard &b, bool uart)
    {
        if (!s_)
            return;
        __atomic_store_n(&s_->seq, seq_ + 1, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_RELEASE);
        s_->magic = SPU_SIM_STATS_MAGIC;
        s_->version = 2;
        s_->clock_hz = SPU_SIM_CLOCK_HZ;
        s_->clks_per_bit = uart ? (uint32_t)b.clks_per_bit() : 0;
        s_->cycles = b.cycles();
        s_->bytes_in = b.bytes_in();
        s_->bytes_out = b.bytes_out();
        s_->core_cycles = b.core_cycles();
        s_->idle = b.idle() && b.pending_in() == 0;
        seq_ += 2;
        __atomic_store_n(&s_->seq, seq_, __ATOMIC_RELEASE);
    }

private:
    SpuSimStats *s_ = nullptr;
    uint64_t seq_ = 0;
};

// CPU time of this thread: the speed figure that does not depend on what
// else the machine runs
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile sig_atomic_t g_stop = 0;
static void on_signal(int) { g_stop = 1; }

static int usage(void)
{
    fprintf(stderr,
            "usage: " SPU_SIM_NAME " [--uart] [--trace FILE.fst] [--rows R] [--cols C] [--stats-fd N]\n"
            "         [--ber P] [--drop P] [--seed N]\n"
            "  Simulated SPU board (%dx%d, %d Hz) behind a pty; prints \"pty PATH\" on stdout.\n"
            "  --uart         drive the board's UART PHY at bit level (%d clocks per bit)%s\n"
            "  --trace FILE   write an FST waveform (GTKWave; builds with tracing only)\n"
            "  --rows/--cols  geometry; must match the built one\n"
            "  --stats-fd N   publish the simulated clock in shared file N (docs/sim.md)\n"
            "  --ber P        flip each bit on the link with probability P (both directions)\n"
            "  --drop P       drop, duplicate or insert a byte, each with probability P per byte\n"
            "  --seed N       seed of the fault generator (default 1)\n",
            SPU_SIM_ROWS, SPU_SIM_COLS, SPU_SIM_CLOCK_HZ, SPU_SIM_CLKS_PER_BIT,
#ifdef SPU_SIM_BOARD
            "; always on"
#else
            ""
#endif
    );
    return 2;
}

int main(int argc, char **argv)
{
    bool uart = false;
    const char *trace = nullptr;
    double ber = 0, drop = 0;
    unsigned long long seed = 1;
    int stats_fd = -1;
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
        } else if (!strcmp(argv[i], "--stats-fd") && i + 1 < argc) {
            char *end = nullptr;
            long v = strtol(argv[++i], &end, 10);
            if (!end || *end || v < 0 || v > 65535) {
                fprintf(stderr, SPU_SIM_NAME ": --stats-fd: not a file descriptor: %s\n", argv[i]);
                return 2;
            }
            stats_fd = (int)v;
        } else if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
            trace = argv[++i];
        } else if ((!strcmp(argv[i], "--rows") || !strcmp(argv[i], "--cols")) && i + 1 < argc) {
            int want = !strcmp(argv[i], "--rows") ? SPU_SIM_ROWS : SPU_SIM_COLS;
            if (atoi(argv[i + 1]) != want) {
                fprintf(stderr, SPU_SIM_NAME ": this build simulates %dx%d only\n", SPU_SIM_ROWS,
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

#ifdef SPU_SIM_BOARD
    uart = true;   // a board has its UART only
#endif
#if !VM_TRACE
    if (trace) {
        fprintf(stderr, SPU_SIM_NAME ": built without tracing; use build/bin/spu-sim-trace\n");
        return 2;
    }
#endif
    StatsPage stats;
    if (stats_fd >= 0 && !stats.open(stats_fd)) {
        perror(SPU_SIM_NAME ": --stats-fd");
        return 2;
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
            fprintf(stderr, SPU_SIM_NAME ": cannot write trace file %s: %s\n", trace, strerror(errno));
            return 4;
        }
        fclose(f);
    }
    SimBoard board(uart, trace);
    stats.publish(board, uart);
    SpuFault up(ber, drop, seed), down(ber, drop, seed ^ 0xD1B54A32D192ED03ull);
    std::vector<uint8_t> faulted;
    auto feed = [&](const uint8_t *p, size_t len) {   // host -> board, through the faults
        if (up.active()) {
            faulted.clear();
            up.apply(p, len, faulted);
            board.send(faulted.data(), faulted.size());
        } else {
            board.send(p, len);
        }
    };
    using clk = std::chrono::steady_clock;
    const auto t0 = clk::now();
    double clocked_s = 0, clocked_cpu_s = 0;
    bool connected = false;
    uint8_t buf[4096];

    while (!g_stop) {
        // host -> board
        ssize_t n = read(m, buf, sizeof buf);
        if (n > 0) {
            connected = true;
            feed(buf, (size_t)n);
            // The pty may split a frame the host wrote at once; a real host
            // adapter sends it back to back. Take the rest of the frame (up
            // to its 0x00 delimiter) before clocking, so the board never
            // idles mid-frame and the simulated cycles do not depend on how
            // the OS chunks the stream (docs/sim.md). 100 ms without a byte
            // ends the wait (a host that sends a partial frame).
            while (buf[n - 1] != 0 && !g_stop) {
                struct pollfd p = {m, POLLIN, 0};
                if (poll(&p, 1, 100) <= 0 || !(p.revents & POLLIN))
                    break;
                n = read(m, buf, sizeof buf);
                if (n <= 0)
                    break;
                feed(buf, (size_t)n);
            }
        } else if (n < 0 && errno == EIO && connected) {
            break;   // the host closed the pty
        }
        // board runs while it has work
        if (!board.idle()) {
            const auto a = clk::now();
            const double ca = cpu_seconds();
            board.run(board.pending_in() ? 20000 : 200000);
            clocked_cpu_s += cpu_seconds() - ca;
            clocked_s += std::chrono::duration<double>(clk::now() - a).count();
            stats.publish(board, uart);   // before the reply bytes reach the host
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
            fprintf(stderr, SPU_SIM_NAME ": nobody connected to %s within 60 s\n", path);
            break;
        }
    }

    const double wall = std::chrono::duration<double>(clk::now() - t0).count();
    const uint64_t cyc = board.cycles();
    fprintf(stderr,
            SPU_SIM_NAME ": %llu cycles simulated, %.3f s clocked, %.3f s wall: "
            "%.0f cycles/s while clocked, %.0f cycles/s overall, "
            "%.0f cycles per CPU second while clocked\n",
            (unsigned long long)cyc, clocked_s, wall, clocked_s > 0 ? cyc / clocked_s : 0.0,
            wall > 0 ? cyc / wall : 0.0, clocked_cpu_s > 0 ? cyc / clocked_cpu_s : 0.0);
    fprintf(stderr, SPU_SIM_NAME ": core units clocked in %llu of those cycles (%.1f %%; docs/rtl.md \"Core clock gate in simulation\")\n",
            (unsigned long long)board.core_cycles(), cyc ? 100.0 * (double)board.core_cycles() / (double)cyc : 0.0);
    if (up.active())
        fprintf(stderr,
                SPU_SIM_NAME ": faults host->board: %llu bytes, %llu bit flips, %llu dropped, %llu "
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
