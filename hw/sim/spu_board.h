// spu_board.h -- clocks the Verilated spu_top (LINK "sim") and moves link
// bytes in and out of it, through the byte port or, in UART mode, as 8N1
// bit waveforms on uart_rx_i / uart_tx_o. Shared by spu-sim (hw/sim/spu_sim.cpp)
// and the RTL link tests. Only link bytes cross this boundary: the board's
// memories and registers are never touched (no back door). idle() reads the
// top's idle_o, used only to decide when the clock may stop.
#ifndef SPU_BOARD_H
#define SPU_BOARD_H

#include "Vspu_top.h"
#include "verilated.h"
#include "verilated_fst_c.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#ifndef SPU_SIM_CLKS_PER_BIT
#define SPU_SIM_CLKS_PER_BIT 4
#endif

class SpuBoard {
public:
    explicit SpuBoard(bool uart = false, const char *fst = nullptr)
        : ctx_(new VerilatedContext), uart_(uart)
    {
        if (fst)
            ctx_->traceEverOn(true);
        top_.reset(new Vspu_top(ctx_.get(), "spu_top"));
        if (fst) {
            trace_.reset(new VerilatedFstC);
            top_->trace(trace_.get(), 99);
            trace_->open(fst);
        }
        top_->link_uart_i = uart ? 1 : 0;
        top_->uart_rx_i = 1;
        top_->byte_tx_ready_i = 1;
        top_->rst_i = 1;
        for (int i = 0; i < 4; i++)
            step();
        top_->rst_i = 0;
        step();
    }
    ~SpuBoard()
    {
        if (trace_)
            trace_->close();
        top_->final();
    }

    // Bytes the host sends (queued) and bytes the board has sent (drained by the caller).
    void send(const uint8_t *p, size_t n) { in_.insert(in_.end(), p, p + n); }
    std::deque<uint8_t> &received() { return out_; }
    size_t pending_in() const { return in_.size(); }

    // One clock cycle.
    void step()
    {
        Vspu_top *t = top_.get();
        bool rx_fire = false;
        if (!uart_) {
            t->byte_rx_valid_i = !in_.empty();
            t->byte_rx_data_i = in_.empty() ? 0 : in_.front();
        } else {
            uart_host_tx();
        }
        t->clk_i = 0;
        t->eval();
        dump();
        rx_fire = !uart_ && t->byte_rx_valid_i && t->byte_rx_ready_o;
        bool tx_fire = !uart_ && t->byte_tx_valid_o && t->byte_tx_ready_i;
        uint8_t tx_data = t->byte_tx_data_o;
        t->clk_i = 1;
        t->eval();
        dump();
        cycles_++;
        if (rx_fire)
            in_.pop_front();
        if (tx_fire)
            out_.push_back(tx_data);
        if (uart_)
            uart_host_rx();
    }

    // Nothing happens until the host sends another byte.
    bool idle() const
    {
        return top_->idle_o && in_.empty() && (!uart_ || (tx_quiet_ > 2 * SPU_SIM_CLKS_PER_BIT && rx_state_ == 0));
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
    uint64_t cycles() const { return cycles_; }

private:
    void dump()
    {
        if (trace_)
            trace_->dump(ctx_->time());
        ctx_->timeInc(1);
    }
    // host -> board: drive uart_rx_i with the next bit of the current byte
    void uart_host_tx()
    {
        if (tx_bits_ == 0 && !in_.empty()) {
            tx_shift_ = 0x200u | (uint32_t)in_.front() << 1;   // stop, data, start
            in_.pop_front();
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
        if (++tx_tick_ == SPU_SIM_CLKS_PER_BIT) {
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
                rx_tick_ = SPU_SIM_CLKS_PER_BIT / 2;
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
                    rx_tick_ = SPU_SIM_CLKS_PER_BIT;
                }
            }
            break;
        case 2: // data bits
            if (--rx_tick_ == 0) {
                rx_byte_ |= (uint8_t)(line << rx_bit_);
                rx_tick_ = SPU_SIM_CLKS_PER_BIT;
                if (++rx_bit_ == 8)
                    rx_state_ = 3;
            }
            break;
        default: // stop bit
            if (--rx_tick_ == 0) {
                if (line)
                    out_.push_back(rx_byte_);
                rx_state_ = 0;
            }
            break;
        }
    }

    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vspu_top> top_;
    std::unique_ptr<VerilatedFstC> trace_;
    bool uart_;
    std::deque<uint8_t> in_, out_;
    uint64_t cycles_ = 0;
    uint32_t tx_shift_ = 0;
    int tx_bits_ = 0, tx_tick_ = 0, tx_quiet_ = 1000;
    int rx_state_ = 0, rx_tick_ = 0, rx_bit_ = 0;
    uint8_t rx_byte_ = 0;
};

#endif
