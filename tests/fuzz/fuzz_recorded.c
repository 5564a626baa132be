/* fuzz_recorded.c: libFuzzer target for the recording loader
 * (distributions/recorded_h5.c, recorded_open.c, recorded_read.c): the input
 * is written to a file and opened as a recording, then every step (at most
 * 64) is read. Besides what
 * the sanitizers catch, it asserts the contract: a refusal returns no
 * handle and says why; an accepted file has K and V within the format's
 * bounds, and what a successful read returns is what validation promises
 * (logits finite, drafts in [0, V) where q > 0).
 * The loader reads a file first in a child process, because libhdf5 1.10
 * itself crashes on some corrupt files (this target found a heap overflow in
 * its attribute decoding when the reader ran in-process; the inputs are in
 * regressions/fuzz_recorded/). Coverage inside that child does not reach the
 * fuzzer, so this target mostly tests the contract above on mutated files;
 * tests/test_recorded.c covers the checks themselves with crafted files. */
#include <math.h>
#include <signal.h>
#include <unistd.h>
#include "fuzz.h"
#include "sv_recorded.h"

static char path[64];

/* weak: the replay test is also built without sanitizers */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

/* In the loader's checking child: a crash there is the loader's to report,
 * not libFuzzer's, so its handlers and death callback are taken out. */
static void quiet_child(void)
{
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(NULL);
    signal(SIGSEGV, SIG_DFL), signal(SIGBUS, SIG_DFL), signal(SIGABRT, SIG_DFL);
    signal(SIGFPE, SIG_DFL), signal(SIGILL, SIG_DFL);
}

/* One file per process, rewritten for every input. */
static void write_input(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/fuzz_recorded.XXXXXX");
        int fd = mkstemp(path);
        if (fd < 0)
            fuzz_die("fuzz_recorded: cannot create a temporary file");
        close(fd);
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        fuzz_die("fuzz_recorded: cannot write %s", path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sv_recorded_child_hook = quiet_child;
    setenv("SV_RECORDED_CHECK_SECONDS", "5", 0); /* below libFuzzer's -timeout */
    write_input(data, size);
    char err[2048] = "";
    sv_recorded *r = (sv_recorded *)path; /* must be reset to NULL on failure */
    if (sv_recorded_open(path, &r, err, sizeof err) != 0) {
        if (r)
            fuzz_die("fuzz_recorded: refused but a handle was returned");
        if (!err[0])
            fuzz_die("fuzz_recorded: refused without a message");
        return 0;
    }
    const sv_recorded_meta *m = sv_recorded_info(r);
    const int32_t K = m->K, V = m->V;
    if (K < 1 || K > SV_RECORDED_MAX_K || V < 2 || V > SV_RECORDED_MAX_V ||
        sv_recorded_steps(r) < 1)
        fuzz_die("fuzz_recorded: accepted K=%d, V=%d, %lld steps", (int)K, (int)V,
                 (long long)sv_recorded_steps(r));
    if ((size_t)(2 * K + 1) * (size_t)V > ((size_t)1 << 22)) { /* sizes a fuzzer can afford */
        sv_recorded_close(r);
        return 0;
    }
    double *t = malloc((size_t)(K + 1) * V * sizeof *t), *d = malloc((size_t)K * V * sizeof *d);
    int32_t x[SV_RECORDED_MAX_K];
    if (!t || !d)
        fuzz_die("fuzz_recorded: out of memory");
    for (int64_t i = 0; i < sv_recorded_steps(r) && i < 64; i++) {
        err[0] = '\0';
        if (sv_recorded_read_step(r, i, t, d, x, err, sizeof err) != 0) {
            if (!err[0])
                fuzz_die("fuzz_recorded: step %lld refused without a message", (long long)i);
            continue;
        }
        for (size_t j = 0; !sv_recorded_is_probs(r) && j < (size_t)(K + 1) * V; j++)
            if (!isfinite(t[j]))
                fuzz_die("fuzz_recorded: step %lld returned logit %g", (long long)i, t[j]);
        for (int32_t k = 0; sv_recorded_has_drafts(r) && k < K; k++)
            if (x[k] < 0 || x[k] >= V || d[(size_t)k * V + x[k]] == -INFINITY)
                fuzz_die("fuzz_recorded: step %lld returned draft %d", (long long)i, (int)x[k]);
    }
    free(t);
    free(d);
    sv_recorded_close(r);
    return 0;
}
