/* sv_bench.h: `specverify bench`: kernel latency of CUDA samplers over a product
 * of axes (sampler x B x K x V x acceptance rate), timed with CUDA events. */
#ifndef SV_BENCH_H
#define SV_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include "sv_sampler.h"

/* ---- inputs (bench_inputs.c, host only) -------------------------------------- */

/* One benchmark input on the host: every sequence has its own rows (stride
 * (K+1)V and KV, as in a real batch); draft k of every sequence has
 * p_k(x_k) / q_k(x_k) = accept, so each draft is accepted with that
 * probability and the acceptance rate decides which rows are read. */
typedef struct sv_bench_input {
    int32_t B, K, V;
    double accept;
    float *target;         /* [B][K+1][V]; NULL in a logits mode */
    float *draft;          /* [B][K][V]; NULL in a logits mode */
    int32_t *draft_tokens; /* [B][K] */
    /* a logits mode (sv_bench_input_logits): the rows as logits instead */
    int input;             /* an sv_input; SV_INPUT_PROBS: target and draft above */
    void *target_logits;   /* [B][K+1][V] floats or bf16 bits */
    void *draft_logits;    /* [B][K][V] */
    double T, top_p;       /* the sampling rules the sampler applies */
    int32_t top_k;
} sv_bench_input;

/* Builds the rows from a fixed seed. Returns SV_OK or an error (memory). */
int sv_bench_input_make(sv_bench_input *in, int32_t B, int32_t K, int32_t V, double accept);
void sv_bench_input_free(sv_bench_input *in);

/* Turns an input's probability rows into logits of mode `input`
 * (SV_INPUT_LOGITS_F32 or _BF16): l = log p (bf16: rounded to nearest even),
 * so that at T = 1 with no cuts p comes back (but for rounding) and the
 * acceptance rate stays the asked one; the float rows are freed. */
int sv_bench_input_logits(sv_bench_input *in, int input, double T, int32_t top_k, double top_p);

/* Bytes of one logit of mode `input` (4 for probs' floats too). */
int sv_bench_value_bytes(int input);

/* Inputs from a recording: sequence b holds step b mod steps of the
 * recorded case spec (pipeline applied, first K drafts), its drafts drawn
 * from its q with a fixed seed; accept is NaN: the recording's own. In a
 * logits mode (input) the rows are the step's logits rounded to that type
 * (sv_case_use_logits), with the spec's T, top-k and top-p for the sampler
 * to apply, and q, which the drafts come from, is what those imply. */
int sv_bench_input_recorded(sv_bench_input *in, int32_t B, int32_t K, const char *spec,
                            int64_t steps, int input);

/* What a step must move at the least (the byte floor, docs/bench.md) given the
 * accepted counts n[b]: the gathered p and q scalars of the drafts tested,
 * the two rows at the first rejection (or the bonus row), the draft tokens
 * in and the tokens and counts out. */
double sv_bench_floor_bytes(int32_t B, int32_t K, int32_t V, const int32_t *accepted);

/* The byte floor of a logits step (docs/bench.md: the softmax needs every row
 * once): B (2K+1) rows of V logits of value_bytes each, the draft tokens in
 * and the tokens and counts out. */
double sv_bench_floor_bytes_logits(int32_t B, int32_t K, int32_t V, int value_bytes);

/* Drafts accepted over drafts tested: the acceptance rate a run achieved. */
double sv_bench_accept_rate(int32_t B, int32_t K, const int32_t *accepted);

/* How many copies of the inputs a cold point rotates through: enough that
 * between two uses of one copy the launches on the others read at least
 * twice the L2 (read_bytes each: the byte floor, as they read no less), so
 * none of its rows is still cached; at least 2, at most SV_BENCH_MAX_COPIES. */
#define SV_BENCH_MAX_COPIES 4096
int64_t sv_bench_cold_copies(double read_bytes, double l2_bytes);

/* ---- timing (bench_device.c, built with CUDA) --------------------------------- */

typedef struct sv_bench_device {
    char name[256];
    int sm_count, clock_mhz, memory_clock_mhz, bus_width_bits;
    double memory_bytes, l2_bytes;
    double peak_gbps;         /* 2 x memory clock x bus width: the data sheet's */
    double copy_gbps;         /* measured: device-to-device copy, read + write */
    int driver_version, runtime_version;
} sv_bench_device;

typedef struct sv_bench_options {
    int cold;                 /* rotate through copies of the inputs larger than L2 */
    int graph;                /* time a CUDA graph of GRAPH_STEPS steps, per step */
    int no_hold;              /* no hold kernel: launch latency included (profilers) */
    double time_limit;        /* seconds per point at most */
    double noise_target;      /* stop when the median's relative error is below this */
} sv_bench_options;

typedef struct sv_bench_point {
    char sampler[64];             /* the sampler's name */
    int32_t B, K, V;
    double accept_target, accept_measured;
    double median_us, min_us, q25_us, q75_us, noise;
    int64_t reps;
    double floor_bytes;
    int graph, cold, through_verify; /* through_verify: timed with its wait (plugins) */
    int64_t cold_copies;             /* copies of the inputs rotated through (1: hot) */
    int input;                       /* an sv_input: what the rows were */
} sv_bench_point;

/* Fills d, measuring the copy bandwidth; SV_EENV with a message when no
 * device can be used. */
int sv_bench_device_query(sv_bench_device *d);

/* ---- plots (bench_plot.c) --------------------------------------------------- */

/* Writes DIR/STEM-latency_B.dat, _V.dat and STEM-plot.gp, and runs gnuplot
 * for STEM-latency_vs_B and _vs_V (PNG, SVG). As sv_gnuplot_run: SV_OK also
 * when gnuplot is missing (*note says so and how to install it), SV_EENV
 * with *note when gnuplot failed; SV_EBAD when a file cannot be written. */
int sv_bench_plot(const char *dir, const char *stem, const sv_bench_device *d,
                  const sv_bench_point *pts, size_t n, char *note, size_t note_len);
/* The same beside FILE.h5 (or in dir_override), stem FILE; says on stderr
 * what it wrote or why the plots are missing. rc_so_far: the command's
 * status before the plots, kept with its message (sv_gnuplot_status). */
int sv_bench_plot_beside(int rc_so_far, const char *h5_path, const sv_bench_device *d,
                         const sv_bench_point *pts, size_t n, const char *dir_override);

/* ---- files (bench_h5.c): the HDF5 schema of docs/formats.md ------------------- */

/* Writes the points and the device to path, atomically. The points' input
 * mode is the dataset "input" (names as sv_bench_input_name); a file
 * without it (written before the logits modes) reads back as probs. */
int sv_bench_write_h5(const char *path, const sv_bench_device *d, const sv_bench_point *pts,
                      size_t n, const char *command);
/* Reads a file sv_bench_write_h5 wrote: *pts is malloc'ed. Errors name the
 * file and what is missing or wrong (exit status 2). */
int sv_bench_read_h5(const char *path, sv_bench_device *d, sv_bench_point **pts, size_t *n);

/* Times one point; SV_OK, SV_EENV (device) or SV_EVERIFY (the sampler
 * returned an error), with a message. */
int sv_bench_run_point(const sv_bench_options *opt, const sv_sampler *s, const sv_bench_input *in,
                       sv_bench_point *out);

#endif
