/* sv_cases.h: test cases (p/q row sets), the families that make them, suites. */
#ifndef SV_CASES_H
#define SV_CASES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SV_CASE_NAME_MAX 512
#define SV_MAX_V 1048576

/* A context-dependent pair: target and draft Markov chains over V states.
 * The rows a step sees depend on the state and on the drafts themselves. */
typedef struct sv_chain {
    float *P;          /* [V][V]: target transitions P[s][t] */
    float *Q;          /* [V][V]: draft transitions */
    double *Qcum;      /* [V][V]: cumulative rows of Q, for drafting */
    int32_t streams;   /* independent streams the draws are spread over */
} sv_chain;

/* How a model's logits become the distribution it samples from. */
typedef struct sv_sampling {
    double T;      /* temperature; 0 is greedy */
    int32_t top_k; /* keep the k highest-ranked tokens; 0 (or >= V) keeps all */
    double top_p;  /* keep the shortest ranked prefix of mass >= top_p; 1 keeps all */
} sv_sampling;

/* One case: K+1 target rows and K drafting rows over V tokens, the same for
 * every draw (samplers see them with stride 0); or, when chain is set, a
 * Markov pair whose rows change every step (target and draft then hold the
 * rows of the first step, from state 0). */
typedef struct sv_case {
    char name[SV_CASE_NAME_MAX]; /* canonical spec, e.g. "zipf:V=1000,K=8,s=1.1" */
    int32_t K, V;
    float *target;               /* [K+1][V] */
    float *draft;                /* [K][V]: q_k, the distribution drafts are drawn from */
    int draft_probs_given;       /* 0: one-hot drafter; the sampler gets no draft probs */
    sv_chain *chain;             /* NULL for fixed rows */
    float *draft_sampled;        /* [K][V] or NULL: drafts are drawn from these rows while
                                  * the sampler is told `draft` (a deliberate mismatch:
                                  * a correct sampler must then fail) */

    /* Logits input (sv_sampler.h's logits modes). Cases made from logits by
     * one sampling rule for target and drafter keep the logits: */
    double *logits;              /* [2K+1][V] or NULL: the K+1 target rows' logits, then
                                  * the K draft rows' */
    sv_sampling sampling;        /* the rule that made target and draft from them */
    const char *no_logits;       /* when logits is NULL: why, for the error message */
    /* after sv_case_use_logits: */
    int32_t input;               /* the sv_input the rows follow: 0 (probs) before */
    void *input_logits;          /* [2K+1][V] float, or bfloat16 bits (uint16_t) */
} sv_case;

/* Fills the rows of one step of a chain case: target rows P[s], P[x_1], ...,
 * P[x_K] and draft rows Q[s], Q[x_1], ..., Q[x_{K-1}]. */
void sv_chain_step_rows(const sv_case *c, int32_t state, const int32_t *drafts, float *target,
                        float *draft);

/* The case as a drafter without probabilities presents it: the sampler is
 * given no draft rows, and q, the rows drafts are drawn from (draft_sampled
 * where the case has it), is what the checks' one-hot law uses. For a
 * sampler that verifies by exact match (SV_RULE_EXACT_MATCH). */
void sv_case_as_one_hot(sv_case *c);

/* Allocates rows for K, V (zeroed); NULL on no memory. */
sv_case *sv_case_alloc(int32_t K, int32_t V);
void sv_case_free(sv_case *c);

/* Gives the case logits rows [2K+1][V] (zeroed) to be filled, made into
 * target and draft by rule s. Returns -1 on no memory. */
int sv_case_keep_logits(sv_case *c, const sv_sampling *s);

/* Readies the case for a logits input mode (1: float32, 2: bfloat16, the
 * sv_input values): rounds its logits to that type into input_logits and
 * remakes target and draft from the rounded logits by the case's rule, so the
 * rows the checks use are exactly what a sampler given input_logits must
 * imply. Returns 0, or -1 with a message (a case without logits says why). */
int sv_case_use_logits(sv_case *c, int32_t input, char *err, size_t errlen);

/* Checks every row: finite, >= 0, sums to 1 within 1e-3. On failure writes a
 * message naming the case, row, token and value, and returns -1. */
int sv_case_validate(const sv_case *c, char *err, size_t errlen);

/* Probability that draft k (0-based) is accepted:
 * sum_x min(p_k(x), q_k(x)), or sum_x q_k(x) p_k(x) for a one-hot drafter. */
double sv_case_alpha(const sv_case *c, int32_t k);
/* The same for exact match whatever the case's drafter: sum_x q_k(x) p_k(x),
 * q the rows the drafts are drawn from (a chain-rule sampler's lengths
 * that follow this law verify by exact match: evaluate.c says so). */
double sv_case_alpha_exact_match(const sv_case *c, int32_t k);

/* The distribution of y_k given that draft k was accepted:
 * min(p_k, q_k) / alpha_k, or q_k p_k / alpha_k for a one-hot drafter.
 * Writes V values; all zero if alpha_k = 0. Returns -1 on no memory. */
int sv_case_accepted_dist(const sv_case *c, int32_t k, double *out);

/* Row k of the target as doubles, renormalized: the truth the checks use. */
void sv_case_target_dist(const sv_case *c, int32_t k, double *out);

/* ---- families and specs: "family[:key=value,...]" ------------------------- */

/* Builds a case from a spec. Returns 0, or -1 with a message. */
int sv_case_from_spec(const char *spec, sv_case **out, char *err, size_t errlen);

/* Prints every family with its parameters and defaults. */
void sv_families_print(FILE *out);

/* ---- recorded cases: one step of a recording (sv_recorded.h) ---------------
 * "recorded:file=PATH[,group=G],step=S[,K=k][,T=t][,top_k=n][,top_p=x]
 *  [,mismatch_T=t]": the step's logits through the sampling pipeline below,
 * the same parameters for target and draft; with mismatch_T the drafts are
 * drawn from q at that temperature while the sampler is told q at T.
 * sv_case_from_spec builds these too. */
int sv_recorded_case_from_spec(const char *spec, sv_case **out, char *err, size_t errlen);

/* For "recorded:..." specs: the recording's steps, and whether the spec
 * names one (step=S). Returns 0, or -1 with a message. */
int sv_recorded_spec_steps(const char *spec, int64_t *steps, int *has_step, char *err,
                           size_t errlen);

/* "FILE[:GROUP]" -> "recorded:file=FILE[,group=GROUP]"; -1 with a message
 * when the path holds characters a spec cannot carry (',' or '='). */
int sv_recorded_spec(const char *path_group, char *out, size_t len, char *err, size_t errlen);

/* ---- logits pipeline -------------------------------------------------------- */

/* p = softmax(logits / T) in double, stored as float. T = 0 is greedy: one-hot
 * at the argmax, the lowest index on ties. */
void sv_softmax(const double *logits, int32_t V, double T, float *p);

/* p from logits by temperature, then top-k, then top-p (logits.c states the
 * ranking and tie rules). With neither cut it is sv_softmax, bit for bit.
 * Returns 0, or -1 when out of memory. */
int sv_logits_to_probs(const double *logits, int32_t V, const sv_sampling *s, float *p);

/* ---- suites ----------------------------------------------------------------- */

typedef struct sv_suite_entry {
    const char *spec;
    uint64_t draws;
} sv_suite_entry;

typedef struct sv_suite {
    const char *name;
    const char *description;
    const sv_suite_entry *entries;
    size_t n_entries;
} sv_suite;

size_t sv_suite_count(void);
const sv_suite *sv_suite_get(size_t i);
const sv_suite *sv_suite_find(const char *name);

#endif
