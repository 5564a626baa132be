/* corpus.c: real text -> tokens -> a vocabulary, training and held-out blocks
 * (the rules are in ngram.h). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "ngram.h"
#include "sv_input.h"
#include "sv_output.h"

int sv_ngram_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- interning: word -> type id (open addressing, FNV-1a) ------------------- */

typedef struct intern {
    char **names;      /* [ntypes] */
    size_t ntypes, cap_names;
    int32_t *slot;     /* [nslots]: type id + 1, 0 empty */
    size_t nslots;
} intern;

static uint64_t fnv1a(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static int intern_grow(intern *t)
{
    size_t n = t->nslots ? 2 * t->nslots : 1024;
    int32_t *s = calloc(n, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < t->ntypes; i++) {
        const char *w = t->names[i];
        size_t j = fnv1a(w, strlen(w)) & (n - 1);
        while (s[j])
            j = (j + 1) & (n - 1);
        s[j] = (int32_t)i + 1;
    }
    free(t->slot);
    t->slot = s;
    t->nslots = n;
    return 0;
}

/* The type id of word [len], added when new; -1 on no memory. */
static int32_t intern_id(intern *t, const char *w, size_t len)
{
    if (2 * (t->ntypes + 1) > t->nslots && intern_grow(t) != 0)
        return -1;
    size_t j = fnv1a(w, len) & (t->nslots - 1);
    while (t->slot[j]) {
        const char *s = t->names[t->slot[j] - 1];
        if (strncmp(s, w, len) == 0 && s[len] == '\0')
            return t->slot[j] - 1;
        j = (j + 1) & (t->nslots - 1);
    }
    if (t->ntypes == t->cap_names) {
        size_t cap = t->cap_names ? 2 * t->cap_names : 1024;
        char **nn = realloc(t->names, cap * sizeof *nn);
        if (!nn)
            return -1;
        t->names = nn;
        t->cap_names = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, w, len);
    copy[len] = '\0';
    t->names[t->ntypes] = copy;
    t->slot[j] = (int32_t)++t->ntypes;
    return (int32_t)t->ntypes - 1;
}

static void intern_free(intern *t)
{
    for (size_t i = 0; i < t->ntypes; i++)
        free(t->names[i]);
    free(t->names);
    free(t->slot);
}

/* ---- tokenizing ---------------------------------------------------------------- */

#define TYPE_EOS 0 /* interned first */

typedef struct stream {
    int32_t *tok;
    size_t n, cap;
} stream;

static int push(stream *s, int32_t t)
{
    if (t == TYPE_EOS && (s->n == 0 || s->tok[s->n - 1] == TYPE_EOS))
        return 0; /* never two boundaries in a row, none first */
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 65536;
        int32_t *nt = realloc(s->tok, cap * sizeof *nt);
        if (!nt)
            return -1;
        s->tok = nt;
        s->cap = cap;
    }
    s->tok[s->n++] = t;
    return 0;
}

static int word_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

static int punct_char(unsigned char c)
{
    return c == '.' || c == ',' || c == '!' || c == '?' || c == ';' || c == ':';
}

/* Tokenizes one line [len] (no newline) into s. */
static int tokenize_line(const char *line, size_t len, intern *t, stream *s)
{
    size_t i = 0, a = 0;
    while (a < len && (line[a] == ' ' || line[a] == '\t' || line[a] == '\r'))
        a++;
    size_t b = len;
    while (b > a && (line[b - 1] == ' ' || line[b - 1] == '\t' || line[b - 1] == '\r'))
        b--;
    /* cppcheck-suppress knownConditionTrueFalse ; a line "%" has b - a == 1 */
    if (b - a == 1 && line[a] == '%')
        return push(s, TYPE_EOS);
    char word[256];
    while (i < len) {
        unsigned char c = (unsigned char)line[i];
        if (word_char(c)) {
            size_t w = 0;
            while (i < len) {
                c = (unsigned char)line[i];
                int inner_apostrophe = c == '\'' && w > 0 && i + 1 < len &&
                                       word_char((unsigned char)line[i + 1]);
                if (!word_char(c) && !inner_apostrophe)
                    break;
                if (w < sizeof word - 1) /* longer words are cut at 255 bytes */
                    word[w++] = (char)((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
                i++;
            }
            int32_t id = intern_id(t, word, w);
            if (id < 0 || push(s, id) != 0)
                return -1;
        } else if (punct_char(c)) {
            char p = (char)c;
            while (i < len && line[i] == p)
                i++;
            int32_t id = intern_id(t, &p, 1);
            if (id < 0 || push(s, id) != 0)
                return -1;
        } else {
            i++;
        }
    }
    return 0;
}

static int tokenize(const char *text, size_t len, intern *t, stream *s)
{
    size_t i = 0;
    while (i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        if (tokenize_line(text + i, end - i, t, s) != 0)
            return -1;
        i = end + 1;
    }
    return push(s, TYPE_EOS); /* the end of a file ends a document */
}

/* ---- reading files -------------------------------------------------------------- */

/* Reads PATH whole. Returns 0, 1 if it holds a NUL byte (*nul_at set), -1
 * with a message. */
static int read_file(const char *path, char **out, size_t *len, size_t *nul_at, char *err,
                     size_t errlen)
{
    FILE *f = sv_input_fopen(path, NULL, err, errlen); /* its words: "PATH: why" */
    if (!f)
        return -1;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (cap - n < 65536) {
            cap = cap ? 2 * cap : 1 << 20;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return sv_ngram_fail(err, errlen, "%s: out of memory", path);
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return sv_ngram_fail(err, errlen, "%s: read error", path);
    }
    *out = buf;
    *len = n;
    const char *z = memchr(buf, '\0', n);
    if (z) {
        *nul_at = (size_t)(z - buf);
        return 1;
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Tokenizes PATH (file or directory) into s. */
static int read_path(const char *path, intern *t, stream *s, sv_corpus *c, char *err,
                     size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return sv_ngram_fail(err, errlen, "%s: %s", path, strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        char *buf = NULL;
        size_t len = 0, nul = 0;
        int rc = read_file(path, &buf, &len, &nul, err, errlen);
        if (rc < 0)
            return -1;
        if (rc == 1) {
            free(buf);
            return sv_ngram_fail(err, errlen, "%s: not text (a NUL byte at offset %zu)", path, nul);
        }
        snprintf(c->first_file, sizeof c->first_file, "%s", path);
        c->files = 1;
        c->bytes = len;
        rc = tokenize(buf, len, t, s);
        free(buf);
        return rc == 0 ? 0 : sv_ngram_fail(err, errlen, "%s: out of memory", path);
    }
    DIR *d = opendir(path);
    if (!d)
        return sv_ngram_fail(err, errlen, "%s: %s", path, strerror(errno));
    char **names = NULL;
    size_t nn = 0, cap = 0;
    int rc = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (nn == cap) {
            cap = cap ? 2 * cap : 64;
            char **nb = realloc(names, cap * sizeof *nb);
            if (!nb) {
                rc = -1;
                break;
            }
            names = nb;
        }
        if (!(names[nn] = strdup(e->d_name))) {
            rc = -1;
            break;
        }
        nn++;
    }
    closedir(d);
    if (rc == 0 && nn)
        qsort(names, nn, sizeof *names, by_name);
    if (rc != 0)
        sv_ngram_fail(err, errlen, "%s: out of memory", path);
    for (size_t i = 0; rc == 0 && i < nn; i++) {
        char file[4096];
        snprintf(file, sizeof file, "%s/%s", path, names[i]);
        if (lstat(file, &st) != 0 || !S_ISREG(st.st_mode))
            continue; /* links (the fortune .u8 names) and folders are skipped */
        char *buf = NULL;
        size_t len = 0, nul = 0;
        int r = read_file(file, &buf, &len, &nul, err, errlen);
        if (r < 0) {
            rc = -1;
            break;
        }
        if (r == 0) { /* files with a NUL byte (the fortune .dat indexes) are skipped */
            if (c->files++ == 0)
                snprintf(c->first_file, sizeof c->first_file, "%s", file);
            c->bytes += len;
            if (tokenize(buf, len, t, s) != 0)
                rc = sv_ngram_fail(err, errlen, "%s: out of memory", file);
        }
        free(buf);
    }
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    if (rc == 0 && c->files == 0)
        return sv_ngram_fail(err, errlen, "%s: a folder with no text files in it", path);
    return rc;
}

/* ---- vocabulary and split ---------------------------------------------------------- */

typedef struct ranked_type {
    size_t count;
    const char *name;
    int32_t type;
} ranked_type;

static int by_count(const void *a, const void *b)
{
    const ranked_type *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int held_block(size_t b, double h)
{
    return floor((double)(b + 1) * h) > floor((double)b * h);
}

int sv_corpus_load(const char *path, int32_t V, double held_out, size_t block,
                   sv_corpus **out, char *err, size_t errlen)
{
    *out = NULL;
    if (V < 3)
        return sv_ngram_fail(err, errlen, "vocabulary size %d: at least 3 (<unk>, </s> and a word)", V);
    if (!(held_out > 0.0 && held_out <= 0.5))
        return sv_ngram_fail(err, errlen, "held-out share %g: outside (0, 0.5]", held_out);
    if (block < 1)
        return sv_ngram_fail(err, errlen, "block length 0");
    sv_corpus *c = calloc(1, sizeof *c);
    intern t = {0};
    stream s = {0};
    ranked_type *rank = NULL;
    int32_t *map = NULL;
    size_t *count = NULL;
    int rc = -1;
    if (!c || intern_id(&t, "</s>", 4) != TYPE_EOS) {
        sv_ngram_fail(err, errlen, "out of memory");
        goto done;
    }
    if (read_path(path, &t, &s, c, err, errlen) != 0)
        goto done;
    if (s.n == 0) {
        sv_ngram_fail(err, errlen, "%s: no words in it", path);
        goto done;
    }
    c->V = V;
    c->n = s.n;
    c->block = block;
    c->n_blocks = (s.n + block - 1) / block;
    c->held = calloc(c->n_blocks, 1);
    count = calloc(t.ntypes, sizeof *count);
    if (!c->held || !count) {
        sv_ngram_fail(err, errlen, "out of memory");
        goto done;
    }
    size_t n_held_blocks = 0;
    for (size_t b = 0; b < c->n_blocks; b++) {
        c->held[b] = (unsigned char)held_block(b, held_out);
        n_held_blocks += c->held[b];
        size_t lo = b * block, hi = lo + block < s.n ? lo + block : s.n;
        if (c->held[b])
            c->n_held += hi - lo;
        else
            for (size_t i = lo; i < hi; i++)
                count[s.tok[i]]++;
    }
    c->n_train = c->n - c->n_held;
    if (n_held_blocks == 0) {
        sv_ngram_fail(err, errlen,
             "%s: too small: its %zu tokens make %zu block%s of %zu, none held out at a share "
             "of %g (a shorter block holds some out)",
             path, s.n, c->n_blocks, c->n_blocks == 1 ? "" : "s", block, held_out);
        goto done;
    }
    /* rank the training words, </s> aside */
    rank = malloc(t.ntypes * sizeof *rank);
    map = malloc(t.ntypes * sizeof *map);
    c->words = calloc((size_t)V, sizeof *c->words);
    if (!rank || !map || !c->words) {
        sv_ngram_fail(err, errlen, "out of memory");
        goto done;
    }
    size_t nr = 0;
    for (size_t i = 0; i < t.ntypes; i++) {
        map[i] = SV_TOKEN_UNK;
        if (count[i] > 0 && i != TYPE_EOS)
            rank[nr++] = (ranked_type){count[i], t.names[i], (int32_t)i};
    }
    c->types = nr + (count[TYPE_EOS] > 0);
    if (nr < (size_t)V - 2) {
        sv_ngram_fail(err, errlen,
             "%s: too small for a vocabulary of %d: its training text has %zu distinct words "
             "besides </s>, %d needed",
             path, V, nr, V - 2);
        goto done;
    }
    qsort(rank, nr, sizeof *rank, by_count);
    map[TYPE_EOS] = SV_TOKEN_EOS;
    for (int32_t i = 0; i < V - 2; i++)
        map[rank[i].type] = i + 2;
    c->words[SV_TOKEN_UNK] = strdup("<unk>");
    c->words[SV_TOKEN_EOS] = strdup("</s>");
    for (int32_t i = 0; i < V - 2; i++)
        c->words[i + 2] = strdup(rank[i].name);
    for (int32_t i = 0; i < V; i++)
        if (!c->words[i]) {
            sv_ngram_fail(err, errlen, "out of memory");
            goto done;
        }
    /* the text over the vocabulary; reuse the stream's buffer */
    for (size_t i = 0; i < s.n; i++) {
        int32_t id = map[s.tok[i]];
        if (id == SV_TOKEN_UNK) {
            if (c->held[i / block])
                c->unk_held++;
            else
                c->unk_train++;
        }
        s.tok[i] = id;
    }
    c->ids = s.tok;
    s.tok = NULL;
    rc = 0;
done:
    free(s.tok);
    free(rank);
    free(map);
    free(count);
    intern_free(&t);
    if (rc != 0)
        sv_corpus_free(c);
    else
        *out = c;
    return rc;
}

void sv_corpus_free(sv_corpus *c)
{
    if (!c)
        return;
    if (c->words)
        for (int32_t i = 0; i < c->V; i++)
            free(c->words[i]);
    free(c->words);
    free(c->ids);
    free(c->held);
    free(c);
}

int sv_corpus_train_stream(const sv_corpus *c, double fraction, int32_t **out, size_t *n)
{
    int32_t *s = malloc((c->n_train + c->n_blocks + 1) * sizeof *s);
    if (!s)
        return -1;
    size_t k = 0, j = 0;
    s[k++] = SV_TOKEN_EOS;
    int cut = 0;
    for (size_t b = 0; b < c->n_blocks; b++) {
        int keep = !c->held[b] && (fraction >= 1.0 || held_block(j, fraction));
        j += !c->held[b];
        if (!keep) {
            cut = 1;
            continue;
        }
        if (cut && s[k - 1] != SV_TOKEN_EOS)
            s[k++] = SV_TOKEN_EOS;
        cut = 0;
        size_t lo = b * c->block, hi = lo + c->block < c->n ? lo + c->block : c->n;
        for (size_t i = lo; i < hi; i++)
            if (!(c->ids[i] == SV_TOKEN_EOS && s[k - 1] == SV_TOKEN_EOS))
                s[k++] = c->ids[i];
    }
    *out = s;
    *n = k;
    return 0;
}

int sv_corpus_write_vocab(const sv_corpus *c, const char *path, char *err, size_t errlen)
{
    sv_output_file f;
    if (sv_output_open(&f, path, err, errlen) != 0)
        return -1;
    for (int32_t i = 0; i < c->V; i++)
        fprintf(f.fp, "%s\n", c->words[i]);
    return sv_output_commit(&f, err, errlen);
}
