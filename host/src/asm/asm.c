/*
 * asm.c -- the SPU assembler (syntax reference: docs/asm.md).
 *
 * Two passes over the source. Pass 1 assigns addresses: it defines labels,
 * evaluates `.equ` constants (deferring those that name a later label) and
 * fixes the size of every statement (only the `li` pseudo-instruction has two
 * sizes: one word when its value is known in pass 1 and fits imm22, else the
 * two-word lui+addi form). Pass 2 evaluates operands and encodes through
 * spu_isa_encode(). Operand shapes, counters and cfg fields all come from the
 * tables of hw/isa/ (the .def files). Errors of both passes are collected, sorted by
 * position and returned as "file:line:col: error: message" lines; no image
 * is returned when there is any error.
 */
#include "spu/asm.h"
#include "spu/isa.h"
#include "spu/spu.h"
#include "asm_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_DIAGS 200

typedef struct diag {
    int line, col;
    size_t seq;
    char *msg;
} diag;

enum { SYM_LABEL, SYM_EQU };

typedef struct sym {
    char *name;
    int kind;
    int defined;        /* 0: .equ waiting for a later symbol */
    int64_t value;
    int line, col;      /* definition */
    char *expr;         /* deferred .equ: expression text */
    int expr_col;
    unsigned char state;     /* resolve_deferred: 0 new, 1 on the stack, 2 done, 3 failed */
    unsigned char circular;  /* failed as part of a cycle */
} sym;

typedef struct alias {
    char *name;
    unsigned reg;
} alias;

typedef struct loopinfo {
    uint32_t pc, end;
    int line, col;
} loopinfo;

typedef struct asm_ctx {
    const char *file;
    int pass;
    int line;
    uint32_t pc;
    int oom;

    diag *diags;
    size_t ndiags, capdiags, seq;

    sym *syms;
    size_t nsyms, capsyms;
    size_t *symtab;        /* open-addressing hash of syms: index + 1, 0 = empty */
    size_t capsymtab;      /* a power of two, > 2 * nsyms */
    alias *aliases;
    size_t naliases, capaliases;

    unsigned char *lisz;   /* size chosen in pass 1 for each `li` */
    size_t nli, capli, li_next;

    uint32_t *words;
    size_t nwords, capwords;

    loopinfo *loops;
    size_t nloops, caploops;
} asm_ctx;

/* ---- small utilities ------------------------------------------------------ */

static int grow(asm_ctx *c, void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q) {
        c->oom = 1;
        return -1;
    }
    *p = q;
    *cap = n;
    return 0;
}

static char *dupn(asm_ctx *c, const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) {
        c->oom = 1;
        return NULL;
    }
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

static void vdiag(asm_ctx *c, int line, int col, const char *fmt, va_list ap)
{
    if (c->ndiags >= MAX_DIAGS + 1)
        return;
    if (grow(c, (void **)&c->diags, &c->capdiags, c->ndiags + 1, sizeof *c->diags))
        return;
    char buf[512];
    if (c->ndiags == MAX_DIAGS)
        snprintf(buf, sizeof buf, "too many errors, stopping");
    else
        vsnprintf(buf, sizeof buf, fmt, ap);
    diag *d = &c->diags[c->ndiags];
    d->msg = dupn(c, buf, strlen(buf));
    if (!d->msg)
        return;
    d->line = line;
    d->col = col;
    d->seq = c->seq++;
    c->ndiags++;
}

/* An error found while assembling (reported in pass 2 only, so each
 * statement's errors appear once). */
__attribute__((format(printf, 3, 4)))
static void err(asm_ctx *c, int col, const char *fmt, ...)
{
    if (c->pass != 2)
        return;
    va_list ap;
    va_start(ap, fmt);
    vdiag(c, c->line, col, fmt, ap);
    va_end(ap);
}

/* An error about a definition (labels, .equ, .alias): pass 1 only. */
__attribute__((format(printf, 4, 5)))
static void err_def(asm_ctx *c, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(c, line, col, fmt, ap);
    va_end(ap);
}

static int is_ident_start(int ch) { return isalpha(ch) || ch == '_'; }
static int is_ident_char(int ch) { return isalnum(ch) || ch == '_'; }

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v')
        p++;
    return p;
}

/* r0..r15 (case-insensitive); -1 if the text is not a register name. */
static int reg_number(const char *s, size_t n)
{
    if (n < 2 || n > 3 || (s[0] != 'r' && s[0] != 'R'))
        return -1;
    if (!isdigit((unsigned char)s[1]) || (n == 3 && !isdigit((unsigned char)s[2])))
        return -1;
    if (n == 3 && s[1] == '0')
        return -1;
    int v = s[1] - '0';
    if (n == 3)
        v = v * 10 + (s[2] - '0');
    return v < SPU_NREGS ? v : -1;
}

static alias *find_alias(asm_ctx *c, const char *s, size_t n)
{
    for (size_t i = 0; i < c->naliases; i++)
        if (strlen(c->aliases[i].name) == n && !memcmp(c->aliases[i].name, s, n))
            return &c->aliases[i];
    return NULL;
}

static size_t name_hash(const char *s, size_t n)
{
    size_t h = 1469598103934665603ull;   /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* Symbols are looked up through a hash table: long programs and long .equ
 * chains stay linear (a linear search made them quadratic or worse). */
static sym *find_sym(asm_ctx *c, const char *s, size_t n)
{
    if (!c->capsymtab)
        return NULL;
    for (size_t i = name_hash(s, n) & (c->capsymtab - 1);; i = (i + 1) & (c->capsymtab - 1)) {
        size_t k = c->symtab[i];
        if (!k)
            return NULL;
        sym *y = &c->syms[k - 1];
        if (strlen(y->name) == n && !memcmp(y->name, s, n))
            return y;
    }
}

/* Index syms[c->nsyms - 1] (just added); 0 or -1 when out of memory. */
static int index_last_sym(asm_ctx *c)
{
    if (2 * c->nsyms >= c->capsymtab) {
        size_t cap = c->capsymtab ? 2 * c->capsymtab : 64;
        while (2 * c->nsyms >= cap)
            cap *= 2;
        size_t *t = calloc(cap, sizeof *t);
        if (!t) {
            c->oom = 1;
            return -1;
        }
        free(c->symtab);
        c->symtab = t;
        c->capsymtab = cap;
        for (size_t k = 0; k < c->nsyms; k++) {
            sym *y = &c->syms[k];
            size_t i = name_hash(y->name, strlen(y->name)) & (cap - 1);
            while (t[i])
                i = (i + 1) & (cap - 1);
            t[i] = k + 1;
        }
        return 0;
    }
    sym *y = &c->syms[c->nsyms - 1];
    size_t i = name_hash(y->name, strlen(y->name)) & (c->capsymtab - 1);
    while (c->symtab[i])
        i = (i + 1) & (c->capsymtab - 1);
    c->symtab[i] = c->nsyms;
    return 0;
}

/* ---- expressions --------------------------------------------------------- */

/* Parentheses and unary operators may nest this deep (the parser recurses). */
#define ASM_EXPR_DEPTH_MAX 256

typedef struct expr {
    asm_ctx *c;
    const char *p, *end;
    const char *base;   /* for columns: col = p - base + col0 */
    int col0;
    int failed;         /* a message was produced (msg/col) */
    int depth;          /* nesting of parentheses and unary operators */
    int undefined;      /* an unknown symbol was met */
    int col;
    char msg[200];
} expr;

static int ecol(expr *e, const char *at) { return (int)(at - e->base) + e->col0; }

__attribute__((format(printf, 3, 4)))
static void efail(expr *e, const char *at, const char *fmt, ...)
{
    if (e->failed)
        return;
    e->failed = 1;
    e->col = ecol(e, at);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
}

static void eskip(expr *e)
{
    while (e->p < e->end && (*e->p == ' ' || *e->p == '\t'))
        e->p++;
}

static int64_t e_or(expr *e);

static int64_t e_primary(expr *e)
{
    eskip(e);
    const char *s = e->p;
    if (s >= e->end) {
        efail(e, s, "expected a value");
        return 0;
    }
    if (*s == '(') {
        if (++e->depth > ASM_EXPR_DEPTH_MAX) {
            efail(e, s, "expression nested deeper than %d levels", ASM_EXPR_DEPTH_MAX);
            return 0;
        }
        e->p++;
        int64_t v = e_or(e);
        e->depth--;
        eskip(e);
        if (e->p >= e->end || *e->p != ')') {
            efail(e, e->p, "expected ')'");
            return 0;
        }
        e->p++;
        return v;
    }
    if (isdigit((unsigned char)*s)) {
        int base = 10;
        const char *q = s;
        if (q + 1 < e->end && q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
            base = 16;
            q += 2;
        } else if (q + 1 < e->end && q[0] == '0' && (q[1] == 'b' || q[1] == 'B')) {
            base = 2;
            q += 2;
        }
        uint64_t v = 0;
        int ndig = 0, overflow = 0;
        while (q < e->end && (isalnum((unsigned char)*q) || *q == '_')) {
            int d;
            if (*q == '_') { q++; continue; }
            if (isdigit((unsigned char)*q)) d = *q - '0';
            else d = tolower((unsigned char)*q) - 'a' + 10;
            if (d >= base) {
                efail(e, s, "malformed number '%.*s'", (int)(e->end - s), s);
                return 0;
            }
            if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
                overflow = 1;
            v = v * (uint64_t)base + (uint64_t)d;
            ndig++;
            q++;
        }
        if (!ndig) {
            efail(e, s, "malformed number");
            return 0;
        }
        if (overflow || v > (uint64_t)INT64_MAX / 2) {
            efail(e, s, "number too large");
            return 0;
        }
        e->p = q;
        return (int64_t)v;
    }
    if (is_ident_start((unsigned char)*s)) {
        const char *q = s;
        while (q < e->end && is_ident_char((unsigned char)*q))
            q++;
        size_t n = (size_t)(q - s);
        e->p = q;
        if (reg_number(s, n) >= 0 || find_alias(e->c, s, n)) {
            efail(e, s, "register '%.*s' where a value is expected", (int)n, s);
            return 0;
        }
        sym *y = find_sym(e->c, s, n);
        if (!y || !y->defined) {
            e->undefined = 1;
            efail(e, s, "undefined symbol '%.*s'", (int)n, s);
            return 0;
        }
        return y->value;
    }
    efail(e, s, "unexpected '%c' in expression", *s);
    return 0;
}

static int64_t e_unary(expr *e)
{
    eskip(e);
    if (e->p < e->end && (*e->p == '-' || *e->p == '+' || *e->p == '~')) {
        if (++e->depth > ASM_EXPR_DEPTH_MAX) {
            efail(e, e->p, "expression nested deeper than %d levels", ASM_EXPR_DEPTH_MAX);
            return 0;
        }
        char op = *e->p++;
        int64_t v = e_unary(e);
        e->depth--;
        return op == '-' ? -v : op == '~' ? ~v : v;
    }
    return e_primary(e);
}

/* Keep intermediate values within +-2^62 so that no operation overflows. */
static int64_t e_check(expr *e, const char *at, int64_t v)
{
    if (v > ((int64_t)1 << 62) || v < -((int64_t)1 << 62))
        efail(e, at, "value out of range in expression");
    return v;
}

static int64_t e_mul(expr *e)
{
    int64_t v = e_unary(e);
    for (;;) {
        eskip(e);
        if (e->p >= e->end || !strchr("*/%", *e->p) || e->failed)
            return v;
        const char *at = e->p;
        char op = *e->p++;
        int64_t r = e_unary(e);
        if (e->failed)
            return 0;
        if (op == '*') {
            if (v != 0 && (r > ((int64_t)1 << 62) / (v < 0 ? -v : v) || r < -((int64_t)1 << 62) / (v < 0 ? -v : v))) {
                efail(e, at, "value out of range in expression");
                return 0;
            }
            v *= r;
        } else {
            if (r == 0) {
                efail(e, at, "division by zero");
                return 0;
            }
            v = op == '/' ? v / r : v % r;
        }
    }
}

static int64_t e_add(expr *e)
{
    int64_t v = e_mul(e);
    for (;;) {
        eskip(e);
        if (e->p >= e->end || (*e->p != '+' && *e->p != '-') || e->failed)
            return v;
        const char *at = e->p;
        char op = *e->p++;
        int64_t r = e_mul(e);
        v = e_check(e, at, op == '+' ? v + r : v - r);
    }
}

static int64_t e_shift(expr *e)
{
    int64_t v = e_add(e);
    for (;;) {
        eskip(e);
        if (e->p + 1 >= e->end || e->failed)
            return v;
        if (!((e->p[0] == '<' && e->p[1] == '<') || (e->p[0] == '>' && e->p[1] == '>')))
            return v;
        const char *at = e->p;
        char op = *e->p;
        e->p += 2;
        int64_t r = e_add(e);
        if (e->failed)
            return 0;
        if (r < 0 || r > 62) {
            efail(e, at, "shift count %lld out of range (0..62)", (long long)r);
            return 0;
        }
        if (op == '<') {
            if (v > (((int64_t)1 << 62) >> r) || v < -(((int64_t)1 << 62) >> r)) {
                efail(e, at, "value out of range in expression");
                return 0;
            }
            v = (int64_t)((uint64_t)v << r);
        } else {
            v = v >= 0 ? v >> r : -((-v - 1) >> r) - 1;   /* arithmetic */
        }
    }
}

static int64_t e_and(expr *e)
{
    int64_t v = e_shift(e);
    for (;;) {
        eskip(e);
        if (e->p >= e->end || *e->p != '&' || e->failed)
            return v;
        e->p++;
        v &= e_shift(e);
    }
}

static int64_t e_xor(expr *e)
{
    int64_t v = e_and(e);
    for (;;) {
        eskip(e);
        if (e->p >= e->end || *e->p != '^' || e->failed)
            return v;
        e->p++;
        v ^= e_and(e);
    }
}

static int64_t e_or(expr *e)
{
    int64_t v = e_xor(e);
    for (;;) {
        eskip(e);
        if (e->p >= e->end || *e->p != '|' || e->failed)
            return v;
        e->p++;
        v |= e_xor(e);
    }
}

/* Evaluate [s, end); col0 is the column of s. Returns 0 on success. */
static int eval(asm_ctx *c, const char *s, const char *end, int col0, int64_t *out, expr *e)
{
    memset(e, 0, sizeof *e);
    e->c = c;
    e->p = s;
    e->end = end;
    e->base = s;
    e->col0 = col0;
    int64_t v = e_or(e);
    eskip(e);
    if (!e->failed && e->p < e->end)
        efail(e, e->p, "unexpected '%.*s' after expression", (int)(e->end - e->p), e->p);
    if (e->failed)
        return -1;
    *out = v;
    return 0;
}

/* Evaluate and report any error (pass 2). */
static int eval_report(asm_ctx *c, const char *s, const char *end, int col0, int64_t *out)
{
    expr e;
    if (eval(c, s, end, col0, out, &e) == 0)
        return 0;
    err(c, e.col, "%s", e.msg);
    return -1;
}

/* ---- output ---------------------------------------------------------------- */

static void emit(asm_ctx *c, uint32_t w)
{
    if (c->pass == 2) {
        if (grow(c, (void **)&c->words, &c->capwords, c->nwords + 1, sizeof *c->words))
            return;
        c->words[c->nwords++] = w;
    }
}

/* Advance pc by n words; checks the 32-bit address space. */
static void advance(asm_ctx *c, uint32_t n, int col)
{
    if (c->pc > UINT32_MAX - n) {
        err(c, col, "program too large");
        return;
    }
    c->pc += n;
}

/* ---- operands -------------------------------------------------------------- */

typedef struct span {
    const char *s, *e;  /* trimmed text */
    int col;
} span;

static int parse_reg(asm_ctx *c, const span *o, unsigned *reg)
{
    size_t n = (size_t)(o->e - o->s);
    int r = reg_number(o->s, n);
    if (r >= 0) {
        *reg = (unsigned)r;
        return 0;
    }
    alias *a = find_alias(c, o->s, n);
    if (a) {
        *reg = a->reg;
        return 0;
    }
    if (n >= 2 && (o->s[0] == 'r' || o->s[0] == 'R') && isdigit((unsigned char)o->s[1]))
        err(c, o->col, "bad register '%.*s' (registers are r0..r15)", (int)n, o->s);
    else
        err(c, o->col, "expected a register (r0..r15 or an .alias name), got '%.*s'", (int)n, o->s);
    return -1;
}

/* Range of an immediate operand, found by asking the encoder (so the
 * message always agrees with what spu_isa_encode accepts). */
static void imm_range(const spu_insn *base, int64_t *lo, int64_t *hi)
{
    spu_insn t = *base;
    uint32_t w;
    int64_t a = 0, b = INT32_MAX;   /* largest accepted in [a, b] */
    while (a < b) {
        int64_t m = a + (b - a + 1) / 2;
        t.imm = (int32_t)m;
        if (spu_isa_encode(&t, &w) == 0) a = m; else b = m - 1;
    }
    *hi = a;
    a = INT32_MIN;
    b = 0;                          /* smallest accepted in [a, b] */
    while (a < b) {
        int64_t m = a + (b - a) / 2;
        t.imm = (int32_t)m;
        if (spu_isa_encode(&t, &w) == 0) b = m; else a = m + 1;
    }
    *lo = a;
}

static int split_operands(asm_ctx *c, const char *s, const char *line, span *ops, int max, int *nops)
{
    int n = 0;
    s = skip_ws(s);
    if (!*s) {
        *nops = 0;
        return 0;
    }
    for (;;) {
        const char *b = skip_ws(s), *q = b;
        int depth = 0;
        while (*q && !(*q == ',' && depth == 0)) {
            if (*q == '(') depth++;
            else if (*q == ')') depth--;
            q++;
        }
        const char *e = q;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
            e--;
        if (e == b) {
            err(c, (int)(b - line) + 1, "empty operand");
            return -1;
        }
        if (n < max) {
            ops[n].s = b;
            ops[n].e = e;
            ops[n].col = (int)(b - line) + 1;
        }
        n++;
        if (!*q)
            break;
        s = q + 1;
    }
    *nops = n;
    return 0;
}

/* ---- instructions ---------------------------------------------------------- */

static void encode_emit(asm_ctx *c, const spu_insn *in, int col, const char *mn, const char *opname,
                        int64_t value, int imm_col)
{
    uint32_t w;
    if (spu_isa_encode(in, &w) == 0) {
        emit(c, w);
        return;
    }
    int64_t lo, hi;
    imm_range(in, &lo, &hi);
    if (value < lo || value > hi) {
        err(c, imm_col, "value %lld out of range for %s of '%s' (%lld..%lld)", (long long)value,
            opname, mn, (long long)lo, (long long)hi);
    } else {
        err(c, col, "cannot encode '%s'", mn);
    }
}

/* cfg key=value ... (or a bare cfg: every field at its default). */
static int parse_cfg(asm_ctx *c, const char *rest, const char *line, uint32_t *imm)
{
    uint32_t v = 0;
    int seen[SPU_CFG_FIELD_COUNT] = {0};
    int ok = 1;
    for (int i = 0; i < SPU_CFG_FIELD_COUNT; i++)
        v |= spu_cfg_field_table[i].def << spu_cfg_field_table[i].lsb;
    const char *p = rest;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\r')
            p++;
        if (!*p)
            break;
        const char *s = p;
        while (*p && *p != ' ' && *p != '\t' && *p != ',' && *p != '\r')
            p++;
        int col = (int)(s - line) + 1;
        const char *eq = memchr(s, '=', (size_t)(p - s));
        if (!eq || eq == s || eq + 1 == p) {
            err(c, col, "expected key=value in cfg, got '%.*s'", (int)(p - s), s);
            ok = 0;
            continue;
        }
        size_t klen = (size_t)(eq - s);
        int field = -1;
        for (int i = 0; i < SPU_CFG_FIELD_COUNT; i++)
            if (strlen(spu_cfg_field_table[i].key) == klen &&
                !strncasecmp(spu_cfg_field_table[i].key, s, klen))
                field = i;
        if (field < 0) {
            char keys[128] = "";
            for (int i = 0; i < SPU_CFG_FIELD_COUNT; i++) {
                strncat(keys, spu_cfg_field_table[i].key, sizeof keys - strlen(keys) - 1);
                if (i + 1 < SPU_CFG_FIELD_COUNT)
                    strncat(keys, ", ", sizeof keys - strlen(keys) - 1);
            }
            err(c, col, "unknown cfg key '%.*s' (keys: %s)", (int)klen, s, keys);
            ok = 0;
            continue;
        }
        if (seen[field]) {
            err(c, col, "cfg key '%s' given twice", spu_cfg_field_table[field].key);
            ok = 0;
            continue;
        }
        seen[field] = 1;
        const char *vs = eq + 1;
        size_t vlen = (size_t)(p - vs);
        int vcol = (int)(vs - line) + 1;
        int64_t val = -1;
        if (field == SPU_CFG_IN || field == SPU_CFG_OUT) {
            char key[32];
            if (vlen < sizeof key) {
                for (size_t i = 0; i < vlen; i++)
                    key[i] = (char)tolower((unsigned char)vs[i]);
                key[vlen] = 0;
                const spu_dtype_desc *d = spu_dtype_by_key(key);
                if (d)
                    val = d->code;
            }
        } else if (field == SPU_CFG_ROUND) {
            int r = spu_asm_round_code(vs, vlen);
            if (r >= 0)
                val = r;
        }
        if (val < 0) {
            int symbolic = field == SPU_CFG_IN || field == SPU_CFG_OUT || field == SPU_CFG_ROUND;
            if (symbolic && is_ident_start((unsigned char)*vs) && !find_sym(c, vs, vlen)) {
                err(c, vcol, "unknown value '%.*s' for cfg key '%s'", (int)vlen, vs,
                    spu_cfg_field_table[field].key);
                ok = 0;
                continue;
            }
            if (eval_report(c, vs, p, vcol, &val)) {
                ok = 0;
                continue;
            }
        }
        char why[160];
        if (val < 0 || val > UINT32_MAX) {
            err(c, vcol, "value %lld out of range for cfg key '%s'", (long long)val,
                spu_cfg_field_table[field].key);
            ok = 0;
            continue;
        }
        if (spu_asm_cfg_field_check(field, (uint32_t)val, why, sizeof why)) {
            err(c, vcol, "%s", why);
            ok = 0;
            continue;
        }
        const spu_cfg_field_desc *f = &spu_cfg_field_table[field];
        v &= ~(((1u << f->width) - 1u) << f->lsb);
        v |= (uint32_t)val << f->lsb;
    }
    *imm = v;
    return ok ? 0 : -1;
}

static void do_li(asm_ctx *c, const char *mn, int mncol, span *ops, int nops)
{
    if (c->pass == 1) {
        int64_t v;
        expr e;
        int size = 2;
        if (nops == 2 && eval(c, ops[1].s, ops[1].e, ops[1].col, &v, &e) == 0 &&
            v >= -(1 << 21) && v < (1 << 21))
            size = 1;
        if (grow(c, (void **)&c->lisz, &c->capli, c->nli + 1, 1) == 0)
            c->lisz[c->nli++] = (unsigned char)size;
        advance(c, (uint32_t)size, mncol);
        return;
    }
    int size = c->li_next < c->nli ? c->lisz[c->li_next] : 2;
    c->li_next++;
    advance(c, (uint32_t)size, mncol);
    if (nops < 0)
        return;   /* already reported */
    if (nops != 2) {
        err(c, mncol, "'%s' takes 2 operands (rA, imm32), got %d", mn, nops);
        return;
    }
    unsigned ra;
    int64_t v;
    int bad = parse_reg(c, &ops[0], &ra);
    if (eval_report(c, ops[1].s, ops[1].e, ops[1].col, &v) || bad)
        return;
    if (v < INT32_MIN || v > (int64_t)UINT32_MAX) {
        err(c, ops[1].col, "value %lld out of range for 'li' (%d..%u)", (long long)v, INT32_MIN,
            UINT32_MAX);
        return;
    }
    uint32_t u = (uint32_t)v;
    if (size == 1) {
        spu_insn in = { SPU_OP_LI, ra, 0, 0, (int32_t)v };
        encode_emit(c, &in, mncol, mn, "imm22", v, ops[1].col);
        return;
    }
    uint32_t hi = ((u + 0x8000u) >> 16) & 0xFFFFu;
    int32_t lo = (int32_t)(u - (hi << 16));
    spu_insn lui = { SPU_OP_LUI, ra, 0, 0, (int32_t)hi };
    spu_insn addi = { SPU_OP_ADDI, ra, ra, 0, lo };
    encode_emit(c, &lui, mncol, "lui", "imm22", hi, ops[1].col);
    encode_emit(c, &addi, mncol, "addi", "imm18", lo, ops[1].col);
}

static void do_insn(asm_ctx *c, const char *mn, size_t mnlen, int mncol, const char *rest,
                    const char *line)
{
    char name[16];
    if (mnlen >= sizeof name) {
        err(c, mncol, "unknown instruction '%.*s'", (int)mnlen, mn);
        advance(c, 1, mncol);
        return;
    }
    for (size_t i = 0; i < mnlen; i++)
        name[i] = (char)tolower((unsigned char)mn[i]);
    name[mnlen] = 0;

    span ops[SPU_ASM_MAX_OPS + 1];
    int nops = 0;

    if (!strcmp(name, "li")) {
        if (split_operands(c, rest, line, ops, SPU_ASM_MAX_OPS + 1, &nops))
            nops = -1;
        do_li(c, name, mncol, ops, nops);
        return;
    }

    const spu_insn_desc *d = spu_isa_by_mnemonic(name);
    int is_mov = !strcmp(name, "mov");
    if (is_mov)
        d = spu_isa_by_opcode(SPU_OP_ADDI);
    uint32_t pc = c->pc;
    advance(c, 1, mncol);
    if (!d) {
        err(c, mncol, "unknown instruction '%.*s'", (int)mnlen, mn);
        return;
    }
    if (c->pass == 1)
        return;

    spu_asm_opspec spec[SPU_ASM_MAX_OPS];
    int nspec = spu_asm_format_ops(d->format, spec);
    if (nspec < 0) {
        err(c, mncol, "internal: format %s has operands this assembler does not know",
            spu_format_table[d->format].name);
        return;
    }
    const char *shape = spu_format_table[d->format].operands;
    if (is_mov) {
        nspec = 2;   /* mov rA, rB = addi rA, rB, 0 */
        shape = "rA, rB";
    }

    spu_insn in = { d->opcode, 0, 0, 0, 0 };
    if (nspec == 1 && spec[0].kind == SPU_ASM_OP_CFG) {
        uint32_t imm;
        if (parse_cfg(c, rest, line, &imm))
            return;
        in.imm = (int32_t)imm;
        encode_emit(c, &in, mncol, name, "key=value", imm, mncol);
        return;
    }

    if (split_operands(c, rest, line, ops, SPU_ASM_MAX_OPS + 1, &nops))
        return;
    if (nops != nspec) {
        int col = nops > nspec ? ops[nspec < SPU_ASM_MAX_OPS ? nspec : SPU_ASM_MAX_OPS].col : mncol;
        if (nspec == 0)
            err(c, col, "'%s' takes no operands", name);
        else
            err(c, col, "'%s' takes %d operand%s (%s), got %d", name, nspec, nspec == 1 ? "" : "s",
                shape, nops);
        return;
    }

    int bad = 0;
    int64_t value = 0;
    int imm_col = mncol;
    const char *opname = "";
    for (int i = 0; i < nspec; i++) {
        unsigned r;
        switch (spec[i].kind) {
        case SPU_ASM_OP_REG:
            if (parse_reg(c, &ops[i], &r)) {
                bad = 1;
                break;
            }
            if (spec[i].field == 0) in.a = r;
            else if (spec[i].field == 1) in.b = r;
            else in.c = r;
            break;
        case SPU_ASM_OP_COUNTER: {
            char list[256];
            size_t n = (size_t)(ops[i].e - ops[i].s);
            int id = spu_asm_counter_id(ops[i].s, n);
            imm_col = ops[i].col;
            opname = spec[i].name;
            if (id >= 0) {
                value = id;
                break;
            }
            int ident = 1;
            for (size_t k = 0; k < n; k++)
                if (!is_ident_char((unsigned char)ops[i].s[k]))
                    ident = 0;
            if (ident && is_ident_start((unsigned char)ops[i].s[0]) && !find_sym(c, ops[i].s, n)) {
                err(c, ops[i].col, "unknown counter '%.*s' (counters: %s)", (int)n, ops[i].s,
                    spu_asm_counter_list(list, sizeof list));
                bad = 1;
                break;
            }
            if (eval_report(c, ops[i].s, ops[i].e, ops[i].col, &value)) {
                bad = 1;
                break;
            }
            if (value < 0 || value > UINT32_MAX || !spu_asm_counter_key((unsigned)value)) {
                err(c, ops[i].col, "unknown counter id %lld (counters: %s)", (long long)value,
                    spu_asm_counter_list(list, sizeof list));
                bad = 1;
            }
            break;
        }
        case SPU_ASM_OP_IMM:
        case SPU_ASM_OP_ADDR:
            imm_col = ops[i].col;
            opname = spec[i].name;
            if (eval_report(c, ops[i].s, ops[i].e, ops[i].col, &value))
                bad = 1;
            break;
        default:
            err(c, ops[i].col, "internal: operand kind");
            bad = 1;
        }
    }
    if (bad)
        return;
    if (value < INT32_MIN || value > INT32_MAX) {
        spu_insn t = in;
        int64_t lo, hi;
        imm_range(&t, &lo, &hi);
        err(c, imm_col, "value %lld out of range for %s of '%s' (%lld..%lld)", (long long)value,
            opname, name, (long long)lo, (long long)hi);
        return;
    }
    in.imm = (int32_t)value;
    if (d->format == SPU_FMT_LOOP) {
        if (value <= (int64_t)pc + 1) {
            err(c, imm_col, "loop body is empty: end (%lld) must be greater than pc+1 (%u)",
                (long long)value, pc + 1);
            return;
        }
        if (grow(c, (void **)&c->loops, &c->caploops, c->nloops + 1, sizeof *c->loops) == 0)
            c->loops[c->nloops++] = (loopinfo){ pc, (uint32_t)value, c->line, mncol };
    }
    encode_emit(c, &in, mncol, name, opname, value, imm_col);
}

/* ---- directives ------------------------------------------------------------ */

static int check_new_name(asm_ctx *c, const char *s, size_t n, int col, const char *what)
{
    if (reg_number(s, n) >= 0) {
        err_def(c, c->line, col, "%s name '%.*s' is a register", what, (int)n, s);
        return -1;
    }
    return 0;
}

static void define_label(asm_ctx *c, const char *s, size_t n, int col)
{
    if (c->pass == 2) {
        sym *y = find_sym(c, s, n);
        if (y && y->kind == SYM_LABEL && y->line == c->line && y->col == col && y->value != c->pc)
            err(c, col, "internal: label '%.*s' moved between passes", (int)n, s);
        return;
    }
    if (check_new_name(c, s, n, col, "label"))
        return;
    if (find_alias(c, s, n)) {
        err_def(c, c->line, col, "label name '%.*s' is a register alias", (int)n, s);
        return;
    }
    sym *y = find_sym(c, s, n);
    if (y) {
        err_def(c, c->line, col, "duplicate symbol '%.*s' (first defined at line %d)", (int)n, s,
                y->line);
        return;
    }
    if (grow(c, (void **)&c->syms, &c->capsyms, c->nsyms + 1, sizeof *c->syms))
        return;
    sym *ns = &c->syms[c->nsyms];
    memset(ns, 0, sizeof *ns);
    if (!(ns->name = dupn(c, s, n)))
        return;
    ns->kind = SYM_LABEL;
    ns->defined = 1;
    ns->value = c->pc;
    ns->line = c->line;
    ns->col = col;
    c->nsyms++;
    index_last_sym(c);
}

static void do_equ(asm_ctx *c, span *ops, int nops, int dcol)
{
    if (c->pass == 2)
        return;   /* handled (and reported) in pass 1 */
    if (nops != 2) {
        err_def(c, c->line, dcol, "'.equ' takes NAME, expression");
        return;
    }
    size_t n = (size_t)(ops[0].e - ops[0].s);
    for (size_t i = 0; i < n; i++)
        if (!(i ? is_ident_char((unsigned char)ops[0].s[i]) : is_ident_start((unsigned char)ops[0].s[i]))) {
            err_def(c, c->line, ops[0].col, "bad name '%.*s' for .equ", (int)n, ops[0].s);
            return;
        }
    if (check_new_name(c, ops[0].s, n, ops[0].col, ".equ"))
        return;
    if (find_alias(c, ops[0].s, n)) {
        err_def(c, c->line, ops[0].col, ".equ name '%.*s' is a register alias", (int)n, ops[0].s);
        return;
    }
    sym *y = find_sym(c, ops[0].s, n);
    if (y) {
        err_def(c, c->line, ops[0].col, "duplicate symbol '%.*s' (first defined at line %d)", (int)n,
                ops[0].s, y->line);
        return;
    }
    int64_t v = 0;
    expr e;
    int rc = eval(c, ops[1].s, ops[1].e, ops[1].col, &v, &e);
    if (rc && !e.undefined) {
        err_def(c, c->line, e.col, "%s", e.msg);
        return;
    }
    if (grow(c, (void **)&c->syms, &c->capsyms, c->nsyms + 1, sizeof *c->syms))
        return;
    sym *ns = &c->syms[c->nsyms];
    memset(ns, 0, sizeof *ns);
    if (!(ns->name = dupn(c, ops[0].s, n)))
        return;
    ns->kind = SYM_EQU;
    ns->defined = rc == 0;
    ns->value = v;
    ns->line = c->line;
    ns->col = ops[0].col;
    if (rc) {   /* names a later symbol: resolved after pass 1 */
        if (!(ns->expr = dupn(c, ops[1].s, (size_t)(ops[1].e - ops[1].s)))) {
            free(ns->name);
            return;
        }
        ns->expr_col = ops[1].col;
    }
    c->nsyms++;
    index_last_sym(c);
}

static void do_alias(asm_ctx *c, span *ops, int nops, int dcol)
{
    if (nops != 2) {
        if (c->pass == 1)
            err_def(c, c->line, dcol, "'.alias' takes NAME, register");
        return;
    }
    size_t n = (size_t)(ops[0].e - ops[0].s);
    for (size_t i = 0; i < n; i++)
        if (!(i ? is_ident_char((unsigned char)ops[0].s[i]) : is_ident_start((unsigned char)ops[0].s[i]))) {
            if (c->pass == 1)
                err_def(c, c->line, ops[0].col, "bad name '%.*s' for .alias", (int)n, ops[0].s);
            return;
        }
    size_t rn = (size_t)(ops[1].e - ops[1].s);
    int r = reg_number(ops[1].s, rn);
    if (r < 0) {
        alias *other = find_alias(c, ops[1].s, rn);
        if (other)
            r = (int)other->reg;
    }
    if (c->pass == 1) {
        if (check_new_name(c, ops[0].s, n, ops[0].col, ".alias"))
            return;
        if (r < 0) {
            err_def(c, c->line, ops[1].col, "bad register '%.*s' for .alias (r0..r15)", (int)rn,
                    ops[1].s);
            return;
        }
        if (find_sym(c, ops[0].s, n)) {
            err_def(c, c->line, ops[0].col, ".alias name '%.*s' is already a symbol", (int)n, ops[0].s);
            return;
        }
    }
    if (r < 0 || reg_number(ops[0].s, n) >= 0)
        return;
    /* An alias is visible from its line on; .alias again rebinds it. */
    alias *a = find_alias(c, ops[0].s, n);
    if (a) {
        a->reg = (unsigned)r;
        return;
    }
    if (grow(c, (void **)&c->aliases, &c->capaliases, c->naliases + 1, sizeof *c->aliases))
        return;
    if (!(c->aliases[c->naliases].name = dupn(c, ops[0].s, n)))
        return;
    c->aliases[c->naliases].reg = (unsigned)r;
    c->naliases++;
}

static void do_word(asm_ctx *c, span *ops, int nops, int dcol)
{
    if (nops == 0) {
        err(c, dcol, "'.word' needs at least one value");
        return;
    }
    for (int i = 0; i < nops; i++) {
        advance(c, 1, dcol);
        if (c->pass == 1)
            continue;
        int64_t v;
        if (eval_report(c, ops[i].s, ops[i].e, ops[i].col, &v))
            continue;
        if (v < INT32_MIN || v > (int64_t)UINT32_MAX) {
            err(c, ops[i].col, "value %lld does not fit in 32 bits", (long long)v);
            continue;
        }
        emit(c, (uint32_t)v);
    }
}

#define MAX_DIRECTIVE_OPS 64

static void do_directive(asm_ctx *c, const char *d, size_t dlen, int dcol, const char *rest,
                         const char *line)
{
    span ops[MAX_DIRECTIVE_OPS];
    int nops = 0;
    if (split_operands(c, rest, line, ops, MAX_DIRECTIVE_OPS, &nops))
        return;
    if (nops > MAX_DIRECTIVE_OPS) {
        err(c, dcol, "too many operands (at most %d)", MAX_DIRECTIVE_OPS);
        return;
    }
    if (dlen == 4 && !strncasecmp(d, ".equ", 4))
        do_equ(c, ops, nops, dcol);
    else if (dlen == 6 && !strncasecmp(d, ".alias", 6))
        do_alias(c, ops, nops, dcol);
    else if (dlen == 5 && !strncasecmp(d, ".word", 5))
        do_word(c, ops, nops, dcol);
    else
        err(c, dcol, "unknown directive '%.*s' (known: .equ, .alias, .word)", (int)dlen, d);
}

/* ---- driver ---------------------------------------------------------------- */

static void do_line(asm_ctx *c, char *line)
{
    /* comments: ';', '#', '//' to the end of the line */
    for (char *p = line; *p; p++)
        if (*p == ';' || *p == '#' || (p[0] == '/' && p[1] == '/')) {
            *p = 0;
            break;
        }
    const char *p = skip_ws(line);
    /* labels */
    for (;;) {
        if (!is_ident_start((unsigned char)*p))
            break;
        const char *q = p;
        while (is_ident_char((unsigned char)*q))
            q++;
        const char *r = skip_ws(q);
        if (*r != ':')
            break;
        define_label(c, p, (size_t)(q - p), (int)(p - line) + 1);
        p = skip_ws(r + 1);
    }
    if (!*p)
        return;
    int col = (int)(p - line) + 1;
    const char *q = p;
    if (*q == '.') {
        q++;
        while (is_ident_char((unsigned char)*q))
            q++;
        if (*q && *q != ' ' && *q != '\t' && *q != '\r') {
            err(c, col, "malformed directive '%s'", p);
            return;
        }
        do_directive(c, p, (size_t)(q - p), col, q, line);
        return;
    }
    if (!is_ident_start((unsigned char)*p)) {
        err(c, col, "expected a label, an instruction or a directive, got '%c'", *p);
        return;
    }
    while (is_ident_char((unsigned char)*q))
        q++;
    if (*q && *q != ' ' && *q != '\t' && *q != '\r') {
        if (*q == ':')
            err(c, col, "malformed label");
        else
            err(c, col, "unknown instruction '%.*s'", (int)(strcspn(p, " \t\r")), p);
        advance(c, 1, col);
        return;
    }
    do_insn(c, p, (size_t)(q - p), col, q, line);
}

static void run_pass(asm_ctx *c, const char *src, int pass)
{
    c->pass = pass;
    c->pc = 0;
    c->line = 0;
    c->li_next = 0;
    /* aliases are lexically scoped: rebuilt in each pass */
    for (size_t i = 0; i < c->naliases; i++)
        free(c->aliases[i].name);
    c->naliases = 0;
    char *buf = NULL;
    size_t cap = 0;
    const char *s = src;
    while (*s && !c->oom) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (grow(c, (void **)&buf, &cap, n + 1, 1))
            break;
        memcpy(buf, s, n);
        buf[n] = 0;
        c->line++;
        do_line(c, buf);
        s += n;
        if (*s == '\n')
            s++;
    }
    free(buf);
}

/* The symbol that stops a deferred .equ from evaluating (NULL when the name
 * is not defined at all); e receives the evaluation error. */
static sym *first_unresolved(asm_ctx *c, sym *y, expr *e)
{
    int64_t v;
    eval(c, y->expr, y->expr + strlen(y->expr), y->expr_col, &v, e);
    if (!e->undefined)
        return NULL;
    const char *at = y->expr + (e->col - y->expr_col), *q = at;
    while (is_ident_char((unsigned char)*q))
        q++;
    return find_sym(c, at, (size_t)(q - at));
}

/* .equ whose value names a later symbol: evaluate once everything is known.
 * Depth first with an explicit stack: a deferred .equ that needs another one
 * resolves that first, so a chain of n costs O(n) evaluations (a pass per link
 * was O(n^2), and the error walk O(n^3)). */
static void resolve_deferred(asm_ctx *c)
{
    size_t *stack = c->nsyms ? malloc(c->nsyms * sizeof *stack) : NULL;
    if (c->nsyms && !stack) {
        c->oom = 1;
        return;
    }
    for (size_t r = 0; r < c->nsyms; r++) {
        if (c->syms[r].defined || !c->syms[r].expr || c->syms[r].state)
            continue;
        size_t n = 0;
        stack[n++] = r;
        c->syms[r].state = 1;
        while (n) {
            sym *y = &c->syms[stack[n - 1]];
            expr e;
            int64_t v;
            if (eval(c, y->expr, y->expr + strlen(y->expr), y->expr_col, &v, &e) == 0) {
                y->value = v;
                y->defined = 1;
                y->state = 2;
                n--;
                continue;
            }
            sym *dep = e.undefined ? first_unresolved(c, y, &e) : NULL;
            if (!dep || !dep->expr || dep->state == 3 || dep->state == 2) {
                y->state = 3;
                n--;
                continue;
            }
            if (dep->state == 1) {   /* back on the stack: every entry from dep up is a cycle */
                size_t k = n;
                while (k && &c->syms[stack[k - 1]] != dep)
                    k--;
                for (size_t i = k ? k - 1 : 0; i < n; i++) {
                    c->syms[stack[i]].state = 3;
                    c->syms[stack[i]].circular = 1;
                }
                n = k ? k - 1 : 0;
                continue;
            }
            dep->state = 1;
            stack[n++] = (size_t)(dep - c->syms);
        }
    }
    free(stack);
    for (size_t i = 0; i < c->nsyms; i++) {
        sym *y = &c->syms[i];
        if (y->defined || !y->expr)
            continue;
        expr e;
        sym *first = first_unresolved(c, y, &e);
        if (y->circular)
            err_def(c, y->line, e.col, "circular .equ definition of '%s'", y->name);
        else if (first)
            err_def(c, y->line, e.col, "'%s' depends on '%s', which has no value", y->name,
                    first->name);
        else
            err_def(c, y->line, e.col, "%s", e.msg);
    }
}

static void check_loops(asm_ctx *c)
{
    for (size_t i = 0; i < c->nloops; i++)
        for (size_t j = 0; j < c->nloops; j++) {
            const loopinfo *o = &c->loops[i], *in = &c->loops[j];
            if (in->pc > o->pc && in->pc < o->end && in->end == o->end) {
                c->line = in->line;
                err(c, in->col,
                    "nested loop ends at the same address (%u) as the enclosing loop at line %d; "
                    "end the inner loop one instruction earlier (put a 'nop' between the two ends)",
                    in->end, o->line);
            }
        }
}

static int diag_cmp(const void *a, const void *b)
{
    const diag *x = a, *y = b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void ctx_free(asm_ctx *c)
{
    for (size_t i = 0; i < c->ndiags; i++)
        free(c->diags[i].msg);
    free(c->diags);
    for (size_t i = 0; i < c->nsyms; i++) {
        free(c->syms[i].name);
        free(c->syms[i].expr);
    }
    free(c->syms);
    free(c->symtab);
    for (size_t i = 0; i < c->naliases; i++)
        free(c->aliases[i].name);
    free(c->aliases);
    free(c->lisz);
    free(c->words);
    free(c->loops);
}

int spu_asm(const char *source, const char *filename, spu_image *out, char *errbuf, size_t errcap)
{
    if (errbuf && errcap)
        errbuf[0] = 0;
    if (!out)
        return SPU_EINVAL;
    memset(out, 0, sizeof *out);
    if (!source)
        return SPU_EINVAL;
    asm_ctx c;
    memset(&c, 0, sizeof c);
    c.file = filename ? filename : "<input>";

    run_pass(&c, source, 1);
    resolve_deferred(&c);
    if (!c.oom)
        run_pass(&c, source, 2);
    if (!c.oom)
        check_loops(&c);
    if (c.oom) {
        ctx_free(&c);
        return SPU_ENOMEM;
    }
    if (c.ndiags) {
        qsort(c.diags, c.ndiags, sizeof *c.diags, diag_cmp);
        size_t used = 0;
        for (size_t i = 0; i < c.ndiags && errbuf && errcap; i++) {
            int n = snprintf(errbuf + used, errcap - used, "%s:%d:%d: error: %s\n", c.file,
                             c.diags[i].line, c.diags[i].col, c.diags[i].msg);
            if (n < 0 || (size_t)n >= errcap - used) {
                errbuf[errcap - 1] = 0;
                break;
            }
            used += (size_t)n;
        }
        ctx_free(&c);
        return SPU_EPARSE;
    }
    out->words = c.words;
    out->nwords = c.nwords;
    out->entry = 0;
    c.words = NULL;
    ctx_free(&c);
    return 0;
}

int spu_image_from_bytes(const void *bytes, size_t len, spu_image *out)
{
    memset(out, 0, sizeof *out);
    if (len == 0 || len % 4)
        return SPU_EFORMAT;
    out->words = malloc(len);
    if (!out->words)
        return SPU_ENOMEM;
    out->nwords = len / 4;
    const unsigned char *b = bytes;
    for (size_t i = 0; i < out->nwords; i++)
        out->words[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
                        (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;
    return 0;
}

void spu_image_free(spu_image *img)
{
    if (!img)
        return;
    free(img->words);
    img->words = NULL;
    img->nwords = 0;
    img->entry = 0;
}
