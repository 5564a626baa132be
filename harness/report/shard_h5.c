/* shard_h5.c: the shard files of a verification cut into shards (issue 28):
 * `verify --shard I/N` writes each case's raw tallies of its first run, with
 * the command that identifies the run; `merge` checks that the files are
 * the shards of one run, each once, and gives verify their summed counts in
 * place of running the cases (harness/check: sv_shard_hooks), so that it
 * prints and writes what the whole run would have.
 *
 * Layout (docs/formats.md, "Shard files"): root attributes kind = "shard",
 * shard, shards, cases, specverify_version; the strings `command` (verify's
 * arguments without --shard and --shard-file), and what the command made of
 * them: sampler, seed, alpha; per case i, the string cI_case (its spec),
 * datasets cI_shape
 * (K, V, the pair tables' sizes, transitions or not), cI_scalars, cI_reached,
 * cI_length, cI_law, cI_law2, cI_hist, cI_pairs_seq, cI_pairs_pos,
 * cI_transitions, cI_note_at and cI_notes, cI_seconds, and the probes' cI_probe,
 * cI_seed_chance, cI_probe_findings. Counts are unsigned 64-bit, exact. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_report.h"
#include "sv_store.h"

enum { SCALARS = 8, PROBE = 8, SHAPE = 5 };

struct sv_shard_writer {
    sv_h5 f;
    size_t n_cases, taken;
};

int sv_shard_writer_open(const char *path, const char *const *command, size_t n_command,
                         uint32_t index, uint32_t count, size_t n_cases, sv_shard_writer **out)
{
    *out = NULL;
    sv_shard_writer *w = calloc(1, sizeof *w);
    if (!w)
        return sv_fail(SV_EENV, "out of memory for a shard file");
    int rc = sv_h5_create(&w->f, path);
    char text[32];
    snprintf(text, sizeof text, "%u", index);
    if (rc == SV_OK)
        rc = sv_h5_attr(&w->f, "shard", text);
    snprintf(text, sizeof text, "%u", count);
    if (rc == SV_OK)
        rc = sv_h5_attr(&w->f, "shards", text);
    if (rc == SV_OK)
        rc = sv_h5_strings(&w->f, "command", command, n_command);
    if (rc != SV_OK) {
        if (w->f.file >= 0)
            sv_h5_abort(&w->f);
        free(w);
        return rc;
    }
    w->n_cases = n_cases;
    *out = w;
    return SV_OK;
}

static size_t table_cells(const sv_pair_plan *plan, int pos)
{
    return pos ? (size_t)plan->pos_rows.nbins * (size_t)plan->pos_cols.nbins
               : (size_t)plan->seq_rows.nbins * (size_t)plan->seq_cols.nbins;
}

int sv_shard_take(void *ctx, size_t i, const sv_case *c, const sv_pair_plan *plan,
                  const sv_tally *t, const sv_shard_probe *probe)
{
    sv_shard_writer *w = ctx;
    sv_h5 *f = &w->f;
    char name[64];
#define NAME(what) (snprintf(name, sizeof name, "c%zu_%s", i, what), name)
    const uint64_t shape[SHAPE] = {(uint64_t)t->K, (uint64_t)t->V, table_cells(plan, 0),
                                   table_cells(plan, 1), t->transitions != NULL};
    const uint64_t scalars[SCALARS] = {t->draws,          t->first_accepted, t->first_chance_fx,
                                       t->first_variance_fx, t->violations, (uint64_t)t->tree,
                                       (uint64_t)(int64_t)t->sampler_error, (uint64_t)t->n_notes};
    const char *spec = c->name; /* the case as the shard made it: merge checks its own */
    int rc = sv_h5_strings(f, NAME("case"), &spec, 1);
    if (rc == SV_OK)
        rc = sv_h5_u64s(f, NAME("shape"), shape, SHAPE);
    if (rc == SV_OK)
        rc = sv_h5_u64s(f, NAME("scalars"), scalars, SCALARS);
    sv_tally_counts counts[SV_TALLY_COUNTS];
    sv_tally_counts_of(t, plan, counts);
    for (int a = 0; a < SV_TALLY_COUNTS && rc == SV_OK; a++)
        if (counts[a].data) /* a Markov pair's transitions alone */
            rc = sv_h5_u64s(f, NAME(counts[a].name), counts[a].data, counts[a].n);
    if (rc == SV_OK)
        rc = sv_h5_u64s(f, NAME("note_at"), t->note_at, (size_t)t->n_notes);
    const char *notes[SV_MAX_NOTES];
    for (int32_t k = 0; k < t->n_notes; k++)
        notes[k] = t->notes[k];
    if (rc == SV_OK)
        rc = sv_h5_strings(f, NAME("notes"), notes, (size_t)t->n_notes);
    if (rc == SV_OK)
        rc = sv_h5_doubles(f, NAME("seconds"), &t->seconds, 1, 0);
    sv_shard_probe none = {0};
    const sv_shard_probe *p = probe ? probe : &none;
    const uint64_t fields[PROBE] = {(uint64_t)p->present, p->batch_probed, p->batch_changed,
                                    p->seed_probed,       p->seed_same,
                                    (uint64_t)p->batch_verdict, (uint64_t)p->seed_verdict,
                                    (uint64_t)p->n_findings};
    const char *findings[SV_MAX_FINDINGS];
    for (int32_t k = 0; k < p->n_findings; k++)
        findings[k] = p->findings[k];
    if (rc == SV_OK)
        rc = sv_h5_u64s(f, NAME("probe"), fields, PROBE);
    if (rc == SV_OK)
        rc = sv_h5_doubles(f, NAME("seed_chance"), &p->seed_chance, 1, 0);
    if (rc == SV_OK)
        rc = sv_h5_strings(f, NAME("probe_findings"), findings, (size_t)p->n_findings);
#undef NAME
    w->taken += rc == SV_OK;
    return rc;
}

int sv_shard_writer_about(sv_shard_writer *w, const char *sampler, uint64_t seed, double alpha)
{
    char text[64];
    int rc = sampler ? sv_h5_attr(&w->f, "sampler", sampler) : SV_OK;
    snprintf(text, sizeof text, "%llu", (unsigned long long)seed);
    if (rc == SV_OK)
        rc = sv_h5_attr(&w->f, "seed", text);
    snprintf(text, sizeof text, "%.15g", alpha); /* 1e-06, not 9.9999999999999995e-07 */
    if (strtod(text, NULL) != alpha)
        snprintf(text, sizeof text, "%.17g", alpha);
    if (rc == SV_OK && alpha > 0)
        rc = sv_h5_attr(&w->f, "alpha", text);
    return rc;
}

sv_h5 *sv_shard_writer_file(sv_shard_writer *w)
{
    return &w->f;
}

int sv_shard_writer_close(sv_shard_writer *w, int commit)
{
    if (!w)
        return SV_OK;
    int rc = SV_OK;
    if (commit && w->n_cases && w->taken != w->n_cases)
        rc = sv_fail(SV_EVERIFY, "the shard holds %zu of its %zu cases: not written", w->taken,
                     w->n_cases);
    char cases[32]; /* those planned, or with none planned those taken */
    snprintf(cases, sizeof cases, "%zu", w->n_cases ? w->n_cases : w->taken);
    if (rc == SV_OK && commit)
        rc = sv_h5_attr(&w->f, "cases", cases);
    if (rc == SV_OK && commit) {
        rc = sv_h5_attr(&w->f, "specverify_version", SV_VERSION);
        if (rc == SV_OK)
            rc = sv_h5_attr(&w->f, "kind", "shard");
    }
    if (rc == SV_OK && commit)
        rc = sv_h5_commit(&w->f);
    else
        sv_h5_abort(&w->f);
    free(w);
    return rc;
}
