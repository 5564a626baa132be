/* sv_sampler.h: the specverify sampler contract (public, installed).
 *
 * A sampler verifies one batch of speculative-decoding steps. Everything a
 * sampler author needs is in this file and sv_engine_rng.h beside it (the
 * harness's uniforms on the engines' grids: torch.rand's float32 coin,
 * CUDA's float32 exponential); they depend only on <stdint.h>, <stddef.h>
 * and <math.h>. A plugin is a shared library exporting SV_PLUGIN_SYMBOL.
 *
 * One step of chain speculative sampling, per sequence b:
 *   inputs   target rows p_1..p_{K+1}, draft rows q_1..q_K (over V tokens),
 *            draft tokens x_1..x_K with x_k drawn from q_k;
 *   outputs  n in [0, K] accepted drafts and n+1 emitted tokens:
 *            y_k = x_k for k <= n, then y_{n+1} from norm(max(p_{n+1} - q_{n+1}, 0))
 *            if n < K, or from p_{K+1} if n = K. Draft k is accepted with
 *            probability min(1, p_k(x_k) / q_k(x_k)).
 *   With no draft probs (draft == NULL), q_k is one-hot at x_k: draft k is
 *   accepted with probability p_k(x_k) and the residual is p_k without x_k.
 *
 * Inputs come as float32 probabilities (the contract's base mode), or, for a
 * sampler that says so in `inputs`, as logits that the sampler turns into p
 * and q itself (see sv_input).
 */
#ifndef SV_SAMPLER_H
#define SV_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include "sv_engine_rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a struct below changes layout or meaning. Version 2 added
 * the logits input fields at the end of sv_batch and `inputs` at the end of
 * sv_sampler; version 3 the per-sequence fields (ragged drafts, the packed
 * layout, per-sequence seeds and sampling rules) at the end of sv_batch and
 * `layouts` at the end of sv_sampler; version 4 `message` at the end of
 * sv_batch and of sv_limits, where a sampler says why a call failed; version
 * 5 `rule` at the end of sv_sampler, the verification rule a sampler
 * implements (sv_rule); version 6 the tree rules (SV_RULE_TREE,
 * SV_RULE_TREE_TARGET_ONLY) and the tree fields at the end of sv_batch
 * (`parents`, `siblings`, `out_path`); version 7 `lacks` at the end of
 * sv_sampler (SV_LACKS_*: what a sampler does not implement); version 8 the
 * SV_INPUT_OWN_DRAFTS flag of sv_sampler.inputs and `draft_uniforms`,
 * `out_drafts` at the end of sv_batch (a sampler that draws its own drafts).
 * The harness still loads version 1 to 7 plugins: version 1 and 2 ones get
 * batches of one case each (one K, one sampling rule); versions 1 to 4 are
 * chain samplers; versions 1 to 6 lack nothing (lacks is read as 0);
 * versions 1 to 7 are given their drafts. */
#define SV_CONTRACT_VERSION 8u

/* Largest K the harness passes. */
#define SV_MAX_K 16

/* Where a sampler's pointers live. */
typedef enum sv_memspace {
    SV_MEM_HOST = 0, /* ordinary host memory */
    SV_MEM_CUDA = 1  /* CUDA device memory; verify may be asynchronous on `stream` */
} sv_memspace;

/* What verify and init return. */
typedef enum sv_sampler_status {
    SV_SAMPLER_OK = 0,
    SV_SAMPLER_EINVAL = 1,      /* the batch is outside what the sampler supports */
    SV_SAMPLER_ENOMEM = 2,      /* an allocation failed */
    SV_SAMPLER_EDEVICE = 3,     /* a device call failed */
    SV_SAMPLER_EINTERNAL = 4    /* anything else */
} sv_sampler_status;

/* How the rows of a batch are given.
 *
 * SV_INPUT_PROBS: target and draft hold probabilities (the base contract).
 * SV_INPUT_LOGITS_F32, SV_INPUT_LOGITS_BF16: target and draft are NULL;
 * target_logits and draft_logits hold logits in the same layout and strides
 * (float, or bfloat16 as raw uint16_t bits: the float is bits << 16), and p
 * and q are what these sampling rules make of them, target and draft alike:
 *   rank tokens by logit, larger first, the lower index first on ties;
 *   temperature 0 is greedy: one-hot at the first-ranked token;
 *   otherwise keep the first top_k ranked tokens (top_k <= 0 or >= V: all),
 *   weigh them exp((l - l_max) / temperature), and then keep the shortest
 *   ranked prefix whose share of that weight reaches top_p (the token that
 *   crosses it is kept; top_p >= 1: all); p is the kept weights normalized,
 *   to float accuracy (cuda_fused's weights are kernels/sv_softmax.h's float
 *   ones, within a few ulps of the exact softmax).
 * distributions/logits.c is the harness's twin of these rules: the p and q
 * the statistics compare against. */
typedef enum sv_input {
    SV_INPUT_PROBS = 0,
    SV_INPUT_LOGITS_F32 = 1,
    SV_INPUT_LOGITS_BF16 = 2
} sv_input;

/* The bit of a logits mode in sv_sampler.inputs. */
#define SV_INPUT_BIT(mode) (1u << (unsigned)(mode))

/* Bytes of one row value in mode `input`: 2 for bfloat16, else 4. */
static inline size_t sv_input_value_bytes(int32_t input)
{
    return input == SV_INPUT_LOGITS_BF16 ? 2 : 4;
}

/* How a version 3 batch lays out its rows (sv_batch.layout).
 *
 * SV_LAYOUT_PADDED: FlashInfer's. Sequence b has target rows
 *   target + b*target_stride + k*V for k = 0..K and draft rows
 *   draft + b*draft_stride + k*V for k = 0..K-1, draft tokens at
 *   draft_tokens + b*K, outputs at out_tokens + b*(K+1). K is the batch's
 *   largest number of drafts; sequence b has num_drafts[b] = d_b <= K of
 *   them: its target rows 0..d_b (row d_b is its bonus row), draft rows and
 *   tokens 0..d_b-1. The rows past those hold NaN and the tokens -1, so a
 *   sampler that reads them is caught.
 * SV_LAYOUT_PACKED: vLLM's. No padding: with cu = cu_num_drafts
 *   (cu[0] = 0, cu[b+1] = cu[b] + d_b), sequence b's draft rows are
 *   draft + (cu[b] + k)*V, its draft tokens draft_tokens + cu[b] + k
 *   (k < d_b), its target rows target + (cu[b] + b + k)*V (k <= d_b: one
 *   bonus row per sequence), and its outputs out_tokens + cu[b] + b + k.
 *   The strides are 0 and unused.
 * In both, sequence b owns exactly its d_b + 1 output slots: y_1..y_{n+1},
 * then -1 up to slot d_b. In the padded layout the slots past d_b are not
 * its own: the harness checks that they are left as they were.
 * For logits input the logits follow the same layout (sv_input). */
typedef enum sv_layout {
    SV_LAYOUT_PADDED = 0,
    SV_LAYOUT_PACKED = 1
} sv_layout;

/* The bit of a layout in sv_sampler.layouts. */
#define SV_LAYOUT_BIT(layout) (1u << (unsigned)(layout))

/* Version 5: the verification rule a sampler implements (sv_sampler.rule).
 * Each takes the chain batch above; only what the sampler is given and the
 * acceptance law differ. Each must emit tokens distributed as the target.
 *
 * SV_RULE_CHAIN: the chain rule at the top of this file (Leviathan et al.).
 * SV_RULE_EXACT_MATCH: draft-probability-free verification (the engines
 *   that verify by exact match against a target sample). The sampler is
 *   given no draft rows (draft and draft_logits are NULL), only the draft
 *   tokens and the target rows. Per sequence, for k = 1, 2, ...: draw y_k
 *   from p_k with noise of its own; if y_k = x_k, accept it and go on, else
 *   emit y_k and stop (n = k - 1); after d_b accepted drafts, emit the bonus
 *   from p_{d_b + 1}. Draft k is accepted with probability p_k(x_k): alpha_k
 *   = sum_x p_k(x) q_k(x). The harness checks it as a chain sampler with a
 *   one-hot drafter, which it is in law.
 * SV_RULE_BLOCK: block verification (Sun et al., "Block Verification
 *   Accelerates Speculative Decoding", ICLR 2025). With d = d_b drafts,
 *   w_0 = 1 and, for i = 1..d,
 *     w_i = min(1, w_{i-1} p_i(x_i) / q_i(x_i)),
 *     r_i(x) = max(w_i p_{i+1}(x) - q_{i+1}(x), 0)   (i < d),
 *     h_i = sum r_i / (sum r_i + 1 - w_i) for i < d (1 where that is 0/0), h_d = w_d;
 *   n is the largest i with eta_i < h_i for independent uniforms eta_i (0 if
 *   none: every i is tested, there is no stop at the first failure); then
 *   the last token is drawn from norm(r_n) (r_0 = max(p_1 - q_1, 0), the
 *   chain's residual) if n < d, or from p_{d+1} if n = d. It accepts at
 *   least as many drafts as the chain rule in expectation. A one-hot drafter
 *   has q_i = e_{x_i}. What it guarantees is that the emitted tokens,
 *   continued by the target, are the target's; with prefix-free rows that
 *   gives the chain rule's facts (y_k ~ p_k where emitted, y_1 and y_2
 *   independent given n >= 1), but not its law of n (docs/statistics.md,
 *   "Block verification").
 * SV_RULE_TYPICAL: Medusa's typical acceptance (Cai et al. 2024), lossy on
 *   purpose: draft k is accepted iff p_k(x_k) > min(eps, delta exp(-H(p_k))),
 *   H the entropy, with the sampler's own eps and delta; the first rejected
 *   position emits a draw from p_k itself; the bonus comes from p_{d+1}. Its
 *   tokens are not distributed as p: `verify --measure` reports how far.
 * SV_RULE_TREE, SV_RULE_TREE_TARGET_ONLY (version 6): a tree of drafts,
 *   laid out in the chain batch as below ("Trees of drafts"). */
typedef enum sv_rule {
    SV_RULE_CHAIN = 0,
    SV_RULE_EXACT_MATCH = 1,
    SV_RULE_BLOCK = 2,
    SV_RULE_TYPICAL = 3,
    SV_RULE_TREE = 4,
    SV_RULE_TREE_TARGET_ONLY = 5
} sv_rule;
#define SV_RULE_COUNT 6

/* A rule's name in reports: "chain", "exact_match", "block", "typical",
 * "tree", "tree_target_only"; "unknown" past those. */
static inline const char *sv_rule_name(uint32_t rule)
{
    return rule == SV_RULE_CHAIN ? "chain"
           : rule == SV_RULE_EXACT_MATCH ? "exact_match"
           : rule == SV_RULE_BLOCK ? "block"
           : rule == SV_RULE_TYPICAL ? "typical"
           : rule == SV_RULE_TREE ? "tree"
           : rule == SV_RULE_TREE_TARGET_ONLY ? "tree_target_only" : "unknown";
}

/* 1 for the rules whose batches are trees. */
static inline int sv_rule_is_tree(uint32_t rule)
{
    return rule == SV_RULE_TREE || rule == SV_RULE_TREE_TARGET_ONLY;
}

/* ---- Trees of drafts (version 6) ------------------------------------------
 * EAGLE-2/3, SpecInfer and multi-draft engines draft a tree; SGLang and
 * SpecInfer lay it out node by node, and so does this contract, inside the
 * chain batch above: sequence b's d_b drafts are the tree's nodes 1..d_b;
 * node 0, the root, is the last token already emitted (not a draft).
 *   parents      [d_b], in the draft tokens' layout (sv_batch_drafts_offset):
 *                parents[k] is the parent of node k+1, in [0, k]: a node
 *                comes after its parent, and siblings come in the order
 *                they were drafted;
 *   draft_tokens node k+1's token at k;
 *   draft row k  the distribution node k+1 was drawn from (its parent's
 *                draft distribution: siblings share it);
 *   target row j (j = 0..d_b) the target's distribution after the path to
 *                node j (row 0 the root's); a leaf's row is its bonus row;
 *   siblings     SV_SIBLINGS_IID: siblings were drawn independently from
 *                their row (a token may repeat); SV_SIBLINGS_DISTINCT: without
 *                replacement, sibling i from the row with siblings 1..i-1's
 *                tokens removed and the rest renormalized.
 * Outputs: out_tokens as in the chain: y_1..y_{n+1} along the accepted
 * path, then -1 up to slot d_b; out_accepted[b] = n, the path's depth;
 * out_path, in out_tokens's layout: the accepted nodes' indices (1..d_b)
 * in path order, then -1 (slots n..d_b). Multi-draft (k independent
 * chains) is a tree with k branches at the root.
 *
 * SV_RULE_TREE: recursive rejection sampling (SpecInfer's multi-step
 *   speculative sampling; with distinct siblings, Jeon et al. 2024's
 *   recursive speculative decoding). From the root: at node u with children
 *   c_1..c_w (in order) drawn from row s, let r = p_u; for i = 1..w accept
 *   c_i with probability min(1, r(x_i) / s(x_i)) and go on from c_i; on a
 *   rejection r = norm(max(r - s, 0)) and, for distinct siblings only,
 *   s = s without x_i, renormalized. When every child was rejected (or u is
 *   a leaf), emit a draw from r and stop. Emits tokens distributed as the
 *   target along the path.
 * SV_RULE_TREE_TARGET_ONLY: SGLang's tree_speculative_sampling_target_only
 *   with exact thresholds; no draft rows (draft is NULL). At node u draw y
 *   from p_u by its CDF; if y is a child's token (the first such child),
 *   accept that child and go on from it, else emit y and stop. A CDF test
 *   must be strict: a child of zero target mass is never accepted.
 *
 * Worked example, one sequence, d_b = 5:
 *
 *            root(0)                parents      = {0, 0, 1, 1, 2}
 *           /       \               draft_tokens = {7, 3, 5, 9, 1}
 *      1: "7"       2: "3"          draft rows   = {q(.|r), q(.|r), q(.|r 7),
 *      /    \          |                           q(.|r 7), q(.|r 3)}
 *  3: "5"  4: "9"    5: "1"         target rows  = {p(.|r), p(.|r 7), p(.|r 3),
 *                                                  p(.|r 7 5), p(.|r 7 9), p(.|r 3 1)}
 *
 * If node 1 and then node 4 are accepted and the bonus y is drawn from
 * target row 4: out_accepted = 2, out_path = {1, 4, -1, -1, -1, -1},
 * out_tokens = {7, 9, y, -1, -1, -1}. If both children of the root are
 * rejected, y comes from r after two rejections: out_accepted = 0,
 * out_path = {-1, ...}, out_tokens = {y, -1, ...}. */
typedef enum sv_siblings {
    SV_SIBLINGS_IID = 0,
    SV_SIBLINGS_DISTINCT = 1
} sv_siblings;

/* ---- Samplers that draw their own drafts (version 8) -----------------------
 * An engine's drafter and verifier are often one piece of code, and bugs
 * live on the drafting side (drafts drawn from a bfloat16 softmax while the
 * ratio uses float32 q; a drafter that ignores the request's temperature;
 * argmax drafts verified as if sampled). A chain-rule sampler whose
 * `inputs` has SV_INPUT_OWN_DRAFTS (and which takes a layout) draws them
 * itself:
 *   draft_uniforms  in draft_tokens's layout (sv_batch_drafts_offset): u for
 *                   draft k of sequence b, in (0, 1): the harness's
 *                   (seed, index, k, SV_PURPOSE_DRAFT, lane 0) number under
 *                   the run's seed (not seeds[b]), the one its own drafts
 *                   would have used; a sampler may use them or its own noise;
 *   draft_tokens    -1 everywhere: there are no harness drafts;
 *   draft rows      q_k, as probabilities or as draft logits with the
 *                   sequence's sampling rule (sv_input): draw x_k from q_k;
 *   out_drafts      in draft_tokens's layout: the d_b drafts it drew, each
 *                   in [0, V) and of draft probability > 0.
 * Then it verifies those drafts by the chain rule as usual. The harness
 * judges what it emits: every position's fit to p, support, independence
 * and batch composition as for any sampler, accepted positions against
 * out_drafts, and the accepted lengths against the chain law of drafts
 * drawn from q (a drafter drawing from another law fails the fit or the
 * length test). It gives such a sampler mixed batches of cases with draft
 * rows only: Markov pairs (whose rows follow the drafts) and one-hot
 * drafters (no rows to draw from) are checks not taken. A batch whose
 * draft_uniforms is NULL (bench, sweep) carries the harness's drafts in
 * draft_tokens as for any sampler: verify those. */
#define SV_INPUT_OWN_DRAFTS (1u << 16)

/* The largest batch an instance will be given; init may size workspaces by it. */
typedef struct sv_limits {
    int32_t max_B, max_K, max_V;
    /* Version 4: where an init that fails may say why, as sv_batch.message
     * (one NUL-terminated line, at most message_len bytes); NULL: nowhere. */
    char *message;
    int32_t message_len;
} sv_limits;

/* One batch of B sequences. Row-major; strides are in elements (floats)
 * between consecutive sequences. Version 1 and 2 samplers may be given a
 * stride of 0 (one row set broadcast to all B sequences) where no check can
 * be affected by it; version 3 samplers always get real strides. */
typedef struct sv_batch {
    int32_t B, K, V;

    const float *target;         /* [B][K+1][V]; row k of sequence b at target + b*target_stride + k*V */
    int64_t target_stride;       /* usually (K+1)*V, or 0 */
    const float *draft;          /* [B][K][V], or NULL for a one-hot drafter */
    int64_t draft_stride;        /* usually K*V, or 0 */
    const int32_t *draft_tokens; /* [B][K], x_k in [0, V) */

    /* Randomness: every random number is addressed by (seed, first_index + b,
     * position, purpose, lane), never by a running state; see sv_philox.h. */
    uint64_t seed;
    uint64_t first_index;        /* global index of sequence 0 of this batch */

    int32_t *out_tokens;         /* [B][K+1]: y_1..y_{n+1}, then -1 */
    int32_t *out_accepted;       /* [B]: n */

    void *stream;                /* cudaStream_t for SV_MEM_CUDA samplers; NULL on the host */

    /* Version 2: logits input. Set only for a sampler whose `inputs` has the
     * mode's bit; otherwise input is SV_INPUT_PROBS and the rest is zero. */
    int32_t input;               /* an sv_input */
    const void *target_logits;   /* [B][K+1][V], strides as target's */
    const void *draft_logits;    /* [B][K][V], strides as draft's; NULL for a one-hot drafter */
    double temperature;          /* >= 0; 0 is greedy */
    int32_t top_k;               /* <= 0: no top-k */
    double top_p;                /* in (0, 1]; 1: no top-p */

    /* Version 3: every sequence its own number of drafts, layout, seed and
     * sampling rule. For an SV_MEM_CUDA sampler these arrays, like every
     * pointer of the batch, are device memory. Given only to a sampler whose `layouts` is not 0; it
     * must then use these and not the batch-wide fields above that they
     * replace (first_index, seed, temperature, top_k, top_p). K above is the
     * largest d_b of the batch. Randomness: sequence b's numbers are
     * addressed by (seeds[b], indices[b], position, purpose, lane). */
    int32_t layout;               /* an sv_layout the sampler takes */
    const int32_t *num_drafts;    /* [B]: d_b in [0, K] */
    const int32_t *cu_num_drafts; /* [B+1]: cu[0] = 0, cu[b+1] = cu[b] + d_b (both layouts) */
    const uint64_t *indices;      /* [B]: each sequence's global index */
    const uint64_t *seeds;        /* [B]: each sequence's seed */
    const uint8_t *seeded;        /* [B]: 1 for a seeded request: its tokens must depend only
                                   * on its own rows, drafts, seeds[b] and indices[b], never on
                                   * its neighbours, its place or the batch size */
    const double *temperatures;   /* [B], logits input: each sequence's temperature (0: greedy) */
    const int32_t *top_ks;        /* [B], logits input: each sequence's top-k (<= 0: none) */
    const double *top_ps;         /* [B], logits input: each sequence's top-p (1: none) */

    /* Version 4: where a sampler that returns a status other than OK may say
     * why, in one line ("ValueError: tokens have shape (4, 3), want (4, 6)"),
     * NUL-terminated, at most message_len bytes with the NUL. The harness
     * puts it in the report beside the status. Host memory, empty before the
     * call; NULL (message_len 0) where a harness gives none. */
    char *message;
    int32_t message_len;

    /* Version 6: a tree batch (a tree rule's sampler only; NULL and 0 for
     * the rest). See "Trees of drafts" above. */
    const int32_t *parents;       /* [d_b] per sequence, in draft_tokens's layout */
    int32_t siblings;             /* an sv_siblings */
    int32_t *out_path;            /* [d_b + 1] per sequence, in out_tokens's layout */

    /* Version 8: a sampler that draws its own drafts (SV_INPUT_OWN_DRAFTS);
     * NULL for the rest. */
    const double *draft_uniforms; /* [d_b] per sequence, in draft_tokens's layout */
    int32_t *out_drafts;          /* [d_b] per sequence, in draft_tokens's layout */
} sv_batch;

/* ---- version 3 accessors: sequence b's rows and slots in either layout ----
 * They read a batch without the version 3 arrays (NULL) as versions 1 and 2
 * meant it: d_b = K, seed and first_index + b, the batch-wide rule. */

static inline int32_t sv_batch_num_drafts(const sv_batch *bt, int32_t b)
{
    return bt->num_drafts ? bt->num_drafts[b] : bt->K;
}
static inline uint64_t sv_batch_seed(const sv_batch *bt, int32_t b)
{
    return bt->seeds ? bt->seeds[b] : bt->seed;
}
static inline uint64_t sv_batch_index(const sv_batch *bt, int32_t b)
{
    return bt->indices ? bt->indices[b] : bt->first_index + (uint64_t)b;
}
static inline double sv_batch_temperature(const sv_batch *bt, int32_t b)
{
    return bt->temperatures ? bt->temperatures[b] : bt->temperature;
}
static inline int32_t sv_batch_top_k(const sv_batch *bt, int32_t b)
{
    return bt->top_ks ? bt->top_ks[b] : bt->top_k;
}
static inline double sv_batch_top_p(const sv_batch *bt, int32_t b)
{
    return bt->top_ps ? bt->top_ps[b] : bt->top_p;
}

/* Sequence b's target rows [d_b + 1][V] and draft rows [d_b][V] as element
 * offsets into target (or target_logits) and draft (or draft_logits). */
static inline int64_t sv_batch_target_offset(const sv_batch *bt, int32_t b)
{
    return bt->layout == SV_LAYOUT_PACKED ? ((int64_t)bt->cu_num_drafts[b] + b) * bt->V
                                          : (int64_t)b * bt->target_stride;
}
static inline int64_t sv_batch_draft_offset(const sv_batch *bt, int32_t b)
{
    return bt->layout == SV_LAYOUT_PACKED ? (int64_t)bt->cu_num_drafts[b] * bt->V
                                          : (int64_t)b * bt->draft_stride;
}
/* Where sequence b's draft tokens [d_b] and output slots [d_b + 1] start. */
static inline int64_t sv_batch_drafts_offset(const sv_batch *bt, int32_t b)
{
    return bt->layout == SV_LAYOUT_PACKED ? (int64_t)bt->cu_num_drafts[b] : (int64_t)b * bt->K;
}
static inline int64_t sv_batch_out_offset(const sv_batch *bt, int32_t b)
{
    return bt->layout == SV_LAYOUT_PACKED ? (int64_t)bt->cu_num_drafts[b] + b
                                          : (int64_t)b * (bt->K + 1);
}

/* A sampler is a value of this type. The harness calls init once per thread
 * (host samplers) or once per device (CUDA samplers); verify may then be
 * called any number of times on that state, never concurrently. */
typedef struct sv_sampler {
    const char *name;        /* short, lower case, unique: selected by --sampler */
    const char *description; /* one line */
    sv_memspace memspace;
    int (*init)(void **state, const sv_limits *limits);   /* sv_sampler_status */
    int (*verify)(void *state, const sv_batch *batch);    /* sv_sampler_status */
    void (*destroy)(void *state);                         /* may be given NULL */
    uint32_t inputs; /* version 2: SV_INPUT_BIT of each logits mode it takes; 0: probs only;
                      * version 8: and SV_INPUT_OWN_DRAFTS if it draws its drafts */
    uint32_t layouts; /* version 3: SV_LAYOUT_BIT of each layout it takes; 0: a version 1 or
                       * 2 sampler's batches (one K, one rule, the fields up to top_p) */
    uint32_t rule;    /* version 5: the sv_rule it implements; 0: the chain rule */
    uint32_t lacks;   /* version 7: SV_LACKS_* bits of what it does not implement; 0: nothing */
} sv_sampler;

/* Version 7: what a sampler says it does not implement (sv_sampler.lacks).
 * The harness leaves out the cases and checks that need it and names them
 * in the report ("checks not taken"), rather than failing the sampler for
 * it; a run with nothing left is refused. Every other check runs as before:
 * a declaration never turns a FAIL into a pass.
 * SV_LACKS_TOP_K_P: with logits input, temperature only: the cases whose
 *   sampling rule has a top-k or a top-p are left out (with probabilities
 *   as input the cut is already in p, and nothing is left out).
 * SV_LACKS_SEEDS: no per-request seeds (its randomness is its own, as with
 *   one global generator): no sequence is seeded (the batches' `seeded` all
 *   0) and the probes that need seeds (batch composition, seed sensitivity)
 *   are not run.
 * SV_LACKS_BONUS: the code under test does not draw the bonus token (its
 *   glue does, as vLLM's caller does for rejection_sample): the report says
 *   that the engine's own bonus sampler is not tested. */
#define SV_LACKS_TOP_K_P (1u << 0)
#define SV_LACKS_SEEDS (1u << 1)
#define SV_LACKS_BONUS (1u << 2)
#define SV_LACKS_KNOWN (SV_LACKS_TOP_K_P | SV_LACKS_SEEDS | SV_LACKS_BONUS)

/* ---- plugins ---------------------------------------------------------------
 * A plugin exports one function with C linkage:
 *
 *   const sv_plugin *sv_plugin_get(void);
 *
 * returning a pointer to static data. The harness reads contract_version
 * first and refuses a version it does not know. Example:
 *
 *   static const sv_sampler mine[] = {{"mine", "my kernel", SV_MEM_HOST, ...}};
 *   static const sv_plugin plugin = {SV_CONTRACT_VERSION, 1, mine};
 *   SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void) { return &plugin; }
 */
typedef struct sv_plugin {
    uint32_t contract_version;  /* SV_CONTRACT_VERSION the plugin was built with */
    uint32_t n_samplers;
    const sv_sampler *samplers; /* n_samplers entries */
} sv_plugin;

#define SV_PLUGIN_SYMBOL "sv_plugin_get"
typedef const sv_plugin *(*sv_plugin_get_fn)(void);

/* Optional: a plugin whose SV_PLUGIN_SYMBOL returns NULL may export this, a
 * function returning one line that says why (it stands in the harness's
 * refusal as it is, so it should name the plugin). */
#define SV_PLUGIN_ERROR_SYMBOL "sv_plugin_error"
typedef const char *(*sv_plugin_error_fn)(void);

#if defined(__GNUC__)
#define SV_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define SV_PLUGIN_EXPORT
#endif

#ifdef __cplusplus
}
#endif

#endif /* SV_SAMPLER_H */
