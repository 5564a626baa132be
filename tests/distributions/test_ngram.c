/* test_ngram.c: the Kneser-Ney models and the corpus reader: rows sum to 1,
 * counts and discounts checked by hand on tiny texts, back-off on unseen
 * histories, determinism, tokens, vocabulary and the held-out split. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "ngram.h"
#include "sv_recorded.h"

static double row_sum(const double *p, int32_t V)
{
    double s = 0.0;
    for (int32_t i = 0; i < V; i++)
        s += p[i];
    return s;
}

/* a b c a b d a b c over ids a=1 b=2 c=3 d=4, V = 5 (id 0 never seen) */
static const int32_t tiny[] = {1, 2, 3, 1, 2, 4, 1, 2, 3};
#define TINY_N (sizeof tiny / sizeof tiny[0])

static void test_counts(void)
{
    char err[256];
    sv_ngram *m;
    CHECK(sv_ngram_train(tiny, TINY_N, 5, 3, 0.5, &m, err, sizeof err) == 0);
    /* the highest order counts trigrams */
    CHECK_NEAR(sv_ngram_count(m, (int32_t[]){1, 2, 3}, 3), 2.0, 0);
    CHECK_NEAR(sv_ngram_count(m, (int32_t[]){1, 2, 4}, 3), 1.0, 0);
    CHECK_NEAR(sv_ngram_count(m, (int32_t[]){1, 2, 1}, 3), 0.0, 0);
    /* lower orders count distinct predecessors: "a b" occurs 3 times, after c and d */
    CHECK_NEAR(sv_ngram_count(m, (int32_t[]){1, 2}, 2), 2.0, 0);
    CHECK_NEAR(sv_ngram_count(m, (int32_t[]){2, 3}, 2), 1.0, 0);
    CHECK_NEAR(sv_ngram_count(m, (int32_t[]){3, 1}, 2), 1.0, 0);
    /* unigrams: a follows c and d; b, c, d one word each */
    CHECK_NEAR(sv_ngram_count(m, (int32_t[]){1}, 1), 2.0, 0);
    CHECK_NEAR(sv_ngram_count(m, (int32_t[]){2}, 1), 1.0, 0);
    CHECK_NEAR(sv_ngram_count(m, (int32_t[]){0}, 1), 0.0, 0);
    feature("counts: n-grams at the highest order, continuation counts below");

    /* by hand with D = 0.5: P1 = (c' - D) / 5 + (4 D / 5) / 5 */
    double p[5];
    sv_ngram_probs(m, NULL, 0, p);
    CHECK_NEAR(p[1], 0.38, 1e-15);
    CHECK_NEAR(p[2], 0.18, 1e-15);
    CHECK_NEAR(p[0], 0.08, 1e-15);
    /* history b: followers c, d once each: P2(c|b) = 0.5/2 + (1/2) 0.18 */
    sv_ngram_probs(m, (int32_t[]){2}, 1, p);
    CHECK_NEAR(p[3], 0.34, 1e-15);
    CHECK_NEAR(p[1], 0.19, 1e-15);
    /* history a b: c twice, d once: P3(c|a b) = 1.5/3 + (1/3) P2(c|b) */
    sv_ngram_probs(m, (int32_t[]){1, 2}, 2, p);
    CHECK_NEAR(p[3], 0.5 + 0.34 / 3, 1e-15);
    CHECK_NEAR(p[4], 0.5 / 3 + 0.34 / 3, 1e-15);
    CHECK_NEAR(p[0], 0.04 / 3, 1e-15);
    CHECK_NEAR(row_sum(p, 5), 1.0, 1e-12);
    feature("probabilities by hand: interpolated Kneser-Ney, D = 0.5");

    /* unseen history d b: the trigram level has nothing, P = P2(.|b) */
    double q[5];
    sv_ngram_probs(m, (int32_t[]){4, 2}, 2, p);
    sv_ngram_probs(m, (int32_t[]){2}, 1, q);
    CHECK(memcmp(p, q, sizeof p) == 0);
    /* unseen words: the unigram row; a longer context uses its last two */
    sv_ngram_probs(m, (int32_t[]){0, 0}, 2, p);
    sv_ngram_probs(m, NULL, 0, q);
    CHECK(memcmp(p, q, sizeof p) == 0);
    sv_ngram_probs(m, (int32_t[]){0, 0, 1, 2}, 4, p);
    sv_ngram_probs(m, (int32_t[]){1, 2}, 2, q);
    CHECK(memcmp(p, q, sizeof p) == 0);
    sv_ngram_logprobs(m, (int32_t[]){4, 2}, 2, p);
    for (int i = 0; i < 5; i++)
        CHECK(isfinite(p[i]) && p[i] < 0);
    feature("unseen histories back off to the lower order");
    sv_ngram_free(m);
}

static void test_discounts(void)
{
    /* a unigram model counts raw: n1 = 4, n2 = 2, n3 = 1, n4 = 1, so
     * Y = 4/8, D1 = 1 - 2 Y 2/4 = 0.5, D2 = 2 - 3 Y 1/2 = 1.25, D3+ = 3 - 4 Y = 1 */
    const int32_t t[] = {1, 2, 3, 4, 5, 5, 6, 6, 7, 7, 7, 8, 8, 8, 8};
    char err[256];
    sv_ngram *m;
    CHECK(sv_ngram_train(t, sizeof t / sizeof t[0], 9, 1, 0.0, &m, err, sizeof err) == 0);
    double D[3];
    sv_ngram_discounts(m, 1, D);
    CHECK_NEAR(D[0], 0.5, 1e-15);
    CHECK_NEAR(D[1], 1.25, 1e-15);
    CHECK_NEAR(D[2], 1.0, 1e-15);
    double p[9];
    sv_ngram_probs(m, NULL, 0, p);
    double mass = 4 * 0.5 + 2 * 1.25 + 1.0 + 1.0;
    CHECK_NEAR(p[8], (4 - 1.0) / 15 + mass / 15 / 9, 1e-15);
    CHECK_NEAR(p[5], (2 - 1.25) / 15 + mass / 15 / 9, 1e-15);
    CHECK_NEAR(p[0], mass / 15 / 9, 1e-15);
    CHECK_NEAR(row_sum(p, 9), 1.0, 1e-12);
    char desc[256];
    sv_ngram_describe(m, desc, sizeof desc);
    CHECK(strstr(desc, "word 1-gram, interpolated modified Kneser-Ney") != NULL);
    CHECK(strstr(desc, "1: 0.50/1.25/1.00") != NULL);
    CHECK(strstr(desc, "trained on 15 tokens") != NULL);
    sv_ngram_free(m);
    /* too few counts of counts: one discount Y = n1 / (n1 + 2 n2) for all */
    const int32_t u[] = {1, 2, 2, 3, 3};
    CHECK(sv_ngram_train(u, 5, 4, 1, 0.0, &m, err, sizeof err) == 0);
    sv_ngram_discounts(m, 1, D);
    CHECK_NEAR(D[0], 0.2, 1e-15);
    CHECK_NEAR(D[2], 0.2, 1e-15);
    sv_ngram_free(m);
    feature("modified Kneser-Ney discounts from counts of counts");
}

/* A Zipf-like text from a fixed LCG: rows sum to 1 in every context, and
 * training twice gives the same bits. */
static void test_rows(void)
{
    enum { N = 20000, V = 300 };
    int32_t *t = malloc(N * sizeof *t);
    uint64_t s = 12345;
    int32_t prev = 0;
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(s >> 11) / 9007199254740992.0;
        int32_t w = (int32_t)(V * u * u * u); /* skewed to small ids */
        t[i] = (i % 7 == 3) ? (prev * 7 + 1) % V : w; /* some structure */
        prev = t[i];
    }
    char err[256];
    sv_ngram *a, *b;
    CHECK(sv_ngram_train(t, N, V, 4, 0.0, &a, err, sizeof err) == 0);
    CHECK(sv_ngram_train(t, N, V, 4, 0.0, &b, err, sizeof err) == 0);
    double pa[V], pb[V];
    double worst = 0.0, smallest = 1.0;
    for (int i = 0; i + 3 < N; i += 97) {
        for (size_t len = 0; len <= 3; len++) {
            sv_ngram_probs(a, t + i + 3 - len, len, pa);
            sv_ngram_probs(b, t + i + 3 - len, len, pb);
            CHECK(memcmp(pa, pb, sizeof pa) == 0);
            worst = fmax(worst, fabs(row_sum(pa, V) - 1.0));
            for (int w = 0; w < V; w++)
                smallest = fmin(smallest, pa[w]);
        }
    }
    CHECK(worst <= 1e-9);
    CHECK(smallest > 0.0);
    printf("  largest |row sum - 1| = %.3g, smallest probability %.3g\n", worst, smallest);
    double D[3];
    for (int k = 1; k <= 4; k++) {
        sv_ngram_discounts(a, k, D);
        CHECK(D[0] > 0 && D[0] <= 1 && D[1] > 0 && D[1] <= 2 && D[2] > 0 && D[2] <= 3);
    }
    sv_ngram_free(a);
    sv_ngram_free(b);
    free(t);
    feature("rows sum to 1 within 1e-9, are positive, and are deterministic");

    CHECK(sv_ngram_train(tiny, TINY_N, 5, 7, 0.0, &a, err, sizeof err) != 0);
    CHECK(strstr(err, "order 7") != NULL);
    CHECK(sv_ngram_train(tiny, TINY_N, 4, 2, 0.0, &a, err, sizeof err) != 0);
    CHECK(strstr(err, "outside [0, 4)") != NULL);
    CHECK(sv_ngram_train(tiny, 2, 5, 3, 0.0, &a, err, sizeof err) != 0);
    feature("bad training input is refused with a message");
}

static void write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    fwrite(text, 1, len, f);
    fclose(f);
}

static void test_corpus(void)
{
    char dir[] = "/tmp/test_ngram_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/text", dir);
    const char *text = "The cat's hat. The cat sat!!\n%\nA dog, the DOG.\n";
    write_text(path, text, strlen(text));
    /* tokens: the cat's hat . | the cat sat ! | </s> a dog , | the dog . </s>;
     * blocks of 4, half held out: blocks 1 and 3 */
    sv_corpus *c;
    CHECK(sv_corpus_load(path, 5, 0.5, 4, &c, err, sizeof err) == 0);
    if (!c) {
        fprintf(stderr, "  %s\n", err);
        feature("corpus: tokens, vocabulary, held-out blocks");
        return;
    }
    CHECK(c->n == 16 && c->n_blocks == 4);
    CHECK(!c->held[0] && c->held[1] && !c->held[2] && c->held[3]);
    CHECK(c->n_train == 8 && c->n_held == 8);
    CHECK(c->types == 8);
    /* every training word once: byte order, "," < "." < "a" */
    CHECK(strcmp(c->words[0], "<unk>") == 0 && strcmp(c->words[1], "</s>") == 0);
    CHECK(strcmp(c->words[2], ",") == 0 && strcmp(c->words[3], ".") == 0 &&
          strcmp(c->words[4], "a") == 0);
    CHECK(c->unk_train == 4 && c->unk_held == 6);
    int32_t *s;
    size_t n;
    CHECK(sv_corpus_train_stream(c, 1.0, &s, &n) == 0);
    const int32_t want[] = {1, 0, 0, 0, 3, 1, 4, 0, 2};
    CHECK(n == 9 && memcmp(s, want, sizeof want) == 0);
    free(s);
    char vocab[600];
    snprintf(vocab, sizeof vocab, "%s/vocab", dir);
    CHECK(sv_corpus_write_vocab(c, vocab, err, sizeof err) == 0);
    FILE *f = fopen(vocab, "r");
    char line[64] = "";
    for (int i = 0; i < 4 && f && fgets(line, sizeof line, f); i++)
        ;
    CHECK(strcmp(line, ".\n") == 0);
    if (f)
        fclose(f);
    remove(vocab);
    sv_corpus_free(c);
    feature("corpus: tokens, vocabulary, held-out blocks");

    /* a folder: regular text files in name order; links and binaries skipped */
    snprintf(path, sizeof path, "%s/b", dir);
    write_text(path, "two words\n", 10);
    snprintf(path, sizeof path, "%s/a.dat", dir);
    write_text(path, "x\0y", 3);
    char link[512];
    snprintf(link, sizeof link, "%s/c.u8", dir);
    CHECK(symlink("b", link) == 0);
    CHECK(sv_corpus_load(dir, 3, 0.5, 1, &c, err, sizeof err) == 0);
    if (c) {
        CHECK(c->files == 2); /* text and b */
        CHECK(strstr(c->first_file, "/b") != NULL);
        sv_corpus_free(c);
    }
    /* errors name the path */
    CHECK(sv_corpus_load(path, 3, 0.5, 1, &c, err, sizeof err) != 0);
    CHECK(strstr(err, "a.dat: not text (a NUL byte at offset 1)") != NULL);
    CHECK(sv_corpus_load("/nonexistent/corpus", 3, 0.1, 10, &c, err, sizeof err) != 0);
    CHECK(strstr(err, "/nonexistent/corpus: No such file") != NULL);
    snprintf(path, sizeof path, "%s/text", dir);
    CHECK(sv_corpus_load(path, 50, 0.5, 4, &c, err, sizeof err) != 0);
    CHECK(strstr(err, "too small for a vocabulary of 50") != NULL);
    CHECK(sv_corpus_load(path, 5, 0.1, 1000, &c, err, sizeof err) != 0);
    CHECK(strstr(err, "none held out") != NULL);
    feature("corpus: folders, and errors that name the path");
    remove(link);
    remove(path);
    snprintf(path, sizeof path, "%s/b", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/a.dat", dir);
    remove(path);
    rmdir(dir);
}

/* test_ngram --recording FILE.h5 STEPS K V DTYPE: a file `specverify record
 * ngram` wrote (tests/record_cli.sh): attributes, dimensions, and every row a
 * finite log-probability row summing to 1 after exp, within what the storage
 * type's rounding of the logits allows. Prints a digest of the values. */
static int check_recording(char **argv)
{
    char err[1024];
    sv_recorded *r;
    if (sv_recorded_open(argv[0], &r, err, sizeof err) != 0) {
        fprintf(stderr, "  %s\n", err);
        return 1;
    }
    const sv_recorded_meta *m = sv_recorded_info(r);
    int64_t N = sv_recorded_steps(r);
    int32_t K = m->K, V = m->V;
    CHECK(N == atoll(argv[1]) && K == atoi(argv[2]) && V == atoi(argv[3]));
    CHECK(strcmp(sv_recorded_dtype(r), argv[4]) == 0);
    CHECK(!sv_recorded_is_probs(r) && sv_recorded_has_drafts(r));
    feature("recording: steps, K, V, dtype, logits and drafts");
    CHECK(strstr(m->source, "record_corpus.txt (1 file, ") != NULL);
    CHECK(strstr(m->target_model, "word 3-gram, interpolated modified Kneser-Ney") ==
          m->target_model);
    CHECK(strstr(m->draft_model, "word 2-gram, interpolated modified Kneser-Ney") == m->draft_model);
    CHECK(strstr(m->draft_model, "(0.5 of the training blocks)") != NULL);
    CHECK(strstr(m->tokenizer, "lowercased words") == m->tokenizer);
    CHECK(strstr(m->produced_by, "specverify record ngram --corpus ") == m->produced_by);
    printf("  source: %s\n  target: %s\n  draft: %s\n", m->source, m->target_model,
           m->draft_model);
    feature("recording: attributes say what made it");
    /* relative rounding of a stored logit: half an ulp */
    double ulp = strcmp(argv[4], "float32") == 0   ? 0x1p-24
                 : strcmp(argv[4], "float16") == 0 ? 0x1p-11
                                                   : 0x1p-8;
    double *t = malloc((size_t)(K + 1) * (size_t)V * sizeof *t);
    double *d = malloc((size_t)K * (size_t)V * sizeof *d);
    int32_t drafts[SV_RECORDED_MAX_K];
    uint64_t digest = 1469598103934665603ull;
    double worst = 0.0;
    for (int64_t i = 0; i < N; i++) {
        if (sv_recorded_read_step(r, i, t, d, drafts, err, sizeof err) != 0) {
            fprintf(stderr, "  %s\n", err);
            CHECK(0);
            break;
        }
        for (int32_t row = 0; row < 2 * K + 1; row++) {
            const double *x = row <= K ? t + (size_t)row * V : d + (size_t)(row - K - 1) * V;
            double sum = 0.0, bound = 1e-12;
            for (int32_t w = 0; w < V; w++) {
                CHECK(isfinite(x[w]) && x[w] <= 0.0);
                sum += exp(x[w]);
                bound += exp(x[w]) * fabs(x[w]) * ulp * 1.01;
                uint64_t bits;
                memcpy(&bits, &x[w], sizeof bits);
                digest = (digest ^ bits) * 1099511628211ull;
            }
            if (!(fabs(sum - 1.0) <= bound))
                fprintf(stderr, "  step %lld row %d: sum %.9f, bound %.3g\n", (long long)i, row,
                        sum, bound);
            CHECK(fabs(sum - 1.0) <= bound);
            worst = fmax(worst, fabs(sum - 1.0));
        }
        for (int32_t k = 0; k < K; k++) {
            CHECK(drafts[k] >= 0 && drafts[k] < V);
            digest = (digest ^ (uint64_t)drafts[k]) * 1099511628211ull;
        }
    }
    printf("  largest |sum exp(row) - 1| = %.3g\n", worst);
    feature("recording: every row a finite log-probability row summing to 1");
    printf("digest: %016llx\n", (unsigned long long)digest);
    free(t);
    free(d);
    sv_recorded_close(r);
    return check_exit();
}

int main(int argc, char **argv)
{
    if (argc == 7 && strcmp(argv[1], "--recording") == 0)
        return check_recording(argv + 2);
    test_counts();
    test_discounts();
    test_rows();
    test_corpus();
    return check_exit();
}
