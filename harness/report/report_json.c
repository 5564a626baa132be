/* report_json.c: the whole report as JSON (cJSON), written atomically. */
#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sv_report.h"

static cJSON *gof_json(sv_gof g)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "stat", g.stat);
    cJSON_AddNumberToObject(o, "df", g.df);
    if (g.df > 0)
        cJSON_AddNumberToObject(o, "p", g.p);
    else
        cJSON_AddNullToObject(o, "p");
    return o;
}

/* The bins a position's tests used: each kept token's count beside its
 * expected count N p, the pooled tail (token -1) last, and the draws of
 * tokens of probability 0 outside them; at most min(V, N / 10) + 1 bins,
 * so the report stays small for any V (docs/formats.md). */
static void binned_json(cJSON *p, const sv_pooled *b)
{
    if (b->nbins == 0)
        return;
    cJSON *o = cJSON_AddObjectToObject(p, "counts");
    cJSON *tokens = cJSON_AddArrayToObject(o, "tokens");
    cJSON *observed = cJSON_AddArrayToObject(o, "observed");
    cJSON *expected = cJSON_AddArrayToObject(o, "expected");
    for (int32_t j = 0; j < b->nbins; j++) {
        cJSON_AddItemToArray(tokens, cJSON_CreateNumber(b->token[j]));
        cJSON_AddItemToArray(observed, cJSON_CreateNumber(b->observed[j]));
        cJSON_AddItemToArray(expected, cJSON_CreateNumber(b->expected[j]));
    }
    cJSON_AddNumberToObject(o, "outside_support", (double)b->stray);
}

static cJSON *run_json(const sv_run_eval *ev)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "seed", (double)ev->seed);
    cJSON_AddNumberToObject(o, "draws", (double)ev->draws);
    cJSON_AddNumberToObject(o, "seconds", ev->seconds);
    cJSON_AddNumberToObject(o, "draws_per_second",
                            ev->seconds > 0 ? (double)ev->draws / ev->seconds : 0.0);
    cJSON_AddStringToObject(o, "verdict", sv_verdict_name(ev->verdict));
    cJSON_AddStringToObject(o, "contract", sv_verdict_name(ev->contract_verdict));
    cJSON_AddNumberToObject(o, "violations", (double)ev->violations);

    cJSON *positions = cJSON_AddArrayToObject(o, "positions");
    for (int32_t k = 0; k <= ev->K; k++) {
        const sv_position_eval *pe = &ev->pos[k];
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "position", k + 1);
        cJSON_AddNumberToObject(p, "N", (double)pe->N);
        cJSON_AddNumberToObject(p, "bins", pe->bins);
        cJSON_AddNumberToObject(p, "pooled_tail_mass", pe->tail_mass);
        cJSON_AddNumberToObject(p, "pooled_tail_categories", pe->tail_categories);
        cJSON_AddItemToObject(p, "chi2", gof_json(pe->chi2));
        cJSON_AddItemToObject(p, "g", gof_json(pe->g));
        cJSON *tv = cJSON_AddObjectToObject(p, "tv");
        cJSON_AddNumberToObject(tv, "value", pe->tv);
        cJSON_AddNumberToObject(tv, "expected_under_null", pe->tv_expected);
        cJSON_AddNumberToObject(tv, "threshold", pe->tv_threshold);
        cJSON_AddNumberToObject(tv, "min_detectable", pe->tv_min_detectable);
        cJSON_AddNumberToObject(tv, "p_bound", pe->tv_p);
        cJSON_AddNumberToObject(p, "w2_min_detectable", pe->w2_min_detectable);
        binned_json(p, &pe->binned);
        if (pe->N > 0 && isfinite(pe->dist.kl)) { /* --measure's numbers, every run */
            cJSON *d = cJSON_AddObjectToObject(p, "distance");
            cJSON_AddNumberToObject(d, "level", SV_MEASURE_LEVEL);
            sv_json_distance(d, &pe->dist);
        }
        cJSON_AddStringToObject(p, "verdict", sv_verdict_name(pe->verdict));
        cJSON_AddItemToArray(positions, p);
    }
    cJSON *len = cJSON_AddObjectToObject(o, "accepted_length");
    cJSON_AddItemToObject(len, "test", gof_json(ev->length));
    cJSON *obs = cJSON_AddArrayToObject(len, "observed");
    cJSON *exp = cJSON_AddArrayToObject(len, "expected_probability");
    for (int32_t j = 0; j <= ev->K; j++) {
        cJSON_AddItemToArray(obs, cJSON_CreateNumber((double)ev->length_observed[j]));
        cJSON_AddItemToArray(exp, cJSON_CreateNumber(ev->length_expected[j]));
    }
    cJSON_AddStringToObject(len, "verdict", sv_verdict_name(ev->length_verdict));
    if (ev->rule == SV_RULE_BLOCK && !ev->chain && ev->K >= 2) { /* the one-sided test's means */
        cJSON_AddNumberToObject(len, "mean", ev->mean_accepted);
        cJSON_AddNumberToObject(len, "chain_mean", ev->mean_accepted_chain);
    }
    cJSON *ind = cJSON_AddObjectToObject(o, "independence");
    cJSON_AddItemToObject(ind, "consecutive_sequences", gof_json(ev->indep_seq));
    cJSON_AddItemToObject(ind, "positions_1_2", gof_json(ev->indep_pos));
    if (ev->chain) {
        cJSON *seq = cJSON_AddObjectToObject(o, "sequence");
        cJSON_AddNumberToObject(seq, "transitions", (double)ev->transitions);
        cJSON_AddNumberToObject(seq, "states_tested", ev->states_tested);
        cJSON_AddItemToObject(seq, "chi2", gof_json(ev->seq_chi2));
        cJSON_AddItemToObject(seq, "g", gof_json(ev->seq_g));
        cJSON_AddStringToObject(seq, "verdict", sv_verdict_name(ev->seq_verdict));
        cJSON_AddNumberToObject(seq, "draft1_accepted", (double)ev->first_accepted);
        cJSON_AddNumberToObject(seq, "draft1_accepted_expected", ev->first_expected);
    }
    if (ev->batch_verdict != SV_NA || ev->seed_verdict != SV_NA) { /* mixed batches' probes */
        cJSON *bc = cJSON_AddObjectToObject(o, "batch_composition");
        cJSON_AddNumberToObject(bc, "seeded_probed", (double)ev->batch_probed);
        cJSON_AddNumberToObject(bc, "changed", (double)ev->batch_changed);
        cJSON_AddStringToObject(bc, "verdict", sv_verdict_name(ev->batch_verdict));
        cJSON *ss = cJSON_AddObjectToObject(o, "seed_sensitivity");
        cJSON_AddNumberToObject(ss, "probed", (double)ev->seed_probed);
        cJSON_AddNumberToObject(ss, "same_under_other_seeds", (double)ev->seed_same);
        cJSON_AddNumberToObject(ss, "chance_all_same", ev->seed_chance);
        cJSON_AddStringToObject(ss, "verdict", sv_verdict_name(ev->seed_verdict));
    }
    cJSON *findings = cJSON_AddArrayToObject(o, "findings");
    for (int32_t f = 0; f < ev->n_findings; f++)
        cJSON_AddItemToArray(findings, cJSON_CreateString(ev->findings[f]));
    return o;
}

int sv_report_json(const sv_report *r, const char *path)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "specverify_version", SV_VERSION);
    /* 2: positions' counts; a reader of 1 finds every field it knew */
    cJSON_AddNumberToObject(root, "report_format", 2);
    cJSON_AddStringToObject(root, "sampler", r->sampler);
    cJSON_AddStringToObject(root, "rule", sv_rule_name(r->rule));
    if (r->tree[0])
        cJSON_AddStringToObject(root, "tree", r->tree);
    cJSON_AddBoolToObject(root, "measure", r->measure);
    /* false only for a lossy rule measured: its verdicts do not count */
    cJSON_AddBoolToObject(root, "judged", !r->verdicts_dropped);
    cJSON_AddStringToObject(root, "sampler_description", r->sampler_description);
    cJSON_AddStringToObject(root, "input", sv_input_name(r->input));
    if (r->suite)
        cJSON_AddStringToObject(root, "suite", r->suite);
    cJSON_AddNumberToObject(root, "seed", (double)r->seed);
    cJSON_AddNumberToObject(root, "family_alpha", r->alpha);
    cJSON_AddNumberToObject(root, "p_values", (double)r->n_tests);
    cJSON_AddNumberToObject(root, "split_alpha", r->split_alpha);
    cJSON_AddNumberToObject(root, "threads", r->threads);
    cJSON_AddNumberToObject(root, "batch", r->batch);
    static const char *const seedings[] = {"mixed", "all", "none"};
    cJSON_AddStringToObject(root, "batches", r->mixed ? "mixed" : "uniform");
    if (r->mixed)
        cJSON_AddStringToObject(root, "seeding", seedings[r->seeding % 3]);
    if (r->not_taken)
        cJSON_AddStringToObject(root, "checks_not_taken", r->not_taken);
    cJSON_AddStringToObject(root, "bonus", r->lacks & SV_LACKS_BONUS ? "harness" : "sampler");
    cJSON *lacks = cJSON_AddArrayToObject(root, "lacks"); /* sv_sampler.lacks, by name */
    static const char *const lacked[] = {"top_k_p", "seeds", "bonus"};
    for (unsigned b = 0; b < sizeof lacked / sizeof lacked[0]; b++)
        if (r->lacks & (1u << b))
            cJSON_AddItemToArray(lacks, cJSON_CreateString(lacked[b]));
    if (r->sandbox)
        cJSON_AddStringToObject(root, "sandbox", r->sandbox);
    if (r->python_exe) {
        cJSON *py = cJSON_AddObjectToObject(root, "python");
        cJSON_AddStringToObject(py, "executable", r->python_exe);
        cJSON_AddStringToObject(py, "version", r->python_version);
        if (r->python_start)
            cJSON_AddStringToObject(py, "start", r->python_start);
    }
    cJSON *cases = cJSON_AddArrayToObject(root, "cases");
    for (size_t i = 0; i < r->n_cases; i++) {
        const sv_case_report *cr = &r->cases[i];
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "name", cr->name);
        cJSON_AddNumberToObject(c, "K", cr->K);
        cJSON_AddNumberToObject(c, "V", cr->V);
        cJSON_AddBoolToObject(c, "draft_probs_given", cr->draft_probs_given);
        cJSON *alpha = cJSON_AddArrayToObject(c, "alpha");
        for (int32_t k = 0; k < cr->K; k++)
            cJSON_AddItemToArray(alpha, cJSON_CreateNumber(cr->alpha[k]));
        cJSON_AddStringToObject(c, "verdict", sv_verdict_name(cr->verdict));
        if (cr->verdict == SV_FAIL && r->reproduce[0]) {
            char cmd[3072];
            const sv_run_eval *last = &cr->runs[cr->n_runs - 1];
            sv_report_reproduce(r, cr->name, last->seed,
                                last->asked > last->draws ? last->asked : last->draws, cmd,
                                sizeof cmd);
            cJSON_AddStringToObject(c, "reproduce", cmd);
        }
        if (cr->runs[0].replay[0][0] || cr->runs[0].replay[1][0]) { /* --dump-failing */
            cJSON *files = cJSON_AddObjectToObject(c, "replay");
            for (int k = 0; k < 2; k++)
                if (cr->runs[0].replay[k][0])
                    cJSON_AddStringToObject(files, k ? "composition" : "contract",
                                            cr->runs[0].replay[k]);
        }
        for (size_t k = 0; k < r->n_short; k++) /* ran below its power (short_cases.c) */
            if (r->short_cases[k].i == i) {
                cJSON *b = cJSON_AddObjectToObject(c, "below_power");
                cJSON_AddStringToObject(b, "variant", r->short_cases[k].variant);
                sv_json_number(b, "power", r->short_cases[k].power);
                cJSON_AddNumberToObject(b, "power_target", r->power_target);
                sv_json_number(b, "draws_needed", r->short_cases[k].needed);
            }
        cJSON *runs = cJSON_AddArrayToObject(c, "runs");
        for (int j = 0; j < cr->n_runs; j++)
            cJSON_AddItemToArray(runs, run_json(&cr->runs[j]));
        cJSON_AddItemToArray(cases, c);
    }
    cJSON *summary = cJSON_AddObjectToObject(root, "summary");
    cJSON_AddNumberToObject(summary, "passed", (double)r->passed);
    cJSON_AddNumberToObject(summary, "suspect", (double)r->suspect);
    cJSON_AddNumberToObject(summary, "failed", (double)r->failed);
    cJSON_AddNumberToObject(summary, "draws", (double)r->total_draws);
    cJSON_AddNumberToObject(summary, "seconds", r->seconds);
    cJSON_AddBoolToObject(summary, "partial", r->interrupted != 0);
    if (r->interrupted) {
        cJSON_AddStringToObject(summary, "interrupted_by", sv_signal_name(r->interrupted));
        cJSON_AddNumberToObject(summary, "cases_planned", (double)r->n_planned);
    }

    return sv_write_json(root, path);
}

void sv_json_number(cJSON *o, const char *name, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, name, v);
    else
        cJSON_AddNullToObject(o, name);
}

void sv_json_distance(cJSON *o, const sv_distance *d)
{
    sv_json_number(o, "tv", d->tv);
    sv_json_number(o, "tv_lo", d->tv_lo);
    sv_json_number(o, "tv_hi", d->tv_hi);
    sv_json_number(o, "kl", d->kl);
    sv_json_number(o, "kl_lo", d->kl_lo);
    sv_json_number(o, "kl_hi", d->kl_hi);
}

void sv_json_text(cJSON *o, const char *name, const char *s)
{
    const size_t len = 4 * strlen(s ? s : "") + 1; /* \xHH: at most 4 bytes a byte */
    char *buf = malloc(len);
    cJSON_AddStringToObject(o, name, buf ? sv_escaped(buf, len, s) : "(out of memory)");
    free(buf);
}

int sv_write_json(cJSON *root, const char *path)
{
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return sv_fail(SV_EENV, "%s: out of memory printing JSON", path);
    sv_atomic_file f;
    int rc = sv_atomic_open(&f, path);
    if (rc == SV_OK) {
        fputs(text, f.fp);
        fputc('\n', f.fp);
        rc = sv_atomic_commit(&f);
    }
    cJSON_free(text);
    return rc;
}
