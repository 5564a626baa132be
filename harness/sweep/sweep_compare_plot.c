/* sweep_compare_plot.c: `sweep --sampler A,B,...`'s figure of the samplers
 * side by side (issue 39: "my sampler against ref, over T"): the acceptance
 * of each draft position against temperature, each sampler's measured
 * points with their intervals (read from its own DIR/NAME/acceptance.dat),
 * and the first sampler's analytic curve where its rule has one. A position
 * keeps one colour; a sampler keeps one point shape and one dash, so the
 * series stay apart in print. PNG, SVG and PDF, from DIR/compare.gp, which
 * a user can edit and re-run. Sampler names and the case's spec enter the
 * script only through sv_gp_string. */
#include <stdio.h>
#include "sv_plot.h"
#include "sv_store.h"
#include "sv_sweep.h"

/* point shapes and dash types, one per sampler, distinct in print */
static const int shapes[] = {7, 5, 9, 11, 13, 6, 4, 8};
#define N_SHAPES ((int)(sizeof shapes / sizeof shapes[0]))

static void body(FILE *f, const char *ext, const char *title, const sv_sampler *const *samplers,
                 int m, int32_t K, int analytic)
{
    fprintf(f, "set output 'acceptance_vs_T.%s'\n", ext);
    fprintf(f, "set title %s\n", title);
    fprintf(f, "set xlabel 'temperature T (target and drafter)'\n");
    fprintf(f, "set ylabel 'acceptance alpha_k (probability)'\n");
    fprintf(f, "set autoscale y\nset offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05\nplot ");
    const char *sep = "";
    for (int s = 0; s < m; s++) {
        char file[4300], dat[4400], name[SV_GP_QUOTED(64)];
        snprintf(dat, sizeof dat, "%s/acceptance.dat", samplers[s]->name);
        sv_gp_file(dat, file, sizeof file);
        sv_gp_string(samplers[s]->name, name, sizeof name);
        if (s == 0 && analytic) {
            fprintf(f, "%sfor [k=1:%d] %s using 1:(column(4*k-2)) with lines lt k dt 1 lw 1.5 "
                    "title sprintf('position %%d analytic', k)", sep, K, file);
            sep = ", \\\n     ";
        }
        fprintf(f, "%sfor [k=1:%d] %s using 1:(column(4*k-1)):(column(4*k)):(column(4*k+1)) "
                "with yerrorlines lt k dt %d pt %d ps 0.8 title sprintf('%%s position %%d', %s, "
                "k)", sep, K, file, s % 5 + 1, shapes[s % N_SHAPES], name);
        sep = ", \\\n     ";
    }
    fprintf(f, "\n");
}

int sv_sweep_compare_plot(const char *dir, const char *spec, const sv_sampler *const *samplers,
                          int m, int32_t K, char *note, size_t note_len)
{
    note[0] = '\0';
    char path[4200], title[SV_GP_QUOTED(600)], text[600];
    snprintf(path, sizeof path, "%s/compare.gp", dir);
    snprintf(text, sizeof text, "%s: acceptance per draft position, K = %d, samplers side by "
             "side (95%% intervals)", spec, (int)K);
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
    fprintf(f, "set grid\nset key outside right top\nset termoption noenhanced\n");
    fprintf(f, "set terminal pngcairo size 1100,600 noenhanced font ',11'\n");
    body(f, "png", title, samplers, m, K, analytic);
    fprintf(f, "set terminal svg size 1100,600 noenhanced font ',11'\n");
    body(f, "svg", title, samplers, m, K, analytic);
    fprintf(f, "set terminal pdfcairo size 11in,6in noenhanced font ',11'\n");
    body(f, "pdf", title, samplers, m, K, analytic);
    if ((rc = sv_atomic_commit(&af)) != SV_OK)
        return rc;
    return sv_gnuplot_run(dir, "compare.gp", note, note_len);
}
