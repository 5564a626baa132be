/* sweep_compare_plot.c: `sweep --sampler A,B,...`'s figure of the samplers
 * side by side (issue 39: "my sampler against ref, over T"): the acceptance
 * of each draft position against temperature, each sampler's measured
 * points with their intervals (read from its own DIR/NAME/acceptance.dat),
 * and the first sampler's analytic curve where its rule has one. A position
 * keeps one colour; a sampler keeps one point shape and one dash, so the
 * series stay apart in print. One legend entry per series (sampler and
 * position): the analytic curves, in their position's colour, are named by
 * the key's title. PNG, SVG and PDF, from DIR/compare.gp, which a user can
 * edit and re-run. Sampler names and the case's spec enter the script only
 * through sv_gp_string. */
#include <stdio.h>
#include "sv_plot.h"
#include "sv_store.h"
#include "sv_sweep.h"

/* point shapes, one per sampler, distinct in print */
static const int shapes[] = {7, 5, 9, 11, 13, 6, 4, 8};
#define N_SHAPES ((int)(sizeof shapes / sizeof shapes[0]))

static void body(FILE *f, const char *ext, const char *title, const sv_sampler *const *samplers,
                 int m, int32_t K, int analytic)
{
    sv_gp_terminal(f, ext, 1100, 600, "acceptance_vs_T");
    fprintf(f, "set title %s\nplot ", title);
    const char *sep = "";
    for (int s = 0; s < m; s++) {
        char file[4300], dat[4400], text[200], quoted[SV_GP_QUOTED(200)];
        snprintf(dat, sizeof dat, "%s/acceptance.dat", samplers[s]->name);
        sv_gp_file(dat, file, sizeof file);
        for (int32_t k = 1; k <= K; k++) {
            if (s == 0 && analytic) {
                fprintf(f, "%s%s using 1:%d with lines lc rgb '%s' dt 1 lw 1.5 notitle", sep,
                        file, 4 * k - 2, sv_gp_colour(k - 1));
                sep = ", \\\n     ";
            }
            snprintf(text, sizeof text, "%s position %d", samplers[s]->name, k);
            fprintf(f, "%s%s using 1:%d:%d:%d with yerrorlines lc rgb '%s' dt %d pt %d ps 0.8 "
                    "title %s", sep, file, 4 * k - 1, 4 * k, 4 * k + 1, sv_gp_colour(k - 1),
                    s % 5 + 1, shapes[s % N_SHAPES], sv_gp_string(text, quoted, sizeof quoted));
            sep = ", \\\n     ";
        }
    }
    fprintf(f, "\n");
}

int sv_sweep_compare_plot(const char *dir, const char *spec, const sv_sampler *const *samplers,
                          int m, int32_t K, double level, char *note, size_t note_len)
{
    note[0] = '\0';
    char path[4200], title[SV_GP_QUOTED(600)], text[600], shown[512];
    snprintf(path, sizeof path, "%s/compare.gp", dir);
    sv_sweep_spec_title(spec, shown, sizeof shown);
    snprintf(text, sizeof text, "%s: acceptance per draft position at K = %d, samplers side by "
             "side", shown, (int)K);
    sv_gp_string(text, title, sizeof title);
    /* the first sampler's analytic curve: a rule with a closed form */
    const int analytic = samplers[0]->rule == SV_RULE_CHAIN ||
                         samplers[0]->rule == SV_RULE_EXACT_MATCH;
    sv_atomic_file af;
    int rc = sv_atomic_open(&af, path);
    if (rc != SV_OK)
        return rc;
    FILE *f = af.fp;
    fprintf(f, "# compare.gp: the samplers side by side; run 'gnuplot compare.gp' here\n");
    fprintf(f, "set grid\nset key outside below center horizontal Left reverse\n"
            "set termoption noenhanced\n");
    char key[300], quoted[SV_GP_QUOTED(300)];
    if (analytic)
        snprintf(key, sizeof key, "lines: %s's analytic; points and bars: measured, %g%% "
                 "interval", samplers[0]->name, 100.0 * level);
    else
        snprintf(key, sizeof key, "points and bars: measured, %g%% interval", 100.0 * level);
    fprintf(f, "set key title %s\n", sv_gp_string(key, quoted, sizeof quoted));
    fprintf(f, "set xlabel 'temperature T (target and drafter)'\n");
    fprintf(f, "set ylabel 'acceptance alpha_k (probability)'\n");
    char dat[4400], first_file[4300]; /* the x axis fitted to the temperatures swept */
    snprintf(dat, sizeof dat, "%s/acceptance.dat", samplers[0]->name);
    sv_gp_file(dat, first_file, sizeof first_file);
    fprintf(f, "set autoscale y\nset offsets 0, 0, graph 0.05, graph 0.05\n");
    fprintf(f, "stats %s using 1 nooutput\nset xrange [STATS_min - 0.03 * (STATS_max - STATS_min):"
            "STATS_max + 0.03 * (STATS_max - STATS_min)]\n", first_file);
    static const char *const exts[3] = {"png", "svg", "pdf"};
    for (int e = 0; e < 3; e++)
        body(f, exts[e], title, samplers, m, K, analytic);
    if ((rc = sv_atomic_commit(&af)) != SV_OK)
        return rc;
    return sv_gnuplot_run(dir, "compare.gp", note, note_len);
}
