/* mass_from.c: the figures of mass_plot.c from a run's report in memory
 * (verify --plot DIR) and from its JSON (plot REPORT.json, Report.plot()):
 * one per position, not PASS, of each case that failed or is suspect, in
 * its last run's bins. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cjson/cJSON.h>
#include "mass_plot.h"
#include "sv_check.h"
#include "sv_plot.h"

#define MAX_FIGS 512 /* a run's worth: 64 cases of 8 positions */

static int make_dir(const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return sv_fail(SV_EBAD, "--plot %s: cannot make the folder: %s", dir, strerror(errno));
    return SV_OK;
}

/* Draws figs (named for the listing), and says where each went. */
static int draw(const char *dir, const sv_mass_fig *figs, size_t n, double split, FILE *out)
{
    int rc = make_dir(dir);
    if (rc != SV_OK)
        return rc;
    if (n == 0) {
        fprintf(out, "plot: no failing or suspect position: no figure in %s\n", dir);
        return SV_OK;
    }
    char note[512];
    rc = sv_gnuplot_status(SV_OK, sv_mass_plot(dir, figs, n, split, note, sizeof note), note);
    for (size_t i = 0; i < n && rc == SV_OK; i++)
        fprintf(out, "plot: %s/mass-%zu.{png,svg,pdf}: %s, position %d (%s)\n", dir, i + 1,
                figs[i].case_name, (int)figs[i].position, figs[i].verdict);
    return rc;
}

int sv_mass_plot_report(const sv_report *r, const char *dir, FILE *out)
{
    sv_mass_fig *figs = calloc(MAX_FIGS, sizeof *figs);
    if (!figs)
        return sv_fail(SV_EENV, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < r->n_cases; i++) {
        const sv_case_report *c = &r->cases[i];
        if (c->verdict == SV_PASS || c->n_runs < 1)
            continue;
        const sv_run_eval *ev = &c->runs[c->n_runs - 1];
        for (int32_t k = 0; k <= ev->K && n < MAX_FIGS; k++) {
            const sv_position_eval *pe = &ev->pos[k];
            if (pe->verdict == SV_PASS || pe->binned.nbins < 1)
                continue;
            figs[n++] = (sv_mass_fig){c->name, k + 1, sv_verdict_name(pe->verdict),
                                      pe->binned.nbins, pe->binned.token, pe->binned.observed,
                                      pe->binned.expected, pe->tail_categories};
        }
    }
    int rc = draw(dir, figs, n, r->split_alpha, out);
    free(figs);
    return rc;
}

/* ---- from a report's JSON ------------------------------------------------------ */

typedef struct json_fig {
    int32_t *token;
    double *observed, *expected;
} json_fig;

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap + 1);
    size_t got;
    while (text && (got = fread(text + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            char *more = realloc(text, 2 * cap + 1);
            if (!more) {
                free(text);
                text = NULL;
                break;
            }
            text = more, cap *= 2;
        }
    }
    fclose(f);
    if (text)
        text[len] = '\0';
    return text;
}

/* One position's bins from its "counts" into fig and own: SV_OK, or SV_EBAD. */
static int take_counts(const char *path, const cJSON *counts, sv_mass_fig *fig, json_fig *own)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(counts, "tokens");
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(counts, "observed");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(counts, "expected");
    const int n = cJSON_GetArraySize(t);
    if (!cJSON_IsArray(t) || n < 1 || cJSON_GetArraySize(o) != n || cJSON_GetArraySize(e) != n)
        return sv_fail(SV_EBAD, "plot %s: a position's counts lack tokens, observed and "
                       "expected of one length", path);
    own->token = malloc((size_t)n * sizeof *own->token);
    own->observed = malloc((size_t)n * sizeof *own->observed);
    own->expected = malloc((size_t)n * sizeof *own->expected);
    if (!own->token || !own->observed || !own->expected)
        return sv_fail(SV_EENV, "out of memory");
    for (int j = 0; j < n; j++) {
        const cJSON *a = cJSON_GetArrayItem(t, j), *b = cJSON_GetArrayItem(o, j),
                    *c = cJSON_GetArrayItem(e, j);
        if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b) || !cJSON_IsNumber(c) ||
            !(c->valuedouble > 0))
            return sv_fail(SV_EBAD, "plot %s: bin %d of a position's counts is not numbers "
                           "with an expected count above 0", path, j);
        own->token[j] = (int32_t)a->valuedouble;
        own->observed[j] = b->valuedouble;
        own->expected[j] = c->valuedouble;
    }
    fig->nbins = n, fig->token = own->token;
    fig->observed = own->observed, fig->expected = own->expected;
    return SV_OK;
}

int sv_mass_plot_json(const char *path, const char *dir, FILE *out)
{
    char *text = read_text(path);
    if (!text)
        return sv_fail(SV_EBAD, "plot %s: cannot read it: %s", path, strerror(errno));
    cJSON *root = cJSON_Parse(text);
    free(text);
    const cJSON *split = cJSON_GetObjectItemCaseSensitive(root, "split_alpha");
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    if (!root || !cJSON_IsNumber(split) || !cJSON_IsArray(cases)) {
        cJSON_Delete(root);
        return sv_fail(SV_EBAD, "plot %s: not a report of verify --json (no split_alpha and "
                       "cases)", path);
    }
    sv_mass_fig *figs = calloc(MAX_FIGS, sizeof *figs);
    json_fig *own = calloc(MAX_FIGS, sizeof *own);
    int rc = figs && own ? SV_OK : sv_fail(SV_EENV, "out of memory");
    size_t n = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cases) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
        const cJSON *verdict = cJSON_GetObjectItemCaseSensitive(c, "verdict");
        const cJSON *runs = cJSON_GetObjectItemCaseSensitive(c, "runs");
        const cJSON *run = cJSON_GetArrayItem(runs, cJSON_GetArraySize(runs) - 1);
        if (rc != SV_OK || !cJSON_IsString(name) || !cJSON_IsString(verdict) || !run ||
            strcmp(verdict->valuestring, "PASS") == 0)
            continue;
        const cJSON *p;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(run, "positions")) {
            const cJSON *pv = cJSON_GetObjectItemCaseSensitive(p, "verdict");
            const cJSON *pos = cJSON_GetObjectItemCaseSensitive(p, "position");
            const cJSON *counts = cJSON_GetObjectItemCaseSensitive(p, "counts");
            const cJSON *tail = cJSON_GetObjectItemCaseSensitive(p, "pooled_tail_categories");
            if (!cJSON_IsString(pv) || strcmp(pv->valuestring, "PASS") == 0 ||
                !cJSON_IsNumber(pos) || n >= MAX_FIGS ||
                !cJSON_GetObjectItemCaseSensitive(p, "N"))
                continue;
            if (!cJSON_IsObject(counts)) { /* no test ran there, or an old report */
                if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(root, "report_format")))
                    continue;
                rc = sv_fail(SV_EBAD, "plot %s: a report_format 1 report: its positions have "
                             "no counts to draw (run verify --json again)", path);
                break;
            }
            figs[n] = (sv_mass_fig){name->valuestring, (int32_t)pos->valuedouble,
                                    pv->valuestring, 0, NULL, NULL, NULL,
                                    cJSON_IsNumber(tail) ? (int32_t)tail->valuedouble : 0};
            if ((rc = take_counts(path, counts, &figs[n], &own[n])) != SV_OK)
                break;
            n++;
        }
    }
    if (rc == SV_OK)
        rc = draw(dir, figs, n, split->valuedouble, out);
    for (size_t i = 0; own && i < MAX_FIGS; i++)
        free(own[i].token), free(own[i].observed), free(own[i].expected);
    free(own);
    free(figs);
    cJSON_Delete(root);
    return rc;
}
