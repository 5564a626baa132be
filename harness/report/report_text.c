/* report_text.c: the table a person reads, then what looks wrong, then the summary. */
#include <math.h>
#include <string.h>
#include "sv_report.h"

static void fmt_p(char *buf, size_t len, sv_gof g)
{
    if (g.df == 0)
        snprintf(buf, len, "n/a");
    else if (g.p < 1e-4)
        snprintf(buf, len, "%.1e", g.p);
    else
        snprintf(buf, len, "%.4f", g.p);
}

/* The smaller p of the two independence tests, or n/a. */
static sv_gof indep_worst(const sv_run_eval *ev)
{
    if (ev->indep_seq.df == 0)
        return ev->indep_pos;
    if (ev->indep_pos.df == 0 || ev->indep_seq.p <= ev->indep_pos.p)
        return ev->indep_seq;
    return ev->indep_pos;
}

/* A Markov-pair case: one row, the emitted transitions against the target chain. */
static void print_chain_run(const sv_case_report *cr, const sv_run_eval *ev, FILE *out)
{
    char chi[16], g[16], what[48], len[16];
    fmt_p(len, sizeof len, ev->length);
    fmt_p(chi, sizeof chi, ev->seq_chi2);
    fmt_p(g, sizeof g, ev->seq_g);
    snprintf(what, sizeof what, "transitions, %d states", ev->states_tested);
    fprintf(out, "%-34.34s %3s %10llu %8s %8s  %-28s %8s %8s %8s  %s\n", cr->name, "seq",
            (unsigned long long)ev->transitions, chi, g, what, "", len, "",
            sv_verdict_name(ev->verdict));
}

static void print_run(const sv_case_report *cr, const sv_run_eval *ev, FILE *out)
{
    /* a name wider than its column (a recorded step's path) gets a line of
     * its own rather than losing its end, where the step is */
    const int own_line = strlen(cr->name) > 34;
    if (own_line)
        fprintf(out, "%s\n", cr->name);
    if (ev->chain) {
        print_chain_run(cr, ev, out);
        return;
    }
    for (int32_t k = 0; k <= cr->K; k++) {
        const sv_position_eval *pe = &ev->pos[k];
        char chi[16], g[16], len[16] = "", ind[16] = "", tv[48], w2[16] = "n/a";
        fmt_p(chi, sizeof chi, pe->chi2);
        fmt_p(g, sizeof g, pe->g);
        if (pe->N)
            snprintf(tv, sizeof tv, "%.5f (%.5f) %.4f", pe->tv, pe->tv_threshold,
                     pe->tv_min_detectable);
        else
            snprintf(tv, sizeof tv, "n/a");
        if (pe->N && pe->chi2.df > 0)
            snprintf(w2, sizeof w2, "%.2g", pe->w2_min_detectable);
        if (k == 0) {
            fmt_p(len, sizeof len, ev->length);
            fmt_p(ind, sizeof ind, indep_worst(ev));
        }
        sv_verdict v = pe->verdict;
        if (k == 0) /* the first row carries the case-wide checks */
            v = sv_verdict_worst(sv_verdict_worst(v, ev->length_verdict),
                                 sv_verdict_worst(ev->contract_verdict,
                                                  sv_verdict_worst(ev->indep_seq_verdict,
                                                                   ev->indep_pos_verdict)));
        fprintf(out, "%-34.34s %3d %10llu %8s %8s  %-28s %8s %8s %8s  %s\n",
                k == 0 && !own_line ? cr->name : "", k + 1, (unsigned long long)pe->N, chi, g, tv, w2, len, ind,
                sv_verdict_name(v));
    }
}

void sv_report_text(const sv_report *r, FILE *out)
{
    fprintf(out, "specverify %s: sampler %s (%s)\n", SV_VERSION, r->sampler,
            r->sampler_description);
    if (r->sandbox)
        fprintf(out, "%s\n", r->sandbox);
    if (r->python_exe) {
        char exe[1024];
        fprintf(out, "python: %s (Python %s)%s%s\n", sv_escaped(exe, sizeof exe, r->python_exe),
                r->python_version, r->python_start ? ": " : "",
                r->python_start ? r->python_start : "");
    }
    if (r->input != SV_INPUT_PROBS)
        fprintf(out, "input: %s (each case's logits; the checks use the p and q they imply)\n",
                sv_input_name(r->input));
    static const char *const seedings[] = {"half the sequences seeded", "every sequence seeded",
                                           "no sequence seeded"};
    if (r->mixed)
        fprintf(out, "batches: mixed (the cases of a vocabulary interleaved, ragged drafts, %s)\n",
                seedings[r->seeding % 3]);
    else
        fprintf(out, "batches: uniform (one case per batch, its rows broadcast)\n");
    if ((r->lacks & SV_LACKS_BONUS) || r->python_exe) /* a Python sampler says which */
        fprintf(out, "bonus: %s\n", sv_lacks_bonus_words(r->lacks));
    if (r->tree[0])
        fprintf(out, "rule: %s; tree: %s (each case cut to its K; pos is the depth, len p the "
                "depth against its law given each step's tree)\n", sv_rule_name(r->rule),
                r->tree);
    else if (r->rule == SV_RULE_EXACT_MATCH)
        fprintf(out, "rule: exact match (given no draft rows; judged as the chain rule with a "
                "one-hot drafter, its law)\n");
    else if (r->rule == SV_RULE_BLOCK)
        fprintf(out, "rule: block verification (its accepted length: the mean against the "
                "chain rule's, one-sided; every other check as for the chain rule)\n");
    else if (r->rule == SV_RULE_TYPICAL && !r->verdicts_dropped)
        fprintf(out, "rule: typical acceptance, lossy by design: judged here as if lossless "
                "(verify --measure reports how far it is from p)\n");
    else if (r->rule == SV_RULE_TYPICAL)
        fprintf(out, "rule: typical acceptance, lossy by design\n");
    if (r->verdicts_dropped) {
        fprintf(out, "%s%s, seed %llu\n", r->suite ? "suite " : "",
                r->suite ? r->suite : "one case", (unsigned long long)r->seed);
        sv_report_measure(r, out);
        return;
    }
    if (r->not_taken)
        fprintf(out, "checks not taken: %s\n", r->not_taken);
    fprintf(out, "%s%s, seed %llu, family-wise false-alarm rate %g over %zu p-values "
            "(each %.2g)\n\n", r->suite ? "suite " : "", r->suite ? r->suite : "one case",
            (unsigned long long)r->seed, r->alpha, r->n_tests, r->split_alpha);
    fprintf(out, "%-34s %3s %10s %8s %8s  %-28s %8s %8s %8s  %s\n", "case", "pos", "N",
            "chi2 p", "G p", "TV (threshold) min-det", "w2 det", "len p", "indep p", "verdict");
    for (size_t i = 0; i < r->n_cases; i++) {
        const sv_case_report *cr = &r->cases[i];
        print_run(cr, &cr->runs[0], out);
        if (cr->n_runs > 1) {
            fprintf(out, "%-34s re-run: seed %llu, %llu draws\n", "  (suspect)",
                    (unsigned long long)cr->runs[1].seed,
                    (unsigned long long)cr->runs[1].draws);
            print_run(cr, &cr->runs[1], out);
        }
    }

    if (r->rule == SV_RULE_BLOCK) { /* what the rule is for: more drafts per step */
        fprintf(out, "\ndrafts accepted per step (sequences given all K), block against the "
                "chain rule on the same case:\n");
        for (size_t i = 0; i < r->n_cases; i++) {
            const sv_run_eval *ev = &r->cases[i].runs[r->cases[i].n_runs - 1];
            if (ev->chain || ev->K < 2 || ev->mean_accepted_chain <= 0.0)
                continue;
            fprintf(out, "  %-34s %.4f vs %.4f (%+.2f%%)\n", r->cases[i].name,
                    ev->mean_accepted, ev->mean_accepted_chain,
                    100.0 * (ev->mean_accepted / ev->mean_accepted_chain - 1.0));
        }
    }

    if (r->measure) { /* a lossless rule measured: the distances beside its verdicts */
        fprintf(out, "\n");
        sv_report_distances(r, out);
    }

    int any = 0;
    for (size_t i = 0; i < r->n_cases; i++) {
        const sv_case_report *cr = &r->cases[i];
        for (int j = 0; j < cr->n_runs; j++) {
            const sv_run_eval *ev = &cr->runs[j];
            if (ev->verdict == SV_PASS)
                continue;
            if (!any++)
                fprintf(out, "\n");
            for (int32_t f = 0; f < ev->n_findings; f++)
                fprintf(out, "%-7s %s%s: %s\n", sv_verdict_name(ev->verdict), cr->name,
                        j ? " (re-run)" : "", ev->findings[f]);
        }
        if (cr->verdict == SV_FAIL && r->reproduce[0]) { /* the case alone, as it ran */
            char cmd[3072];
            const sv_run_eval *last = &cr->runs[cr->n_runs - 1];
            sv_report_reproduce(r, cr->name, last->seed,
                                last->asked > last->draws ? last->asked : last->draws, cmd,
                                sizeof cmd);
            fprintf(out, "%-7s %s: to run it alone: %s\n", "FAIL", cr->name, cmd);
        }
        for (int k = 0; k < 2; k++) /* verify --dump-failing's files */
            if (cr->runs[0].replay[k][0]) { /* with what loads the sampler, as the run had */
                char cmd[sizeof cr->runs[0].replay[0] * 4 + sizeof r->source + 32];
                sv_shell_quote(cmd, sizeof cmd, (size_t)snprintf(cmd, sizeof cmd,
                               "specverify replay%s ", r->source), cr->runs[0].replay[k]);
                fprintf(out, "%-7s %s: its %s failure's batch again: %s\n", "FAIL", cr->name,
                        k ? "composition" : "contract", cmd);
            }
        if (cr->n_runs > 1) /* 4x the draws, or what a budget kept for the re-run */
            fprintf(out, "%-7s %s: suspect on seed %llu, %s on the re-run with %.2gx the "
                    "draws\n", sv_verdict_name(cr->verdict), cr->name,
                    (unsigned long long)r->seed,
                    cr->verdict == SV_PASS ? "passed" : "still not clean",
                    (double)cr->runs[1].draws / (double)(cr->runs[0].draws ? cr->runs[0].draws : 1));
    }

    if (r->n_short)
        fprintf(out, "\n");
    for (size_t s = 0; s < r->n_short; s++) { /* a rare bug's case cut below its power */
        const struct sv_short_case *sc = &r->short_cases[s];
        const sv_case_report *cr = &r->cases[sc->i];
        fprintf(out, "below power: %s ran %llu draws, where its power against %s (the bug it "
                "was built for) is %.3g; power %.6g needs %.3g draws (the suite's, or a larger "
                "--draws-scale)\n", cr->name,
                (unsigned long long)cr->runs[cr->n_runs - 1].draws, sc->variant, sc->power,
                r->power_target, sc->needed);
    }
    fprintf(out, "\n%zu cases: %zu passed, %zu suspect, %zu failed. %.3g M draws in %.1f s "
            "(%.2f M draws/s, %d thread%s)\n", r->n_cases, r->passed, r->suspect, r->failed,
            (double)r->total_draws / 1e6, r->seconds,
            r->seconds > 0 ? (double)r->total_draws / r->seconds / 1e6 : 0.0, r->threads,
            r->threads == 1 ? "" : "s");
    if (r->interrupted)
        fprintf(out, "PARTIAL: interrupted by %s: %zu of %zu cases ran, the last on the draws it "
                "finished; these results are incomplete\n", sv_signal_name(r->interrupted),
                r->n_cases, r->n_planned);
    fprintf(out, "min-det: the smallest TV distance from p that this N detects with probability "
            ">= 1 - %.2g\n", r->split_alpha);
    fprintf(out, "w2 det: the smallest chi-square effect w^2 = sum (r - p)^2 / p over the bins "
            "that this N detects with the same probability\n");
}

void sv_report_reproduce(const sv_report *r, const char *spec, uint64_t seed, uint64_t draws,
                         char *out, size_t len)
{
    size_t used = (size_t)snprintf(out, len, "%s --case ", r->reproduce);
    if (used < len)
        used = sv_shell_quote(out, len, used, spec);
    if (used < len)
        snprintf(out + used, len - used, " --seed %llu --draws %llu", (unsigned long long)seed,
                 (unsigned long long)draws);
}
