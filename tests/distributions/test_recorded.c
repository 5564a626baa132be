/* test_recorded.c: the recorded-steps format: write -> read round trips in
 * every stored type, streaming a file many chunks long, every validation
 * error provoked by a crafted file, and recorded cases from specs. */
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "sv_cases.h"
#include "sv_recorded.h"

static char dir[256];
static char err[2048];

/* A deterministic logit for (step, row, token): varied, finite. */
static float logit_at(int64_t i, int32_t k, int32_t v)
{
    return (float)(sin(0.37 * (double)v + 1.3 * (double)k + 0.11 * (double)i) * 3.0 -
                   0.001 * (double)v);
}

static void fill_step(int64_t i, int32_t K, int32_t V, float *target, float *draft,
                      int32_t *drafts)
{
    for (int32_t k = 0; k <= K; k++)
        for (int32_t v = 0; v < V; v++)
            target[(size_t)k * V + v] = logit_at(i, k, v);
    for (int32_t k = 0; k < K; k++)
        for (int32_t v = 0; v < V; v++)
            draft[(size_t)k * V + v] = logit_at(i + 1000, k, v);
    for (int32_t k = 0; drafts && k < K; k++)
        drafts[k] = (int32_t)((i * 7 + k * 3) % V);
}

/* Writes N steps of fill_step; returns 0 on success. */
static int write_file(const char *path, const char *group, int64_t N, int32_t K, int32_t V,
                      sv_recorded_dtype_t dtype, int with_drafts)
{
    sv_recorded_meta m;
    memset(&m, 0, sizeof m);
    m.K = K, m.V = V;
    snprintf(m.source, sizeof m.source, "test_recorded");
    snprintf(m.target_model, sizeof m.target_model, "sine target");
    snprintf(m.produced_by, sizeof m.produced_by, "tests/test_recorded.c");
    sv_recorded_writer *w = NULL;
    if (sv_recorded_writer_open(path, group, &m, dtype, 3, &w, err, sizeof err) != 0) {
        fprintf(stderr, "  %s\n", err);
        return -1;
    }
    float *t = malloc((size_t)(K + 1) * V * sizeof *t), *d = malloc((size_t)K * V * sizeof *d);
    int32_t drafts[SV_RECORDED_MAX_K], context[3] = {5, -1, -1};
    int rc = 0;
    for (int64_t i = 0; rc == 0 && i < N; i++) {
        fill_step(i, K, V, t, d, drafts);
        rc = sv_recorded_writer_append(w, t, d, with_drafts ? drafts : NULL, context, err,
                                       sizeof err);
    }
    free(t);
    free(d);
    if (rc != 0) {
        sv_recorded_writer_abort(w);
        return -1;
    }
    return sv_recorded_writer_commit(w, err, sizeof err);
}

/* Reads every step back and compares with fill_step within rel. */
static double max_rel_error(const char *path_group, int64_t N, int32_t K, int32_t V)
{
    sv_recorded *r = NULL;
    if (sv_recorded_open(path_group, &r, err, sizeof err) != 0) {
        fprintf(stderr, "  %s\n", err);
        return INFINITY;
    }
    double worst = 0.0;
    CHECK(sv_recorded_steps(r) == N);
    CHECK(sv_recorded_info(r)->K == K && sv_recorded_info(r)->V == V);
    double *t = malloc((size_t)(K + 1) * V * sizeof *t), *d = malloc((size_t)K * V * sizeof *d);
    float *ft = malloc((size_t)(K + 1) * V * sizeof *ft), *fd = malloc((size_t)K * V * sizeof *fd);
    int32_t drafts[SV_RECORDED_MAX_K], want[SV_RECORDED_MAX_K];
    for (int64_t i = 0; i < N; i++) {
        if (sv_recorded_read_step(r, i, t, d, drafts, err, sizeof err) != 0) {
            fprintf(stderr, "  %s\n", err);
            worst = INFINITY;
            break;
        }
        fill_step(i, K, V, ft, fd, want);
        for (size_t j = 0; j < (size_t)(K + 1) * V; j++)
            worst = fmax(worst, fabs(t[j] - ft[j]) / fmax(1.0, fabs((double)ft[j])));
        for (size_t j = 0; j < (size_t)K * V; j++)
            worst = fmax(worst, fabs(d[j] - fd[j]) / fmax(1.0, fabs((double)fd[j])));
        if (sv_recorded_has_drafts(r))
            CHECK(memcmp(drafts, want, (size_t)K * sizeof *want) == 0);
    }
    free(t), free(d), free(ft), free(fd);
    sv_recorded_close(r);
    return worst;
}

/* 1 if folder holds a file whose name starts with prefix (PATH.tmp.XXXXXX). */
static int temporary_left(const char *folder, const char *prefix)
{
    DIR *d = opendir(folder);
    int found = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        found |= strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return found;
}

static void test_round_trip(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/f32.h5", dir);
    CHECK(write_file(path, NULL, 5, 3, 50, SV_REC_FLOAT32, 1) == 0);
    CHECK(max_rel_error(path, 5, 3, 50) == 0.0); /* float32 -> double is exact */
    CHECK(access(path, F_OK) == 0);
    CHECK(!temporary_left(dir, "f32.h5.tmp")); /* renamed into place */

    sv_recorded *r = NULL;
    CHECK(sv_recorded_open(path, &r, err, sizeof err) == 0);
    if (r) {
        CHECK(strcmp(sv_recorded_dtype(r), "float32") == 0);
        CHECK(strcmp(sv_recorded_info(r)->target_model, "sine target") == 0);
        CHECK(strcmp(sv_recorded_info(r)->produced_by, "tests/test_recorded.c") == 0);
        CHECK(!sv_recorded_is_probs(r) && sv_recorded_has_drafts(r));
        sv_recorded_close(r);
    }

    snprintf(path, sizeof path, "%s/f16.h5", dir);
    CHECK(write_file(path, "runs/a", 4, 2, 70, SV_REC_FLOAT16, 0) == 0);
    char pg[600];
    snprintf(pg, sizeof pg, "%s:runs/a", path);
    CHECK(max_rel_error(pg, 4, 2, 70) <= 1.0 / 2048); /* 11 significant bits */
    CHECK(sv_recorded_open(pg, &r, err, sizeof err) == 0);
    if (r) {
        CHECK(strcmp(sv_recorded_dtype(r), "float16") == 0 && !sv_recorded_has_drafts(r));
        sv_recorded_close(r);
    }

    snprintf(path, sizeof path, "%s/bf16.h5", dir);
    CHECK(write_file(path, NULL, 4, 2, 70, SV_REC_BFLOAT16, 1) == 0);
    double e = max_rel_error(path, 4, 2, 70);
    CHECK(e > 0.0 && e <= 1.0 / 256); /* 8 significant bits, rounded */
    CHECK(sv_recorded_open(path, &r, err, sizeof err) == 0);
    if (r) {
        CHECK(strcmp(sv_recorded_dtype(r), "bfloat16") == 0);
        sv_recorded_close(r);
    }
    feature("write -> read round trip: float32 exact, float16 and bfloat16 to their precision");
}

/* 400 steps of 3 x 4096 floats: 19 MB of rows against a 1 MB chunk cache,
 * one chunk per step; the reader holds one step at a time. */
static void test_streaming(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/stream.h5", dir);
    CHECK(write_file(path, NULL, 400, 2, 4096, SV_REC_FLOAT32, 1) == 0);
    CHECK(max_rel_error(path, 400, 2, 4096) == 0.0);
    feature("streaming a file of 400 chunks, step by step");
}

/* ---- crafted bad files ------------------------------------------------------ */

/* Opens a good file for editing. */
static hid_t edit(const char *path)
{
    return H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
}

static void replace_dataset(hid_t f, const char *name, hid_t type, int rank, const hsize_t *dims,
                            const void *data)
{
    H5Ldelete(f, name, H5P_DEFAULT);
    hid_t s = H5Screate_simple(rank, dims, NULL);
    hid_t d = H5Dcreate2(f, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (data)
        H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Dclose(d);
    H5Sclose(s);
}

static void set_int_attr(hid_t obj, const char *name, int64_t v)
{
    if (H5Aexists(obj, name) > 0)
        H5Adelete(obj, name);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT64, &v);
    H5Aclose(a);
    H5Sclose(s);
}

/* An attribute of n values of `type` (n = 1: a scalar); closes obj if it is
 * a dataset. */
static void set_attr(hid_t obj, const char *name, hid_t type, hsize_t n, const void *values)
{
    if (H5Aexists(obj, name) > 0)
        H5Adelete(obj, name);
    hid_t s = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    hid_t a = H5Acreate2(obj, name, type, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, type, values);
    H5Aclose(a);
    H5Sclose(s);
    if (H5Iget_type(obj) == H5I_DATASET)
        H5Dclose(obj);
}

static void set_string_attr(hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    set_attr(obj, name, t, 1, &value);
    H5Tclose(t);
}

/* Writes one float at [i][k][v] of a dataset. */
static void poke(hid_t f, const char *name, int64_t i, int32_t k, int32_t v, float value)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT), s = H5Dget_space(d);
    hsize_t start[3] = {(hsize_t)i, (hsize_t)k, (hsize_t)v}, one[3] = {1, 1, 1};
    H5Sselect_hyperslab(s, H5S_SELECT_SET, start, NULL, one, NULL);
    hid_t m = H5Screate_simple(3, one, NULL);
    H5Dwrite(d, H5T_NATIVE_FLOAT, m, s, H5P_DEFAULT, &value);
    H5Sclose(m), H5Sclose(s), H5Dclose(d);
}

/* A good 3-step file (K = 2, V = 8) to break. */
static const char *fresh(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s.h5", dir, name);
    if (write_file(path, NULL, 3, 2, 8, SV_REC_FLOAT32, 1) != 0)
        fprintf(stderr, "  could not write %s\n", path);
    return path;
}

/* Probabilities instead of logits: N = 2, K = 2, V = 4, uniform rows, drafts 1. */
static const char *probs_file(const char *name, float *target, float *draft, int32_t *drafts)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s.h5", dir, name);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    set_int_attr(f, "format_version", 1);
    hsize_t td[3] = {2, 3, 4}, dd[3] = {2, 2, 4}, xd[2] = {2, 2};
    replace_dataset(f, "target_probs", H5T_IEEE_F32LE, 3, td, target);
    replace_dataset(f, "draft_probs", H5T_IEEE_F32LE, 3, dd, draft);
    replace_dataset(f, "draft_tokens", H5T_STD_I32LE, 2, xd, drafts);
    H5Fclose(f);
    return path;
}

/* Opening (and reading every step of) path fails with a message holding
 * every one of the fragments. */
static void expect_error(const char *path, const char *frag1, const char *frag2)
{
    sv_recorded *r = NULL;
    int rc = sv_recorded_open(path, &r, err, sizeof err);
    if (rc == 0) {
        const sv_recorded_meta *m = sv_recorded_info(r);
        double *t = malloc((size_t)(m->K + 1) * m->V * sizeof *t);
        double *d = malloc((size_t)m->K * m->V * sizeof *d);
        int32_t x[SV_RECORDED_MAX_K];
        for (int64_t i = 0; rc == 0 && i < sv_recorded_steps(r); i++)
            rc = sv_recorded_read_step(r, i, t, d, x, err, sizeof err);
        free(t), free(d);
        sv_recorded_close(r);
    }
    CHECK(rc != 0);
    if (rc != 0 && (!strstr(err, frag1) || (frag2 && !strstr(err, frag2))))
        fprintf(stderr, "  message '%s' lacks '%s'%s%s\n", err, frag1, frag2 ? " or " : "",
                frag2 ? frag2 : ""), check_feature_failures++;
}

static void test_validation(void)
{
    const char *p;
    hid_t f;
    char path[512];

    snprintf(path, sizeof path, "%s/absent.h5", dir);
    expect_error(path, "absent.h5: cannot read the recording", "No such file");
    snprintf(path, sizeof path, "%s/text.h5", dir);
    FILE *t = fopen(path, "w");
    fputs("target_logits = 1 2 3\n", t);
    fclose(t);
    expect_error(path, "text.h5: not an HDF5 file", NULL);

    /* truncated: the first 4 KB of a file whose data lies beyond */
    p = fresh("whole");
    snprintf(path, sizeof path, "%s/truncated.h5", dir);
    FILE *in = fopen(p, "rb"), *out = fopen(path, "wb");
    char buf[4096];
    size_t got = fread(buf, 1, sizeof buf, in);
    fwrite(buf, 1, got, out);
    fclose(in), fclose(out);
    expect_error(path, "truncated.h5", "truncated or corrupt");

    snprintf(path, sizeof path, "%s:nogroup", fresh("group"));
    expect_error(path, "no group 'nogroup'", NULL);

    p = fresh("missing");
    f = edit(p), H5Ldelete(f, "draft_logits", H5P_DEFAULT), H5Fclose(f);
    expect_error(p, "missing dataset draft_logits or draft_probs", "missing.h5");

    p = fresh("rank");
    hsize_t d2[2] = {3, 24};
    f = edit(p), replace_dataset(f, "target_logits", H5T_IEEE_F32LE, 2, d2, NULL), H5Fclose(f);
    expect_error(p, "/target_logits: rank 2, expected 3", NULL);

    p = fresh("kdiff");
    hsize_t dk[3] = {3, 3, 8};
    f = edit(p), replace_dataset(f, "draft_logits", H5T_IEEE_F32LE, 3, dk, NULL), H5Fclose(f);
    expect_error(p, "/draft_logits: dims [3][3][8]", "expected [3][2][8]");

    p = fresh("vdiff");
    hsize_t dv[3] = {3, 2, 9};
    f = edit(p), replace_dataset(f, "draft_logits", H5T_IEEE_F32LE, 3, dv, NULL), H5Fclose(f);
    expect_error(p, "/draft_logits: dims [3][2][9]", "same V");

    p = fresh("vattr");
    f = edit(p), set_int_attr(f, "vocab_size", 9), H5Fclose(f);
    expect_error(p, "vocab_size = 9 disagrees with the datasets' V = 8", NULL);

    p = fresh("kattr");
    f = edit(p), set_int_attr(f, "K", 3), H5Fclose(f);
    expect_error(p, "attribute K = 3 disagrees", NULL);

    p = fresh("version");
    f = edit(p), set_int_attr(f, "format_version", 2), H5Fclose(f);
    expect_error(p, "format_version 2", NULL);

    p = fresh("noversion");
    f = edit(p), H5Adelete(f, "format_version"), H5Fclose(f);
    expect_error(p, "missing the attribute format_version", NULL);

    /* attributes of the wrong shape or class: an array was read into one
     * integer (past its end), a string vocab_size was reported as "= 0" */
    p = fresh("arrayversion");
    f = edit(p), set_attr(f, "format_version", H5T_NATIVE_INT64, 2, (int64_t[]){1, 1}),
    H5Fclose(f);
    expect_error(p, "attribute format_version is an array of 2 integers; expected one integer",
                 NULL);
    p = fresh("strvocab");
    f = edit(p), set_string_attr(f, "vocab_size", "8"), H5Fclose(f);
    expect_error(p, "attribute vocab_size is a string; expected one integer, 8 as in the "
                    "datasets", NULL);
    p = fresh("floatk");
    f = edit(p), set_attr(f, "K", H5T_NATIVE_DOUBLE, 1, (double[]){2.0}), H5Fclose(f);
    expect_error(p, "attribute K is a float; expected one integer", NULL);
    p = fresh("arraysource");
    hid_t vstr = H5Tcopy(H5T_C_S1);
    H5Tset_size(vstr, H5T_VARIABLE);
    f = edit(p), set_attr(f, "source", vstr, 2, (const char *[]){"a", "b"}), H5Fclose(f);
    H5Tclose(vstr);
    expect_error(p, "attribute source is an array of 2 strings; expected one string", NULL);
    p = fresh("intencoding");
    f = edit(p), set_attr(H5Dopen2(f, "target_logits", H5P_DEFAULT), "encoding",
                          H5T_NATIVE_INT64, 1, (int64_t[]){16});
    H5Fclose(f);
    expect_error(p, "/target_logits: attribute encoding is an integer; expected one string",
                 NULL);

    p = fresh("inttype");
    hsize_t dt[3] = {3, 3, 8};
    f = edit(p), replace_dataset(f, "target_logits", H5T_STD_I32LE, 3, dt, NULL), H5Fclose(f);
    expect_error(p, "/target_logits: values of 4-byte integers", "bfloat16");

    /* a type that is no number at all: named, not "4-byte a non-number type" */
    p = fresh("strtype");
    hid_t str4 = H5Tcopy(H5T_C_S1);
    H5Tset_size(str4, 4);
    f = edit(p), replace_dataset(f, "target_logits", str4, 3, dt, NULL), H5Fclose(f);
    H5Tclose(str4);
    expect_error(p, "/target_logits: values of 4-byte strings; expected float16", NULL);

    p = fresh("nan");
    f = edit(p), poke(f, "target_logits", 1, 2, 3, NAN), H5Fclose(f);
    expect_error(p, "/target_logits[1][2][3] = nan", "logits must be numbers or -inf");

    p = fresh("inf");
    f = edit(p), poke(f, "draft_logits", 2, 0, 7, INFINITY), H5Fclose(f);
    expect_error(p, "/draft_logits[2][0][7] = inf", "logits must be numbers or -inf");

    /* a row of nothing but -inf: no token has a probability */
    p = fresh("masked_row");
    f = edit(p);
    for (int32_t v = 0; v < 8; v++)
        poke(f, "target_logits", 1, 2, v, -INFINITY);
    H5Fclose(f);
    expect_error(p, "/target_logits[1][2]: every logit is -inf", "no token a probability");

    /* chunked [3][3][8], only step 0 written: the rest would read as zeros */
    p = fresh("unfinished");
    f = edit(p);
    H5Ldelete(f, "target_logits", H5P_DEFAULT);
    hsize_t chunk[3] = {1, 3, 8}, one[3] = {1, 3, 8}, zero[3] = {0, 0, 0};
    hid_t plist = H5Pcreate(H5P_DATASET_CREATE), space = H5Screate_simple(3, dt, NULL);
    H5Pset_chunk(plist, 3, chunk);
    hid_t set = H5Dcreate2(f, "target_logits", H5T_IEEE_F32LE, space, H5P_DEFAULT, plist,
                           H5P_DEFAULT);
    float row0[24] = {0};
    hid_t mem = H5Screate_simple(3, one, NULL);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, zero, NULL, one, NULL);
    H5Dwrite(set, H5T_NATIVE_FLOAT, mem, space, H5P_DEFAULT, row0);
    H5Sclose(mem), H5Sclose(space), H5Pclose(plist), H5Dclose(set), H5Fclose(f);
    expect_error(p, "/target_logits: 1 of its 3 chunks were written", "unfinished");

    p = fresh("drafthigh");
    int32_t x[6] = {0, 1, 2, 8, 4, 5};
    hsize_t dx[2] = {3, 2};
    f = edit(p), replace_dataset(f, "draft_tokens", H5T_STD_I32LE, 2, dx, x), H5Fclose(f);
    expect_error(p, "/draft_tokens[1][1] = 8", "outside [0, V)");

    p = fresh("ctx");
    hsize_t dc[2] = {2, 4};
    f = edit(p), replace_dataset(f, "context_ids", H5T_STD_I32LE, 2, dc, NULL), H5Fclose(f);
    expect_error(p, "/context_ids: steps differ", NULL);

    float tp[24], dp[16];
    int32_t xs[4] = {1, 1, 1, 1};
    for (int i = 0; i < 24; i++)
        tp[i] = 0.25f;
    for (int i = 0; i < 16; i++)
        dp[i] = 0.25f;
    p = probs_file("probs_ok", tp, dp, xs);
    sv_recorded *r = NULL;
    CHECK(sv_recorded_open(p, &r, err, sizeof err) == 0);
    if (r) {
        double lt[12], ld[8];
        int32_t got_x[2];
        CHECK(sv_recorded_is_probs(r));
        CHECK(sv_recorded_read_step(r, 1, lt, ld, got_x, err, sizeof err) == 0);
        CHECK_NEAR(lt[5], log(0.25), 1e-12); /* probabilities come back as log p */
        sv_recorded_close(r);
    }

    tp[13] = -0.25f, tp[14] = 0.75f; /* step 1, row 0: sums to 1, one negative */
    expect_error(probs_file("probs_neg", tp, dp, xs), "/target_probs[1][0][1] = -0.25",
                 "must be finite and >= 0");
    tp[13] = 0.25f, tp[14] = 0.25f;
    dp[6] = 0.26f; /* step 0, row 1 sums to 1.01 */
    expect_error(probs_file("probs_sum", tp, dp, xs), "/draft_probs[0][1]: row sums to 1.01",
                 "expected 1 +- 0.001");
    dp[6] = 0.25f;
    dp[1] = 0.0f, dp[2] = 0.5f; /* q_1(1) = 0 at step 0, and the draft is token 1 */
    expect_error(probs_file("probs_q0", tp, dp, xs), "/draft_tokens[0][0] = 1",
                 "drafter gives probability 0");

    /* logits next to probs */
    p = fresh("both");
    f = edit(p), replace_dataset(f, "target_probs", H5T_IEEE_F32LE, 3, dt, NULL), H5Fclose(f);
    expect_error(p, "both datasets target_logits and target_probs; a recording holds exactly "
                    "one of them", NULL);
    feature("every validation error names the file, dataset, index and value");
}

/* ---- recorded cases ------------------------------------------------------- */

static void test_cases(void)
{
    char path[512], spec[1024];
    snprintf(path, sizeof path, "%s/cases.h5", dir);
    CHECK(write_file(path, NULL, 3, 3, 40, SV_REC_FLOAT32, 1) == 0);

    sv_case *c = NULL;
    snprintf(spec, sizeof spec, "recorded:file=%s,step=2", path);
    CHECK(sv_case_from_spec(spec, &c, err, sizeof err) == 0);
    if (c) {
        CHECK(c->K == 3 && c->V == 40 && !c->chain && !c->draft_sampled);
        /* T = 1: the softmax of the stored logits */
        double z = 0.0;
        for (int v = 0; v < 40; v++)
            z += exp(logit_at(2, 1, v));
        CHECK_NEAR(c->target[40 + 7], exp(logit_at(2, 1, 7)) / z, 1e-6);
        z = 0.0;
        for (int v = 0; v < 40; v++)
            z += exp(logit_at(1002, 2, v));
        CHECK_NEAR(c->draft[80 + 11], exp(logit_at(1002, 2, 11)) / z, 1e-6);
        char want[1024];
        snprintf(want, sizeof want, "recorded:file=%s,step=2,K=3", path);
        CHECK(strcmp(c->name, want) == 0);
        sv_case_free(c);
    }

    /* K shortened, greedy: one-hot rows at the argmax */
    snprintf(spec, sizeof spec, "recorded:file=%s,step=0,K=1,T=0", path);
    CHECK(sv_case_from_spec(spec, &c, err, sizeof err) == 0);
    if (c) {
        int best = 0;
        for (int v = 1; v < 40; v++)
            if (logit_at(0, 1, v) > logit_at(0, 1, best))
                best = v;
        CHECK(c->K == 1 && c->target[40 + best] == 1.0f);
        sv_case_free(c);
    }

    /* mismatch: drafts from q at 2, the sampler told q at T = 1 */
    snprintf(spec, sizeof spec, "recorded:file=%s,step=1,mismatch_T=2", path);
    CHECK(sv_case_from_spec(spec, &c, err, sizeof err) == 0);
    if (c) {
        CHECK(c->draft_sampled && c->draft_sampled[5] != c->draft[5]);
        sv_case_free(c);
    }

    /* -inf: a token masked out, as serving stacks mask the vocabulary: p = 0
     * (the reader refused it), through the pipeline and logits input alike */
    char masked[512];
    snprintf(masked, sizeof masked, "%s/masked.h5", dir);
    CHECK(write_file(masked, NULL, 3, 3, 40, SV_REC_FLOAT32, 1) == 0);
    hid_t f = edit(masked);
    poke(f, "target_logits", 2, 1, 7, -INFINITY);
    poke(f, "draft_logits", 2, 2, 11, -INFINITY);
    H5Fclose(f);
    snprintf(spec, sizeof spec, "recorded:file=%s,step=2", masked);
    CHECK(sv_case_from_spec(spec, &c, err, sizeof err) == 0);
    if (c) {
        CHECK(c->target[40 + 7] == 0.0f && c->draft[80 + 11] == 0.0f);
        CHECK(c->target[40 + 8] > 0.0f && c->draft[80 + 12] > 0.0f);
        double z = 0.0;
        for (int v = 0; v < 40; v++)
            z += v == 7 ? 0.0 : exp(logit_at(2, 1, v));
        CHECK_NEAR(c->target[40 + 8], exp(logit_at(2, 1, 8)) / z, 1e-6);
        CHECK(sv_case_use_logits(c, 2 /* bfloat16 */, err, sizeof err) == 0);
        CHECK(c->target[40 + 7] == 0.0f);
        sv_case_free(c);
    } else {
        fprintf(stderr, "  %s\n", err);
    }
    feature("recorded -inf logits are masked tokens (p = 0), in every input mode");

    int64_t steps = 0;
    int has = 1;
    snprintf(spec, sizeof spec, "recorded:file=%s", path);
    CHECK(sv_recorded_spec_steps(spec, &steps, &has, err, sizeof err) == 0 && steps == 3 &&
          !has);
    CHECK(sv_case_from_spec(spec, &c, err, sizeof err) != 0 && strstr(err, "step=S"));
    snprintf(spec, sizeof spec, "recorded:file=%s,step=3", path);
    CHECK(sv_case_from_spec(spec, &c, err, sizeof err) != 0 && strstr(err, "has 3 steps"));
    snprintf(spec, sizeof spec, "recorded:file=%s,step=0,K=4", path);
    CHECK(sv_case_from_spec(spec, &c, err, sizeof err) != 0 && strstr(err, "K = 3 drafts"));
    snprintf(spec, sizeof spec, "recorded:file=%s,step=0,temp=1", path);
    CHECK(sv_case_from_spec(spec, &c, err, sizeof err) != 0 &&
          strstr(err, "unknown parameter 'temp'"));
    CHECK(sv_recorded_spec("a,b.h5", spec, sizeof spec, err, sizeof err) != 0);
    CHECK(sv_recorded_spec("x.h5:grp", spec, sizeof spec, err, sizeof err) == 0 &&
          strcmp(spec, "recorded:file=x.h5,group=grp") == 0);
    feature("recorded cases: the pipeline's rows, K, T = 0, mismatch, errors");
}

int main(int argc, char **argv)
{
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : "recorded_out");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0)
        return 2;
    test_round_trip();
    test_streaming();
    test_validation();
    test_cases();
    return check_exit();
}
