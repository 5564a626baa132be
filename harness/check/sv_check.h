/* sv_check.h: where a verdict is decided. The checks of one run (contract,
 * fit, TV, accepted length, independence, the Markov sequence) from its
 * tally, what looks wrong in words, and a verification over cases under one
 * family-wise false-alarm rate with SUSPECT cases re-run (sv_verify). */
#ifndef SV_CHECK_H
#define SV_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include "sv_run.h"
#include "sv_stats.h"

/* ---- evaluate.c: the checks of one run ---------------------------------------- */
#define SV_MAX_FINDINGS 8
#define SV_FINDING_LEN 320

typedef struct sv_position_eval {
    uint64_t N;                 /* draws that emitted this position */
    int32_t bins;
    double tail_mass;           /* probability in the pooled tail bin */
    int32_t tail_categories;
    sv_gof chi2, g;
    double tv, tv_expected, tv_threshold, tv_min_detectable, tv_p;
    double w2_min_detectable;   /* smallest chi-square effect detected with P >= 1 - split */
    sv_distance dist;           /* how far from p, with SV_MEASURE_LEVEL intervals (--measure) */
    sv_pooled binned;           /* the bins the tests used, counts beside expected (owned:
                                 * sv_run_eval_free); nbins 0 where no test ran */
    sv_verdict verdict;
} sv_position_eval;

/* The confidence of --measure's intervals. */
#define SV_MEASURE_LEVEL 0.95

typedef struct sv_run_eval {
    uint64_t seed, draws;
    uint64_t asked;             /* the draws the run was given (draws: those it ran) */
    uint32_t rule;              /* the sampler's sv_rule: set by the caller, as seed is */
    double seconds;
    int32_t K;
    sv_position_eval pos[SV_MAX_K + 1];
    double length_expected[SV_MAX_K + 1]; /* P(n = j) from the alphas */
    uint64_t length_observed[SV_MAX_K + 1];
    sv_gof length;
    sv_verdict length_verdict;
    /* block verification (its law has no closed form): the mean number
     * accepted against the chain rule's on the same case, one-sided */
    double mean_accepted, mean_accepted_chain;
    sv_gof indep_seq, indep_pos;
    sv_verdict indep_seq_verdict, indep_pos_verdict;
    int chain;                  /* a Markov-pair case: only contract and sequence checks */
    uint64_t transitions;       /* emitted transitions counted */
    int32_t states_tested;
    sv_gof seq_chi2, seq_g;
    uint64_t first_accepted;    /* steps whose draft 1 was accepted */
    double first_expected;      /* the sum of their chances min(1, p/q) */
    sv_verdict seq_verdict;
    uint64_t violations;
    sv_verdict contract_verdict;
    /* mixed batches (probes.c): a seeded sequence's tokens whatever its batch,
     * and the sampler's randomness following the seed */
    uint64_t batch_probed, batch_changed;
    sv_verdict batch_verdict;
    uint64_t seed_probed, seed_same;
    double seed_chance;         /* P(all seed_probed the same) for a sampler that follows seeds */
    sv_verdict seed_verdict;
    sv_verdict verdict;         /* the worst of the above */
    int32_t n_findings;
    char findings[SV_MAX_FINDINGS][SV_FINDING_LEN]; /* what looks wrong, in words */
    /* verify --dump-failing: the files of its failing batches (contract,
     * composition), escaped, for `specverify replay`; "" where none */
    char replay[2][SV_FINDING_LEN];
} sv_run_eval;

int sv_evaluate(const sv_case *c, const sv_tally *t, const sv_pair_plan *plan,
                double split_alpha, sv_run_eval *ev);
/* Frees what sv_evaluate allocated in ev (its positions' bins); a copy of
 * ev owns them as much, so exactly one copy is freed. */
void sv_run_eval_free(sv_run_eval *ev);
/* The smallest p-value of a run and its check's name ("accepted length",
 * "position 2 chi-square"): what made a case SUSPECT. INFINITY if none ran. */
double sv_weakest_check(const sv_run_eval *ev, char *name, size_t len);
/* chain.c: the transition counts against the target chain: pooled chi-square
 * and G per visited state, summed over states. */
int sv_evaluate_chain(const sv_case *c, const sv_tally *t, double split_alpha,
                      sv_run_eval *ev);
/* evaluate_tree.c: a tree run's accepted depth against the law given each
 * step's tree (a Wald chi-square over the depths); c->K is the tree's depth. */
int sv_evaluate_length_tree(const sv_case *c, const sv_tally *t, double split_alpha,
                            sv_run_eval *ev);

/* ---- describe.c: what looks wrong, in words ------------------------------------ */
void sv_describe_position(const sv_pooled *pooled, const sv_position_eval *pe, int32_t k,
                          char *out, size_t len);
/* Names the length bin that drives the statistic (pooled as the test pooled
 * it), with its counts, and whether the mean number accepted is off. */
void sv_describe_length(const sv_run_eval *ev, const sv_pooled *pooled, char *out, size_t len);
void sv_describe_independence(const char *which, const sv_gof *g, char *out, size_t len);

/* ---- verify.c: a whole run over cases ------------------------------------------ */
typedef struct sv_case_report {
    char name[SV_CASE_NAME_MAX];
    size_t spec;                /* its index in the config's specs */
    int32_t K, V;
    int draft_probs_given;
    double alpha[SV_MAX_K];     /* analytic acceptance per position */
    int n_runs;                 /* 1, or 2 when a suspect was re-run */
    sv_run_eval runs[2];
    sv_verdict verdict;         /* of the last run */
} sv_case_report;

#define SV_MAX_SHORT_CASES 8
typedef struct sv_report {
    const char *sampler, *sampler_description;
    const char *suite;          /* NULL for --case */
    uint64_t seed;
    double alpha, split_alpha;
    size_t n_tests;
    int32_t threads, batch;
    size_t n_cases;
    sv_case_report *cases;
    size_t passed, suspect, failed;
    uint64_t total_draws;
    double seconds;
    int interrupted;            /* the signal that cut the run short, or 0 */
    size_t n_planned;           /* cases asked for; n_cases ran (the last cut short) */
    int32_t input;              /* the sv_input the sampler was given */
    uint32_t rule;              /* the sampler's sv_rule */
    int mixed;                  /* batches mixed cases (contract v3), else one case each */
    int measure;                /* verify --measure: each position's distance from p shown */
    int verdicts_dropped;       /* a lossy rule under --measure: distances in place of
                                 * verdicts (a lossless rule keeps its verdicts) */
    char tree[96];              /* a tree rule's tree ("3x2x1 iid"), cut to each case's K; "" */
    int seeding;                /* an sv_seeding */
    const char *not_taken;      /* the checks the sampler could not take, or NULL */
    char not_taken_text[8192];  /* where not_taken is composed (lacks.c) */
    uint32_t lacks;             /* the sampler's SV_LACKS_* bits */
    /* cases built for a rare bug that ran below the draws their power needs
     * (verify's, cli/short_cases.c): which case, the bug, the power at the
     * draws run, and the draws `power_target` needs */
    struct sv_short_case {
        size_t i;
        const char *variant;
        double power, needed;
    } short_cases[SV_MAX_SHORT_CASES];
    size_t n_short;
    double power_target;
    char description[1024];     /* the sampler's words about itself, escaped: a plugin's */
    char reproduce[2048];       /* the command a case's FAIL is run alone by, but for
                                 * --case, --seed and --draws (cli/reproduce.c); "" none */
    char source[1536];          /* what loads the sampler, words that follow a command
                                 * (" --python ..."; "" built-in): the replay lines' */
    const char *sandbox;        /* the layers around the sampler's process, in words, or NULL */
    const char *python_exe;     /* the interpreter of a Python sampler, or NULL */
    const char *python_version; /* and its version ("3.11.2") */
    const char *python_start;   /* how it starts: once and forked, or for each run, and why */
} sv_report;

/* ---- shards (issue 28): a verification cut into shards of every case's
 * sequences, their tallies summed by `specverify merge` ---------------------- */
/* What the probes of mixed batches (probes.c) found for one case: run once,
 * by shard 0, and applied to the merged case as the whole run applies them. */
typedef struct sv_shard_probe {
    int present;
    uint64_t batch_probed, batch_changed, seed_probed, seed_same;
    double seed_chance;
    sv_verdict batch_verdict, seed_verdict;
    int32_t n_findings;
    char findings[SV_MAX_FINDINGS][SV_FINDING_LEN];
} sv_shard_probe;

typedef struct sv_shard_hooks {
    uint32_t index, count; /* a shard: run shard `index` of `count` of each case's first run */
    /* a shard: each case's first-run tally (cases numbered as cfg->specs) */
    int (*take)(void *ctx, size_t i, const sv_case *c, const sv_pair_plan *plan,
                const sv_tally *t, const sv_shard_probe *probe);
    /* a merge: the shards' summed tally of case i's first run, instead of
     * running it, and its probes; re-runs of suspects run as usual. shares:
     * the draws each of the `count` shards takes of it (NULL: not known),
     * which a shard's counts must be */
    int (*give)(void *ctx, size_t i, const sv_case *c, const sv_pair_plan *plan, sv_tally *into,
                sv_shard_probe *probe, const uint64_t *shares);
    void *ctx;
    /* a merge of shards that a signal stopped (MPI's ranks): the signal, and
     * how many cases have counts; the report is then partial after them */
    int stopped_by;
    size_t stopped_after;
} sv_shard_hooks;

typedef struct sv_verify_config {
    const sv_sampler *sampler;
    const char *suite;          /* name, for the report */
    const char *const *specs;   /* n_cases case specs */
    const uint64_t *draws;      /* draws per case */
    size_t n_cases;
    uint64_t seed;
    double alpha;               /* family-wise false-alarm rate */
    int32_t batch, threads;
    int progress;               /* progress, and a notice of each re-run, on stderr */
    int rerun_suspects;         /* re-run a SUSPECT with a fresh seed and 4x draws */
    const uint64_t *rerun_draws; /* per case, the re-run's draws in place of 4x (verify
                                  * --budget's: what its reserve fits); NULL: 4x */
    int32_t input;              /* an sv_input: probs, or logits the cases are readied for */
    /* Called after each case with the report so far; nonzero ends the run
     * there (n_cases < n_planned, not marked interrupted). The split is still
     * over every planned case, so the cases that ran read exactly as in the
     * whole run. NULL: run every case. */
    int (*case_done)(const struct sv_report *r, void *ctx);
    void *case_done_ctx;
    int in_process;             /* call the sampler in this process, not in a child */
    double call_timeout;        /* seconds one sampler call may take; 0: no limit */
    int uniform;                /* 1: today's batches, one case broadcast (stride 0) each */
    int one_case_a_mix;         /* mixed batches, each case in a mix of its own (budget_probe.c:
                                 * each case's time apart, for a sampler uniform ones are not for) */
    int no_mix_probes;          /* leave out the batch-composition and seed probes (probes.c):
                                 * budget_probe.c measures rates, not verdicts */
    int device_staging;         /* --device-staging (sv_run_config's): mixed or uniform
                                 * batches of a CUDA sampler, no tree; Markov pairs (and
                                 * a self-drafting sampler's mixes) staged on the host */
    int seeding;                /* an sv_seeding for mixed batches */
    const sv_tree *tree;        /* a tree rule's sampler: the tree each step drafts (each case
                                 * runs it cut to its K, and is judged to that depth) */
    const sv_shard_hooks *shard; /* a shard (take) or a merge (give); NULL: a whole run */
    double seconds_before;       /* spent on the run before this call (MPI: the ranks' runs),
                                  * counted in the report's seconds */
    const struct sv_run_watch *watch; /* each first run's watcher asks it too (MPI's ranks) */
    struct sv_dump *dump;        /* --dump-failing: where failing mixed batches go; or NULL */
} sv_verify_config;

/* One fixed run through shard hooks (NULL: a whole run): a merge's summed
 * counts in place of the run (give), or the run, cut to a shard's share and
 * its counts handed on (take) under number `index`. */
int sv_shard_run(const sv_shard_hooks *sh, size_t index, sv_run_config *run, const sv_case *c,
                 const sv_drafter *d, const sv_pair_plan *plan, sv_tally *tally);

/* ---- verify_mix.c: cases verified together in mixed batches ---------------------- */
/* Fills what a case report says of the case itself. */
void sv_case_report_init(sv_case_report *cr, const sv_case *c);
/* Whether cases a and b can share a mixed batch. */
int sv_mixable(const sv_case *a, const sv_case *b);
/* Runs cases[0..n) (draws[i] each, times `scale`) in one mix with `seed`,
 * evaluating each into evals[i]; probes (probes.c) on the first run, whose
 * cases' numbers in cfg->specs are index[0..n) (NULL for a re-run): a
 * shard's or merge's (cfg->shard) first run takes its part there. */
int sv_verify_mix(const sv_verify_config *cfg, const sv_case *const *cases,
                  const uint64_t *draws, int32_t n, uint64_t seed, uint64_t scale,
                  double split, int probe, const char *label, sv_run_eval *evals,
                  const size_t *index);
/* A probe's findings applied to a case's evaluation, as probes.c applies
 * them in a whole run. */
void sv_shard_probe_apply(const sv_shard_probe *p, sv_run_eval *ev);

/* ---- dump.c: verify --dump-failing DIR, the failing batches for replay --------- */
#define SV_DUMP_FORMAT "specverify failing batch"
#define SV_DUMP_VERSION 1
typedef struct sv_dump sv_dump;
/* Makes DIR if it is missing (one level) and checks it can be written:
 * SV_EBAD naming it. reproduce: the run's command prefix, for the files. */
int sv_dump_open(const char *dir, const sv_sampler *sampler, int32_t input,
                 const char *reproduce, sv_dump **out);
void sv_dump_close(sv_dump *d);
/* What a mixed run tells of its contract breaches (sv_run_config.failing). */
const sv_failing_sink *sv_dump_sink(sv_dump *d);
/* A batch-composition failure of case c: batches a and b, each with its
 * target, the same seeded sequence. */
void sv_dump_composition(sv_dump *d, const sv_case *c, const char *finding,
                         const sv_failing_batch *a, const sv_failing_batch *b);
/* Case c's files, into ev->replay. */
void sv_dump_files(const sv_dump *d, const sv_case *c, sv_run_eval *ev);
/* FNV-1a of the rows a case gives the sampler: a replay's proof that it
 * rebuilt them. */
uint64_t sv_dump_case_hash(const sv_case *c);

/* ---- probes.c: batch-composition invariance and seed sensitivity ------------------ */
/* The false-alarm rate of the seed-sensitivity check: a case fails only when
 * every probed sequence matched and a sampler that follows its seeds had at
 * most this chance of that. */
#define SV_SEED_FALSE_ALARM 1e-9
/* Runs the probes on mix m and marks evals[case] (batch_* and seed_*). */
int sv_probe_mix(const sv_verify_config *cfg, const sv_mix *m, const sv_drafter *const *drafters,
                 uint64_t seed, sv_run_eval *evals);

/* ---- lacks.c: what a sampler does not implement (sv_sampler.lacks) ------ */
/* 1 if case c is left out of cfg's run: a top-k or top-p case, given as
 * logits to a sampler that lacks them. */
int sv_lacks_leaves_out(const sv_verify_config *cfg, const sv_case *c);
/* The seeding a sampler that lacks seeds gets (none), into *seeding; SV_EBAD
 * for --seeding all, which it cannot take. */
int sv_lacks_seeding(const sv_verify_config *cfg, int *seeding);
/* The report's "checks not taken" into buf: `older` (NULL or an older
 * contract's words), the cases left out by name, the seeded checks. */
void sv_lacks_describe(const sv_verify_config *cfg, sv_case *const *cases,
                       const unsigned char *left_out, const char *older, char *buf, size_t len);
/* SV_EBAD, naming the first, when every case of the run was left out. */
int sv_lacks_nothing_left(const sv_verify_config *cfg, sv_case *const *cases,
                          const unsigned char *left_out);

/* Where the bonus tokens came from, in words, for the report's "bonus:" line. */
const char *sv_lacks_bonus_words(uint32_t lacks);

/* SV_OK with a report (whatever the verdicts), or a status with a message. */
/* Case `spec` as a run of `input` gives it to a sampler of `rule`: built,
 * readied for logits input, a one-hot drafter's for exact match, its name
 * escaped. SV_EBAD with the spec's error. */
int sv_case_ready(const char *spec, int32_t input, int rule, sv_case **out);
int sv_verify(const sv_verify_config *cfg, sv_report **out);
void sv_report_free(sv_report *r);
/* 1 if a run of some case broke the contract (or its sampler failed). */
int sv_report_contract_broken(const sv_report *r);
/* 1 for a rule lossy by design (typical acceptance): --measure reads its
 * distance from p instead of judging it; every other rule must be lossless. */
static inline int sv_rule_is_lossy(uint32_t rule)
{
    return rule == SV_RULE_TYPICAL;
}
/* The seed a suspect's re-run uses. */
uint64_t sv_rerun_seed(uint64_t seed);

/* verify.c: 1 if the sampler can be given uniform batches (one case's rows
 * broadcast to every sequence): not a sampler of the packed layout alone,
 * nor one that draws its own drafts. */
int sv_takes_uniform(const sv_sampler *s);

/* own_drafts.c: a sampler that draws its own drafts (SV_INPUT_OWN_DRAFTS)
 * takes the cases with fixed draft rows: 1 if c is one. */
int sv_own_drafts_take(const sv_case *c);
/* What verify refuses such a sampler (uniform batches, a tree, no case it
 * takes among n_cases of which `skipped` it cannot): SV_EBAD with a message;
 * else SV_OK, with the cases left out named in text when there are some. */
struct sv_verify_config;
int sv_own_drafts_refusal(const struct sv_verify_config *cfg, sv_case *const *cases,
                          size_t skipped, char *text, size_t len);

#endif
