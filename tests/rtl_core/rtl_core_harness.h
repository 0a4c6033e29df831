// rtl_core_harness.h -- drives a Verilated spu_core through its ports only
// (scratchpad byte port, microcode port, argument port, run/stop, status,
// counters), exactly as the link's command engine does. The scalar registers,
// which the ISA cannot store, are read through the REGS port (reg_sel_i).
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "Vspu_core_c4.h"
#include "Vspu_core_c4___024root.h"
#include "Vspu_core_c8.h"
#include "Vspu_core_c8___024root.h"
#include "Vspu_core_c8n.h"
#include "Vspu_core_c8n___024root.h"
#include "Vspu_core_c4s.h"
#include "Vspu_core_c4s___024root.h"
#include "Vspu_core_c4f.h"
#include "Vspu_core_c4f___024root.h"
#include "verilated.h"

extern "C" {
#include "spu/isa.h"
#include "spu/model.h"
#include "spu/spu.h"
}

struct Geom {
    uint32_t rows, cols, spad_bytes, banks, ucode_words, loop_depth, drain_lanes;
    uint32_t formats;   // FORMATS of the build (tests/rtl_core/build.mk)
    uint32_t vector;    // VECTOR of the build: 1 = the vector unit
    uint32_t spram = 0; // SPAD_SPRAM of the build: 1 = single-port SPRAM banks
    uint32_t chain = 0; // CHAIN of the build: 1 = chained streams (docs/isa.md)
    uint32_t bus = 0;   // BROADCAST of the build: 1 = row / column buses, no skew
    uint32_t clk2x = 0; // SPAD_2X of the build: the harness drives clk2x_i at twice clk_i
    uint32_t pair = 0;  // ARRAY_2X of the build: k-step pairs (docs/isa.md "mm")
    uint32_t overlap = 0; // OVERLAP of the build: overlapped issue (docs/isa.md)
    uint32_t word_bytes() const { return rows > cols ? rows : cols; }
};

class CoreBase {
  public:
    virtual ~CoreBase() = default;
    virtual Geom geom() const = 0;
    virtual void tick() = 0;
    virtual uint32_t reg(int r) = 0;

    uint64_t ticks = 0;

    void reset()
    {
        set_idle_inputs();
        in().rst_i = 1;
        tick(); tick();
        in().rst_i = 0;
        tick();
    }
    void spad_write(uint32_t addr, const uint8_t *p, size_t n)
    {
        for (size_t i = 0; i < n; i++) {
            in().spad_req_valid_i = 1; in().spad_req_we_i = 1;
            in().spad_req_addr_i = addr + (uint32_t)i; in().spad_req_wdata_i = p[i];
            wait_ready();
            tick();
        }
        in().spad_req_valid_i = 0; in().spad_req_we_i = 0;
    }
    void spad_write(uint32_t addr, const std::vector<uint8_t> &v) { spad_write(addr, v.data(), v.size()); }
    std::vector<uint8_t> spad_read(uint32_t addr, size_t n)
    {
        std::vector<uint8_t> out;
        for (size_t i = 0; i < n; i++) {
            in().spad_req_valid_i = 1; in().spad_req_we_i = 0; in().spad_req_addr_i = addr + (uint32_t)i;
            wait_ready();
            tick();
            in().spad_req_valid_i = 0;
            if (!rsp_valid()) throw std::runtime_error("no read response");
            out.push_back(rsp_data());
        }
        return out;
    }
    void load_ucode(const std::vector<uint32_t> &w, uint32_t off = 0)
    {
        for (size_t i = 0; i < w.size(); i++) {
            in().ucode_we_i = 1; in().ucode_addr_i = off + (uint32_t)i; in().ucode_wdata_i = w[i];
            tick();
        }
        in().ucode_we_i = 0;
    }
    void set_args(const std::vector<uint32_t> &a)
    {
        for (size_t i = 0; i < a.size() && i < 8; i++) {
            in().arg_we_i = 1; in().arg_idx_i = (uint8_t)i; in().arg_wdata_i = a[i];
            tick();
        }
        in().arg_we_i = 0;
    }
    // RUN and wait for HALTED / TRAPPED; returns the clock cycles it took.
    uint64_t run(uint32_t pc = 0, uint32_t watchdog = 0, uint64_t limit = 50000000)
    {
        in().run_i = 1; in().run_pc_i = pc; in().run_watchdog_i = watchdog;
        tick();
        in().run_i = 0;
        uint64_t n = 0;
        while (state() == 1) {
            tick();
            if (++n > limit) throw std::runtime_error("run did not finish");
        }
        return n;
    }
    void stop() { in().stop_i = 1; tick(); in().stop_i = 0; tick(); }
    // pieces of the above for tests that act while a kernel runs
    void start_run(uint32_t pc = 0, uint32_t watchdog = 0)
    {
        in().run_i = 1; in().run_pc_i = pc; in().run_watchdog_i = watchdog;
        tick();
        in().run_i = 0;
    }
    void set_link(bool rx, bool tx) { in().link_rx_byte_i = rx; in().link_tx_byte_i = tx; }
    void set_cnt_sel(unsigned id) { in().cnt_sel_i = (uint8_t)id; }
    bool cnt_fresh() { return out_fresh(); }
    uint64_t cnt_value() { return out_cnt(); }
    // COUNTERS path: select, then wait for cnt_fresh_o as the command engine
    // does (1 cycle with the flip-flop store, up to ~20 with the EBR store);
    // the value is the one the core loaded, not re-read after fresh
    uint64_t counter(unsigned id)
    {
        in().cnt_sel_i = (uint8_t)id;
        for (int i = 0;; i++) {
            tick();
            if (out_fresh()) return out_cnt();
            if (i > 64) throw std::runtime_error("counter read never fresh");
        }
    }

    virtual int state() = 0;
    virtual int trap() = 0;
    virtual uint32_t pc() = 0;
    // the host byte port would be served this cycle (spad_req_ready_o)
    bool spad_port_ready() { return ready(); }

  protected:
    struct Inputs {
        uint8_t &rst_i, &spad_req_valid_i, &spad_req_we_i, &spad_req_wdata_i, &ucode_we_i, &arg_we_i,
            &arg_idx_i, &run_i, &stop_i, &cnt_sel_i, &link_rx_byte_i, &link_tx_byte_i;
        uint32_t &spad_req_addr_i, &ucode_addr_i, &ucode_wdata_i, &arg_wdata_i, &run_pc_i, &run_watchdog_i;
    };
    virtual Inputs in() = 0;
    virtual bool ready() = 0;
    virtual bool rsp_valid() = 0;
    virtual uint8_t rsp_data() = 0;
    virtual uint64_t out_cnt() = 0;
    virtual bool out_fresh() = 0;
    void wait_ready()
    {
        for (int i = 0; !ready(); i++) {
            tick();
            if (i > 100000) throw std::runtime_error("spad port never ready");
        }
    }
    void set_idle_inputs()
    {
        Inputs i = in();
        i.rst_i = 0; i.spad_req_valid_i = 0; i.spad_req_we_i = 0; i.spad_req_wdata_i = 0;
        i.ucode_we_i = 0; i.arg_we_i = 0; i.arg_idx_i = 0; i.run_i = 0; i.stop_i = 0; i.cnt_sel_i = 0;
        i.link_rx_byte_i = 0; i.link_tx_byte_i = 0; i.spad_req_addr_i = 0; i.ucode_addr_i = 0;
        i.ucode_wdata_i = 0; i.arg_wdata_i = 0; i.run_pc_i = 0; i.run_watchdog_i = 0;
    }
};

template <class V> class Core : public CoreBase {
  public:
    Core(const Geom &g) : g_(g), ctx_(new VerilatedContext), m_(new V(ctx_.get())) { reset(); }
    ~Core() override { m_->final(); }
    Geom geom() const override { return g_; }
    // One cycle: clk_i falls (with SPAD_2X, clk2x_i rises with it: the edge
    // mid-cycle), then rises, with clk2x_i (the aligned edge). clk2x_i's
    // falling edges come between.
    void tick() override
    {
        fall();
        clk2x_fall();
        m_->clk_i = 1; m_->eval();
        low_ = false;
        ticks++;
    }
    // REGS path of the core (reg_sel_i -> reg_value_o, one cycle: the
    // registers are in RAM); only while not running, as the command engine
    uint32_t reg(int r) override
    {
        m_->reg_sel_i = (uint8_t)r;
        tick();
        uint32_t v = m_->reg_value_o;
        m_->reg_sel_i = 0;
        return v;
    }
    int state() override { return m_->state_o; }
    int trap() override { return m_->trap_o; }
    uint32_t pc() override { return m_->pc_o; }
    V &model() { return *m_; }

  protected:
    Inputs in() override
    {
        V &m = *m_;
        return Inputs{m.rst_i, m.spad_req_valid_i, m.spad_req_we_i, m.spad_req_wdata_i, m.ucode_we_i,
                      m.arg_we_i, m.arg_idx_i, m.run_i, m.stop_i, m.cnt_sel_i, m.link_rx_byte_i,
                      m.link_tx_byte_i, m.spad_req_addr_i, m.ucode_addr_i, m.ucode_wdata_i,
                      m.arg_wdata_i, m.run_pc_i, m.run_watchdog_i};
    }
    bool ready() override { m_->eval(); return m_->spad_req_ready_o; }
    bool rsp_valid() override { return m_->spad_rsp_valid_o; }
    // the byte the command engine takes at the next rising edge: read after
    // this cycle's falling edge, where an SPRAM built with its request
    // registered (SPAD_2X, spu_spram MID) delivers it (tick() starts there)
    uint8_t rsp_data() override { fall(); return m_->spad_rsp_rdata_o; }
    uint64_t out_cnt() override { return m_->cnt_value_o; }
    bool out_fresh() override { return m_->cnt_fresh_o; }

  private:
    // the cycle's falling edge of clk_i, once (and clk2x_i's rising edge
    // mid-cycle, after its own falling edge)
    void fall()
    {
        if (low_) return;
        clk2x_fall();
        m_->clk_i = 0; m_->eval();
        low_ = true;
    }
    // clk2x_i's falling edge (SPAD_2X); it rises with the next eval()
    void clk2x_fall()
    {
        if (!g_.clk2x) return;
        m_->clk2x_i = 0; m_->eval();
        m_->clk2x_i = 1;
    }
    Geom g_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<V> m_;
    bool low_ = false;
};

// The Verilated configurations (tests/rtl_core/build.mk): 8 = c8, 4 = c4,
// 1 = c8n (c8 with one drain lane, int32 elements sharing a word, and the
// systolic array: BROADCAST = 0), 5 = c4s
// (c4 with the iCEBreaker's 128 KiB single-port SPRAM scratchpad), 6 = c4f
// (c4 carrying every array format: bf16 and MX on the broadcast wiring).
inline std::unique_ptr<CoreBase> make_core(int which)
{
    if (which == 5) return std::unique_ptr<CoreBase>(new Core<Vspu_core_c4s>({4, 4, 131072, 2, 256, 4, 1, 0x1, 0, 1, 0, 1, 1, 1}));
    if (which == 6) return std::unique_ptr<CoreBase>(new Core<Vspu_core_c4f>({4, 4, 8192, 2, 256, 4, 1, 0x1F9D, 0, 0, 0, 1}));
    if (which == 8) return std::unique_ptr<CoreBase>(new Core<Vspu_core_c8>({8, 8, 262144, 4, 1024, 4, 8, 0x1F9D, 1, 0, 1, 1, 0, 0, 1}));
    if (which == 1) return std::unique_ptr<CoreBase>(new Core<Vspu_core_c8n>({8, 8, 262144, 4, 1024, 4, 1, 0x1F9D, 1, 0, 1}));
    return std::unique_ptr<CoreBase>(new Core<Vspu_core_c4>({4, 4, 8192, 2, 256, 4, 1, 0x1, 0, 0, 0, 1, 0, 0, 1}));
}
inline std::string core_name(int which)
{
    return which == 8 ? "g8x8" : which == 1 ? "g8x8_1lane" : which == 5 ? "g4x4_spram" : which == 6 ? "g4x4_float" : "g4x4";
}

// ---- instruction builders (the C encoder of host/include/spu/isa.h) ---------
inline uint32_t enc(unsigned op, unsigned a = 0, unsigned b = 0, unsigned c = 0, int32_t imm = 0)
{
    spu_insn in{op, a, b, c, imm};
    uint32_t w = 0;
    if (spu_isa_encode(&in, &w) != 0) throw std::runtime_error("encode failed");
    return w;
}
inline uint32_t NOP() { return enc(SPU_OP_NOP); }
inline uint32_t HALT() { return enc(SPU_OP_HALT); }
inline uint32_t LI(unsigned a, int32_t v) { return enc(SPU_OP_LI, a, 0, 0, v); }
inline uint32_t LUI(unsigned a, int32_t v) { return enc(SPU_OP_LUI, a, 0, 0, v); }
inline uint32_t ADDI(unsigned a, unsigned b, int32_t v) { return enc(SPU_OP_ADDI, a, b, 0, v); }
inline uint32_t ADD(unsigned a, unsigned b, unsigned c) { return enc(SPU_OP_ADD, a, b, c); }
inline uint32_t SUB(unsigned a, unsigned b, unsigned c) { return enc(SPU_OP_SUB, a, b, c); }
inline uint32_t MUL(unsigned a, unsigned b, unsigned c) { return enc(SPU_OP_MUL, a, b, c); }
inline uint32_t SHLI(unsigned a, unsigned b, int32_t s) { return enc(SPU_OP_SHLI, a, b, 0, s); }
inline uint32_t BNE(unsigned a, unsigned b, int32_t t) { return enc(SPU_OP_BNE, a, b, 0, t); }
inline uint32_t BLT(unsigned a, unsigned b, int32_t t) { return enc(SPU_OP_BLT, a, b, 0, t); }
inline uint32_t JMP(int32_t t) { return enc(SPU_OP_JMP, 0, 0, 0, t); }
inline uint32_t LOOP(unsigned a, int32_t end) { return enc(SPU_OP_LOOP, a, 0, 0, end); }
inline uint32_t CFG(unsigned out, unsigned shift, unsigned round, unsigned relu)
{
    return enc(SPU_OP_CFG, 0, 0, 0, (int32_t)((out << 4) | (shift << 8) | (round << 13) | (relu << 15)));
}
// cfg with an input dtype too
inline uint32_t CFGI(unsigned in, unsigned out, unsigned shift = 0, unsigned round = 0, unsigned relu = 0,
                     unsigned ovf = 0)
{
    return enc(SPU_OP_CFG, 0, 0, 0,
               (int32_t)(in | (out << 4) | (shift << 8) | (round << 13) | (relu << 15) | (ovf << 16)));
}
inline uint32_t STRIDE(unsigned a, unsigned b, unsigned c) { return enc(SPU_OP_STRIDE, a, b, c); }
inline uint32_t ZACC() { return enc(SPU_OP_ZACC); }
inline uint32_t MM(unsigned a, unsigned b, unsigned c) { return enc(SPU_OP_MM, a, b, c); }
inline uint32_t ST(unsigned a) { return enc(SPU_OP_ST, a); }
inline uint32_t SYNC() { return enc(SPU_OP_SYNC); }
inline uint32_t BIAS(unsigned a) { return enc(SPU_OP_BIAS, a); }
inline uint32_t CNT(unsigned a, int32_t id) { return enc(SPU_OP_CNT, a, 0, 0, id); }
// vector unit (docs/isa.md "Vector unit")
inline uint32_t VLEN(unsigned a) { return enc(SPU_OP_VLEN, a); }
inline uint32_t VSTRIDE(unsigned a, unsigned b, unsigned c) { return enc(SPU_OP_VSTRIDE, a, b, c); }
inline uint32_t VOP(unsigned op, unsigned a, unsigned b, unsigned c = 0) { return enc(op, a, b, c); }
inline uint32_t VLUTLD(unsigned a) { return enc(SPU_OP_VLUTLD, a); }
