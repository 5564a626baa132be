/* shard_merge.c: the shard files of one run, read back for `merge` (issue
 * 28). Opening them checks what merge must refuse, naming the file: a file
 * that is no shard, a shard of another run (another command, shard count
 * or version), a shard given twice, a shard missing. sv_shard_give then
 * sums each case's counts over the shards, in shard order, into the tally
 * verify would have counted; every size is checked against the case
 * rebuilt from the command before a count is read, and every shard's
 * counts against what its share of the run makes (check_part) before they
 * are summed, each sum short of 2^64 (add_part). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_report.h"
#include "sv_store.h"

enum { SCALARS = 8, PROBE = 8, SHAPE = 5 };

struct sv_shard_set {
    size_t n;            /* shards */
    sv_h5_reader *files; /* [n], in shard order */
    char **command;      /* shard 0's, which every other shard's equals */
    size_t n_command;
    size_t cases;
};

static void strings_free(char **s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        free(s[i]);
    free(s);
}

void sv_shard_set_close(sv_shard_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; s->files && i < s->n; i++)
        if (s->files[i].file >= 0)
            sv_h5_close(&s->files[i]);
    free(s->files);
    strings_free(s->command, s->n_command);
    free(s);
}

/* The shard's index, count and case count, and its command; SV_EBAD when
 * it is no shard file of this version. */
static int read_head(sv_h5_reader *r, double *index, double *count, double *cases, char ***cmd,
                     size_t *n_cmd)
{
    char kind[32] = "", version[64] = "";
    if (!sv_h5_has_attr(r, "kind") || sv_h5_read_attr(r, "kind", kind, sizeof kind) != SV_OK ||
        strcmp(kind, "shard") != 0)
        return sv_fail(SV_EBAD, "merge: %s is not a shard file (written by 'specverify verify "
                       "--shard I/N')", r->path);
    int rc = sv_h5_read_attr(r, "specverify_version", version, sizeof version);
    if (rc == SV_OK && strcmp(version, SV_VERSION) != 0)
        rc = sv_fail(SV_EBAD, "merge: %s was written by specverify %s, this is %s: its counts "
                     "may mean other things", r->path, version, SV_VERSION);
    if (rc == SV_OK)
        rc = sv_h5_read_number(r, "shards", 1, 1e6, SV_H5_WHOLE, count);
    if (rc == SV_OK)
        rc = sv_h5_read_number(r, "shard", 0, *count - 1, SV_H5_WHOLE, index);
    if (rc == SV_OK)
        rc = sv_h5_read_number(r, "cases", 0, 1e9, SV_H5_WHOLE, cases);
    if (rc == SV_OK)
        rc = sv_h5_read_strings(r, "command", cmd, n_cmd);
    return rc;
}

/* Whether argument i of a command is --threads or its value: threads never
 * change a count, so shards on machines of different sizes are one run. */
static int is_threads(char **cmd, size_t n, size_t i)
{
    return strcmp(cmd[i], "--threads") == 0 || strncmp(cmd[i], "--threads=", 10) == 0 ||
           (i > 0 && i < n && strcmp(cmd[i - 1], "--threads") == 0);
}

/* Commands a and b name one run: the same arguments but for --threads.
 * Else the first that differ, into what. */
static int same_command(char **a, size_t na, char **b, size_t nb, char *what, size_t len)
{
    size_t i = 0, j = 0;
    for (;;) {
        while (i < na && is_threads(a, na, i))
            i++;
        while (j < nb && is_threads(b, nb, j))
            j++;
        if (i == na || j == nb)
            break;
        if (strcmp(a[i], b[j]) != 0) {
            snprintf(what, len, "its command has '%.100s' where the first has '%.100s'", b[j],
                     a[i]);
            return 0;
        }
        i++, j++;
    }
    if (i == na && j == nb)
        return 1;
    snprintf(what, len, "its command has %s", i == na ? "more arguments" : "fewer arguments");
    return 0;
}

int sv_shard_set_open(const char *const *paths, size_t n, sv_shard_set **out)
{
    *out = NULL;
    if (!n)
        return sv_fail(SV_EBAD, "merge: give the shard files of one run");
    sv_shard_set *s = calloc(1, sizeof *s);
    sv_h5_reader *opened = calloc(n, sizeof *opened);
    size_t *index_of = calloc(n, sizeof *index_of); /* file i is shard index_of[i] */
    if (!s || !opened || !index_of) {
        free(s), free(opened), free(index_of);
        return sv_fail(SV_EENV, "out of memory for %zu shards", n);
    }
    for (size_t i = 0; i < n; i++)
        opened[i].file = -1;
    int rc = SV_OK;
    double count = 0;
    for (size_t i = 0; i < n && rc == SV_OK; i++) {
        double index = 0, this_count = 0, cases = 0;
        char **cmd = NULL;
        size_t n_cmd = 0;
        rc = sv_h5_open(&opened[i], paths[i]);
        if (rc == SV_OK)
            rc = read_head(&opened[i], &index, &this_count, &cases, &cmd, &n_cmd);
        if (rc == SV_OK && i == 0) {
            count = this_count, s->cases = (size_t)cases;
            s->command = cmd, s->n_command = n_cmd, cmd = NULL;
        } else if (rc == SV_OK) {
            char what[256] = "";
            if (this_count != count)
                snprintf(what, sizeof what, "of %.0f shards, not %.0f", this_count, count);
            else if ((size_t)cases != s->cases)
                snprintf(what, sizeof what, "of %.0f cases, not %zu", cases, s->cases);
            else
                same_command(s->command, s->n_command, cmd, n_cmd, what, sizeof what);
            if (what[0])
                rc = sv_fail(SV_EBAD, "merge: %s is a shard of another run than %s: %s",
                             paths[i], paths[0], what);
        }
        strings_free(cmd, n_cmd);
        index_of[i] = (size_t)index;
        for (size_t j = 0; j < i && rc == SV_OK; j++)
            if (index_of[j] == index_of[i])
                rc = sv_fail(SV_EBAD, "merge: shard %zu of %.0f is given twice: %s and %s",
                             index_of[i] + 1, count, paths[j], paths[i]);
    }
    if (rc == SV_OK && count != (double)n) { /* a shard missing: name each */
        char missing[512] = "";
        for (size_t k = 0; k < (size_t)count && strlen(missing) < 480; k++) {
            size_t i = 0;
            while (i < n && index_of[i] != k)
                i++;
            if (i == n)
                snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%zu",
                         missing[0] ? ", " : "", k + 1);
        }
        rc = sv_fail(SV_EBAD, "merge: %zu of the run's %.0f shards given; missing: shard%s %s "
                     "(of %.0f)", n, count, strchr(missing, ',') ? "s" : "", missing, count);
    }
    if (rc == SV_OK) { /* in shard order */
        s->files = calloc(n, sizeof *s->files);
        if (!s->files)
            rc = sv_fail(SV_EENV, "out of memory for %zu shards", n);
        for (size_t i = 0; i < n && rc == SV_OK; i++) {
            s->files[index_of[i]] = opened[i];
            opened[i].file = -1;
        }
        s->n = n;
    }
    for (size_t i = 0; i < n; i++)
        if (opened[i].file >= 0)
            sv_h5_close(&opened[i]);
    free(opened);
    free(index_of);
    if (rc != SV_OK) {
        sv_shard_set_close(s);
        return rc;
    }
    *out = s;
    return SV_OK;
}

const char *const *sv_shard_set_command(const sv_shard_set *s, size_t *n)
{
    *n = s->n_command;
    return (const char *const *)s->command;
}

size_t sv_shard_set_cases(const sv_shard_set *s)
{
    return s->cases;
}

size_t sv_shard_set_shards(const sv_shard_set *s)
{
    return s->n;
}

sv_h5_reader *sv_shard_set_file(sv_shard_set *s, size_t k)
{
    return k < s->n ? &s->files[k] : NULL;
}

/* Shard r's part of case i into t (allocated for the case), and its probe. */
static int read_case(sv_h5_reader *r, size_t i, const sv_case *c, const sv_pair_plan *plan,
                     sv_tally *t, sv_shard_probe *probe)
{
    char name[64];
#define NAME(what) (snprintf(name, sizeof name, "c%zu_%s", i, what), name)
    uint64_t shape[SHAPE], scalars[SCALARS], fields[PROBE];
    char **spec = NULL;
    size_t n_spec = 0;
    const int same = sv_h5_has_dataset(r, NAME("case")) &&
                     sv_h5_read_strings(r, NAME("case"), &spec, &n_spec) == SV_OK &&
                     n_spec == 1 && strcmp(spec[0], c->name) == 0;
    const int made = n_spec == 1;
    char held[160];
    snprintf(held, sizeof held, "%.150s", made ? spec[0] : "");
    strings_free(spec, n_spec);
    if (!same)
        return made ? sv_fail(SV_EBAD, "merge: %s: case %zu is %s, where the command here makes "
                              "it %s", r->path, i + 1, held, c->name)
                    : sv_fail(SV_EBAD, "merge: %s holds no case %zu", r->path, i + 1);
    const uint64_t want[SHAPE] = {(uint64_t)t->K, (uint64_t)t->V,
                                  (uint64_t)plan->seq_rows.nbins * (uint64_t)plan->seq_cols.nbins,
                                  (uint64_t)plan->pos_rows.nbins * (uint64_t)plan->pos_cols.nbins,
                                  t->transitions != NULL};
    int rc = sv_h5_read_u64s(r, NAME("shape"), shape, SHAPE);
    if (rc == SV_OK && memcmp(shape, want, sizeof want) != 0)
        rc = sv_fail(SV_EBAD, "merge: %s: case %zu has K = %llu, V = %llu and tables of %llu "
                     "and %llu cells, where its command makes K = %llu, V = %llu, %llu and %llu",
                     r->path, i + 1, (unsigned long long)shape[0], (unsigned long long)shape[1],
                     (unsigned long long)shape[2], (unsigned long long)shape[3],
                     (unsigned long long)want[0], (unsigned long long)want[1],
                     (unsigned long long)want[2], (unsigned long long)want[3]);
    if (rc == SV_OK)
        rc = sv_h5_read_u64s(r, NAME("scalars"), scalars, SCALARS);
    if (rc == SV_OK && scalars[7] > SV_MAX_NOTES)
        rc = sv_fail(SV_EBAD, "merge: %s: case %zu has %llu notes, at most %d", r->path, i + 1,
                     (unsigned long long)scalars[7], SV_MAX_NOTES);
    if (rc == SV_OK) {
        t->draws = scalars[0], t->first_accepted = scalars[1], t->first_chance_fx = scalars[2];
        t->first_variance_fx = scalars[3], t->violations = scalars[4];
        t->tree = (int)scalars[5], t->sampler_error = (int)(int64_t)scalars[6];
        t->n_notes = (int32_t)scalars[7];
    }
    sv_tally_counts counts[SV_TALLY_COUNTS];
    sv_tally_counts_of(t, plan, counts);
    for (int a = 0; a < SV_TALLY_COUNTS && rc == SV_OK; a++)
        if (counts[a].data) /* a Markov pair's transitions alone */
            rc = sv_h5_read_u64s(r, NAME(counts[a].name), counts[a].data, counts[a].n);
    if (rc == SV_OK)
        rc = sv_h5_read_u64s(r, NAME("note_at"), t->note_at, (size_t)t->n_notes);
    char **notes = NULL, **findings = NULL;
    size_t n_notes = 0, n_findings = 0;
    if (rc == SV_OK)
        rc = sv_h5_read_strings(r, NAME("notes"), &notes, &n_notes);
    if (rc == SV_OK && n_notes != (size_t)t->n_notes)
        rc = sv_fail(SV_EBAD, "merge: %s: case %zu has %zu notes for %d", r->path, i + 1,
                     n_notes, t->n_notes);
    for (size_t k = 0; rc == SV_OK && k < n_notes; k++) /* a file's text: never printed raw */
        sv_escape_stored(t->notes[k], SV_NOTE_LEN, notes[k]);
    double *seconds = NULL, *chance = NULL;
    size_t rows, cols;
    if (rc == SV_OK)
        rc = sv_h5_read_checked(r, NAME("seconds"), &seconds, &rows, &cols, 0, INFINITY, 0);
    if (rc == SV_OK) {
        t->seconds = seconds[0];
        rc = sv_h5_read_u64s(r, NAME("probe"), fields, PROBE);
    }
    if (rc == SV_OK && fields[7] > SV_MAX_FINDINGS)
        rc = sv_fail(SV_EBAD, "merge: %s: case %zu's probes have %llu findings, at most %d",
                     r->path, i + 1, (unsigned long long)fields[7], SV_MAX_FINDINGS);
    if (rc == SV_OK)
        rc = sv_h5_read_checked(r, NAME("seed_chance"), &chance, &rows, &cols, 0, 1, 0);
    if (rc == SV_OK)
        rc = sv_h5_read_strings(r, NAME("probe_findings"), &findings, &n_findings);
    if (rc == SV_OK && fields[0]) {
        *probe = (sv_shard_probe){1, fields[1], fields[2], fields[3], fields[4], chance[0],
                                  (sv_verdict)fields[5], (sv_verdict)fields[6],
                                  (int32_t)fields[7], {{0}}};
        for (size_t k = 0; k < n_findings && k < SV_MAX_FINDINGS; k++)
            sv_escape_stored(probe->findings[k], SV_FINDING_LEN, findings[k]);
    }
#undef NAME
    strings_free(notes, n_notes);
    strings_free(findings, n_findings);
    free(seconds);
    free(chance);
    return rc;
}

/* Shard k's part of case i holds the draws the run's cut gives it (fewer
 * only where its sampler failed, which stops a run), and counts that agree:
 * each position's histogram sums to the draws that reached it, no more
 * draws counted than drawn, and a Markov pair's transitions one a token its
 * accepted lengths emitted. */
static int check_part(const char *path, size_t i, const sv_tally *t, const uint64_t *share,
                      uint32_t shard, uint32_t count)
{
    if (share && t->draws != *share && !(t->sampler_error && t->draws < *share))
        return sv_fail(SV_EBAD, "merge: %s: dataset 'c%zu_scalars': %llu draws, where shard %u "
                       "of %u of this run draws %llu of case %zu (its share of the case's "
                       "units)", path, i, (unsigned long long)t->draws, shard + 1, count,
                       (unsigned long long)*share, i + 1);
    const size_t V = (size_t)t->V;
    unsigned __int128 counted = 0, emitted = 0; /* draws kept; the tokens they emitted */
    for (int32_t k = 0; k <= SV_MAX_K; k++) {
        counted += t->length[k];
        emitted += (unsigned __int128)t->length[k] * (uint64_t)(k + 1);
        unsigned __int128 sum = 0;
        for (size_t v = 0; !t->transitions && k <= t->K && v < V; v++)
            sum += t->hist[(size_t)k * V + v];
        if (!t->transitions && sum != t->reached[k])
            return sv_fail(SV_EBAD, "merge: %s: dataset 'c%zu_hist', position %d: the counts "
                           "sum to %.0f, not the %llu draws that reached it (dataset "
                           "'c%zu_reached')", path, i, k + 1, (double)sum,
                           (unsigned long long)t->reached[k], i);
    }
    if (t->reached[0] > t->draws || counted > t->draws)
        return sv_fail(SV_EBAD, "merge: %s: dataset 'c%zu_%s': %.0f draws counted, more than "
                       "its %llu draws", path, i, t->reached[0] > t->draws ? "reached" : "length",
                       (double)(t->reached[0] > t->draws ? t->reached[0] : counted),
                       (unsigned long long)t->draws);
    unsigned __int128 moves = 0;
    for (size_t a = 0; t->transitions && a < V * V; a++)
        moves += t->transitions[a];
    if (t->transitions && moves != emitted)
        return sv_fail(SV_EBAD, "merge: %s: dataset 'c%zu_transitions': the counts sum to %.0f, "
                       "not the %.0f tokens its accepted lengths emitted", path, i,
                       (double)moves, (double)emitted);
    return SV_OK;
}

/* into += part, refusing a sum past 2^64 - 1: a count that wrapped would
 * read as a small one. */
static int add_part(const char *path, size_t i, sv_tally *into, const sv_tally *part,
                    const sv_pair_plan *plan)
{
    sv_tally_counts to[SV_TALLY_COUNTS], from[SV_TALLY_COUNTS];
    sv_tally_counts_of(into, plan, to);
    sv_tally_counts_of(part, plan, from);
    for (int a = 0; a < SV_TALLY_COUNTS; a++)
        for (size_t k = 0; to[a].data && from[a].data && k < from[a].n; k++)
            if (to[a].data[k] > UINT64_MAX - from[a].data[k])
                return sv_fail(SV_EBAD, "merge: %s: dataset 'c%zu_%s', element %zu: %llu, and "
                               "%llu in the shards before it: the sum passes 2^64 - 1", path, i,
                               from[a].name, k, (unsigned long long)from[a].data[k],
                               (unsigned long long)to[a].data[k]);
    const uint64_t *sums[] = {&into->draws, &into->first_accepted, &into->first_chance_fx,
                              &into->first_variance_fx, &into->violations};
    const uint64_t parts[] = {part->draws, part->first_accepted, part->first_chance_fx,
                              part->first_variance_fx, part->violations};
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) /* cI_scalars' first five */
        if (*sums[k] > UINT64_MAX - parts[k])
            return sv_fail(SV_EBAD, "merge: %s: dataset 'c%zu_scalars', element %zu: %llu, and "
                           "%llu in the shards before it: the sum passes 2^64 - 1", path, i, k,
                           (unsigned long long)parts[k], (unsigned long long)*sums[k]);
    sv_tally_add(into, part, plan);
    return SV_OK;
}

int sv_shard_give(void *ctx, size_t i, const sv_case *c, const sv_pair_plan *plan,
                  sv_tally *into, sv_shard_probe *probe, const uint64_t *shares)
{
    const sv_shard_set *s = ctx;
    memset(probe, 0, sizeof *probe);
    if (i >= s->cases)
        return sv_fail(SV_EBAD, "merge: the shards hold %zu cases, the command makes more",
                       s->cases);
    double seconds = 0.0;
    int rc = SV_OK;
    for (size_t k = 0; k < s->n && rc == SV_OK; k++) {
        sv_tally *part = NULL;
        sv_shard_probe p = {0};
        rc = sv_tally_alloc(c, plan, &part);
        if (rc == SV_OK)
            rc = read_case(&s->files[k], i, c, plan, part, &p);
        if (rc == SV_OK)
            rc = check_part(s->files[k].path, i, part, shares ? &shares[k] : NULL, (uint32_t)k,
                            (uint32_t)s->n);
        if (rc == SV_OK)
            rc = add_part(s->files[k].path, i, into, part, plan);
        if (rc == SV_OK) {
            seconds += part->seconds;
            if (p.present && !probe->present) /* shard 0 probes, for every shard */
                *probe = p;
        }
        sv_tally_free(part);
    }
    into->seconds = seconds;
    return rc;
}
