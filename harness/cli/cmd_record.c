/* cmd_record.c: `specverify record ngram --corpus PATH`: recorded p/q steps
 * from real text. A word n-gram target and a smaller word n-gram drafter
 * (interpolated modified Kneser-Ney, distributions/ngram.c) are trained on
 * the corpus less a held-out share; at evenly spaced positions of the
 * held-out text the drafter draws K drafts and the target's and drafter's
 * log-probabilities along them are written in the format of sv_recorded.h. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "ngram.h"
#include "sv_cli.h"
#include "sv_philox.h"
#include "sv_recorded.h"
#include "sv_output.h"
#include "sv_run.h"
#include "sv_store.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: specverify record ngram --corpus PATH [options]\n"
            "\n"
            "Records p/q steps from real text. A word n-gram target and a smaller word\n"
            "n-gram drafter, both interpolated modified Kneser-Ney, are trained on the\n"
            "corpus less a held-out share. At N evenly spaced positions of the held-out\n"
            "text (the context is real text) the drafter draws K drafts x_1..x_K from its\n"
            "own distribution at T = 1 (Philox, from --seed), and each step stores the\n"
            "target's rows p_1..p_{K+1} and the drafter's q_1..q_K (row k given the\n"
            "context and x_1..x_{k-1}) as natural-log probabilities, so softmax(row / T)\n"
            "is the model at temperature T; the drafts; and the last C context tokens.\n"
            "The file follows distributions/sv_recorded.h; FILE.vocab beside it lists the\n"
            "word of each id, one a line.\n"
            "\n"
            "Tokens: lowercased words (letters, digits, bytes >= 0x80, apostrophes inside);\n"
            "each run of . , ! ? ; : is a token; a line holding only %% and the end of a\n"
            "file are the boundary </s>. Ids: 0 <unk>, 1 </s>, then the V-2 most frequent\n"
            "training words. The text is cut into blocks; an evenly spread share is held\n"
            "out and never trained on.\n"
            "\n"
            "  --corpus PATH       a text file, or a folder: its regular files in name order\n"
            "                      (links and files holding a NUL byte skipped)  [required]\n"
            "  --out FILE.h5       where to write (default ngram.h5), a regular file; written\n"
            "                      to a temporary beside it and renamed when whole\n"
            "  --source TEXT       the source attribute (default: PATH, its size, and the\n"
            "                      Debian package that owns it, from dpkg-query)\n"
            "  --V N               vocabulary size, 3 to %d (default 4096)\n"
            "  --K K               drafts per step, 1 to %d (default 4)\n"
            "  --steps N           steps to record (default 200)\n"
            "  --order N           the target's n-gram order, 1 to %d (default 4)\n"
            "  --draft-order N     the drafter's order, 1 to %d (default 2)\n"
            "  --draft-fraction F  share of the training blocks the drafter is trained on,\n"
            "                      spread evenly, in (0, 1] (default 1)\n"
            "  --discount D        one discount D in (0, 1) for every count and order of\n"
            "                      both models, instead of modified Kneser-Ney's D1, D2,\n"
            "                      D3+ per order from counts of counts\n"
            "  --held-out F        share of the blocks held out, in (0, 0.5] (default 0.1)\n"
            "  --block N           tokens per block (default 1000)\n"
            "  --context C         context tokens stored per step, 0 to 1024 (default 16;\n"
            "                      -1 before the held-out block starts)\n"
            "  --dtype TYPE        float16 (default), float32 or bfloat16\n"
            "  --seed S            seed of the drafts (default 1)\n"
            "\n"
            "Prints each model, the out-of-vocabulary rates and the mean acceptance rate\n"
            "alpha_k = sum_x min(p_k(x), q_k(x)) per position at T = 1.\n"
            "\n"
            "Exit status: 0 written, 2 bad usage or a corpus that is missing, unreadable\n"
            "or too small, 3 out of memory or cannot write.\n"
            "\n"
            "Examples:\n"
            "  specverify record ngram --corpus tests/cli/record_corpus.txt --V 64 \\\n"
            "      --steps 24 --block 40 --held-out 0.2 --out ngram.h5\n"
            "  specverify verify --recorded ngram.h5 --draws 20000\n",
            SV_RECORDED_MAX_V, SV_RECORDED_MAX_K, SV_NGRAM_MAX_ORDER, SV_NGRAM_MAX_ORDER);
}

typedef struct record_opts {
    const char *corpus, *out, *source;
    int32_t V, K, order, draft_order, context;
    uint64_t steps, block, seed;
    double draft_fraction, discount, held_out;
    sv_recorded_dtype_t dtype;
    const char *dtype_name;
} record_opts;

/* The Debian packages owning PATH (for a folder: those with files in it) and
 * their versions, from dpkg-query: "Debian package fortunes 1:1.99.1-7.3";
 * "" when none does or dpkg-query is not there. */
static void debian_packages(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    char abs[4096], line[1024];
    if (!realpath(path, abs))
        return;
    char *search[] = {"dpkg-query", "-S", abs, NULL};
    char *colon = sv_program_line(search, line, sizeof line) == 0 ? strstr(line, ": ") : NULL;
    if (!colon)
        return;
    *colon = '\0';
    size_t at = 0, n = 0;
    char *save = NULL;
    for (char *pkg = strtok_r(line, ", ", &save); pkg && at < len;
         pkg = strtok_r(NULL, ", ", &save), n++) {
        char version[128];
        char *show[] = {"dpkg-query", "-W", "-f=${Version}", pkg, NULL};
        if (sv_program_line(show, version, sizeof version) != 0)
            version[0] = '\0';
        at += (size_t)snprintf(out + at, len - at, "%s%.100s %.100s", n ? ", " : "", pkg, version);
    }
    if (n && at < len) { /* "Debian package(s) " in front */
        char list[160];
        snprintf(list, sizeof list, "%.159s", out);
        snprintf(out, len, "Debian package%s %.159s", n > 1 ? "s" : "", list);
    }
}

/* "specverify ARGS...", arguments with spaces quoted. */
static void command_line(int argc, char **argv, char *out, size_t len)
{
    size_t at = (size_t)snprintf(out, len, "specverify");
    for (int i = 0; i < argc && at < len; i++) {
        int quote = strpbrk(argv[i], " \t'\"") != NULL;
        at += (size_t)snprintf(out + at, len - at, quote ? " '%s'" : " %s", argv[i]);
    }
}

/* Candidate positions: in held-out blocks, at least `lead` tokens after the
 * block's start (the models' context is held-out text). Returns the count;
 * with `want` >= 0 also the position of candidate number `want` in *pos. */
static size_t candidates(const sv_corpus *c, size_t lead, size_t want, size_t *pos)
{
    size_t m = 0;
    for (size_t b = 0; b < c->n_blocks; b++) {
        if (!c->held[b])
            continue;
        size_t lo = b * c->block, hi = lo + c->block < c->n ? lo + c->block : c->n;
        if (hi - lo <= lead)
            continue;
        size_t here = hi - lo - lead;
        if (pos && want >= m && want < m + here)
            *pos = lo + lead + (want - m);
        m += here;
    }
    return m;
}

static int parse_int(const char *flag, const char *text, uint64_t min, uint64_t max,
                     int32_t *out)
{
    uint64_t u;
    int rc = sv_parse_u64(flag, text, min, max, &u);
    if (rc == SV_OK)
        *out = (int32_t)u;
    return rc;
}

static int parse(int argc, char **argv, record_opts *o)
{
    static const struct option options[] = {
        {"corpus", required_argument, 0, 'c'},  {"out", required_argument, 0, 'o'},
        {"source", required_argument, 0, 'S'},  {"V", required_argument, 0, 'V'},
        {"K", required_argument, 0, 'K'},       {"steps", required_argument, 0, 'n'},
        {"order", required_argument, 0, 'r'},   {"draft-order", required_argument, 0, 'd'},
        {"draft-fraction", required_argument, 0, 'f'},
        {"discount", required_argument, 0, 'D'}, {"held-out", required_argument, 0, 'H'},
        {"block", required_argument, 0, 'b'},   {"context", required_argument, 0, 'C'},
        {"dtype", required_argument, 0, 't'},   {"seed", required_argument, 0, 's'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    *o = (record_opts){.out = "ngram.h5", .V = 4096, .K = 4, .order = 4, .draft_order = 2,
                       .context = 16, .steps = 200, .block = 1000, .seed = 1,
                       .draft_fraction = 1.0, .held_out = 0.1, .dtype = SV_REC_FLOAT16,
                       .dtype_name = "float16"};
    const char *out = NULL; /* --out as given: once, and not empty */
    int opt, rc = SV_OK;
    opterr = 0;
    optind = 2; /* argv: record ngram ... */
    while (rc == SV_OK && (opt = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        switch (opt) {
        case 'c': o->corpus = optarg; break;
        case 'o': rc = sv_output_flag("record ngram", "--out", &out, optarg); break;
        case 'S': o->source = optarg; break;
        case 'V': rc = parse_int("--V", optarg, 3, SV_RECORDED_MAX_V, &o->V); break;
        case 'K': rc = parse_int("--K", optarg, 1, SV_RECORDED_MAX_K, &o->K); break;
        case 'n': rc = sv_parse_u64("--steps", optarg, 1, 10000000, &o->steps); break;
        case 'r': rc = parse_int("--order", optarg, 1, SV_NGRAM_MAX_ORDER, &o->order); break;
        case 'd': rc = parse_int("--draft-order", optarg, 1, SV_NGRAM_MAX_ORDER, &o->draft_order); break;
        case 'f':
            rc = sv_parse_double("--draft-fraction", optarg, 0.0, 1.0, 0, &o->draft_fraction);
            if (rc == SV_OK && o->draft_fraction == 0.0)
                rc = sv_fail(SV_EBAD, "--draft-fraction: 0 is outside (0, 1]");
            break;
        case 'D': rc = sv_parse_double("--discount", optarg, 0.0, 1.0, 1, &o->discount); break;
        case 'H':
            rc = sv_parse_double("--held-out", optarg, 0.0, 0.5, 0, &o->held_out);
            if (rc == SV_OK && o->held_out == 0.0)
                rc = sv_fail(SV_EBAD, "--held-out: 0 is outside (0, 0.5]");
            break;
        case 'b': rc = sv_parse_u64("--block", optarg, 1, 1000000000, &o->block); break;
        case 'C': rc = parse_int("--context", optarg, 0, 1024, &o->context); break;
        case 't':
            o->dtype_name = optarg;
            if (strcmp(optarg, "float16") == 0)
                o->dtype = SV_REC_FLOAT16;
            else if (strcmp(optarg, "float32") == 0)
                o->dtype = SV_REC_FLOAT32;
            else if (strcmp(optarg, "bfloat16") == 0)
                o->dtype = SV_REC_BFLOAT16;
            else
                rc = sv_fail(SV_EBAD, "--dtype: '%s' is not float16, float32 or bfloat16", optarg);
            break;
        case 's': rc = sv_parse_u64("--seed", optarg, 0, UINT64_MAX, &o->seed); break;
        case 'h': usage(stdout); return -1;
        default: return sv_option_error("record ngram", opt, options, argv);
        }
    }
    if (rc != SV_OK)
        return rc;
    if (optind < argc)
        return sv_fail(SV_EBAD, "record ngram: unexpected argument '%s'", argv[optind]);
    if (!o->corpus)
        return sv_fail(SV_EBAD, "record ngram: --corpus PATH is required (a text file or a "
                                "folder of text files)");
    if (out)
        o->out = out;
    return SV_OK;
}

/* Trains one model on the training stream (a share `fraction` of its blocks). */
static int train(const sv_corpus *c, int order, double fraction, double discount,
                 const char *what, sv_ngram **m)
{
    int32_t *tok;
    size_t n;
    char err[512];
    if (sv_corpus_train_stream(c, fraction, &tok, &n) != 0)
        return sv_fail(SV_EENV, "record ngram: out of memory");
    int rc = sv_ngram_train(tok, n, c->V, order, discount, m, err, sizeof err);
    free(tok);
    if (rc != 0)
        return sv_fail(SV_EBAD, "record ngram: the %s: %s", what, err);
    return SV_OK;
}

static int record(const record_opts *o, const sv_corpus *c, const sv_ngram *target,
                  const sv_ngram *draft, sv_recorded_writer *w, double *alpha)
{
    const int32_t V = c->V, K = o->K;
    const size_t lead = (size_t)(o->order > o->draft_order ? o->order : o->draft_order) - 1;
    size_t M = candidates(c, lead, 0, NULL);
    double *p = malloc((size_t)V * sizeof *p), *q = malloc((size_t)V * sizeof *q);
    float *tgt = malloc((size_t)(K + 1) * (size_t)V * sizeof *tgt);
    float *drf = malloc((size_t)K * (size_t)V * sizeof *drf);
    int32_t *buf = malloc((lead + (size_t)K + 1) * sizeof *buf);
    int32_t *ctx = malloc(((size_t)o->context + 1) * sizeof *ctx);
    int32_t drafts[SV_RECORDED_MAX_K];
    gsl_rng *rng = gsl_rng_alloc(sv_gsl_rng_philox);
    int rc = SV_OK;
    if (!p || !q || !tgt || !drf || !buf || !ctx || !rng)
        rc = sv_fail(SV_EENV, "record ngram: out of memory");
    sv_progress prog;
    sv_progress_start(&prog, 1, "record ngram", o->steps);
    sv_progress_unit(&prog, "steps");
    for (uint64_t i = 0; rc == SV_OK && i < o->steps; i++) {
        if (sv_interrupted()) {
            sv_progress_end(&prog);
            fprintf(stderr, "specverify: record ngram: %s after %llu of %llu steps: nothing "
                            "written\n", sv_signal_name(sv_interrupted()),
                    (unsigned long long)i, (unsigned long long)o->steps);
            rc = 128 + sv_interrupted();
            break;
        }
        size_t pos = 0;
        candidates(c, lead, (size_t)(((double)i + 0.5) * (double)M / (double)o->steps), &pos);
        size_t start = pos / c->block * c->block; /* the held-out block's first token */
        size_t have = pos - start < lead ? pos - start : lead;
        memcpy(buf, c->ids + pos - have, have * sizeof *buf);
        for (int32_t k = 0; k <= K; k++) {
            sv_ngram_probs(target, buf, have + (size_t)k, p);
            for (int32_t x = 0; x < V; x++)
                tgt[(size_t)k * V + x] = (float)log(p[x]);
            if (k == K)
                break;
            sv_ngram_probs(draft, buf, have + (size_t)k, q);
            double a = 0.0;
            for (int32_t x = 0; x < V; x++) {
                drf[(size_t)k * V + x] = (float)log(q[x]);
                a += p[x] < q[x] ? p[x] : q[x];
            }
            alpha[k] += a / (double)o->steps;
            gsl_ran_discrete_t *table = gsl_ran_discrete_preproc((size_t)V, q);
            if (!table) {
                rc = sv_fail(SV_EENV, "record ngram: out of memory");
                break;
            }
            sv_gsl_philox_seek(rng, o->seed, i, (uint32_t)k, SV_PURPOSE_DRAFT);
            drafts[k] = (int32_t)gsl_ran_discrete(rng, table);
            gsl_ran_discrete_free(table);
            buf[have + (size_t)k] = drafts[k];
        }
        for (int32_t j = 0; j < o->context; j++) { /* ctx[context-1] is the token before pos */
            size_t back = (size_t)(o->context - j);
            ctx[j] = (back <= pos - start) ? c->ids[pos - back] : -1;
        }
        char err[512];
        if (rc == SV_OK &&
            sv_recorded_writer_append(w, tgt, drf, drafts, o->context ? ctx : NULL, err,
                                      sizeof err) != 0)
            rc = sv_fail(SV_EENV, "record ngram: %s", err);
        sv_progress_update(&prog, i + 1);
    }
    sv_progress_end(&prog);
    gsl_rng_free(rng);
    free(p);
    free(q);
    free(tgt);
    free(drf);
    free(buf);
    free(ctx);
    return rc;
}

static int record_ngram(int argc, char **argv)
{
    record_opts o;
    int rc = parse(argc, argv, &o);
    if (rc != SV_OK)
        return rc < 0 ? SV_OK : rc; /* -1: --help */
    char err[SV_OUTPUT_PATH + 256], vocab[4096];
    sv_output_beside(o.out, ".vocab", vocab, sizeof vocab);
    /* the outputs are checked before the corpus is read and the models trained */
    if (sv_output_check(o.out, 1, err, sizeof err) != 0 ||
        sv_output_check(vocab, 0, err, sizeof err) != 0)
        return sv_fail(SV_EBAD, "record ngram: --out: %s", err);
    sv_corpus *c = NULL;
    if (sv_corpus_load(o.corpus, o.V, o.held_out, (size_t)o.block, &c, err, sizeof err) != 0)
        return sv_fail(SV_EBAD, "record ngram: --corpus: %s", err);
    const size_t lead = (size_t)(o.order > o.draft_order ? o.order : o.draft_order) - 1;
    size_t M = candidates(c, lead, 0, NULL);
    if (M < o.steps) {
        rc = sv_fail(SV_EBAD,
                     "record ngram: --corpus %s is too small for --steps %llu: its held-out "
                     "text has %zu positions with %zu tokens of context in their block",
                     o.corpus, (unsigned long long)o.steps, M, lead);
        sv_corpus_free(c);
        return rc;
    }
    sv_ngram *target = NULL, *draft = NULL;
    rc = train(c, o.order, 1.0, o.discount, "target", &target);
    if (rc == SV_OK)
        rc = train(c, o.draft_order, o.draft_fraction, o.discount, "drafter", &draft);

    sv_recorded_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.K = o.K;
    meta.V = o.V;
    const char *vocab_name = strrchr(vocab, '/') ? strrchr(vocab, '/') + 1 : vocab;
    if (rc == SV_OK) {
        if (o.source) {
            snprintf(meta.source, sizeof meta.source, "%s", o.source);
        } else {
            char pkg[200];
            debian_packages(o.corpus, pkg, sizeof pkg);
            snprintf(meta.source, sizeof meta.source, "%s (%zu file%s, %zu bytes%s%s)", o.corpus,
                     c->files, c->files == 1 ? "" : "s", c->bytes, pkg[0] ? ", " : "", pkg);
        }
        sv_ngram_describe(target, meta.target_model, sizeof meta.target_model);
        char d[256];
        sv_ngram_describe(draft, d, sizeof d);
        if (o.draft_fraction < 1.0)
            snprintf(meta.draft_model, sizeof meta.draft_model, "%.200s (%g of the training blocks)",
                     d, o.draft_fraction);
        else
            snprintf(meta.draft_model, sizeof meta.draft_model, "%s", d);
        snprintf(meta.tokenizer, sizeof meta.tokenizer,
                 "lowercased words (letters, digits, bytes >= 0x80, inner '), runs of .,!?;: as "
                 "tokens, %%-lines and file ends as </s>; ids 0 <unk>, 1 </s>, then by training "
                 "frequency; words in %.60s",
                 vocab_name);
        command_line(argc, argv, meta.produced_by, sizeof meta.produced_by);
    }

    sv_recorded_writer *w = NULL;
    if (rc == SV_OK && sv_recorded_writer_open(o.out, NULL, &meta, o.dtype, o.context, &w, err,
                                               sizeof err) != 0)
        rc = sv_fail(SV_EENV, "record ngram: --out: %s", err);
    double alpha[SV_RECORDED_MAX_K] = {0};
    if (rc == SV_OK) {
        sv_interrupt_install();
        rc = record(&o, c, target, draft, w, alpha);
        if (rc != SV_OK)
            sv_recorded_writer_abort(w);
        else if (sv_corpus_write_vocab(c, vocab, err, sizeof err) != 0) {
            sv_recorded_writer_abort(w);
            rc = sv_fail(SV_EENV, "record ngram: %s", err);
        } else if (sv_recorded_writer_commit(w, err, sizeof err) != 0)
            rc = sv_fail(SV_EENV, "record ngram: --out: %s", err);
    }
    if (rc == SV_OK) {
        struct stat st;
        double mb = stat(o.out, &st) == 0 ? (double)st.st_size / 1e6 : NAN;
        printf("record ngram: %llu steps, K=%d, V=%d, %s -> %s (%.2f MB), words in %s\n",
               (unsigned long long)o.steps, o.K, o.V, o.dtype_name, o.out, mb, vocab);
        printf("  corpus: %s: %zu tokens, %zu training (%.1f%% <unk>), %zu held out (%.1f%% "
               "<unk>), %zu distinct training words\n",
               o.corpus, c->n, c->n_train, 100.0 * (double)c->unk_train / (double)c->n_train,
               c->n_held, 100.0 * (double)c->unk_held / (double)c->n_held, c->types);
        printf("  target: %s\n  draft:  %s\n", meta.target_model, meta.draft_model);
        printf("  alpha at T=1 by position (mean over steps):");
        double mean = 0.0;
        for (int32_t k = 0; k < o.K; k++) {
            printf(" %.4f", alpha[k]);
            mean += alpha[k] / o.K;
        }
        printf("; mean %.4f\n", mean);
    }
    sv_ngram_free(target);
    sv_ngram_free(draft);
    sv_corpus_free(c);
    return rc;
}

static void usage_sources(FILE *out)
{
    fprintf(out, "usage: specverify record SOURCE [options]\n"
                 "\n"
                 "Records p/q steps (distributions/sv_recorded.h) for the recorded cases.\n"
                 "\n"
                 "sources:\n"
                 "  ngram   word n-gram target and drafter trained on real text\n"
                 "\n"
                 "'specverify record SOURCE --help' explains its options.\n"
                 "\n"
                 "Examples:\n"
                 "  specverify record ngram --corpus tests/cli/record_corpus.txt --V 64 \\\n"
                 "      --steps 24 --block 40 --held-out 0.2 --out ngram.h5\n"
                 "  specverify record ngram --help\n");
}

int sv_cmd_record(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage_sources(argc < 2 ? stderr : stdout);
        return argc < 2 ? sv_fail(SV_EBAD, "record: name a source (ngram)") : SV_OK;
    }
    if (strcmp(argv[1], "ngram") == 0)
        return record_ngram(argc, argv);
    return sv_fail(SV_EBAD, "record: unknown source '%s' (sources: ngram)", argv[1]);
}
