/*
 * error.c -- messages and names for the SPU_E* codes (table in spu/spu.h)
 * and for the hardware tables (traps, states, counters from hw/isa/).
 */
#include "spu/spu.h"

#define SPU_X_(name, value, msg) case (value): return msg;
const char *spu_strerror(int err)
{
    switch (err) {
    SPU_ERRORS(SPU_X_)
    default: return "unknown error";
    }
}
#undef SPU_X_

#define SPU_X_(name, value, msg) case (value): return "SPU_" #name;
const char *spu_error_name(int err)
{
    switch (err) {
    SPU_ERRORS(SPU_X_)
    default: return "SPU_E?";
    }
}
#undef SPU_X_

const char *spu_trap_name(int trap)
{
    switch (trap) {
#define SPU_TRAP(name, code, summary) case (code): return #name;
#include "spu_traps.def"
#undef SPU_TRAP
    default: return "?";
    }
}

const char *spu_state_name(int state)
{
    switch (state) {
#define SPU_STATE(name, code) case (code): return #name;
#include "spu_link.def"
#undef SPU_STATE
    default: return "?";
    }
}

const char *spu_counter_name(int id)
{
    switch (id) {
#define SPU_COUNTER(name, cid, key, summary) case (cid): return key;
#include "spu_counters.def"
#undef SPU_COUNTER
    default: return "?";
    }
}

const char *spu_version(void)
{
#define SPU_STR2_(x) #x
#define SPU_STR_(x) SPU_STR2_(x)
    return SPU_STR_(SPU_VERSION_MAJOR) "." SPU_STR_(SPU_VERSION_MINOR) "." SPU_STR_(SPU_VERSION_PATCH);
}
