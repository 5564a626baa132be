/* dump.c: verify --dump-failing DIR. The first mixed batch in which a case
 * broke the contract, and the two batches of a batch-composition failure,
 * written whole to DIR (one HDF5 file each; docs/formats.md#failing-batches),
 * so that `specverify replay FILE` gives the sampler that batch again, the
 * way hypothesis hands back a falsifying example. A file holds the batch's
 * recipe, which the harness rebuilds exactly (the cases' specs, each
 * sequence's case, drafts count, seeding and index, the layout and seed),
 * a hash of each case's rows to prove the rebuild, and what the sampler
 * gave; a dump that cannot be written is said on stderr once and changes no
 * verdict. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sv_check.h"
#include "sv_store.h"

#define DUMP_MAX 256 /* files a run writes at most: one per case and kind */

typedef struct written {
    char name[SV_CASE_NAME_MAX];
    const char *kind;
    uint64_t first; /* its batch's first sequence index */
    char path[SV_OUTPUT_PATH + SV_CASE_NAME_MAX];
} written;

struct sv_dump {
    sv_failing_sink sink;
    char dir[SV_OUTPUT_PATH];
    const sv_sampler *sampler;
    int32_t input;
    char reproduce[1024];
    pthread_mutex_t lock;
    int32_t n;
    written files[DUMP_MAX];
    int said; /* a write failed, and stderr was told */
};

uint64_t sv_dump_case_hash(const sv_case *c)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a over the rows the sampler is given */
    const size_t V = (size_t)c->V, K = (size_t)c->K;
    const unsigned char *parts[3] = {(const void *)c->target,
                                     c->draft_probs_given ? (const void *)c->draft : NULL,
                                     c->input ? (const void *)c->input_logits : NULL};
    const size_t sizes[3] = {(K + 1) * V * sizeof(float), K * V * sizeof(float),
                             (2 * K + 1) * V * sv_input_value_bytes(c->input)};
    for (int p = 0; p < 3; p++)
        for (size_t i = 0; parts[p] && i < sizes[p]; i++)
            h = (h ^ parts[p][i]) * 0x100000001b3ull;
    return h;
}

/* DIR/<case, in letters, digits and . _ ->.<kind>.h5, numbered past a name
 * an earlier case of this run took. */
static void file_name(const sv_dump *d, const char *name, const char *kind, char *out,
                      size_t len)
{
    char safe[81];
    size_t j = 0;
    for (size_t i = 0; name[i] && j + 1 < sizeof safe; i++) {
        const char ch = name[i];
        const int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                       (ch >= '0' && ch <= '9') || ch == '.' || ch == '-';
        safe[j++] = ok ? ch : '_';
    }
    safe[j] = '\0';
    for (int serial = 1;; serial++) {
        char tail[24] = "";
        if (serial > 1)
            snprintf(tail, sizeof tail, "-%d", serial);
        snprintf(out, len, "%s/%s%s.%s.h5", d->dir, safe, tail, kind);
        int taken = 0;
        for (int32_t i = 0; i < d->n && !taken; i++)
            taken = strcmp(d->files[i].path, out) == 0;
        if (!taken)
            return;
    }
}

static int u64_attr(sv_h5 *f, const char *name, uint64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)v);
    return sv_h5_attr(f, name, text);
}

/* One batch's arrays under prefix p ("a", "b"). */
static int write_part(sv_h5 *f, const sv_dump *d, const char *p, const sv_failing_batch *fb)
{
    const sv_mix *m = fb->mix;
    const size_t B = (size_t)fb->B, K = (size_t)m->K, row = SV_MAX_K + 2;
    const int own = (d->sampler->inputs & SV_INPUT_OWN_DRAFTS) != 0;
    double *num = malloc(B * (4 + 2 * K + 1) * sizeof *num);
    uint64_t *seeds = malloc(B * sizeof *seeds);
    if (!num || !seeds) {
        free(num);
        free(seeds);
        return sv_fail(SV_EENV, "out of memory for a batch of %zu", B);
    }
    double *case_of = num, *drafts_n = num + B, *seeded = num + 2 * B, *accepted = num + 3 * B;
    double *drafts = num + 4 * B, *tokens = drafts + B * K;
    int32_t x[SV_MAX_K];
    for (size_t b = 0; b < B; b++) {
        const int32_t s = (fb->s0 + (int32_t)b) % m->period, c = m->case_of[s], dn = m->drafts[s];
        case_of[b] = c;
        drafts_n[b] = dn;
        seeded[b] = m->seeded[s];
        seeds[b] = m->seeded[s] ? sv_mix_sequence_seed(fb->seed, fb->indices[b]) : fb->seed;
        if (!own)
            sv_drafter_draw(fb->drafters[c], fb->philox, fb->seed, fb->indices[b], x);
        for (size_t k = 0; k < K; k++)
            drafts[b * K + k] = !own && (int32_t)k < dn ? x[k] : -1;
        accepted[b] = fb->rows[b * row];
        for (size_t k = 0; k <= K; k++)
            tokens[b * (K + 1) + k] = fb->rows[b * row + 1 + k];
    }
    char name[64];
#define PART(what) (snprintf(name, sizeof name, "%s_%s", p, what), name)
    int rc = sv_h5_doubles(f, PART("case_of"), case_of, B, 0);
    if (rc == SV_OK) rc = sv_h5_doubles(f, PART("num_drafts"), drafts_n, B, 0);
    if (rc == SV_OK) rc = sv_h5_doubles(f, PART("seeded"), seeded, B, 0);
    if (rc == SV_OK) rc = sv_h5_u64s(f, PART("indices"), fb->indices, B);
    if (rc == SV_OK) rc = sv_h5_u64s(f, PART("seeds"), seeds, B);
    if (rc == SV_OK && !own && K) rc = sv_h5_doubles(f, PART("drafts"), drafts, B, K);
    if (rc == SV_OK) rc = sv_h5_doubles(f, PART("accepted"), accepted, B, 0);
    if (rc == SV_OK) rc = sv_h5_doubles(f, PART("tokens"), tokens, B, K + 1);
    const char *layout = fb->layout == SV_LAYOUT_PACKED ? "packed" : "padded";
    if (rc == SV_OK) rc = sv_h5_attr(f, PART("layout"), layout);
    if (rc == SV_OK) rc = u64_attr(f, PART("target"), (uint64_t)fb->target);
#undef PART
    free(num);
    free(seeds);
    return rc;
}

static int write_file(const sv_dump *d, const char *path, const char *kind, const sv_case *c,
                      const char *finding, const sv_failing_batch *parts, int n_parts)
{
    const sv_mix *m = parts[0].mix;
    sv_h5 f;
    int rc = sv_h5_create(&f, path);
    if (rc != SV_OK)
        return rc;
    const char **names = malloc((size_t)m->n_cases * sizeof *names);
    uint64_t *hashes = malloc((size_t)m->n_cases * sizeof *hashes);
    if (!names || !hashes)
        rc = sv_fail(SV_EENV, "out of memory for %d cases", m->n_cases);
    for (int32_t i = 0; rc == SV_OK && i < m->n_cases; i++) {
        names[i] = m->cases[i]->name;
        hashes[i] = sv_dump_case_hash(m->cases[i]);
    }
    char finding_safe[SV_FINDING_LEN * 2];
    sv_escape_stored(finding_safe, sizeof finding_safe, finding); /* a note is escaped once */
    if (rc == SV_OK) rc = sv_h5_attr(&f, "format", SV_DUMP_FORMAT);
    if (rc == SV_OK) rc = u64_attr(&f, "format_version", SV_DUMP_VERSION);
    if (rc == SV_OK) rc = sv_h5_attr(&f, "kind", kind);
    if (rc == SV_OK) rc = sv_h5_attr(&f, "sampler", d->sampler->name);
    if (rc == SV_OK) rc = sv_h5_attr(&f, "input", sv_input_name(d->input));
    if (rc == SV_OK) rc = sv_h5_attr(&f, "case", c->name);
    if (rc == SV_OK) rc = sv_h5_attr(&f, "finding", finding_safe);
    if (rc == SV_OK) rc = sv_h5_attr(&f, "reproduce", d->reproduce);
    if (rc == SV_OK) rc = u64_attr(&f, "seed", parts[0].seed);
    if (rc == SV_OK) rc = u64_attr(&f, "K", (uint64_t)m->K);
    if (rc == SV_OK) rc = u64_attr(&f, "V", (uint64_t)m->V);
    if (rc == SV_OK) rc = u64_attr(&f, "v3", (uint64_t)m->v3);
    if (rc == SV_OK)
        rc = u64_attr(&f, "own_drafts", (d->sampler->inputs & SV_INPUT_OWN_DRAFTS) != 0);
    if (rc == SV_OK) rc = u64_attr(&f, "parts", (uint64_t)n_parts);
    if (rc == SV_OK) rc = sv_h5_strings(&f, "cases", names, (size_t)m->n_cases);
    if (rc == SV_OK) rc = sv_h5_u64s(&f, "case_hashes", hashes, (size_t)m->n_cases);
    static const char *const prefix[2] = {"a", "b"};
    for (int i = 0; i < n_parts && rc == SV_OK; i++)
        rc = write_part(&f, d, prefix[i], &parts[i]);
    free(names);
    free(hashes);
    if (rc != SV_OK) {
        sv_h5_abort(&f);
        return rc;
    }
    return sv_h5_commit(&f);
}

/* Case c's file of this kind, under the lock: its failing batch of the
 * smallest first index, whatever order the worker threads met them in, so
 * that the same run writes the same batch. */
static void dump(sv_dump *d, const char *kind, const sv_case *c, const char *finding,
                 const sv_failing_batch *parts, int n_parts)
{
    pthread_mutex_lock(&d->lock);
    written *w = NULL;
    for (int32_t i = 0; i < d->n && !w; i++)
        if (strcmp(d->files[i].kind, kind) == 0 && strcmp(d->files[i].name, c->name) == 0)
            w = &d->files[i];
    const int fresh = !w && d->n < DUMP_MAX;
    if (fresh) {
        w = &d->files[d->n];
        file_name(d, c->name, kind, w->path, sizeof w->path);
    }
    if (w && (fresh || parts[0].indices[0] < w->first)) {
        if (write_file(d, w->path, kind, c, finding, parts, n_parts) == SV_OK) {
            w->first = parts[0].indices[0];
            if (fresh) {
                snprintf(w->name, sizeof w->name, "%s", c->name);
                w->kind = kind;
                d->n++;
            }
        } else if (!d->said) {
            d->said = 1; /* the verdict stands: only the dump is lost */
            fprintf(stderr, "specverify: --dump-failing: %s\n", sv_error_message());
        }
    }
    pthread_mutex_unlock(&d->lock);
}

static void contract_seen(const sv_failing_sink *sink, const sv_failing_batch *fb,
                          const char *note)
{
    sv_dump *d = sink->ctx;
    const sv_mix *m = fb->mix;
    const sv_case *c = m->cases[m->case_of[(fb->s0 + fb->target) % m->period]];
    dump(d, "contract", c, note, fb, 1);
}

void sv_dump_composition(sv_dump *d, const sv_case *c, const char *finding,
                         const sv_failing_batch *a, const sv_failing_batch *b)
{
    const sv_failing_batch parts[2] = {*a, *b};
    dump(d, "composition", c, finding, parts, 2);
}

int sv_dump_open(const char *dir, const sv_sampler *sampler, int32_t input,
                 const char *reproduce, sv_dump **out)
{
    *out = NULL;
    if (strlen(dir) + 1 > SV_OUTPUT_PATH)
        return sv_fail(SV_EBAD, "--dump-failing %.60s...: the path is too long", dir);
    struct stat st;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return sv_fail(SV_EBAD, "--dump-failing %s: cannot make the directory: %s", dir,
                       strerror(errno));
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return sv_fail(SV_EBAD, "--dump-failing %s: not a directory", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return sv_fail(SV_EBAD, "--dump-failing %s: cannot write there: %s", dir,
                       strerror(errno));
    sv_dump *d = calloc(1, sizeof *d);
    if (!d)
        return sv_fail(SV_EENV, "out of memory");
    snprintf(d->dir, sizeof d->dir, "%s", dir);
    snprintf(d->reproduce, sizeof d->reproduce, "%s", reproduce);
    d->sampler = sampler;
    d->input = input;
    d->sink = (sv_failing_sink){contract_seen, d};
    pthread_mutex_init(&d->lock, NULL);
    *out = d;
    return SV_OK;
}

const sv_failing_sink *sv_dump_sink(sv_dump *d)
{
    return d ? &d->sink : NULL;
}

void sv_dump_files(const sv_dump *d, const sv_case *c, sv_run_eval *ev)
{
    for (int32_t i = 0; d && i < d->n; i++)
        if (strcmp(d->files[i].name, c->name) == 0)
            sv_escaped(ev->replay[strcmp(d->files[i].kind, "contract") != 0],
                       sizeof ev->replay[0], d->files[i].path);
}

void sv_dump_close(sv_dump *d)
{
    if (!d)
        return;
    pthread_mutex_destroy(&d->lock);
    free(d);
}
