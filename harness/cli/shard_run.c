/* shard_run.c: `--shard I/N` of mutants, sweep and calibrate (issue 28), and
 * their side of merge. A command runs many cases (mutants: each variant's
 * cases; sweep: each point; calibrate: its runs): they are numbered in the
 * order the command meets them, one shard file holds them all, and merge
 * replays the command with each number's summed counts in its place. The
 * numbering is the command's own, the same in every shard and in merge,
 * because every shard runs the same command. */
#include <stdlib.h>
#include <string.h>
#include "sv_cli.h"
#include "sv_report.h"

int sv_cmd_shard_init(sv_cmd_shard *s, int argc, char **argv, const sv_shard_hooks *merge)
{
    memset(s, 0, sizeof *s);
    s->merge = merge;
    return sv_shard_command(argc, argv, &s->command, &s->n_command);
}

int sv_cmd_shard_option(int opt, const char *value, sv_cmd_shard *s, int *rc)
{
    switch (opt) {
    case SV_O_SHARD:
        s->text = value;
        *rc = sv_parse_shard("--shard", value, &s->index, &s->count);
        return 1;
    case SV_O_SHARD_FILE:
        *rc = sv_output_flag(s->command && s->n_command ? s->command[0] : "specverify",
                             "--shard-file", &s->file, value);
        return 1;
    default: return 0;
    }
}

int sv_cmd_shard_open(sv_cmd_shard *s, const char *command, const char *sampler, uint64_t seed,
                      double alpha)
{
    if (s->file && !s->text)
        return sv_fail(SV_EBAD, "%s: --shard-file is where --shard I/N writes; give --shard",
                       command);
    if (!s->text)
        return SV_OK;
    if (s->merge) /* a merge replays the shards' command, which never holds --shard */
        return sv_fail(SV_EBAD, "%s: a merged command cannot be a shard", command);
    if (!s->file) {
        snprintf(s->path, sizeof s->path, "shard-%u-of-%u.h5", s->index + 1, s->count);
        s->file = s->path;
    }
    int rc = sv_h5_check(s->file);
    if (rc == SV_OK)
        rc = sv_shard_writer_open(s->file, s->command, s->n_command, s->index, s->count, 0,
                                  &s->w);
    if (rc == SV_OK)
        rc = sv_shard_writer_about(s->w, sampler, seed, alpha);
    return rc;
}

/* The base hooks with case numbers moved by the holder's offset; a case's
 * label (cI_label) written beside its counts, and checked before a merge
 * takes them. */
static int take_at(void *ctx, size_t i, const sv_case *c, const sv_pair_plan *plan,
                   const sv_tally *t, const sv_shard_probe *probe)
{
    const sv_shard_at *at = ctx;
    char name[64];
    const char *label = at->label;
    snprintf(name, sizeof name, "c%zu_label", at->offset + i);
    int rc = at->base.take(at->base.ctx, at->offset + i, c, plan, t, probe);
    return rc == SV_OK ? sv_h5_strings(sv_shard_writer_file(at->base.ctx), name, &label, 1)
                       : rc;
}

static int give_at(void *ctx, size_t i, const sv_case *c, const sv_pair_plan *plan,
                   sv_tally *into, sv_shard_probe *probe, const uint64_t *shares)
{
    const sv_shard_at *at = ctx;
    sv_h5_reader *r = sv_shard_set_file(at->base.ctx, 0);
    char name[64], **label = NULL;
    size_t n = 0;
    snprintf(name, sizeof name, "c%zu_label", at->offset + i);
    int rc = i + at->offset >= sv_shard_set_cases(at->base.ctx)
                 ? sv_fail(SV_EBAD, "merge: the shards hold %zu cases, and the command here "
                           "makes more (%s's %s)", sv_shard_set_cases(at->base.ctx), at->label,
                           c->name)
                 : sv_h5_read_strings(r, name, &label, &n);
    if (rc == SV_OK && (n != 1 || strcmp(label[0], at->label) != 0))
        rc = sv_fail(SV_EBAD, "merge: case %zu of the shards is %s's, where the command here "
                     "makes it %s's (did a variant run where the shards ran and not here, "
                     "such as a GPU's?)", at->offset + i + 1, n == 1 ? label[0] : "nobody",
                     at->label);
    for (size_t k = 0; k < n; k++)
        free(label[k]);
    free(label);
    return rc == SV_OK ? at->base.give(at->base.ctx, at->offset + i, c, plan, into, probe,
                                           shares)
                       : rc;
}

const sv_shard_hooks *sv_cmd_shard_next(sv_cmd_shard *s, size_t n_cases, const char *label,
                                        sv_shard_at *at)
{
    memset(at, 0, sizeof *at);
    snprintf(at->label, sizeof at->label, "%s", label);
    if (s->w)
        at->base = (sv_shard_hooks){s->index, s->count, sv_shard_take, NULL, s->w, 0, 0};
    else if (s->merge)
        at->base = *s->merge;
    else
        return NULL;
    at->offset = s->slot;
    s->slot += n_cases;
    at->hooks = (sv_shard_hooks){at->base.index, at->base.count,
                                 at->base.take ? take_at : NULL,
                                 at->base.give ? give_at : NULL, at, 0, 0};
    return &at->hooks;
}

int sv_cmd_shard_close(sv_cmd_shard *s, int rc, int interrupted, const char *what)
{
    if (!s->w)
        return rc;
    const int wrc = sv_shard_writer_close(s->w, rc == SV_OK && !interrupted);
    s->w = NULL;
    if (rc == SV_OK && interrupted) {
        fprintf(stderr, "specverify: interrupted by %s; shard %u of %u not written (a shard "
                "holds whole counts or nothing)\n", sv_signal_name(interrupted), s->index + 1,
                s->count);
        return 128 + interrupted;
    }
    if (rc == SV_OK && wrc == SV_OK)
        printf("shard %u of %u: %s, written to %s; 'specverify merge' its %u shard files for "
               "the verdict\n", s->index + 1, s->count, what, s->file, s->count);
    return rc != SV_OK ? rc : wrc;
}

void sv_cmd_shard_free(sv_cmd_shard *s)
{
    if (s->w)
        sv_shard_writer_close(s->w, 0);
    s->w = NULL;
    free(s->command);
    s->command = NULL;
}
