// spu_board.h -- clocks a Verilated SPU and moves link bytes in and out of
// it, through the byte port or, in UART mode, as 8N1 bit waveforms on
// uart_rx_i / uart_tx_o. Shared by spu-sim (hw/sim/spu_sim.cpp) and the RTL
// link tests. Only link bytes cross this boundary: the board's memories and
// registers are never touched (no back door). The idle signal (spu_top's
// idle_o, spu_board_spu's !busy_o) is used only to decide when the clock may
// stop.
//
// Two kinds of model (docs/sim.md):
//   SpuBoardT<Vspu_top, false>  spu_top with LINK "sim" (byte port or UART);
//                               one clock cycle per step
//   SpuBoardT<Vboard, true>     spu_board_spu, the RTL every iCE40 board top
//                               wraps (PLL pass-through in simulation, reset
//                               generator, spu_top with LINK "uart"), built
//                               with a board's parameters; UART only
// SpuBoard is the first (the RTL link tests and the 8x8 spu-sim use it).
#ifndef SPU_BOARD_H
#define SPU_BOARD_H

#include "verilated.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#endif

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#ifndef SPU_SIM_CLKS_PER_BIT
#define SPU_SIM_CLKS_PER_BIT 4
#endif

// One eval() per clock cycle (docs/sim.md "Speed"): Verilator 5 detects a
// rising edge by comparing the clock with the value it saw at the previous
// eval(), kept in the model's root as __Vtrigrprev__TOP__clk_i; and every
// eval() runs the model's input-combinational pass in full. Clocking with
// clk_i = 0, eval(), clk_i = 1, eval() ran that pass twice per cycle. With
// the remembered value set to 0, one eval() with clk_i = 1 is the rising
// edge. It is the same cycle: the outputs read between the two evals
// (byte_rx_ready_o, byte_tx_valid_o, byte_tx_data_o) follow spu_top's state
// only, so they are what the previous eval() left, and the new inputs reach
// the input pass before the clocked logic either way. Used when the model
// has that member (else, and with tracing or SPU_SIM_TWO_EDGES=1 in the
// environment: two evals per cycle).
template <class R, class = void>
struct SpuHasClkPrev : std::false_type {};
template <class R>
struct SpuHasClkPrev<R, std::void_t<decltype(std::declval<R &>().__Vtrigrprev__TOP__clk_i)>>
    : std::true_type {};

// The core clock gate (docs/rtl.md "Core clock gate in simulation"): a
// model built with SPU_CORE_CLOCK_GATE has core_clk_i, the clock of
// spu_core's sequencer, load, array, drain and vector units, and
// core_wake_o, which says after each edge whether the next one may change
// them (it depends on registers only, so it holds while the harness sets the
// next cycle's inputs). The harness gives core_clk_i a rising edge with
// clk_i's when core_wake_o or rst_i is high, else leaves it low; the link,
// the scratchpad's memory and host port and the counters see every edge.
// SPU_SIM_CORE_CLOCK=always in the environment clocks the units every cycle
// (for comparisons; results and cycle counts are the same).
template <class R, class = void>
struct SpuHasCoreClkPrev : std::false_type {};
template <class R>
struct SpuHasCoreClkPrev<R, std::void_t<decltype(std::declval<R &>().__Vtrigrprev__TOP__core_clk_i)>>
    : std::true_type {};
template <class T, class = void>
struct SpuHasCoreClock : std::false_type {};
template <class T>
struct SpuHasCoreClock<T, std::void_t<decltype(std::declval<T &>().core_clk_i)>> : std::true_type {};

// A board top with the iCEBreaker's second clock (spu_board_spu's
// simulation port clk2x_sim_i, driven when the build has it: SPU_SIM_CLK2X,
// hw/build.mk's SIMB_<board>_2X)
#ifndef SPU_SIM_CLK2X
#define SPU_SIM_CLK2X 0
#endif
template <class T, class = void>
struct SpuHasClk2x : std::false_type {};
template <class T>
struct SpuHasClk2x<T, std::void_t<decltype(std::declval<T &>().clk2x_sim_i)>>
    : std::integral_constant<bool, SPU_SIM_CLK2X != 0> {};

template <class Top, bool kBoardTop>
class SpuBoardT {
public:
    explicit SpuBoardT(bool uart = false, const char *fst = nullptr,
                       int clks_per_bit = SPU_SIM_CLKS_PER_BIT)
        : ctx_(new VerilatedContext), uart_(uart || kBoardTop), cpb_(clks_per_bit)
    {
#if VM_TRACE
        if (fst)
            ctx_->traceEverOn(true);
#endif
        top_.reset(new Top(ctx_.get(), "spu"));
#if VM_TRACE
        if (fst) {
            trace_.reset(new VerilatedFstC);
            top_->trace(trace_.get(), 99);
            trace_->open(fst);
        }
#else
        (void)fst;
#endif
        top_->uart_rx_i = 1;
        if constexpr (kBoardTop) {
            // the board's own reset: PLL lock (immediate in simulation) then
            // spu_board_reset's counter; the button is not pressed
            top_->btn_n_i = 1;
            for (int i = 0; i < (1 << 20) && (i < 4 || top_->rst_o); i++)
                step();
        } else {
            top_->link_uart_i = uart ? 1 : 0;
            top_->byte_tx_ready_i = 1;
            if constexpr (SpuHasClkPrev<std::remove_reference_t<decltype(*top_->rootp)>>::value) {
                const char *two = std::getenv("SPU_SIM_TWO_EDGES");
                one_edge_ = !(two && *two && *two != '0');
#if VM_TRACE
                if (fst)
                    one_edge_ = false;   // the trace shows both edges
#endif
                if (one_edge_) {
                    top_->clk_i = 0;     // the clock's first low phase
                    top_->eval();
                }
            }
            if constexpr (SpuHasCoreClock<Top>::value) {
                const char *cc = std::getenv("SPU_SIM_CORE_CLOCK");
                core_always_ = cc && !std::strcmp(cc, "always");
            }
            top_->rst_i = 1;
            for (int i = 0; i < 4; i++)
                step();
            top_->rst_i = 0;
            step();
        }
        reset_cycles_ = cycles_;
        cycles_ = 0;
        core_cycles_ = 0;
    }
    ~SpuBoardT()
    {
#if VM_TRACE
        if (trace_)
            trace_->close();
#endif
        top_->final();
    }
    SpuBoardT(const SpuBoardT &) = delete;
    SpuBoardT &operator=(const SpuBoardT &) = delete;

    // Bytes the host sends (queued) and bytes the board has sent (drained by the caller).
    void send(const uint8_t *p, size_t n) { in_.insert(in_.end(), p, p + n); }
    std::deque<uint8_t> &received() { return out_; }
    size_t pending_in() const { return in_.size(); }

    // One clock cycle.
    void step()
    {
        Top *t = top_.get();
        bool rx_fire = false, tx_fire = false;
        uint8_t tx_data = 0;
        if constexpr (!kBoardTop) {
            if (!uart_) {
                t->byte_rx_valid_i = !in_.empty();
                t->byte_rx_data_i = in_.empty() ? 0 : in_.front();
            } else {
                uart_host_tx();
            }
            if (!one_edge_) {
                t->clk_i = 0;
                if constexpr (SpuHasCoreClock<Top>::value)
                    t->core_clk_i = 0;
                t->eval();
                dump();
            }
            rx_fire = !uart_ && t->byte_rx_valid_i && t->byte_rx_ready_o;
            tx_fire = !uart_ && t->byte_tx_valid_o && t->byte_tx_ready_i;
            tx_data = t->byte_tx_data_o;
            if constexpr (SpuHasClkPrev<std::remove_reference_t<decltype(*t->rootp)>>::value)
                if (one_edge_)
                    t->rootp->__Vtrigrprev__TOP__clk_i = 0;
            if constexpr (SpuHasCoreClock<Top>::value) {
                bool core = core_always_ || t->rst_i || t->core_wake_o;
                if constexpr (SpuHasCoreClkPrev<std::remove_reference_t<decltype(*t->rootp)>>::value)
                    if (one_edge_)
                        t->rootp->__Vtrigrprev__TOP__core_clk_i = 0;
                t->core_clk_i = core;
                core_cycles_ += core;
            }
            t->clk_i = 1;
            t->eval();
            dump();
        } else {
            uart_host_tx();
            // the second clock at twice the board clock, rising edges
            // aligned: it rises mid-cycle with the board clock's fall, and
            // again with its rise (the PLL's two ports)
            clk2x_fall(t);
            t->clk12_i = 0;
            t->eval();
            dump();
            clk2x_fall(t);
            t->clk12_i = 1;
            t->eval();
            dump();
        }
        cycles_++;
        if (rx_fire) {
            in_.pop_front();
            bytes_in_++;
        }
        if (tx_fire) {
            out_.push_back(tx_data);
            bytes_out_++;
        }
        if (uart_)
            uart_host_rx();
    }

    // Nothing happens until the host sends another byte.
    bool idle() const
    {
        bool core_idle;
        if constexpr (kBoardTop)
            core_idle = !top_->busy_o && !top_->rst_o;
        else
            core_idle = top_->idle_o;
        return core_idle && in_.empty() && (!uart_ || (tx_quiet_ > 2 * cpb_ && rx_state_ == 0));
    }
    // Clock until idle or max cycles; returns cycles run.
    uint64_t run(uint64_t max)
    {
        uint64_t n = 0;
        while (n < max && !idle()) {
            step();
            n++;
        }
        return n;
    }
    // Cycles since the end of reset (reset itself: reset_cycles()).
    uint64_t cycles() const { return cycles_; }
    uint64_t reset_cycles() const { return reset_cycles_; }
    // Link bytes that crossed the PHY (host -> board, board -> host).
    uint64_t bytes_in() const { return bytes_in_; }
    uint64_t bytes_out() const { return bytes_out_; }
    // Cycles since the end of reset in which the core's units were clocked
    // (every one without the gate or with SPU_SIM_CORE_CLOCK=always).
    uint64_t core_cycles() const { return SpuHasCoreClock<Top>::value ? core_cycles_ : cycles_; }
    int clks_per_bit() const { return cpb_; }

private:
    void dump()
    {
#if VM_TRACE
        if (trace_)
            trace_->dump(ctx_->time());
        ctx_->timeInc(1);
#endif
    }
    // host -> board: drive uart_rx_i with the next bit of the current byte
    void uart_host_tx()
    {
        if (tx_bits_ == 0 && !in_.empty()) {
            tx_shift_ = 0x200u | (uint32_t)in_.front() << 1;   // stop, data, start
            in_.pop_front();
            bytes_in_++;
            tx_bits_ = 10;
            tx_tick_ = 0;
        }
        if (tx_bits_ == 0) {
            top_->uart_rx_i = 1;
            if (tx_quiet_ < 1000)
                tx_quiet_++;   // the board's receiver lags the line by a few cycles
            return;
        }
        tx_quiet_ = 0;
        top_->uart_rx_i = tx_shift_ & 1u;
        if (++tx_tick_ == cpb_) {
            tx_tick_ = 0;
            tx_shift_ >>= 1;
            tx_bits_--;
        }
    }
    // board -> host: sample uart_tx_o in the middle of each bit
    void uart_host_rx()
    {
        int line = top_->uart_tx_o;
        switch (rx_state_) {
        case 0:
            if (!line) {
                rx_state_ = 1;
                rx_tick_ = cpb_ / 2;
            }
            break;
        case 1: // start bit
            if (--rx_tick_ == 0) {
                if (line) {
                    rx_state_ = 0;
                } else {
                    rx_state_ = 2;
                    rx_bit_ = 0;
                    rx_byte_ = 0;
                    rx_tick_ = cpb_;
                }
            }
            break;
        case 2: // data bits
            if (--rx_tick_ == 0) {
                rx_byte_ |= (uint8_t)(line << rx_bit_);
                rx_tick_ = cpb_;
                if (++rx_bit_ == 8)
                    rx_state_ = 3;
            }
            break;
        default: // stop bit
            if (--rx_tick_ == 0) {
                if (line) {
                    out_.push_back(rx_byte_);
                    bytes_out_++;
                }
                rx_state_ = 0;
            }
            break;
        }
    }

    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Top> top_;
#if VM_TRACE
    std::unique_ptr<VerilatedFstC> trace_;
#endif
    bool uart_;
    // the second clock's falling edge (a board with it); it rises with the
    // next eval()
    void clk2x_fall(Top *t)
    {
        if constexpr (SpuHasClk2x<Top>::value) {
            t->clk2x_sim_i = 0;
            t->eval();
            t->clk2x_sim_i = 1;
        } else {
            (void)t;
        }
    }
    bool one_edge_ = false;   // one eval() per cycle (SpuHasClkPrev)
    bool core_always_ = false; // SPU_SIM_CORE_CLOCK=always
    uint64_t core_cycles_ = 0;
    int cpb_;
    std::deque<uint8_t> in_, out_;
    uint64_t cycles_ = 0, reset_cycles_ = 0, bytes_in_ = 0, bytes_out_ = 0;
    uint32_t tx_shift_ = 0;
    int tx_bits_ = 0, tx_tick_ = 0, tx_quiet_ = 1000;
    int rx_state_ = 0, rx_tick_ = 0, rx_bit_ = 0;
    uint8_t rx_byte_ = 0;
};

#ifndef SPU_SIM_BOARD
#include "Vspu_top.h"
#include "Vspu_top___024root.h"
using SpuBoard = SpuBoardT<Vspu_top, false>;
#endif

#endif
