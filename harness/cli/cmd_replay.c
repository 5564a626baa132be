/* cmd_replay.c: `specverify replay FILE`: gives the sampler again a batch
 * that verify --dump-failing wrote, rebuilt exactly from the file, and says
 * whether the failure comes back (docs/verify.md#the-failing-batch-again).
 * The sampler runs isolated as in verify; the verdict is the harness's. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "replay.h"
#include "sv_sandbox.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: specverify replay FILE [--sampler NAME] [--plugin LIB] [--python FILE.py:NAME]\n"
        "                              [--json FILE] [--call-timeout S] [--in-process]\n"
        "                              [--sandbox MODE]\n"
        "\n"
        "Gives the sampler again a batch that 'verify --dump-failing DIR' wrote to FILE: the\n"
        "first batch in which a case broke the contract, or the two batches of a\n"
        "batch-composition failure (a seeded sequence that changed its tokens with its\n"
        "neighbours). The batch is rebuilt exactly from the file: its cases from their\n"
        "specs, each checked against the hash of the rows the run gave; each sequence's\n"
        "case, drafts, seeding and index; the layout and the seed. The outputs are\n"
        "checked as verify checks them: a contract failure comes back when a sequence\n"
        "breaks the contract again, a composition failure when the sequence's tokens\n"
        "differ between its two batches again. Prints what the run saw, what the replay\n"
        "saw, and whether the sampler gave the same outputs as in the run.\n"
        "\n"
        "  --sampler NAME  the sampler to give the batch (default: the file's; another\n"
        "                  one, a fixed build say, must take the same batch)\n"
        "  --plugin LIB    load samplers from a shared library first (repeatable), as\n"
        "                  the run did: the file's reproduce line names what it loaded\n"
        SV_PYTHON_HELP
        "  --json FILE     what came of it as data (replay_format 1,\n"
        "                  docs/formats.md#replay-json)\n"
        SV_ISOLATION_HELP
        "  -h, --help      this text\n"
        "\n"
        "Exit status: 1 the failure came back (or the sampler failed another way: a\n"
        "crash, an error status, a timeout), 0 it did not, 2 bad usage or a file that\n"
        "is no failing batch or no longer matches its cases.\n"
        "\n"
        "A run that writes them: specverify verify --sampler counts_off_by_one --suite smoke\n"
        "--dump-failing dumps (exit 1); 'specverify replay dumps/FILE' then breaks the\n"
        "contract again (exit 1). The committed one below is such a file; ref keeps the\n"
        "contract on its batch (exit 0).\n"
        "\n"
        "Examples:\n"
        "  specverify replay --sampler ref tests/cli/data/counts_off_by_one.contract.h5\n"
        "  specverify verify --sampler ref --suite smoke --dump-failing dumps\n");
}

enum { O_SAMPLER = 1000, O_PLUGIN, O_JSON };
static const struct option options[] = {
    {"sampler", required_argument, NULL, O_SAMPLER},
    {"json", required_argument, NULL, O_JSON},
    {"plugin", required_argument, NULL, O_PLUGIN},
    SV_ISOLATION_OPTIONS,
    SV_PYTHON_OPTIONS,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* The sampler's raw outputs of a batch in which a sequence broke the
 * contract (the capture marks such a sequence -2 and keeps nothing). */
typedef struct raw_rows {
    sv_failing_sink sink;
    int32_t *rows;
    int fired;
} raw_rows;

static void keep_raw(const sv_failing_sink *sink, const sv_failing_batch *fb, const char *note)
{
    (void)note; /* the tallies hold every note */
    raw_rows *r = sink->ctx;
    memcpy(r->rows, fb->rows, (size_t)fb->B * (SV_MAX_K + 2) * sizeof *r->rows);
    r->fired = 1;
}

/* Part pt given to the sampler once: what it gave into got, its breaches
 * and failures into tallies. */
static int run_part(const replay_file *f, const replay_part *pt, const sv_isolation *iso,
                    const sv_drafter *const *drafters, int32_t *got, sv_tally **tallies)
{
    sv_mix *m = NULL;
    int rc = sv_mix_build_given((const sv_case *const *)f->cases, f->n_cases, pt->case_of,
                                pt->drafts, pt->seeded, pt->indices, pt->B, pt->layout, f->v3,
                                f->seed, &m);
    sv_pair_plan *plans = calloc((size_t)f->n_cases, sizeof *plans); /* no pair tables */
    raw_rows raw = {{keep_raw, NULL}, calloc((size_t)pt->B * (SV_MAX_K + 2), sizeof(int32_t)),
                    0};
    raw.sink.ctx = &raw;
    if (rc == SV_OK && (!plans || !raw.rows))
        rc = sv_fail(SV_EENV, "out of memory for a batch of %d", pt->B);
    for (int32_t c = 0; c < f->n_cases && rc == SV_OK; c++)
        rc = sv_tally_alloc(f->cases[c], &plans[c], &tallies[c]);
    sv_run_config run = {f->sampler, (uint64_t)pt->B, f->seed, pt->B, 1, 0, "replay",
                         f->input, iso->in_process, iso->call_timeout, NULL, 0, 0, NULL, 0,
                         &raw.sink};
    if (rc == SV_OK)
        rc = sv_run_mix(&run, m, drafters, plans, tallies, 0, got);
    /* a contract file holds the raw outputs, a composition file the probes' rows */
    if (rc == SV_OK && raw.fired && f->n_parts == 1)
        memcpy(got, raw.rows, (size_t)pt->B * (SV_MAX_K + 2) * sizeof *got);
    free(raw.rows);
    free(plans);
    sv_mix_free(m);
    return rc;
}

static void say_row(const int32_t *row)
{
    if (row[0] < 0) {
        printf("broke the contract");
        return;
    }
    printf("n = %d, tokens", row[0]);
    for (int32_t k = 0; k <= SV_MAX_K && row[1 + k] >= 0; k++)
        printf(" %d", row[1 + k]);
}

/* The part's breaches, failures and first notes (the sampler's words
 * escaped already), four in all parts together. */
static void take_notes(const replay_file *f, sv_tally **tallies, replay_outcome *o)
{
    for (int32_t c = 0; c < f->n_cases; c++) {
        o->failed |= tallies[c]->sampler_error != 0;
        o->broken |= tallies[c]->violations > 0;
        for (int32_t i = 0; i < tallies[c]->n_notes && o->n_notes < 4; i++)
            snprintf(o->notes[o->n_notes++], SV_NOTE_LEN, "%s", tallies[c]->notes[i]);
    }
}

static void compare_rows(const replay_part *pt, const int32_t *got, int32_t *same,
                         int32_t *first)
{
    *same = 0;
    *first = -1;
    for (int32_t b = 0; b < pt->B; b++) {
        const size_t at = (size_t)b * (SV_MAX_K + 2);
        if (memcmp(got + at, pt->rows + at, (SV_MAX_K + 2) * sizeof *got) == 0)
            (*same)++;
        else if (*first < 0)
            *first = b;
    }
}

static void say_part(const replay_file *f, const char *what, const replay_part *pt)
{
    /* a case's name is escaped as it is built (sv_case_ready) */
    printf("  %s: %d sequence%s, %s layout; the finding's sequence %llu (place %d, case %s)\n",
           what, pt->B, pt->B == 1 ? "" : "s",
           pt->layout == SV_LAYOUT_PACKED ? "packed" : "padded",
           (unsigned long long)pt->indices[pt->target], pt->target,
           f->cases[pt->case_of[pt->target]]->name);
}

/* Every part given to the sampler again, and what came of it into o. */
static int replay(const replay_file *f, const sv_isolation *iso, replay_outcome *o)
{
    const int parts = f->n_parts == 2 ? 2 : 1;
    sv_drafter **drafters = calloc((size_t)f->n_cases, sizeof *drafters);
    sv_tally **tallies = calloc(2 * (size_t)f->n_cases, sizeof *tallies);
    for (int p = 0; p < parts; p++)
        o->got[p] = calloc((size_t)f->parts[p].B * (SV_MAX_K + 2), sizeof *o->got[p]);
    int rc = drafters && tallies && o->got[0] && (parts < 2 || o->got[1])
                 ? SV_OK : sv_fail(SV_EENV, "out of memory");
    for (int32_t c = 0; c < f->n_cases && rc == SV_OK; c++)
        rc = sv_drafter_alloc(f->cases[c], &drafters[c]);
    for (int p = 0; p < parts && rc == SV_OK; p++)
        rc = run_part(f, &f->parts[p], iso, (const sv_drafter *const *)drafters, o->got[p],
                      tallies + (size_t)p * f->n_cases);
    for (int p = 0; p < parts && rc == SV_OK; p++) {
        take_notes(f, tallies + (size_t)p * f->n_cases, o);
        compare_rows(&f->parts[p], o->got[p], &o->same[p], &o->first[p]);
    }
    if (rc == SV_OK && parts == 2)
        o->differ = memcmp(o->got[0] + (size_t)f->parts[0].target * (SV_MAX_K + 2),
                           o->got[1] + (size_t)f->parts[1].target * (SV_MAX_K + 2),
                           (SV_MAX_K + 2) * sizeof(int32_t)) != 0;
    o->says = f->n_parts == 1 ? (o->broken   ? "REPRODUCED: the batch broke the contract again"
                                 : o->failed ? "REPRODUCED: the sampler failed on the batch again"
                                             : "NOT REPRODUCED: every sequence of the batch "
                                               "kept the contract")
              : o->differ ? "REPRODUCED: the seeded sequence changed its tokens with its "
                            "neighbours again"
              : o->broken ? "REPRODUCED: not the change of tokens, but a broken contract"
              : o->failed ? "REPRODUCED: not the change of tokens, but the sampler failed"
                          : "NOT REPRODUCED: the sequence gave the same tokens in both batches";
    o->reproduced = o->differ || o->broken || o->failed;
    for (int32_t c = 0; drafters && c < f->n_cases; c++)
        sv_drafter_free(drafters[c]);
    for (int32_t c = 0; tallies && c < 2 * f->n_cases; c++)
        sv_tally_free(tallies[c]);
    free(drafters);
    free(tallies);
    return rc;
}

static void say_outcome(const replay_file *f, const replay_outcome *o)
{
    for (int i = 0; i < o->n_notes; i++)
        printf("  again: %s\n", o->notes[i]);
    if (f->n_parts == 1 && o->same[0] == f->parts[0].B)
        printf("  outputs: the same as in the run, in all %d sequences\n", o->same[0]);
    else if (f->n_parts == 1)
        printf("  outputs: the same as in the run in %d of %d sequences; the first that "
               "differs is sequence %llu (place %d)\n", o->same[0], f->parts[0].B,
               (unsigned long long)f->parts[0].indices[o->first[0]], o->first[0]);
    else {
        printf("  again: batch a gave ");
        say_row(o->got[0] + (size_t)f->parts[0].target * (SV_MAX_K + 2));
        printf("; batch b gave ");
        say_row(o->got[1] + (size_t)f->parts[1].target * (SV_MAX_K + 2));
        printf("\n");
    }
    printf("%s\n", o->says);
}

/* What a sampler other than the run's must take for the batch to be the same. */
static int takes_batch(const replay_file *f)
{
    const sv_sampler *s = f->sampler;
    int rc = sv_sampler_takes("replay", s, f->input);
    if (rc == SV_OK && f->v3 != (s->layouts != 0))
        rc = sv_fail(SV_EBAD, "replay: the file holds a batch for a sampler %s per-sequence "
                     "arrays (contract version 3), and sampler %s takes %s", f->v3 ? "with" :
                     "without", s->name, s->layouts ? "them" : "none");
    if (rc == SV_OK && f->own_drafts != ((s->inputs & SV_INPUT_OWN_DRAFTS) != 0))
        rc = sv_fail(SV_EBAD, "replay: the file's batch gave %s, and sampler %s %s", f->own_drafts
                     ? "the sampler uniforms to draw its own drafts" : "the harness's drafts",
                     s->name, f->own_drafts ? "takes drafts" : "draws its own");
    for (int p = 0; rc == SV_OK && p < f->n_parts; p++)
        if (f->v3 && !(s->layouts & SV_LAYOUT_BIT(f->parts[p].layout)))
            rc = sv_fail(SV_EBAD, "replay: sampler %s does not take the %s layout of the "
                         "file's batch", s->name,
                         f->parts[p].layout == SV_LAYOUT_PACKED ? "packed" : "padded");
    return rc;
}

int sv_cmd_replay(int argc, char **argv)
{
    const char *sampler = NULL, *json = NULL;
    sv_isolation iso = {0, SV_CALL_TIMEOUT_DEFAULT};
    int opt, rc = SV_OK;
    opterr = 0;
    while (rc == SV_OK && (opt = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        char err[1024];
        switch (opt) {
        case O_SAMPLER: sampler = optarg; break;
        case O_JSON: rc = sv_output_flag("replay", "--json", &json, optarg); break;
        case O_PLUGIN:
            if (sv_plugin_load(optarg, err, sizeof err) != 0)
                rc = sv_fail(SV_EBAD, "%s", err);
            break;
        case 'h': usage(stdout); return SV_OK;
        default:
            if (!sv_isolation_option(opt, optarg, &iso, &rc) && !sv_python_option(opt, optarg, &rc))
                rc = sv_option_error("replay", opt, options, argv);
        }
    }
    if (rc == SV_OK && optind != argc - 1)
        rc = sv_fail(SV_EBAD, optind < argc ? "replay: one FILE, not '%s' too"
                                             : "replay: which FILE? (%s)",
                     optind < argc ? argv[argc - 1] : "verify --dump-failing DIR writes them");
    if (rc != SV_OK || (rc = sv_python_load("replay")) != SV_OK)
        return rc;
    if (json && (rc = sv_atomic_check(json)) != SV_OK)
        return rc;
    replay_file f = {0};
    rc = sv_replay_read(argv[optind], sampler, &f);
    if (rc == SV_OK)
        rc = takes_batch(&f);
    if (rc == SV_OK) {
        char path[SV_OUTPUT_PATH], run[2048];
        char sampler_name[sizeof f.sampler_name * 4];
        printf("replay of %s: sampler %s on the %s failure of case %s\n",
               sv_escaped(path, sizeof path, argv[optind]),
               sv_escaped(sampler_name, sizeof sampler_name, f.sampler->name), f.kind,
               f.case_name);
        printf("  the run: %s\n", f.finding); /* the file's words, escaped when read */
        /* the case alone, as the run ran it: the command's prefix, then the case */
        size_t used = (size_t)snprintf(run, sizeof run, "%s", f.reproduce);
        sv_shell_quote(run, sizeof run, used + (size_t)snprintf(run + used, sizeof run - used,
                                                                " --case "), f.case_name);
        printf("  the case alone: %s --seed %llu\n", run, (unsigned long long)f.seed);
        say_part(&f, f.n_parts == 1 ? "the batch" : "batch a", &f.parts[0]);
        if (f.n_parts == 2)
            say_part(&f, "batch b", &f.parts[1]);
        fflush(stdout);
        replay_outcome o = {0};
        rc = replay(&f, &iso, &o);
        if (rc == SV_OK) {
            say_outcome(&f, &o);
            fflush(stdout); /* the verdict first: a JSON that cannot be written loses nothing */
            sv_outputs_status written = {0};
            if (json)
                sv_outputs_note(&written, sv_replay_json(json, argv[optind], &f, &o));
            rc = sv_outputs_end(&written, o.reproduced ? SV_EVERIFY : SV_OK);
        }
        free(o.got[0]);
        free(o.got[1]);
    }
    sv_replay_free(&f);
    return rc;
}
