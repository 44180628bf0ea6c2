/* The least model of a positive Datalog program, by semi-naive evaluation (native.py drives it).

   Generic: the engine knows predicates by number, values as tagged 64-bit integers, and rules
   as join plans (a small bytecode that native.py writes from the parsed program).  Nothing in it
   is about a game.

   Values: an integer is itself (always within 32 bits); any other symbol is SYM_BASE + its id in
   the symbol table (a string, a constant, or a function term with arguments), interned by
   native.py so that equal symbols have one id.  Terms follow clingo (as evaluator.py does):
   arithmetic wraps at 32 bits, `/` and `\` truncate, an operation on a non-integer or a division
   by zero is undefined and makes its literal false, and values of different kinds are ordered as
   clingo orders symbols (integers < constants < strings < function terms; constants and strings
   by their bytes; function terms by arity, name, then arguments).  The negation of a function
   term (clingo's -f(x)) is not a value here: the run stops with ERR_NEGFUN and the caller asks
   the Python evaluator's fallback, clingo.

   A run goes on from the previous model: by adding (ng_add, ng_extend: the input only grew, so
   semi-naive rounds from the new rows reach the larger model), by deleting and rederiving
   (ng_update: input rows also went; after an extension, its rows are first taken out again, the
   model before it without deleting anything), or from scratch (ng_run, or ng_update for a state
   unlike the previous one: in the other of two model buffers).  Each writes the change from the previous
   model to the output buffer (or the whole model when most of it changed): what the caller reads
   back stays proportional to the change.

   Relations are append-only within a run: an array of rows, a hash set of row numbers (dedup and
   membership), and hash indexes on the argument positions that lookups use, built lazily up to
   the rows that existed when the current round began.  A round joins each predicate's delta
   (the rows added in the previous round) with, for the body atoms after the delta atom, the rows
   that existed at the start of the round, and for those before it, the rows older than the delta
   (so a rule instance is derived once, by the plan of its first new atom); rows a round derives
   are appended at once (membership tests may see them early: harmless, they are true atoms) and
   are the next round's delta. */
#define _POSIX_C_SOURCE 200112L   /* (posix_memalign) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t val;
#define SYM_BASE ((int64_t)1 << 32)
#define IS_INT(v) ((v) >= INT32_MIN && (v) <= INT32_MAX)
#define MAXAR 16
#define MAXREG 256

enum { ERR_NONE = 0, ERR_NEGFUN = 1, ERR_NOMEM = 2, ERR_CODE = 3, ERR_BUDGET = 4 };

/* The SHA-256 of this source, given at build time by setup.py (native.py checks it against the source
   it can see: a module built from an older source is not used). */
#ifndef YGO_SOURCE
#define YGO_SOURCE ""
#endif
const char *ng_source(void) { return YGO_SOURCE; }

/* step opcodes (each step: [op, length, ...]) */
enum { S_REQ = 1, S_DELTA, S_SCAN, S_LOOKUP, S_MEMBER, S_CMP, S_MATCH, S_NMATCH, S_EMIT, S_HEAD, S_FOUND,
       /* not a step: the predicate lists that S_REQ steps share (one, anywhere in the code) */
       S_POOL,
       /* the same on the rows older than the round's delta ([0, prev): the atoms before the delta
          atom, so that a rule instance whose atoms came in one round is derived once) */
       S_SCAN_OLD, S_LOOKUP_OLD, S_MEMBER_OLD };
/* expressions (E_SYM: ng_program's form of an E_CONST whose value is a symbol: its id, so that every
   word of the code fits in 32 bits) */
enum { E_CONST = 1, E_REG, E_ADD, E_SUB, E_MUL, E_DIV, E_MOD, E_NEG, E_ABS, E_SYM };
/* patterns */
enum { P_ANY = 1, P_BIND, P_EQ, P_FUN };
/* comparisons */
enum { C_EQ = 1, C_NE, C_LT, C_LE, C_GT, C_GE };

typedef struct {
    int kind;          /* 0: constant (a name), 1: string, 2: function term with arguments */
    int32_t name;      /* name id (kinds 0, 2) */
    int32_t arity;
    char *bytes;       /* the name (kinds 0, 2) or the string (kind 1) */
    int64_t len;
    val *args;
} Sym;

typedef struct __attribute__((aligned(32))) {
    int32_t pred, npos;
    int8_t pos[MAXAR];
} IndexDef;

/* (Index and Rel on cache lines of their own: a run reads a few fields of many of them) */
typedef struct __attribute__((aligned(64))) {
    int32_t *head;     /* buckets: the newest row of the chain, -1 */
    int64_t hcap;
    int32_t *next;     /* per row: the next row of its chain */
    int64_t ncap;
    int64_t built;     /* rows [0, built) are in the index */
} Index;

typedef struct __attribute__((aligned(64))) {
    /* (what the plans read first: in the first 64 bytes) */
    int64_t n;
    int64_t start, prev;   /* the round: delta = [prev, start), visible to scans = [0, start), older = [0, prev) */
    val *rows;
    uint8_t *flags;    /* per row: F_ */
    uint64_t *set;     /* open addressing, load <= 1/2: the hash's high 32 bits << 32 | row number; SET_EMPTY */
    int64_t scap;
    int arity, width;  /* width = max(arity, 1) */
    uint64_t *hash;    /* per row */
    int64_t cap;
    int64_t ndead;
    int32_t id;        /* its predicate */
    /* on the engine's predicate lists (so that a run's passes visit only the predicates it touches):
       grown since the round began, grown since the run began, with over-deleted rows (dred) */
    uint8_t queued, touched, listed;
    /* delete and rederive: this round's over-deleted rows (the delta), the next round's, all of them */
    int32_t *dl, *nl, *gl;
    int64_t ndl, nnl, ngl, capdl, capnl, capgl;
} Rel;

/* row flags.  A row taken out of the model stays where it is, DEAD (skipped by every scan and
   lookup; the hash set still finds it, and an insertion of the same tuple appends a new row):
   rows are only ever appended, so a round's delta stays a range of rows. */
enum { F_DEAD = 1, F_INPUT = 2, F_FACT = 4, F_GONE = 8, F_BACK = 16, F_WAS = 32, F_ROLL = 64 };
/* F_ROLL: a row of the last extension, taken out by ng_update's rollback (DEAD, but in the model
   last reported: a row of its tuple appended again is F_BACK, not new) */

/* a plan that a predicate's delta runs, with what run_plan tests before reading its code (in a
   seed-1 duel a third of the plans run failed their S_REQ, and a quarter of the rest had no delta
   row with their delta atom's constant): its S_REQ (the n predicates at pool[at]
   hold rows, the first nold rows older than the delta; n = 0: none, or the plan's code tests it),
   and a constant that its delta atom's argument cpos must be (cpos -1: none).  20 bytes: a
   predicate's plans are read one after the other */
typedef struct {
    int32_t pc, at;          /* pc: the step after its S_REQ (when n) */
    int32_t cval;            /* the constant: an integer, or the id of a symbol (csym) */
    uint8_t nold, n;
    int8_t cpos, csym;
    /* per model: -1 its S_REQ held (for good: HAS_ bits are only set, until ng_run clears them), else
       where in its list the predicate was that did not hold the last time (tested first) */
    int16_t req[2];
} Dispatch;

typedef struct {
    Rel *rels;
    Index *idx;
    int64_t nrows, ndead;   /* rows of all relations, of which dead */
    uint8_t *has;           /* per predicate: HAS_ bits of its relation (what S_REQ tests, in one small array
                               rather than in each relation's Rel, and without reading the plan's code) */
} Model;
enum { HAS_ROWS = 1, HAS_OLD = 2 };   /* n > 0, prev > 0 */

#define SET_EMPTY UINT64_MAX
#define SET_ROW(e) ((uint32_t)(e))
#define SET_NONE UINT32_MAX

typedef struct {
    int npred, nidx;
    int *arity;
    IndexDef *idxdef;
    Sym *syms;
    int64_t nsym, symcap;
    int32_t *code;    /* the plans, as native.py wrote them with every word in 32 bits (see ng_program) */
    int64_t ncode;
    const int32_t *pool;   /* the words of the S_POOL step */
    int64_t *disp_start;      /* per predicate: the plans to run on its delta (CSR, in disp) */
    Dispatch *disp;
    int64_t *once;
    int64_t nonce;
    val **facts; int64_t *nfacts;  /* program facts per predicate (rows) */
    val **input; int64_t *ninput, *capinput;
    Model m[2];
    int cur, have_prev, extending;
    int whole;        /* the output buffer holds the whole model, not a change */
    int64_t *mark;    /* per predicate: its rows before the current extension */
    int64_t *out;
    int64_t nout, outcap;
    int err, found, mode;     /* mode 1: over-deleting (S_DELTA reads dl, S_EMIT marks GONE) */
    /* over-delete: the atoms S_EMIT found this round (F_WAS), over-deleted at its end unless a rule
       instance of facts of the new run derives them (prune: 1, the default) */
    int64_t *cand, ncand, capcand;   /* (predicate << 32 | row) */
    int prune;
    uint8_t emit_flags;       /* flags of the rows S_EMIT inserts (F_FACT while the rules without atoms run) */
    int64_t count;            /* rows over-deleted */
    val chk[MAXAR];           /* the tuple a check plan (S_HEAD) tests */
    int64_t *chk_start, *chks; /* per predicate: its check plans (CSR); none: no delete and rederive */
    int32_t *chk_pstart, *chk_preds;  /* per check plan: the predicates of its atoms (CSR) */
    uint8_t *factual;         /* per predicate: it has had rows that are facts of a run (program facts, heads
                                 of rules without atoms, input rows): prune_round's check plans read only such */
    uint8_t *dirty;           /* per predicate: ng_input changed its input since the last run */
    val *addbuf; int64_t naddbuf, capaddbuf;  /* delete and rederive: input rows to add, [pred, values] */
    int64_t unlike;           /* delete and rederive: from scratch when changed input rows * unlike > all */
    int64_t max_rows;         /* the budget: a run whose model grows past this many live rows stops (ERR_BUDGET); 0: none */
    int64_t stats[6];         /* runs: from scratch, delete and rederive, extensions, dred declined, rollbacks;
                                 atoms prune_round kept */
    /* the rollback of an extension (ng_update after ng_extend): the extension only appended rows
       (per relation one range, ext; it may set F_INPUT on rows that were there, which then stay
       as they are, as the inputs' changes are from the extension's), so taking them out again
       gives the model before it exactly, without over-deleting and checking them.
       rb: 0 none, 1 the current model is a completed ng_run's or ng_update's, 2 an extension of
       it under way, 3 extended once (ext holds it) */
    int rb, rollback;         /* rollback: ng_update rolls back (default 1) */
    struct { int64_t p, from, to; } *ext;   /* per relation the extension grew, in order: its rows [from, to) */
    int next;
    int64_t ninputs;          /* input rows of all predicates */
    int64_t state_changed;    /* input rows that came or went in the last ng_state (when state_known) */
    int state_known;          /* ng_state counted them, and no other input change since */
    /* predicate lists (see Rel): grown since the round began, this round's, grown since the run
       began (E->mark: their rows before), over-deleted rows to join next (dred), with over-deleted
       rows (dred), inputs changed by ng_input, a run's changed predicates (its output) */
    int32_t *grown, *round, *touched, *dlq, *gonel, *dirtyl, *outl;
    int ngrown, ntouched, ndlq, ngonel, ndirtyl;
    uint64_t *bits;           /* a bitmap of the predicates (sort32), all 0 between calls */
    /* bundles (ng_bundle, ng_state): sets of input rows registered once; a state is a list of
       bundles, its inputs the union of their rows.  Each distinct input row has an id (rid): its
       predicate, values, how many bundles of the current state hold it, its place in E->input */
    int bundled;              /* the inputs are the union of the current state's bundles' rows */
    int32_t *bpool; int64_t nbpool, capbpool;       /* the rids of every bundle, one after the other */
    int64_t *boff, *bgen; int32_t *blen; int64_t nbund, capbund;  /* per bundle: its rids; its last state */
    int64_t gen;              /* the number of the current state (a bundle of it has bgen == gen) */
    int32_t *st; int64_t nst, capst;                /* the current state's bundles (distinct) */
    int32_t *rpred, *rcount; int64_t *roff, *rpos; uint64_t *rhash; uint8_t *rmark;
    int64_t nrid, caprid;
    val *rvals; int64_t nrvals, caprvals;           /* the rows' values */
    uint64_t *rset; int64_t rscap;                  /* rids by hash (as Rel.set) */
    int32_t **inrid; int64_t *capinrid;             /* per predicate: the rid of each input row */
    int32_t *chg; int64_t nchg, capchg;             /* rids whose count changed in ng_state */
    val reg[MAXREG];
} Engine;

/* ------------------------------------------------------------------ hashing */
static inline uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 32);
}
static inline uint64_t hash_vals(const val *v, int n) {
    uint64_t h = 0x84222325cbf29ce4ULL;
    for (int i = 0; i < n; i++) h = mix(h, (uint64_t)v[i]);
    return h;
}

/* ------------------------------------------------------------------ engine set-up */
/* zeroed memory on a cache line boundary (freed by free), NULL */
static void *zalloc64(size_t size) {
    void *p;
    if (posix_memalign(&p, 64, size)) return NULL;
    memset(p, 0, size);
    return p;
}

Engine *ng_new(int npred, const int *arity, int nidx, const int *idxdefs) {
    Engine *E = calloc(1, sizeof(Engine));
    if (!E) return NULL;
    E->npred = npred;
    E->nidx = nidx;
    E->arity = malloc(sizeof(int) * (npred ? npred : 1));
    memcpy(E->arity, arity, sizeof(int) * npred);
    E->idxdef = zalloc64((nidx ? nidx : 1) * sizeof(IndexDef));
    /* idxdefs: per index [pred, npos, pos...] */
    const int *d = idxdefs;
    for (int i = 0; i < nidx; i++) {
        E->idxdef[i].pred = d[0];
        E->idxdef[i].npos = d[1];
        for (int j = 0; j < d[1] && j < MAXAR; j++) E->idxdef[i].pos[j] = (int8_t)d[2 + j];
        d += 2 + d[1];
    }
    for (int k = 0; k < 2; k++) {
        E->m[k].rels = zalloc64((npred ? npred : 1) * sizeof(Rel));
        E->m[k].idx = zalloc64((nidx ? nidx : 1) * sizeof(Index));
        E->m[k].has = calloc(npred ? npred : 1, 1);
        for (int p = 0; p < npred; p++) {
            E->m[k].rels[p].arity = arity[p];
            E->m[k].rels[p].width = arity[p] > 0 ? arity[p] : 1;
            E->m[k].rels[p].id = p;
        }
    }
    E->facts = calloc(npred ? npred : 1, sizeof(val *));
    E->nfacts = calloc(npred ? npred : 1, sizeof(int64_t));
    E->input = calloc(npred ? npred : 1, sizeof(val *));
    E->ninput = calloc(npred ? npred : 1, sizeof(int64_t));
    E->capinput = calloc(npred ? npred : 1, sizeof(int64_t));
    E->mark = calloc(npred ? npred : 1, sizeof(int64_t));
    E->dirty = calloc(npred ? npred : 1, 1);
    E->factual = calloc(npred ? npred : 1, 1);
    int32_t **lists[] = {&E->grown, &E->round, &E->touched, &E->dlq, &E->gonel, &E->dirtyl, &E->outl};
    for (int i = 0; i < 7; i++) *lists[i] = malloc(sizeof(int32_t) * (npred ? npred : 1));
    E->bits = calloc((npred + 63) / 64 + 1, sizeof(uint64_t));
    E->ext = malloc(sizeof(*E->ext) * (npred ? npred : 1));
    E->unlike = 8;
    E->rollback = 1;
    E->prune = 1;
    return E;
}

static void free_model(Engine *E, Model *M) {
    for (int p = 0; p < E->npred; p++) {
        free(M->rels[p].rows); free(M->rels[p].hash); free(M->rels[p].set); free(M->rels[p].flags);
        free(M->rels[p].dl); free(M->rels[p].nl); free(M->rels[p].gl);
    }
    for (int i = 0; i < E->nidx; i++) { free(M->idx[i].head); free(M->idx[i].next); }
    free(M->rels); free(M->idx); free(M->has);
}

void ng_free(Engine *E) {
    if (!E) return;
    for (int k = 0; k < 2; k++) free_model(E, &E->m[k]);
    for (int64_t i = 0; i < E->nsym; i++) { free(E->syms[i].bytes); free(E->syms[i].args); }
    free(E->syms);
    for (int p = 0; p < E->npred; p++) { free(E->facts[p]); free(E->input[p]); }
    free(E->facts); free(E->nfacts); free(E->input); free(E->ninput); free(E->capinput); free(E->mark); free(E->dirty);
    free(E->grown); free(E->round); free(E->touched); free(E->dlq); free(E->gonel); free(E->dirtyl); free(E->outl); free(E->bits); free(E->addbuf); free(E->chk_start); free(E->chks); free(E->chk_pstart); free(E->chk_preds); free(E->factual);
    free(E->code); free(E->disp_start); free(E->disp); free(E->once);
    if (E->inrid) for (int p = 0; p < E->npred; p++) free(E->inrid[p]);
    free(E->inrid); free(E->capinrid); free(E->bpool); free(E->boff); free(E->bgen); free(E->blen); free(E->st);
    free(E->rpred); free(E->rcount); free(E->roff); free(E->rpos); free(E->rhash); free(E->rmark); free(E->rvals);
    free(E->rset); free(E->chg);
    free(E->ext); free(E->cand);
    free(E->arity); free(E->idxdef); free(E->out);
    free(E);
}

/* A symbol: kind 0 (constant: bytes = name), 1 (string), 2 (function: name, args).
   Returns its id (native.py interns, so every call is a new symbol), -1 out of memory. */
int64_t ng_symbol(Engine *E, int kind, int32_t name, const char *bytes, int64_t len, int32_t arity,
                  const val *args) {
    if (E->nsym == E->symcap) {
        int64_t cap = E->symcap ? E->symcap * 2 : 256;
        Sym *s = realloc(E->syms, sizeof(Sym) * cap);
        if (!s) return -1;
        E->syms = s; E->symcap = cap;
    }
    Sym *s = &E->syms[E->nsym];
    s->kind = kind; s->name = name; s->arity = arity; s->len = len;
    s->bytes = malloc(len + 1);
    if (!s->bytes) return -1;
    memcpy(s->bytes, bytes, len);
    s->bytes[len] = 0;
    s->args = NULL;
    if (arity > 0) {
        s->args = malloc(sizeof(val) * arity);
        if (!s->args) return -1;
        memcpy(s->args, args, sizeof(val) * arity);
    }
    return E->nsym++;
}

/* ng_program's reading of the code into 32-bit words, word for word (so the offsets of plans stay): an
   E_CONST of a symbol (SYM_BASE + id) becomes E_SYM and its id.  Half the bytes of int64 words: a run
   from scratch walks most of the code, and it did not stay in the caches.  The parse_ functions
   return the position after what they read, -1 if it does not parse. */
typedef struct {
    const Engine *E;
    const int64_t *in;
    int32_t *out;
    int64_t end;
    int64_t npool, reqmax;   /* the words of the pool, of it that S_REQ steps read */
} CodeReader;

static int64_t parse_expr(CodeReader *R, int64_t pc) {
    if (pc + 1 >= R->end) return -1;
    int64_t op = R->in[pc];
    switch (op) {
    case E_CONST: {
        val v = R->in[pc + 1];
        if (!IS_INT(v)) {
            if (v < SYM_BASE || v - SYM_BASE >= R->E->nsym) return -1;
            R->out[pc] = E_SYM;
            R->out[pc + 1] = (int32_t)(v - SYM_BASE);
        }
        return pc + 2;
    }
    case E_REG: return R->in[pc + 1] >= 0 && R->in[pc + 1] < MAXREG ? pc + 2 : -1;
    case E_NEG: case E_ABS: return parse_expr(R, pc + 1);
    case E_ADD: case E_SUB: case E_MUL: case E_DIV: case E_MOD:
        pc = parse_expr(R, pc + 1);
        return pc < 0 ? -1 : parse_expr(R, pc);
    }
    return -1;
}

static int64_t parse_pat(CodeReader *R, int64_t pc) {
    if (pc >= R->end) return -1;
    switch (R->in[pc]) {
    case P_ANY: return pc + 1;
    case P_BIND: return pc + 1 < R->end && R->in[pc + 1] >= 0 && R->in[pc + 1] < MAXREG ? pc + 2 : -1;
    case P_EQ: return parse_expr(R, pc + 1);
    case P_FUN: {
        if (pc + 2 >= R->end) return -1;
        int64_t ar = R->in[pc + 2];
        pc += 3;
        for (int64_t i = 0; i < ar && pc >= 0; i++) pc = parse_pat(R, pc);
        return pc;
    }
    }
    return -1;
}

static int64_t parse_many(CodeReader *R, int64_t pc, int64_t n, int pattern) {
    for (int64_t i = 0; i < n && pc >= 0; i++) pc = pattern ? parse_pat(R, pc) : parse_expr(R, pc);
    return pc;
}

/* the step at pc: its end, -1 */
static int64_t parse_step(CodeReader *R, Engine *E, int64_t pc) {
    const int64_t *in = R->in;
    int64_t op = in[pc], a = pc + 2, end = pc + in[pc + 1];
    if (in[pc + 1] < 2 || end > R->end) return -1;
    R->end = end;   /* (nothing reads past its step) */
    int64_t x = end > a ? in[a] : -1;
    int64_t got;
    switch (op) {
    case S_POOL:
        if (E->pool) return -1;
        for (int64_t i = a; i < end; i++)
            if (in[i] < 0 || in[i] >= E->npred) return -1;
        E->pool = R->out + a;
        R->npool = end - a;
        return end;
    case S_REQ:
        if (end != a + 3 || x < 0 || in[a + 1] < 0 || in[a + 1] > in[a + 2]) return -1;
        if (x + in[a + 2] > R->reqmax) R->reqmax = x + in[a + 2];
        return end;
    case S_DELTA: case S_SCAN: case S_SCAN_OLD:
        got = x >= 0 && x < E->npred ? parse_many(R, a + 1, E->arity[x], 1) : -1;
        break;
    case S_LOOKUP: case S_LOOKUP_OLD: {
        if (x < 0 || x >= E->nidx) return -1;
        const IndexDef *d = &E->idxdef[x];
        got = parse_many(R, parse_many(R, a + 1, d->npos, 0), E->arity[d->pred], 1);
        break;
    }
    case S_MEMBER: case S_MEMBER_OLD: case S_EMIT:
        got = x >= 0 && x < E->npred ? parse_many(R, a + 1, E->arity[x], 0) : -1;
        break;
    case S_CMP: got = x >= C_EQ && x <= C_GE ? parse_many(R, a + 1, 2, 0) : -1; break;
    case S_MATCH: case S_NMATCH: got = parse_expr(R, a); got = got < 0 ? -1 : parse_pat(R, got); break;
    case S_HEAD: got = x >= 0 && x <= MAXAR ? parse_many(R, a + 1, x, 1) : -1; break;
    case S_FOUND: got = a; break;
    default: return -1;
    }
    return got == end ? end : -1;
}

static void skip_pat(const int32_t *c, int64_t *pc);

/* The program: code (plans), per predicate the offsets of the plans its delta runs (CSR), the
   plans of the rules without atoms, the program facts (per predicate: count, rows).  The symbols
   the code names must be there (ng_symbol) first. */
int ng_program(Engine *E, const int64_t *code, int64_t ncode, const int64_t *disp_start, const int64_t *disp,
               const int64_t *once, int64_t nonce, const int64_t *nfacts, const val *facts) {
    int n = E->npred;
    E->code = malloc(sizeof(int32_t) * (ncode ? ncode : 1));
    E->disp_start = malloc(sizeof(int64_t) * (n + 1));
    int64_t nd = disp_start[n];
    E->disp = calloc(nd ? nd : 1, sizeof(Dispatch));
    E->once = malloc(sizeof(int64_t) * (nonce ? nonce : 1));
    if (!E->code || !E->disp_start || !E->disp || !E->once) return ERR_NOMEM;
    /* every word as it is, then the E_CONST of symbols rewritten; a word that does not fit in 32
       bits elsewhere (or a step that does not parse) is an error */
    for (int64_t i = 0; i < ncode; i++) E->code[i] = (int32_t)code[i];
    E->ncode = ncode;
    E->pool = NULL;
    CodeReader R = {E, code, E->code, ncode, 0, 0};
    for (int64_t pc = 0; pc < ncode;) {
        if (pc + 1 >= ncode) return ERR_CODE;
        R.end = ncode;
        pc = parse_step(&R, E, pc);
        if (pc < 0) return ERR_CODE;
    }
    if (R.reqmax > R.npool) return ERR_CODE;
    for (int64_t i = 0; i < ncode; i++)
        if (E->code[i] != code[i] && !(E->code[i] == E_SYM && code[i] == E_CONST) &&
            !(i && E->code[i - 1] == E_SYM && code[i - 1] == E_CONST)) return ERR_CODE;
    memcpy(E->disp_start, disp_start, sizeof(int64_t) * (n + 1));
    for (int64_t j = 0; j < nd; j++) {
        int64_t pc = disp[j];
        Dispatch *d = &E->disp[j];
        d->cpos = -1;
        if (pc < 0 || pc + 2 >= ncode || disp[j] > INT32_MAX) return ERR_CODE;
        const int32_t *c = E->code;
        if (c[pc] == S_REQ && c[pc + 4] <= UINT8_MAX) {   /* (a longer list: the plan's S_REQ tests it) */
            d->at = c[pc + 2]; d->nold = (uint8_t)c[pc + 3]; d->n = (uint8_t)c[pc + 4];
            pc += c[pc + 1];
            if (pc + 2 >= ncode) return ERR_CODE;
        }
        d->pc = (int32_t)pc;
        if (c[pc] != S_DELTA || c[pc + 2] < 0 || c[pc + 2] >= n) continue;
        int64_t q = pc + 3;   /* (the delta atom's patterns: the first that is a constant) */
        for (int k = 0; k < E->arity[c[pc + 2]]; k++) {
            if (c[q] == P_EQ && (c[q + 1] == E_CONST || c[q + 1] == E_SYM)) {
                d->cpos = (int8_t)k;
                d->csym = c[q + 1] == E_SYM;
                d->cval = c[q + 2];
                break;
            }
            skip_pat(c, &q);
        }
    }
    memcpy(E->once, once, sizeof(int64_t) * nonce);
    E->nonce = nonce;
    for (int64_t i = 0; i < nonce; i++)   /* (what the rules without atoms derive is a fact of every run) */
        for (int64_t pc = once[i]; pc >= 0 && pc + 2 < ncode && E->code[pc + 1] >= 2; pc += E->code[pc + 1])
            if (E->code[pc] == S_EMIT) { E->factual[E->code[pc + 2]] = 1; break; }
    const val *f = facts;
    for (int p = 0; p < n; p++) {
        int64_t k = nfacts[p] * (E->arity[p] > 0 ? E->arity[p] : 0);
        E->nfacts[p] = nfacts[p];
        if (nfacts[p]) E->factual[p] = 1;
        if (nfacts[p]) {
            E->facts[p] = malloc(sizeof(val) * (k ? k : 1));
            if (!E->facts[p]) return ERR_NOMEM;
            memcpy(E->facts[p], f, sizeof(val) * k);
        }
        f += k;
    }
    return 0;
}

static void unbundle(Engine *E);
static int grow(void **a, int64_t *cap, int64_t need, size_t size);

/* The input facts of predicate p (n rows, copied): replaces the previous ones. */
int ng_input(Engine *E, int p, const val *rows, int64_t n) {
    if (E->bundled) unbundle(E);
    E->state_known = 0;
    int64_t k = n * E->arity[p];
    if (k > E->capinput[p]) {
        val *r = realloc(E->input[p], sizeof(val) * k);
        if (!r) return ERR_NOMEM;
        E->input[p] = r; E->capinput[p] = k;
    }
    if (k) memcpy(E->input[p], rows, sizeof(val) * k);
    if (n) E->factual[p] = 1;
    E->ninputs += n - E->ninput[p];
    E->ninput[p] = n;
    if (!E->dirty[p]) { E->dirty[p] = 1; E->dirtyl[E->ndirtyl++] = p; }
    return 0;
}

/* Forget the previous model: the next run reports its whole model. */
void ng_forget(Engine *E) { E->have_prev = 0; E->extending = 0; E->rb = 0; }

/* ------------------------------------------------------------------ relations */
static inline void copy_row(val *to, const val *from, int w) {
    for (int k = 0; k < w; k++) to[k] = from[k];
}

static inline int same_row(const val *a, const val *b, int w) {
    for (int k = 0; k < w; k++)
        if (a[k] != b[k]) return 0;
    return 1;
}

static int rel_grow_set(Rel *r) {
    int64_t cap = r->scap ? r->scap * 2 : 16;
    while (cap < (r->n + 1) * 2) cap *= 2;
    uint64_t *s = malloc(sizeof(uint64_t) * cap);
    if (!s) return 0;
    memset(s, 0xff, sizeof(uint64_t) * cap);
    uint64_t mask = cap - 1;
    int w = r->arity;
    /* the alive rows, and those over-deleted or rolled back in this run (an insertion must see they
       were there); a later row of the same tuple takes the slot of an earlier dead one */
    for (int64_t i = 0; i < r->n; i++) {
        if ((r->flags[i] & (F_DEAD | F_GONE | F_ROLL)) == F_DEAD) continue;
        uint64_t h = r->hash[i], j = h & mask;
        while (s[j] != SET_EMPTY) {
            uint32_t k = SET_ROW(s[j]);
            if (r->hash[k] == h && same_row(r->rows + (int64_t)k * r->width, r->rows + i * r->width, w)) break;
            j = (j + 1) & mask;
        }
        s[j] = (h >> 32) << 32 | (uint32_t)i;
    }
    free(r->set);
    r->set = s; r->scap = cap;
    return 1;
}

/* the row of the set holding this tuple (alive or DEAD), -1.  (The set entry's hash bits settle
   most probes without reading the row or its hash.) */
static inline int64_t rel_find(const Rel *r, const val *row, uint64_t h) {
    if (!r->scap) return -1;
    uint64_t mask = r->scap - 1, j = h & mask, tag = h >> 32;
    int w = r->arity;
    for (;;) {
        uint64_t e = r->set[j];
        uint32_t i = SET_ROW(e);
        if (i == SET_NONE) return -1;
        if ((e >> 32) == tag && same_row(r->rows + (int64_t)i * r->width, row, w)) return i;
        j = (j + 1) & mask;
    }
}

static inline int rel_has(const Rel *r, const val *row, uint64_t h) {
    int64_t i = rel_find(r, row, h);
    return i >= 0 && !(r->flags[i] & F_DEAD);
}

/* rel_has, counting the rows a rollback took out in this run */
static inline int rel_had(const Rel *r, const val *row, uint64_t h) {
    int64_t i = rel_find(r, row, h);
    return i >= 0 && (r->flags[i] & (F_DEAD | F_ROLL)) != F_DEAD;
}

/* Put a tuple in: its alive row gets `fl`; else a new row is appended (a DEAD one's tuple: the
   set then finds the new row; F_BACK if the dead row was over-deleted or rolled back in this run), and the
   relation goes on the lists of the grown ones.  *isnew says which; returns the row, -1 out of
   memory. */
static int64_t rel_put(Engine *E, Model *M, Rel *r, const val *row, uint8_t fl, int *isnew) {
    uint64_t h = hash_vals(row, r->arity);
    if ((r->n + 1) * 2 > r->scap && !rel_grow_set(r)) return -1;
    uint64_t mask = r->scap - 1, j = h & mask, tag = h >> 32;
    int w = r->arity;
    for (;;) {
        uint64_t e = r->set[j];
        uint32_t i = SET_ROW(e);
        if (i == SET_NONE) break;
        if ((e >> 32) == tag && same_row(r->rows + (int64_t)i * r->width, row, w)) {
            if (!(r->flags[i] & F_DEAD)) {
                r->flags[i] |= fl;
                *isnew = 0;
                return i;
            }
            if (r->flags[i] & (F_GONE | F_ROLL)) fl |= F_BACK;
            break;
        }
        j = (j + 1) & mask;
    }
    if (r->n == r->cap) {
        int64_t cap = r->cap ? r->cap * 2 : 16;
        val *rows = realloc(r->rows, sizeof(val) * cap * r->width);
        if (!rows) return -1;
        r->rows = rows;
        uint64_t *hs = realloc(r->hash, sizeof(uint64_t) * cap);
        if (!hs) return -1;
        r->hash = hs;
        uint8_t *fs = realloc(r->flags, cap);
        if (!fs) return -1;
        r->flags = fs;
        r->cap = cap;
    }
    if (!r->queued) { r->queued = 1; E->grown[E->ngrown++] = r->id; }
    if (!r->touched) { r->touched = 1; E->mark[r->id] = r->n; E->touched[E->ntouched++] = r->id; }
    copy_row(r->rows + r->n * r->width, row, w);
    r->hash[r->n] = h;
    r->flags[r->n] = fl;
    r->set[j] = tag << 32 | (uint32_t)r->n;
    M->nrows++;
    if (E->max_rows && M->nrows - M->ndead > E->max_rows && !E->err) E->err = ERR_BUDGET;  /* (the run stops at its next check) */
    *isnew = 1;
    if (!r->n) M->has[r->id] |= HAS_ROWS;
    return r->n++;
}

/* 1 if new, 0 if there, -1 out of memory */
static inline int rel_insert(Engine *E, Model *M, Rel *r, const val *row, uint8_t fl) {
    int isnew;
    return rel_put(E, M, r, row, fl, &isnew) < 0 ? -1 : isnew;
}

static int push32(int32_t **a, int64_t *n, int64_t *cap, int32_t x) {
    if (*n == *cap) {
        int64_t c = *cap ? *cap * 2 : 64;
        int32_t *b = realloc(*a, sizeof(int32_t) * c);
        if (!b) return 0;
        *a = b; *cap = c;
    }
    (*a)[(*n)++] = x;
    return 1;
}

/* over-delete row i of r (delete and rederive): F_GONE, on the next round's delta (nl) and on the
   list of the run's over-deleted rows (gl) */
static int over_delete(Engine *E, Rel *r, int32_t i) {
    r->flags[i] |= F_GONE;
    if (!r->nnl) E->dlq[E->ndlq++] = r->id;
    if (!r->listed) { r->listed = 1; E->gonel[E->ngonel++] = r->id; }
    if (!push32(&r->nl, &r->nnl, &r->capnl, i) || !push32(&r->gl, &r->ngl, &r->capgl, i)) return 0;
    E->count++;
    return 1;
}

static void rel_clear(Rel *r) {
    if (r->n && r->scap) memset(r->set, 0xff, sizeof(uint64_t) * r->scap);
    r->n = r->start = r->prev = r->ndead = 0;
    r->ndl = r->nnl = r->ngl = 0;
    r->queued = r->touched = r->listed = 0;
}

/* sort a predicate list (of distinct predicates) so that runs visit predicates in their order:
   insertion sort, or through a bitmap of the predicates when long */
static void sort32(Engine *E, int32_t *a, int n) {
    if (n > 32) {
        uint64_t *bits = E->bits;
        int words = (E->npred + 63) / 64;
        for (int i = 0; i < n; i++) bits[a[i] >> 6] |= (uint64_t)1 << (a[i] & 63);
        int k = 0;
        for (int w = 0; w < words; w++) {
            for (uint64_t b = bits[w]; b; b &= b - 1) a[k++] = w * 64 + __builtin_ctzll(b);
            bits[w] = 0;
        }
        return;
    }
    for (int i = 1; i < n; i++) {
        int32_t x = a[i];
        int j = i;
        for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
        a[j] = x;
    }
}

static inline uint64_t key_hash_row(const IndexDef *d, const val *row) {
    uint64_t h = 0x84222325cbf29ce4ULL;
    for (int i = 0; i < d->npos; i++) h = mix(h, (uint64_t)row[d->pos[i]]);
    return h;
}

/* the rows [built, upto) into the index */
static int index_catch_up(const IndexDef *d, Index *x, const Rel *r, int64_t upto) {
    if (x->built >= upto) return 1;
    if (upto > x->ncap) {
        int64_t cap = x->ncap ? x->ncap : 16;
        while (cap < upto) cap *= 2;
        int32_t *nx = realloc(x->next, sizeof(int32_t) * cap);
        if (!nx) return 0;
        x->next = nx; x->ncap = cap;
    }
    if (upto * 2 > x->hcap) {  /* grow the buckets: rebuild from the first row */
        int64_t cap = x->hcap ? x->hcap : 16;
        while (cap < upto * 2) cap *= 2;
        free(x->head);
        x->head = malloc(sizeof(int32_t) * cap);
        if (!x->head) { x->hcap = 0; return 0; }
        x->hcap = cap;
        memset(x->head, 0xff, sizeof(int32_t) * cap);
        x->built = 0;
    }
    uint64_t mask = x->hcap - 1;
    for (int64_t i = x->built; i < upto; i++) {
        uint64_t j = key_hash_row(d, r->rows + i * r->width) & mask;
        x->next[i] = x->head[j];
        x->head[j] = (int32_t)i;
    }
    x->built = upto;
    return 1;
}

static void index_clear(Index *x) {
    if (x->built && x->hcap) memset(x->head, 0xff, sizeof(int32_t) * x->hcap);
    x->built = 0;
}

/* ------------------------------------------------------------------ terms */
static inline val wrap(int64_t x) { return (val)(int32_t)(uint32_t)(uint64_t)x; }

static int bytes_cmp(const Sym *a, const Sym *b) {
    int64_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->bytes, b->bytes, n);
    if (c) return c < 0 ? -1 : 1;
    return a->len < b->len ? -1 : (a->len > b->len ? 1 : 0);
}

/* clingo's order of symbols: -1, 0, 1 */
static int order(const Engine *E, val a, val b) {
    if (a == b) return 0;
    int ia = IS_INT(a), ib = IS_INT(b);
    if (ia && ib) return a < b ? -1 : 1;
    if (ia) return -1;
    if (ib) return 1;
    const Sym *x = &E->syms[a - SYM_BASE], *y = &E->syms[b - SYM_BASE];
    static const int rank[3] = {0, 1, 2};
    if (x->kind != y->kind) return rank[x->kind] < rank[y->kind] ? -1 : 1;
    if (x->kind != 2) return bytes_cmp(x, y);
    if (x->arity != y->arity) return x->arity < y->arity ? -1 : 1;
    int c = bytes_cmp(x, y);
    if (c) return c;
    for (int i = 0; i < x->arity; i++) {
        c = order(E, x->args[i], y->args[i]);
        if (c) return c;
    }
    return 0;
}

/* evaluate the expression at *pc (advanced past it): 1 and *out if defined, else 0 */
static int eval(Engine *E, int64_t *pc, val *out) {
    const int32_t *c = E->code;
    int64_t op = c[(*pc)++];
    val a, b;
    int da, db;
    switch (op) {
    case E_CONST: *out = c[(*pc)++]; return 1;
    case E_SYM: *out = SYM_BASE + (uint32_t)c[(*pc)++]; return 1;
    case E_REG: *out = E->reg[c[(*pc)++]]; return 1;
    case E_NEG:
        da = eval(E, pc, &a);
        if (!da) return 0;
        if (IS_INT(a)) { *out = wrap(-(int64_t)a); return 1; }
        if (E->syms[a - SYM_BASE].kind != 1) E->err = ERR_NEGFUN;  /* clingo's -f(x) */
        return 0;
    case E_ABS:
        da = eval(E, pc, &a);
        if (!da || !IS_INT(a)) return 0;
        *out = wrap(a < 0 ? -(int64_t)a : a);
        return 1;
    default:
        da = eval(E, pc, &a);
        db = eval(E, pc, &b);
        if (!da || !db || !IS_INT(a) || !IS_INT(b)) return 0;
        switch (op) {
        case E_ADD: *out = wrap(a + b); return 1;
        case E_SUB: *out = wrap(a - b); return 1;
        case E_MUL: *out = wrap(a * b); return 1;
        case E_DIV: if (!b) return 0; *out = wrap(a / b); return 1;   /* C truncates, as clingo */
        case E_MOD: if (!b) return 0; *out = wrap(a - b * (a / b)); return 1;
        }
        E->err = ERR_CODE;
        return 0;
    }
}

static void skip_expr(const int32_t *c, int64_t *pc) {
    int64_t op = c[(*pc)++];
    if (op == E_CONST || op == E_REG || op == E_SYM) { (*pc)++; return; }
    skip_expr(c, pc);
    if (op != E_NEG && op != E_ABS) skip_expr(c, pc);
}

static void skip_pat(const int32_t *c, int64_t *pc) {
    int64_t op = c[(*pc)++];
    if (op == P_ANY) return;
    if (op == P_BIND) { (*pc)++; return; }
    if (op == P_EQ) { skip_expr(c, pc); return; }
    int64_t ar = c[*pc + 1];
    *pc += 2;
    for (int64_t i = 0; i < ar; i++) skip_pat(c, pc);
}

/* match value v against the pattern at *pc (advanced past it whatever the result) */
static int match(Engine *E, int64_t *pc, val v) {
    const int32_t *c = E->code;
    int64_t op = c[(*pc)++];
    val x;
    switch (op) {
    case P_ANY: return 1;
    case P_BIND: E->reg[c[(*pc)++]] = v; return 1;
    case P_EQ: return eval(E, pc, &x) && x == v;
    case P_FUN: {
        int64_t name = c[(*pc)++], ar = c[(*pc)++];
        int ok = !IS_INT(v);
        const Sym *s = ok ? &E->syms[v - SYM_BASE] : NULL;
        ok = ok && s->kind == 2 && s->name == name && s->arity == ar;
        for (int64_t i = 0; i < ar; i++) {
            if (ok) ok = match(E, pc, s->args[i]);
            else skip_pat(c, pc);
        }
        return ok;
    }
    }
    E->err = ERR_CODE;
    return 0;
}

/* eval with the common expressions (a register, a constant) inline */
static inline int eval1(Engine *E, int64_t *pc, val *out) {
    const int32_t *c = E->code;
    int64_t op = c[*pc];
    if (op == E_REG) { *out = E->reg[c[*pc + 1]]; *pc += 2; return 1; }
    if (op == E_CONST) { *out = c[*pc + 1]; *pc += 2; return 1; }
    if (op == E_SYM) { *out = SYM_BASE + (uint32_t)c[*pc + 1]; *pc += 2; return 1; }
    return eval(E, pc, out);
}

/* match a row against the patterns at pc (one per position); 1 if every one matches */
static inline int match_row(Engine *E, int64_t pc, const val *row, int arity) {
    const int32_t *c = E->code;
    for (int i = 0; i < arity; i++) {
        int64_t op = c[pc];
        if (op == P_ANY) { pc++; continue; }
        if (op == P_BIND) { E->reg[c[pc + 1]] = row[i]; pc += 2; continue; }
        if (op == P_EQ && c[pc + 1] == E_REG) {
            if (E->reg[c[pc + 2]] != row[i]) return 0;
            pc += 3;
            continue;
        }
        if (!match(E, &pc, row[i])) return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ plans */
/* The n expressions from pc into row (the atom of S_MEMBER and S_EMIT); 0 if one is undefined. */
static inline int eval_row(Engine *E, int64_t pc, int n, val *row) {
    for (int i = 0; i < n; i++)
        if (!eval1(E, &pc, &row[i])) return 0;
    return 1;
}

/* Run the plan from pc.  The steps that test (REQ, MEMBER, CMP, MATCH, HEAD) go on to the next
   step in this loop; the steps that iterate rows (DELTA, SCAN, LOOKUP) run the rest of the plan
   for each row, recursively.  A step that sets E->err also fails its test.  facts (a constant: exec
   and exec_facts are its two copies): scans, lookups and membership tests read only the rows that
   are facts of the run (F_INPUT, F_FACT), for prune_round's check plans. */
static void exec(Engine *E, Model *M, int64_t pc);
static void exec_facts(Engine *E, Model *M, int64_t pc);
static inline __attribute__((always_inline)) void exec_in(Engine *E, Model *M, int64_t pc, const int facts) {
    const uint8_t need = facts ? F_INPUT | F_FACT : 0;
    const int32_t *c = E->code;
    for (;;) {
        int64_t op = c[pc], next = pc + c[pc + 1];
        switch (op) {
        case S_REQ: {   /* [at, nold, n]: the n predicates at pool[at] hold rows, the first nold rows older than the delta */
            const int32_t *l = E->pool + c[pc + 2];
            int nold = c[pc + 3], n = c[pc + 4];
            for (int i = 0; i < nold; i++)
                if (!M->rels[l[i]].prev) return;
            for (int i = nold; i < n; i++)
                if (!M->rels[l[i]].n) return;
            pc = next;
            continue;
        }
        case S_DELTA: case S_SCAN: case S_SCAN_OLD: {   /* [pred, patterns...] */
            Rel *r = &M->rels[c[pc + 2]];
            if (op == S_DELTA && E->mode == 1) {   /* the rows over-deleted in the previous round */
                for (int64_t k = 0; k < r->ndl; k++) {
                    int64_t i = r->dl[k];
                    if (match_row(E, pc + 3, r->rows + i * r->width, r->arity)) { if (facts) exec_facts(E, M, next); else exec(E, M, next); }
                    if (E->err) return;
                }
                return;
            }
            int64_t lo = op == S_DELTA ? r->prev : 0, hi = op == S_SCAN_OLD ? r->prev : r->start;
            for (int64_t i = lo; i < hi; i++) {
                if ((r->flags[i] & F_DEAD) || (need && !(r->flags[i] & need))) continue;
                if (match_row(E, pc + 3, r->rows + i * r->width, r->arity)) { if (facts) exec_facts(E, M, next); else exec(E, M, next); }
                if (E->err || E->found) return;
            }
            return;
        }
        case S_LOOKUP: case S_LOOKUP_OLD: {   /* [index, key exprs (npos)..., patterns (arity)...] */
            int64_t ix = c[pc + 2];
            const IndexDef *d = &E->idxdef[ix];
            Index *x = &M->idx[ix];
            Rel *r = &M->rels[d->pred];
            val key[MAXAR];
            int64_t p = pc + 3;
            int ok = 1, npos = d->npos;
            for (int i = 0; i < npos; i++)
                if (!eval1(E, &p, &key[i])) ok = 0;
            if (!ok || !r->start) return;
            if (x->built < r->start && !index_catch_up(d, x, r, r->start)) { E->err = ERR_NOMEM; return; }
            uint64_t h = hash_vals(key, npos);
            int32_t i = x->head[h & (x->hcap - 1)];
            if (op == S_LOOKUP_OLD)   /* (a chain goes from the newest row to the oldest) */
                while (i >= r->prev) i = x->next[i];
            for (; i >= 0; i = x->next[i]) {
                if ((r->flags[i] & F_DEAD) || (need && !(r->flags[i] & need))) continue;
                const val *row = r->rows + (int64_t)i * r->width;
                int same = 1;
                for (int k = 0; k < npos; k++)
                    if (row[d->pos[k]] != key[k]) { same = 0; break; }
                if (same && match_row(E, p, row, r->arity)) { if (facts) exec_facts(E, M, next); else exec(E, M, next); }
                if (E->err || E->found) return;
            }
            return;
        }
        case S_MEMBER: {   /* [pred, exprs (arity)...] */
            Rel *r = &M->rels[c[pc + 2]];
            val row[MAXAR];
            if (!eval_row(E, pc + 3, r->arity, row)) return;
            int64_t i = rel_find(r, row, hash_vals(row, r->arity));
            if (i < 0 || (r->flags[i] & F_DEAD) || (need && !(r->flags[i] & need))) return;
            pc = next;
            continue;
        }
        case S_MEMBER_OLD: {
            Rel *r = &M->rels[c[pc + 2]];
            val row[MAXAR];
            if (!eval_row(E, pc + 3, r->arity, row)) return;
            int64_t i = rel_find(r, row, hash_vals(row, r->arity));
            if (i < 0 || i >= r->prev || (r->flags[i] & F_DEAD)) return;
            pc = next;
            continue;
        }
        case S_CMP: {   /* [cmp, expr, expr] */
            int64_t p = pc + 3;
            val a, b;
            int da = eval1(E, &p, &a), db = eval1(E, &p, &b);
            if (!da || !db) return;
            int ok;
            switch (c[pc + 2]) {
            case C_EQ: ok = a == b; break;
            case C_NE: ok = a != b; break;
            case C_LT: ok = order(E, a, b) < 0; break;
            case C_LE: ok = order(E, a, b) <= 0; break;
            case C_GT: ok = order(E, a, b) > 0; break;
            case C_GE: ok = order(E, a, b) >= 0; break;
            default: E->err = ERR_CODE; return;
            }
            if (!ok) return;
            pc = next;
            continue;
        }
        case S_MATCH: case S_NMATCH: {   /* [expr, pattern] */
            int64_t p = pc + 2;
            val v;
            if (!eval1(E, &p, &v)) return;
            int ok = match(E, &p, v);
            if (E->err || ok != (op == S_MATCH)) return;
            pc = next;
            continue;
        }
        case S_EMIT: {   /* [pred, exprs (arity)...] */
            Rel *r = &M->rels[c[pc + 2]];
            val row[MAXAR];
            if (!eval_row(E, pc + 3, r->arity, row)) return;
            if (E->mode == 1) {   /* over-delete: an atom that is a fact of the new run stays */
                int64_t i = rel_find(r, row, hash_vals(row, r->arity));
                if (i >= 0 && !(r->flags[i] & (F_DEAD | F_GONE | F_INPUT | F_FACT | F_WAS))) {
                    if (!E->prune) {
                        if (!over_delete(E, r, i)) E->err = ERR_NOMEM;
                        return;
                    }
                    if (!grow((void **)&E->cand, &E->capcand, E->ncand + 1, sizeof(int64_t))) { E->err = ERR_NOMEM; return; }
                    r->flags[i] |= F_WAS;
                    E->cand[E->ncand++] = (int64_t)r->id << 32 | (uint32_t)i;
                }
                return;
            }
            if (rel_insert(E, M, r, row, E->emit_flags) < 0) E->err = ERR_NOMEM;
            return;
        }
        case S_HEAD:   /* [arity, patterns...]: the tuple to check matches the head */
            if (!match_row(E, pc + 3, E->chk, (int)c[pc + 2])) return;
            pc = next;
            continue;
        case S_FOUND:
            E->found = 1;
            return;
        default:
            E->err = ERR_CODE;
            return;
        }
    }
}

static void exec(Engine *E, Model *M, int64_t pc) { exec_in(E, M, pc, 0); }
static void exec_facts(Engine *E, Model *M, int64_t pc) { exec_in(E, M, pc, 1); }

/* plan j of the dispatch, on the delta of r: the tests of its Dispatch, then the plan */
static inline void run_plan(Engine *E, Model *M, const Rel *r, int64_t j) {
    Dispatch *d = &E->disp[j];
    if (d->cpos >= 0) {   /* (a delta row with the constant: as S_DELTA reads the delta) */
        int k = d->cpos, w = r->width;
        val v = d->csym ? SYM_BASE + (uint32_t)d->cval : (val)d->cval;
        int any = 0;
        if (E->mode == 1) {
            for (int64_t x = 0; x < r->ndl && !any; x++) any = r->rows[(int64_t)r->dl[x] * w + k] == v;
        } else {
            for (int64_t i = r->prev; i < r->start && !any; i++) any = !(r->flags[i] & F_DEAD) && r->rows[i * w + k] == v;
        }
        if (!any) return;
    }
    int mi = M != E->m;
    if (d->n && d->req[mi] >= 0) {
        const int32_t *l = E->pool + d->at;
        const uint8_t *has = M->has;
        int at = d->req[mi], nold = d->nold;
        if (!(has[l[at]] & (at < nold ? HAS_OLD : HAS_ROWS))) return;
        for (int i = 0; i < d->n; i++)
            if (!(has[l[i]] & (i < nold ? HAS_OLD : HAS_ROWS))) { d->req[mi] = (int16_t)i; return; }
        d->req[mi] = -1;
    }
    exec(E, M, d->pc);
}

/* ------------------------------------------------------------------ a run */
static int out_reserve(Engine *E, int64_t more) {
    if (E->nout + more <= E->outcap) return 1;
    int64_t cap = E->outcap ? E->outcap : 4096;
    while (cap < E->nout + more) cap *= 2;
    int64_t *o = realloc(E->out, sizeof(int64_t) * cap);
    if (!o) return 0;
    E->out = o; E->outcap = cap;
    return 1;
}

/* a block of the output with n added rows (of arity w) of the relation p and none removed: its
   header written and its room taken (E->nout past it); where its rows go, or NULL without memory */
static int64_t *added_block(Engine *E, int p, int64_t n, int w) {
    if (!out_reserve(E, 3 + n * w)) return NULL;
    int64_t *out = E->out + E->nout;
    out[0] = p; out[1] = 0; out[2] = n;
    E->nout += 3 + n * w;
    return out + 3;
}

/* the whole model M: per predicate with rows, [pred, 0, rows, rows...] (E->whole) */
static int whole(Engine *E, Model *M) {
    E->nout = 0;
    E->whole = 1;
    for (int p = 0; p < E->npred; p++) {
        Rel *r = &M->rels[p];
        int64_t live = r->n - r->ndead;
        if (!live) continue;
        int w = r->arity;
        int64_t *out = added_block(E, p, live, w);
        if (!out) return ERR_NOMEM;
        for (int64_t i = 0; i < r->n; i++) {
            if (r->flags[i] & F_DEAD) continue;
            copy_row(out, r->rows + i * r->width, w);
            out += w;
        }
    }
    return 0;
}

/* the change from O (with the rows a rollback took out: the model last reported) to M: per
   predicate with one, [pred, removed, added, rows...]; the whole model M instead (E->whole) when
   there is no O or the change is larger than M */
static int diff(Engine *E, Model *M, Model *O) {
    E->nout = 0;
    E->whole = 0;
    if (!O) return whole(E, M);
    int64_t size = 0, changed = 0;
    for (int p = 0; p < E->npred; p++) {
        Rel *r = &M->rels[p], *o = O ? &O->rels[p] : NULL;
        int64_t on = o ? o->n : 0;
        if (!r->n && !on) continue;
        int w = r->arity;
        int64_t at = E->nout;
        if (!out_reserve(E, 3 + (r->n + on) * w)) return ERR_NOMEM;
        int64_t *out = E->out + at + 3, nrem = 0, nadd = 0;
        for (int64_t i = 0; i < on; i++) {
            if ((o->flags[i] & (F_DEAD | F_ROLL)) == F_DEAD) continue;
            const val *row = o->rows + i * o->width;
            if (!rel_has(r, row, o->hash[i])) { copy_row(out, row, w); out += w; nrem++; }
        }
        for (int64_t i = 0; i < r->n; i++) {
            if (r->flags[i] & F_DEAD) continue;
            const val *row = r->rows + i * r->width;
            if (!o || !rel_had(o, row, r->hash[i])) { copy_row(out, row, w); out += w; nadd++; }
        }
        if (nrem || nadd) {
            E->out[at] = p; E->out[at + 1] = nrem; E->out[at + 2] = nadd;
            E->nout = at + 3 + (nrem + nadd) * w;
        }
        size += r->n;
        changed += nrem + nadd;
    }
    /* (another state: reading the model whole costs less than reading what went and what came) */
    if (changed > size) return whole(E, M);
    return 0;
}

static int insert_rows(Engine *E, Model *M, Rel *r, const val *rows, int64_t n, uint8_t fl) {
    int w = r->arity;
    for (int64_t i = 0; i < n; i++)
        if (rel_insert(E, M, r, rows + i * w, fl) < 0) return 0;
    return 1;
}

/* the relations listed on a queue (*count of them) moved to E->round and sorted: the next round's
   relations, as many as the value; the queue is left empty */
static int take_round(Engine *E, const int32_t *queue, int *count) {
    int n = *count;
    memcpy(E->round, queue, sizeof(int32_t) * n);
    *count = 0;
    sort32(E, E->round, n);
    return n;
}

/* every plan that runs on the delta of the relation p, stopping at an error */
static void run_plans(Engine *E, Model *M, int p) {
    for (int64_t j = E->disp_start[p]; j < E->disp_start[p + 1] && !E->err; j++) run_plan(E, M, &M->rels[p], j);
}

/* semi-naive rounds to the fixpoint, from the rows added since each relation's `start` (the
   relations that grew are on E->grown; every other one has start == n) */
static int rounds(Engine *E, Model *M) {
    while (E->ngrown) {
        int n = take_round(E, E->grown, &E->ngrown);
        int32_t *round = E->round;
        for (int k = 0; k < n; k++) {
            Rel *r = &M->rels[round[k]];
            r->queued = 0;
            r->prev = r->start;
            r->start = r->n;
            if (r->prev) M->has[round[k]] |= HAS_OLD;
        }
        for (int k = 0; k < n; k++) {
            run_plans(E, M, round[k]);
            if (E->err) return E->err;
        }
        /* (the delta is done: outside a round, prev == start, so the rows older than the next
           round's delta are all the rows of a relation not in it) */
        for (int k = 0; k < n; k++) {
            Rel *r = &M->rels[round[k]];
            r->prev = r->start;
            if (r->prev) M->has[round[k]] |= HAS_OLD;
        }
    }
    return 0;
}

/* empty the lists of grown relations (of a run that stopped; a completed run leaves them empty) */
static void reset_lists(Engine *E, Model *M) {
    for (int k = 0; k < E->ngrown; k++) M->rels[E->grown[k]].queued = 0;
    for (int k = 0; k < E->ntouched; k++) M->rels[E->touched[k]].touched = 0;
    E->ngrown = E->ntouched = 0;
}

/* the relations that grew in this run, in order (E->outl) and off the list */
static int take_touched(Engine *E, Model *M) {
    int n = E->ntouched;
    memcpy(E->outl, E->touched, sizeof(int32_t) * n);
    sort32(E, E->outl, n);
    for (int k = 0; k < n; k++) M->rels[E->outl[k]].touched = 0;
    E->ntouched = 0;
    return n;
}

/* The least model of the program's facts and the inputs, from scratch; the change from the
   previous model in the output buffer (the whole model when there is none).  0, or an ERR_
   code (the previous model stays the one to compare the next run with). */
int ng_run(Engine *E) {
    int cur = 1 - E->cur;
    Model *M = &E->m[cur];
    E->err = 0;
    E->extending = 0;
    E->rb = 0;
    for (int p = 0; p < E->npred; p++) rel_clear(&M->rels[p]);
    memset(M->has, 0, E->npred);
    for (int64_t j = 0, nd = E->disp_start ? E->disp_start[E->npred] : 0; j < nd; j++) E->disp[j].req[cur] = 0;
    for (int i = 0; i < E->nidx; i++) index_clear(&M->idx[i]);
    M->nrows = M->ndead = 0;
    E->ngrown = E->ntouched = 0;
    for (int p = 0; p < E->npred; p++) {
        Rel *r = &M->rels[p];
        if (!insert_rows(E, M, r, E->facts[p], E->nfacts[p], F_FACT) ||
            !insert_rows(E, M, r, E->input[p], E->ninput[p], F_INPUT))
            return ERR_NOMEM;
    }
    for (int k = 0; k < E->ndirtyl; k++) E->dirty[E->dirtyl[k]] = 0;
    E->ndirtyl = 0;
    E->emit_flags = F_FACT;  /* (what the rules without atoms derive is a fact of every run) */
    for (int64_t i = 0; i < E->nonce; i++) {
        exec(E, M, E->once[i]);
        if (E->err) { E->emit_flags = 0; return E->err; }
    }
    E->emit_flags = 0;
    int e = rounds(E, M);
    if (e) return e;
    take_touched(E, M);
    e = diff(E, M, E->have_prev ? &E->m[E->cur] : NULL);
    if (e) return e;
    E->stats[0]++;
    E->cur = cur;
    E->have_prev = 1;
    E->rb = 1;
    return 0;
}

/* (a completed run leaves every relation with start == n: an extension's rounds start from the
   rows ng_add appends, E->mark the rows before them) */
static void begin_extend(Engine *E) {
    reset_lists(E, &E->m[E->cur]);
    E->extending = 1;
    E->rb = E->rb == 1 ? 2 : 0;   /* (one extension of a completed run can be rolled back) */
}

/* forget the extension's ranges (after the run that rolled it back, or another run) */
static void drop_ext(Engine *E) {
    E->next = 0;
}

static inline void set_dirty(Engine *E, int p) {
    if (!E->dirty[p]) { E->dirty[p] = 1; E->dirtyl[E->ndirtyl++] = p; }
}

/* Take the last extension out of the current model: its rows DEAD and F_ROLL.  The model is then
   the completed run's before the extension, exactly.  The inputs changed since (ng_state,
   ng_input) are relative to the extension's, whose rows that stay are no longer in the model: the
   relations of those rows are dirty too. */
static void roll_back(Engine *E, Model *M) {
    for (int k = 0; k < E->next; k++) {
        int p = (int)E->ext[k].p;
        Rel *r = &M->rels[p];
        int64_t from = E->ext[k].from, to = E->ext[k].to;
        uint8_t any = 0;
        for (int64_t i = from; i < to; i++) { any |= r->flags[i]; r->flags[i] |= F_DEAD | F_ROLL; }
        if (any & F_INPUT) set_dirty(E, p);
        r->ndead += to - from;
        M->ndead += to - from;
    }
    E->stats[4]++;
}

/* Input rows of predicate p added to the current model (which must be a completed run's):
   ng_extend then goes on from it.  0, or an ERR_ code. */
int ng_add(Engine *E, int p, const val *rows, int64_t n) {
    if (E->bundled) unbundle(E);
    E->state_known = 0;
    if (!E->extending) begin_extend(E);
    int64_t w = E->arity[p], k = (E->ninput[p] + n) * w;
    if (k > E->capinput[p]) {
        int64_t cap = E->capinput[p] ? E->capinput[p] : 16;
        while (cap < k) cap *= 2;
        val *r = realloc(E->input[p], sizeof(val) * cap);
        if (!r) return ERR_NOMEM;
        E->input[p] = r; E->capinput[p] = cap;
    }
    if (n && w) memcpy(E->input[p] + E->ninput[p] * w, rows, sizeof(val) * n * w);
    if (n) E->factual[p] = 1;
    E->ninput[p] += n;
    E->ninputs += n;
    Model *M = &E->m[E->cur];
    return insert_rows(E, M, &M->rels[p], rows, n, F_INPUT) ? 0 : ERR_NOMEM;
}

/* Go on from the current model with the rows ng_add added (the program is positive: the model
   only grows, and semi-naive rounds from them reach the least model of the larger input); the
   output buffer: the atoms added.  0, or an ERR_ code (then call ng_forget). */
int ng_extend(Engine *E) {
    Model *M = &E->m[E->cur];
    E->err = 0;
    if (!E->extending) begin_extend(E);
    E->extending = 0;
    drop_ext(E);
    int rb = E->rb;
    E->rb = 0;
    int e = rounds(E, M);
    if (e) return e;
    E->stats[2]++;
    E->nout = 0;
    E->whole = 0;
    int nl = take_touched(E, M);
    if (rb == 2) {   /* (what the rollback takes out: each relation's rows from its mark) */
        for (int k = 0; k < nl; k++) {
            int p = E->outl[k];
            E->ext[k].p = p;
            E->ext[k].from = E->mark[p];
            E->ext[k].to = M->rels[p].n;
        }
        E->next = nl;
        E->rb = 3;
    }
    for (int k = 0; k < nl; k++) {
        int p = E->outl[k];
        Rel *r = &M->rels[p];
        int64_t from = E->mark[p], n = r->n - from;
        if (!n) continue;
        int w = r->arity;
        int64_t *out = added_block(E, p, n, w);
        if (!out) return ERR_NOMEM;
        for (int64_t i = from; i < r->n; i++, out += w) copy_row(out, r->rows + i * r->width, w);
        /* (rows appended in an extension are alive: nothing is deleted there) */
    }
    return 0;
}

/* The check plans (per predicate, CSR offsets into the code): whether a rule instance derives a
   tuple (E->chk) from the model as it is.  Without them every run that removes facts is from
   scratch. */
int ng_checks(Engine *E, const int64_t *start, const int64_t *plans) {
    int n = E->npred;
    E->chk_start = malloc(sizeof(int64_t) * (n + 1));
    int64_t k = start[n];
    E->chks = malloc(sizeof(int64_t) * (k ? k : 1));
    if (!E->chk_start || !E->chks) return ERR_NOMEM;
    memcpy(E->chk_start, start, sizeof(int64_t) * (n + 1));
    memcpy(E->chks, plans, sizeof(int64_t) * k);
    /* the predicates of each plan's atoms (its steps up to S_FOUND; none without ng_program's code: then
       prune_round runs every check plan) */
    free(E->chk_pstart);
    E->chk_pstart = malloc(sizeof(int32_t) * (k + 1));
    int64_t cap = 0, np = 0;
    if (!E->chk_pstart) return ERR_NOMEM;
    for (int64_t j = 0; j < k; j++) {
        E->chk_pstart[j] = (int32_t)np;
        const int32_t *c = E->code;
        for (int64_t pc = plans[j]; c && pc >= 0 && pc + 2 < E->ncode && c[pc + 1] >= 2 && c[pc] != S_FOUND; pc += c[pc + 1]) {
            int op = c[pc], q = -1;
            if (op == S_SCAN || op == S_SCAN_OLD || op == S_MEMBER || op == S_MEMBER_OLD) q = c[pc + 2];
            else if ((op == S_LOOKUP || op == S_LOOKUP_OLD) && c[pc + 2] >= 0 && c[pc + 2] < E->nidx) q = E->idxdef[c[pc + 2]].pred;
            if (q >= 0 && q < E->npred && !push32(&E->chk_preds, &np, &cap, q)) return ERR_NOMEM;
        }
    }
    E->chk_pstart[k] = (int32_t)np;
    return 0;
}

/* whether check plan j may find a rule instance of facts of the run (prune_round): each of its atoms'
   predicates has had such rows */
static inline int chk_factual(const Engine *E, int64_t j) {
    for (int32_t i = E->chk_pstart[j]; i < E->chk_pstart[j + 1]; i++)
        if (!E->factual[E->chk_preds[i]]) return 0;
    return 1;
}

static int addbuf_push(Engine *E, int p, const val *row, int w) {
    if (E->naddbuf + 1 + w > E->capaddbuf) {
        int64_t cap = E->capaddbuf ? E->capaddbuf * 2 : 256;
        while (cap < E->naddbuf + 1 + w) cap *= 2;
        val *b = realloc(E->addbuf, sizeof(val) * cap);
        if (!b) return 0;
        E->addbuf = b; E->capaddbuf = cap;
    }
    E->addbuf[E->naddbuf++] = p;
    memcpy(E->addbuf + E->naddbuf, row, sizeof(val) * w);
    E->naddbuf += w;
    return 1;
}

/* The end of an over-delete round: each atom its rules found (E->cand) is over-deleted, unless a
   rule instance whose atoms are all facts of the new run (input rows and program facts, never
   over-deleted) derives it, so that it is in the new model (check plans reading only such rows).
   Without that, an atom that another fact gives (a card of a class, when it moved to another
   zone) went with all that it supports, to come back in the rounds.  0 out of memory. */
static int prune_round(Engine *E, Model *M) {
    E->mode = 0;
    int ok = 1;
    for (int64_t c = 0; c < E->ncand; c++) {
        int p = (int)(E->cand[c] >> 32);
        int32_t i = (int32_t)(uint32_t)E->cand[c];
        Rel *r = &M->rels[p];
        r->flags[i] &= ~F_WAS;
        if (!ok) continue;
        if (r->arity) memcpy(E->chk, r->rows + (int64_t)i * r->width, sizeof(val) * r->arity);
        E->found = 0;
        for (int64_t k = E->chk_start[p]; k < E->chk_start[p + 1] && !E->found && !E->err; k++)
            if (chk_factual(E, k)) exec_facts(E, M, E->chks[k]);
        if (E->err) break;
        if (E->found) E->stats[5]++;
        else if (!over_delete(E, r, i)) ok = 0;
    }
    for (int64_t c = 0; c < E->ncand; c++) M->rels[E->cand[c] >> 32].flags[(uint32_t)E->cand[c]] &= ~F_WAS;
    E->ncand = 0;
    E->found = 0;
    E->mode = 1;
    return ok;
}

/* Delete and rederive (Gupta, Mumick and Subrahmanian 1993) on the current model, from the
   inputs ng_input changed: 1 done (the change in the output buffer), 0 declined (the caller runs
   from scratch: the current model is still the previous model), or -ERR_.
   1. the input rows that went (F_INPUT moves to the new input rows first);
   2. over-delete: semi-naive rounds of the rules with the over-deleted rows as the delta, joined
      with the model as it was; an atom that is a fact of the new run (program fact, head of a rule
      without atoms, input) is never over-deleted, nor anything on its account, nor an atom that
      such facts derive (prune_round);
   3. take them out (DEAD), then rederive those a rule instance still derives (check plans);
   4. insert those and the new input rows, and semi-naive rounds to the fixpoint. */
static int dred(Engine *E) {
    Model *M = &E->m[E->cur];
    int64_t inputs = E->ninputs, changed = 0, size = M->nrows - M->ndead, dead = M->ndead;
    E->naddbuf = 0;
    E->count = 0;
    reset_lists(E, M);
    E->ndlq = E->ngonel = 0;   /* (a completed run leaves ndl, nnl, ngl at 0 and no relation listed) */
    if (dead > size) return 0;   /* mostly dead rows: from scratch, which compacts */
    /* 1. */
    sort32(E, E->dirtyl, E->ndirtyl);
    for (int d = 0; d < E->ndirtyl; d++) {
        int p = E->dirtyl[d];
        Rel *r = &M->rels[p];
        int w = r->arity;
        for (int64_t i = 0; i < r->n; i++)
            if ((r->flags[i] & (F_DEAD | F_INPUT)) == F_INPUT) r->flags[i] = (r->flags[i] & ~F_INPUT) | F_WAS;
        const val *in = E->input[p];
        for (int64_t k = 0; k < E->ninput[p]; k++) {
            const val *row = in + k * w;
            int64_t i = rel_find(r, row, hash_vals(row, w));
            if (i >= 0 && !(r->flags[i] & F_DEAD)) {
                if (!(r->flags[i] & F_WAS)) changed++;
                r->flags[i] |= F_INPUT;
            } else {
                changed++;
                if (!addbuf_push(E, p, row, w)) return -ERR_NOMEM;
            }
        }
        for (int64_t i = 0; i < r->n; i++) {
            if (!(r->flags[i] & F_WAS)) continue;
            r->flags[i] &= ~F_WAS;
            if (r->flags[i] & F_INPUT) continue;
            changed++;
            if (r->flags[i] & F_FACT) continue;
            if (!over_delete(E, r, (int32_t)i)) return -ERR_NOMEM;
        }
    }
    /* (a state unlike the previous one is cheaper from scratch) */
    int declined = changed * E->unlike > inputs;
    /* 2. */
    E->mode = 1;
    while (!declined && E->ndlq) {
        int nq = take_round(E, E->dlq, &E->ndlq);
        int32_t *round = E->round;
        for (int k = 0; k < nq; k++) {
            Rel *r = &M->rels[round[k]];
            int32_t *t = r->dl; r->dl = r->nl; r->nl = t;
            int64_t tc = r->capdl; r->capdl = r->capnl; r->capnl = tc;
            r->ndl = r->nnl; r->nnl = 0;
        }
        E->ncand = 0;
        for (int k = 0; k < nq && !E->err; k++) run_plans(E, M, round[k]);
        for (int k = 0; k < nq; k++) M->rels[round[k]].ndl = 0;
        if (!E->err && !prune_round(E, M)) E->err = ERR_NOMEM;
        if (E->err) {
            for (int64_t c = 0; c < E->ncand; c++) M->rels[E->cand[c] >> 32].flags[(uint32_t)E->cand[c]] &= ~F_WAS;
            E->ncand = 0;
            E->mode = 0;
            return -E->err;
        }
        if (E->count * 2 > size) declined = 1;   /* most of the model: from scratch is cheaper */
    }
    E->mode = 0;
    sort32(E, E->gonel, E->ngonel);
    if (declined) {
        for (int g = 0; g < E->ngonel; g++) {
            Rel *r = &M->rels[E->gonel[g]];
            for (int64_t k = 0; k < r->ngl; k++) r->flags[r->gl[k]] &= ~F_GONE;
            r->ndl = r->nnl = r->ngl = 0;
            r->listed = 0;
        }
        E->ndlq = E->ngonel = 0;
        return 0;
    }
    /* 3. */
    for (int g = 0; g < E->ngonel; g++) {
        Rel *r = &M->rels[E->gonel[g]];
        for (int64_t k = 0; k < r->ngl; k++) r->flags[r->gl[k]] |= F_DEAD;
        r->ndead += r->ngl;
        M->ndead += r->ngl;
    }
    for (int g = 0; g < E->ngonel; g++) {
        int p = E->gonel[g];
        Rel *r = &M->rels[p];
        int w = r->arity;
        r->nnl = 0;   /* (nl: the rows to rederive) */
        for (int64_t k = 0; k < r->ngl; k++) {
            int32_t i = r->gl[k];
            if (w) memcpy(E->chk, r->rows + (int64_t)i * r->width, sizeof(val) * w);
            E->found = 0;
            for (int64_t c = E->chk_start[p]; c < E->chk_start[p + 1] && !E->found && !E->err; c++) exec(E, M, E->chks[c]);
            if (E->err) { E->found = 0; return -E->err; }
            if (E->found && !push32(&r->nl, &r->nnl, &r->capnl, i)) return -ERR_NOMEM;
        }
        E->found = 0;
    }
    /* 4. (every relation has start == n: the rounds start from the rows inserted here) */
    for (int g = 0; g < E->ngonel; g++) {
        Rel *r = &M->rels[E->gonel[g]];
        val row[MAXAR];
        for (int64_t k = 0; k < r->nnl; k++) {
            if (r->arity) memcpy(row, r->rows + (int64_t)r->nl[k] * r->width, sizeof(val) * r->arity);
            if (rel_insert(E, M, r, row, 0) < 0) return -ERR_NOMEM;
        }
        r->nnl = 0;
    }
    for (int64_t k = 0; k < E->naddbuf;) {
        int p = (int)E->addbuf[k];
        Rel *r = &M->rels[p];
        if (rel_insert(E, M, r, E->addbuf + k + 1, F_INPUT) < 0) return -ERR_NOMEM;
        k += 1 + r->arity;
    }
    int e = rounds(E, M);
    if (e) return -e;
    /* the change: the over-deleted atoms not back, the appended rows that were not there; of the
       relations with over-deleted rows and those that grew */
    int nout = E->ngonel;
    int32_t *outl = E->outl;
    memcpy(outl, E->gonel, sizeof(int32_t) * nout);
    for (int k = 0; k < E->ntouched; k++)
        if (!M->rels[E->touched[k]].listed) outl[nout++] = E->touched[k];
    for (int k = 0; k < E->next; k++) {   /* (the relations of a rollback: its rows not back went) */
        Rel *r = &M->rels[E->ext[k].p];
        if (!r->listed && !r->touched) outl[nout++] = r->id;
    }
    sort32(E, outl, nout);
    E->nout = 0;
    E->whole = 0;
    int x = 0;   /* (in E->ext) */
    for (int o = 0; o < nout; o++) {
        int p = outl[o];
        Rel *r = &M->rels[p];
        int w = r->arity;
        int64_t at = E->nout, nrem = 0, nadd = 0, from = r->touched ? E->mark[p] : r->n;
        while (x < E->next && E->ext[x].p < p) x++;   /* (both lists in order) */
        int64_t rolled = 0, rollto = 0;
        if (x < E->next && E->ext[x].p == p) { rolled = E->ext[x].from; rollto = E->ext[x].to; }
        r->touched = r->listed = 0;
        if (!out_reserve(E, 3 + (r->ngl + rollto - rolled + r->n - from) * w)) return -ERR_NOMEM;
        int64_t *out = E->out + at + 3;
        for (int64_t k = 0; k < r->ngl; k++) {
            const val *row = r->rows + (int64_t)r->gl[k] * r->width;
            if (!rel_has(r, row, r->hash[r->gl[k]])) { copy_row(out, row, w); out += w; nrem++; }
            r->flags[r->gl[k]] &= ~F_GONE;
        }
        for (int64_t i = rolled; i < rollto; i++) {
            const val *row = r->rows + i * r->width;
            if (!rel_has(r, row, r->hash[i])) { copy_row(out, row, w); out += w; nrem++; }
            r->flags[i] &= ~F_ROLL;
        }
        for (int64_t i = from; i < r->n; i++) {
            if (r->flags[i] & F_BACK) { r->flags[i] &= ~F_BACK; continue; }
            copy_row(out, r->rows + i * r->width, w); out += w; nadd++;
        }
        r->ngl = 0;
        if (nrem || nadd) {
            E->out[at] = p; E->out[at + 1] = nrem; E->out[at + 2] = nadd;
            E->nout = at + 3 + (nrem + nadd) * w;
        }
    }
    E->ntouched = E->ngonel = 0;
    for (int k = 0; k < E->ndirtyl; k++) E->dirty[E->dirtyl[k]] = 0;
    E->ndirtyl = 0;
    drop_ext(E);
    return 1;
}

/* The least model of the program's facts and the inputs, from the previous model by delete and
   rederive where it can (see dred), else from scratch (ng_run); the change in the output buffer. */
int ng_update(Engine *E) {
    E->err = 0;
    E->extending = 0;
    int rolled = 0;
    int known = E->state_known;
    E->state_known = 0;
    if (E->have_prev && E->chk_start && known && E->rb == 1 && E->state_changed * E->unlike > E->ninputs) {
        /* (a state unlike the previous one, by ng_state's count of the input rows that came and went,
           which is dred's after a completed run: from scratch at once, as dred would decline) */
        drop_ext(E);
        E->rb = 0;
        E->stats[3]++;
    } else if (E->have_prev && E->chk_start) {
        if (E->rb == 3 && E->rollback) {   /* (after an extension: the model before it, by taking it out) */
            roll_back(E, &E->m[E->cur]);
            rolled = 1;
        } else drop_ext(E);
        E->rb = 0;
        int got = dred(E);
        if (got < 0) { E->have_prev = 0; drop_ext(E); return -got; }
        E->stats[got ? 1 : 3]++;
        if (got) { E->rb = 1; return 0; }
    }
    int e = ng_run(E);   /* (its change is from the model last reported: with the rows rolled back) */
    drop_ext(E);
    if (e && rolled) E->have_prev = 0;   /* (the model to compare with is not the one reported) */
    return e;
}

int64_t *ng_out(Engine *E) { return E->out; }
int ng_whole(Engine *E) { return E->whole; }
int64_t ng_nout(Engine *E) { return E->nout; }

/* the number of atoms of the last model (for tests and measures) */
int64_t ng_size(Engine *E) {
    int64_t n = 0;
    if (!E->have_prev) return 0;
    n = E->m[E->cur].nrows - E->m[E->cur].ndead;
    return n;
}

/* clingo's order of two values (for tests) */
int ng_order(Engine *E, val a, val b) { return order(E, a, b); }

/* how many runs went which way: 0 from scratch, 1 delete and rederive, 2 extensions, 3 delete and
   rederive declined (then from scratch), 4 rollbacks of an extension (then 1 or 3), 5 atoms delete and
   rederive kept instead of over-deleting them (prune_round) */
int64_t ng_stat(Engine *E, int k) { return k >= 0 && k < 6 ? E->stats[k] : -1; }

/* whether ng_update takes an extension out before delete and rederive (1, the default) or deletes
   and rederives from the extended model (0: for tests and measures) */
void ng_set_rollback(Engine *E, int on) { E->rollback = on; }

/* whether delete and rederive keeps an atom that facts of the new run derive instead of
   over-deleting it (1, the default; 0: for tests and measures) */
void ng_set_prune(Engine *E, int on) { E->prune = on; }

/* delete and rederive runs from scratch when more than 1/unlike of the input rows changed (0: never) */
void ng_set_unlike(Engine *E, int64_t unlike) { E->unlike = unlike; }

/* the budget of a run: at most n live rows in its model (a program whose model does not end, as integers that
   keep growing, stops with ERR_BUDGET instead of running on); 0: no bound */
void ng_set_budget(Engine *E, int64_t n) { E->max_rows = n; }


/* ------------------------------------------------------------------ bundles
   A caller that knows its input as parts (a duel state's ABox: ~55 parts, most of them the same
   from one state to the next) registers each part once as a bundle of rows (ng_bundle) and gives
   a state as a list of bundles (ng_state): what came and went is found bundle by bundle here, and
   an input row changes only when the number of the state's bundles that hold it goes to or from 0. */

static void unbundle(Engine *E) {
    for (int64_t i = 0; i < E->nrid; i++) { E->rcount[i] = 0; E->rpos[i] = -1; E->rmark[i] = 0; }
    E->nst = 0;
    E->gen++;   /* (no bundle is in the previous state) */
    E->bundled = 0;
}

static int grow(void **a, int64_t *cap, int64_t need, size_t size) {
    if (need <= *cap) return 1;
    int64_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *b = realloc(*a, size * c);
    if (!b) return 0;
    *a = b; *cap = c;
    return 1;
}

static int rid_grow_set(Engine *E) {
    int64_t cap = E->rscap ? E->rscap * 2 : 1024;
    uint64_t *s = malloc(sizeof(uint64_t) * cap);
    if (!s) return 0;
    memset(s, 0xff, sizeof(uint64_t) * cap);
    uint64_t mask = cap - 1;
    for (int64_t i = 0; i < E->nrid; i++) {
        uint64_t h = E->rhash[i], j = h & mask;
        while (s[j] != SET_EMPTY) j = (j + 1) & mask;
        s[j] = (h >> 32) << 32 | (uint32_t)i;
    }
    free(E->rset);
    E->rset = s; E->rscap = cap;
    return 1;
}

/* the rid of a row of predicate p (a new one if not seen), -1 out of memory */
static int64_t row_id(Engine *E, int p, const val *row) {
    int w = E->arity[p];
    uint64_t h = mix(hash_vals(row, w), (uint64_t)p);
    if ((E->nrid + 1) * 2 > E->rscap && !rid_grow_set(E)) return -1;
    uint64_t mask = E->rscap - 1, j = h & mask, tag = h >> 32;
    for (;;) {
        uint64_t e = E->rset[j];
        if (e == SET_EMPTY) break;
        uint32_t i = SET_ROW(e);
        if ((e >> 32) == tag && E->rpred[i] == p && same_row(E->rvals + E->roff[i], row, w)) return i;
        j = (j + 1) & mask;
    }
    int64_t i = E->nrid;
    if (i >= INT32_MAX - 1) return -1;
    if (i == E->caprid) {
        int64_t c = E->caprid ? E->caprid * 2 : 1024;
        int32_t *rp = realloc(E->rpred, sizeof(int32_t) * c); if (!rp) return -1; E->rpred = rp;
        int32_t *rc = realloc(E->rcount, sizeof(int32_t) * c); if (!rc) return -1; E->rcount = rc;
        int64_t *ro = realloc(E->roff, sizeof(int64_t) * c); if (!ro) return -1; E->roff = ro;
        int64_t *rq = realloc(E->rpos, sizeof(int64_t) * c); if (!rq) return -1; E->rpos = rq;
        uint64_t *rh = realloc(E->rhash, sizeof(uint64_t) * c); if (!rh) return -1; E->rhash = rh;
        uint8_t *rm = realloc(E->rmark, c); if (!rm) return -1; E->rmark = rm;
        E->caprid = c;
    }
    if (!grow((void **)&E->rvals, &E->caprvals, E->nrvals + w + 1, sizeof(val))) return -1;
    E->rpred[i] = p; E->rcount[i] = 0; E->rpos[i] = -1; E->rhash[i] = h; E->rmark[i] = 0;
    E->roff[i] = E->nrvals;
    if (w) memcpy(E->rvals + E->nrvals, row, sizeof(val) * w);
    E->nrvals += w;
    E->rset[j] = tag << 32 | (uint32_t)i;
    E->nrid++;
    return i;
}

/* A bundle: n rows, row i of predicate preds[i] (their values one after the other in rows).
   Returns its id (registered for good: equal bundles are the caller's to share), -1 out of memory
   or a predicate out of range. */
int64_t ng_bundle(Engine *E, int64_t n, const int32_t *preds, const val *rows) {
    if (!E->inrid) {
        E->inrid = calloc(E->npred ? E->npred : 1, sizeof(int32_t *));
        E->capinrid = calloc(E->npred ? E->npred : 1, sizeof(int64_t));
        if (!E->inrid || !E->capinrid) return -1;
    }
    if (E->nbund >= INT32_MAX - 1) return -1;
    if (!grow((void **)&E->bpool, &E->capbpool, E->nbpool + n, sizeof(int32_t))) return -1;
    int64_t cap = E->capbund;
    if (!grow((void **)&E->boff, &cap, E->nbund + 1, sizeof(int64_t))) return -1;
    cap = E->capbund;
    if (!grow((void **)&E->bgen, &cap, E->nbund + 1, sizeof(int64_t))) return -1;
    cap = E->capbund;
    if (!grow((void **)&E->blen, &cap, E->nbund + 1, sizeof(int32_t))) return -1;
    E->capbund = cap;
    int64_t at = E->nbpool;
    const val *row = rows;
    for (int64_t i = 0; i < n; i++) {
        int p = preds[i];
        if (p < 0 || p >= E->npred) return -1;
        int64_t id = row_id(E, p, row);
        if (id < 0) return -1;
        E->bpool[at++] = (int32_t)id;
        row += E->arity[p];
    }
    int64_t b = E->nbund++;
    E->boff[b] = E->nbpool;
    E->blen[b] = (int32_t)(at - E->nbpool);
    E->bgen[b] = -1;   /* (in no state yet) */
    E->nbpool = at;
    return b;
}

/* ng_bundle of one buffer (reader.c's bundle_rows: a Python bytes object, handed over without a copy): the
   n predicate numbers (int32), padded to 8 bytes, then the rows. */
int64_t ng_bundle_buf(Engine *E, int64_t n, const char *buf) {
    const char *rows = buf + ((4 * n + 7) & ~(int64_t)7);
    if (!((uintptr_t)rows & 7)) return ng_bundle(E, n, (const int32_t *)buf, (const val *)rows);
    int64_t size = 0;   /* (not aligned for int64 reads: copied) */
    for (int64_t i = 0; i < n; i++) {
        int32_t p;
        memcpy(&p, buf + 4 * i, 4);
        if (p < 0 || p >= E->npred) return -1;
        size += E->arity[p];
    }
    int32_t *preds = malloc(sizeof(int32_t) * (n ? n : 1));
    val *copy = malloc(sizeof(val) * (size ? size : 1));
    int64_t b = -1;
    if (preds && copy) {
        memcpy(preds, buf, 4 * n);
        memcpy(copy, rows, sizeof(val) * size);
        b = ng_bundle(E, n, preds, copy);
    }
    free(preds);
    free(copy);
    return b;
}

/* Drop every bundle (their ids are no longer valid); the next ng_state hands its inputs over anew. */
void ng_bundles_reset(Engine *E) {
    unbundle(E);
    E->nbund = E->nbpool = E->nrid = E->nrvals = 0;
    if (E->rscap) memset(E->rset, 0xff, sizeof(uint64_t) * E->rscap);
}

/* Every input relation empty (the next run hands its inputs over anew, by ng_input or ng_state). */
void ng_clear_inputs(Engine *E) {
    E->state_known = 0;
    if (E->bundled) unbundle(E);
    for (int p = 0; p < E->npred; p++) {
        if (!E->ninput[p]) continue;
        E->ninputs -= E->ninput[p];
        E->ninput[p] = 0;
        if (!E->dirty[p]) { E->dirty[p] = 1; E->dirtyl[E->ndirtyl++] = p; }
    }
}

static inline int touch_row(Engine *E, int32_t rid, int d) {
    if (!E->rmark[rid]) {
        if (!grow((void **)&E->chg, &E->capchg, E->nchg + 1, sizeof(int32_t))) return 0;
        E->rmark[rid] = 1 + (E->rcount[rid] > 0);
        E->chg[E->nchg++] = rid;
    }
    E->rcount[rid] += d;
    return 1;
}

static int state_fail(Engine *E) {
    for (int64_t c = 0; c < E->nchg; c++) E->rmark[E->chg[c]] = 0;
    E->nchg = 0;
    unbundle(E);   /* (the next state clears the inputs and hands them over anew) */
    E->have_prev = 0;
    return -ERR_NOMEM;
}

/* The inputs become the union of these bundles' rows (the list as a set).  From the previous
   state's bundles, those that came and went; an input row changes where the count of the
   state's bundles that hold it goes to or from 0.  Returns 0 when no input row went and the
   current model is a completed run's: the rows that came are added to it (as ng_add), call
   ng_extend; 1 when the changed inputs are marked (as ng_input): call ng_update (or ng_run);
   -ERR_ on an error (an unknown bundle id: -ERR_CODE). */
int ng_state(Engine *E, int64_t n, const int32_t *ids) {
    for (int64_t i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= E->nbund) return -ERR_CODE;
    int anew = !E->bundled;
    if (anew) {   /* (C holds inputs of ng_input, or none: every input relation anew) */
        ng_clear_inputs(E);
        E->bundled = 1;
    }
    int64_t g = ++E->gen;
    E->nchg = 0;
    int64_t nold = E->nst;
    if (!grow((void **)&E->st, &E->capst, nold + n, sizeof(int32_t))) return state_fail(E);
    int32_t *now = E->st + nold;   /* (this state's list, after the previous one's) */
    int64_t nnow = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t b = ids[i];
        if (E->bgen[b] == g) continue;   /* (twice in the list) */
        int stays = E->bgen[b] == g - 1;
        E->bgen[b] = g;
        now[nnow++] = b;
        if (stays) continue;
        const int32_t *r = E->bpool + E->boff[b];
        for (int32_t k = 0; k < E->blen[b]; k++)
            if (!touch_row(E, r[k], 1)) return state_fail(E);
    }
    for (int64_t i = 0; i < nold; i++) {
        int32_t b = E->st[i];
        if (E->bgen[b] == g) continue;
        const int32_t *r = E->bpool + E->boff[b];
        for (int32_t k = 0; k < E->blen[b]; k++)
            if (!touch_row(E, r[k], -1)) return state_fail(E);
    }
    memmove(E->st, now, sizeof(int32_t) * nnow);
    E->nst = nnow;
    int went = 0;
    for (int64_t c = 0; c < E->nchg && !went; c++) {
        int32_t rid = E->chg[c];
        went = E->rmark[rid] == 2 && E->rcount[rid] == 0;
    }
    int extend = !went && !anew && E->have_prev && !E->ndirtyl;
    if (extend && !E->extending) begin_extend(E);
    Model *M = &E->m[E->cur];
    int64_t changed = 0;
    for (int64_t c = 0; c < E->nchg; c++) {
        int32_t rid = E->chg[c];
        int was = E->rmark[rid] == 2, is = E->rcount[rid] > 0;
        E->rmark[rid] = 0;
        if (was == is) continue;
        changed++;
        int p = E->rpred[rid], w = E->arity[p];
        if (was) {   /* out of the input: the last input row takes its place */
            int64_t at = E->rpos[rid], last = E->ninput[p] - 1;
            if (at != last) {
                int32_t moved = E->inrid[p][last];
                if (w) memcpy(E->input[p] + at * w, E->input[p] + last * w, sizeof(val) * w);
                E->inrid[p][at] = moved;
                E->rpos[moved] = at;
            }
            E->rpos[rid] = -1;
            E->ninput[p] = last;
            E->ninputs--;
        } else {
            int64_t k = E->ninput[p];
            if (!grow((void **)&E->input[p], &E->capinput[p], (k + 1) * w, sizeof(val)) ||
                !grow((void **)&E->inrid[p], &E->capinrid[p], k + 1, sizeof(int32_t))) {
                for (c++; c < E->nchg; c++) E->rmark[E->chg[c]] = 0;
                E->nchg = 0;
                return state_fail(E);
            }
            const val *row = E->rvals + E->roff[rid];
            if (w) memcpy(E->input[p] + k * w, row, sizeof(val) * w);
            E->inrid[p][k] = rid;
            E->factual[p] = 1;
            E->rpos[rid] = k;
            E->ninput[p] = k + 1;
            E->ninputs++;
            if (extend) {
                if (rel_insert(E, M, &M->rels[p], row, F_INPUT) < 0) {
                    for (c++; c < E->nchg; c++) E->rmark[E->chg[c]] = 0;
                    E->nchg = 0;
                    return state_fail(E);
                }
                continue;
            }
        }
        if (!E->dirty[p]) { E->dirty[p] = 1; E->dirtyl[E->ndirtyl++] = p; }
    }
    E->nchg = 0;
    E->state_changed = changed;
    E->state_known = !anew;
    return extend ? 0 : 1;
}

/* ng_state of the ids as one buffer (reader.c's part_ids: a Python bytes object, handed over without a copy). */
int ng_state_buf(Engine *E, int64_t n, const char *buf) {
    if (!((uintptr_t)buf & 3)) return ng_state(E, n, (const int32_t *)buf);
    int32_t *ids = malloc(sizeof(int32_t) * (n ? n : 1));   /* (not aligned for int32 reads: copied) */
    if (!ids) return -ERR_NOMEM;
    memcpy(ids, buf, sizeof(int32_t) * n);
    int rc = ng_state(E, n, ids);
    free(ids);
    return rc;
}

