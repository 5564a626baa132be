/* sv_sampler.h: the specverify sampler contract (public, installed).
 *
 * A sampler verifies one batch of speculative-decoding steps. Everything a
 * sampler author needs is in this file; it depends only on <stdint.h> and
 * <stddef.h>. A plugin is a shared library exporting SV_PLUGIN_SYMBOL.
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
 */
#ifndef SV_SAMPLER_H
#define SV_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a struct below changes layout or meaning. */
#define SV_CONTRACT_VERSION 1u

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

/* The largest batch an instance will be given; init may size workspaces by it. */
typedef struct sv_limits {
    int32_t max_B, max_K, max_V;
} sv_limits;

/* One batch of B sequences. Row-major; strides are in elements (floats)
 * between consecutive sequences; a stride of 0 broadcasts one row set. */
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
} sv_batch;

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
} sv_sampler;

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

#if defined(__GNUC__)
#define SV_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define SV_PLUGIN_EXPORT
#endif

#ifdef __cplusplus
}
#endif

#endif /* SV_SAMPLER_H */
