/* mass_plot.c: where a failing position's mass went, as a figure: the bins
 * its chi-square and G tests used (tokens by falling p, the rare ones pooled
 * into the tail, last), each bin's observed count over its expected one,
 * and the band a bin stays inside unless it alone is significant at the
 * run's split level shared over the position's bins: 1 +- z / sqrt(E), z
 * the normal quantile of split / (2 bins) (the Poisson count's normal
 * approximation; a bin outside it is what the chi-square saw). The picture
 * a user looks at before reading numbers (`verify --plot DIR`, `plot
 * REPORT.json`, Report.plot()). Case names enter the script only through
 * sv_gp_string; the files are named by number. */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "mass_plot.h"
#include "sv_plot.h"
#include "sv_store.h"

/* DIR/mass-N.dat: rank, expected, observed, ratio, band low, band high,
 * token (-1: the tail), sorted by falling expected count. */
static int write_data(const char *dir, size_t n, const sv_mass_fig *f, double z)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/mass-%zu.dat", dir, n);
    int32_t *order = malloc((size_t)(f->nbins ? f->nbins : 1) * sizeof *order);
    if (!order)
        return sv_fail(SV_EENV, "out of memory");
    for (int32_t j = 0; j < f->nbins; j++)
        order[j] = j;
    for (int32_t j = 1; j < f->nbins; j++) { /* insertion: bins come nearly sorted */
        int32_t x = order[j], at = j;
        while (at > 0 && f->expected[order[at - 1]] < f->expected[x])
            order[at] = order[at - 1], at--;
        order[at] = x;
    }
    sv_atomic_file af;
    int rc = sv_atomic_open(&af, path);
    if (rc == SV_OK) {
        fprintf(af.fp, "# rank expected observed observed/expected band_low band_high token\n");
        for (int32_t r = 0; r < f->nbins; r++) {
            const int32_t j = order[r];
            const double e = f->expected[j], w = z / sqrt(e);
            fprintf(af.fp, "%d %.6g %.17g %.6g %.6g %.6g %d\n", r + 1, e, f->observed[j],
                    f->observed[j] / e, fmax(0.0, 1.0 - w), 1.0 + w, f->token[j]);
        }
        rc = sv_atomic_commit(&af);
    }
    free(order);
    return rc;
}

static void figure(FILE *g, const char *ext, size_t n, const sv_mass_fig *f, double z)
{
    char title[SV_GP_QUOTED(400)], text[400], data[64], file[SV_GP_QUOTED(64)];
    snprintf(text, sizeof text, "%s, position %d (%s): observed / expected per bin, by "
             "falling p; band: a bin alone at the run's split level", f->case_name,
             (int)f->position, f->verdict);
    sv_gp_string(text, title, sizeof title);
    snprintf(data, sizeof data, "mass-%zu.dat", n);
    sv_gp_file(data, file, sizeof file);
    fprintf(g, "set output 'mass-%zu.%s'\nset title %s\n", n, ext, title);
    fprintf(g, "%s", f->nbins > 50 ? "set logscale x\n" : "unset logscale x\n");
    fprintf(g, "set xrange [0.5:%d]\n", (int)f->nbins + 1);
    fprintf(g, "plot %s using 1:5:6 with filledcurves fs transparent solid 0.25 "
               "lc rgb '#4477aa' title sprintf('band (z = %%.2f / sqrt(expected))', %.4f), \\\n"
               "     1 with lines lc rgb 'black' dt 2 notitle, \\\n"
               "     %s using 1:($7 >= 0 ? $4 : 1/0) with points pt 7 ps 0.6 lc rgb "
               "'#cc3311' title 'a token'",
            file, z, file);
    if (f->tail_categories > 0) /* the pooled tail, where the tests pooled one */
        fprintf(g, ", \\\n     %s using 1:($7 < 0 ? $4 : 1/0) with points pt 5 ps 1.2 lc "
                "rgb '#009988' title sprintf('the pooled tail (%%d rare tokens)', %d)",
                file, (int)f->tail_categories);
    fprintf(g, "\n");
}

/* The band's z: a bin alone at the run's split level shared over its bins. */
static double band_z(const sv_mass_fig *f, double split)
{
    return gsl_cdf_ugaussian_Qinv(split / (2.0 * (f->nbins ? f->nbins : 1)));
}

int sv_mass_plot(const char *dir, const sv_mass_fig *figs, size_t n, double split, char *note,
                 size_t note_len)
{
    note[0] = '\0';
    int rc = SV_OK;
    for (size_t i = 0; i < n && rc == SV_OK; i++)
        rc = write_data(dir, i + 1, &figs[i], band_z(&figs[i], split));
    if (rc != SV_OK || n == 0)
        return rc;
    char path[4200];
    snprintf(path, sizeof path, "%s/mass.gp", dir);
    sv_atomic_file af;
    if ((rc = sv_atomic_open(&af, path)) != SV_OK)
        return rc;
    FILE *g = af.fp;
    fprintf(g, "# mass.gp: where each failing position's mass went; 'gnuplot mass.gp' here\n");
    fprintf(g, "set grid\nset key outside below\nset termoption noenhanced\n");
    fprintf(g, "set xlabel 'bin, by falling target probability (1: the most probable token)'\n");
    fprintf(g, "set ylabel 'observed / expected'\nset yrange [0:*]\n");
    static const char *const terms[][2] = {
        {"pngcairo size 1000,600 noenhanced font ',11'", "png"},
        {"svg size 1000,600 noenhanced font ',11'", "svg"},
        {"pdfcairo size 10in,6in noenhanced font ',11'", "pdf"}};
    for (int t = 0; t < 3; t++) {
        fprintf(g, "set terminal %s\n", terms[t][0]);
        for (size_t i = 0; i < n; i++)
            figure(g, terms[t][1], i + 1, &figs[i], band_z(&figs[i], split));
    }
    if ((rc = sv_atomic_commit(&af)) != SV_OK)
        return rc;
    return sv_gnuplot_run(dir, "mass.gp", note, note_len);
}
