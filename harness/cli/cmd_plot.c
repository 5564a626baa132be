/* cmd_plot.c: `specverify plot FILE.h5...`: the latency plots of bench
 * files already written (on another machine, say), beside each file or in
 * --out DIR; and of a verify report's JSON, where its failing positions'
 * mass went (mass_plot.c). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sv_bench.h"
#include "mass_plot.h"
#include "sv_cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: specverify plot BENCH.h5|REPORT.json [...] [--out DIR]\n"
            "\n"
            "Draws the latency plots of bench files (specverify bench --out): median time\n"
            "per step against B and against V, log-log, one curve per sampler, K, V or B,\n"
            "acceptance rate and mode, bars over the interquartile range. For FILE.h5 it\n"
            "writes FILE-latency_vs_B and FILE-latency_vs_V (PNG, SVG), their data and\n"
            "FILE-plot.gp (run 'gnuplot FILE-plot.gp' there to redraw), beside the file.\n"
            "For REPORT.json (verify --json) it draws where the mass of each failing or\n"
            "suspect position went, as verify --plot does: in DIR, or in REPORT-plots\n"
            "beside the file (docs/verify.md#where-the-mass-went).\n"
            "\n"
            "  --out DIR   write them in DIR instead\n"
            "\n"
            "Exit status: 0 drawn (or gnuplot missing: data and script written, a note\n"
            "says so), 2 bad usage or a file that is not a valid bench file, 3 gnuplot\n"
            "failed (its messages in FILE-plot.log).\n"
            "\n"
            "Examples:\n"
            "  specverify plot results/gpu/NVIDIA_H200/bench.h5 --out plots\n"
            "  specverify plot results/gpu/NVIDIA_H100_80GB_HBM3/bench.h5 \\\n"
            "      results/gpu/NVIDIA_H200/bench.h5 --out plots\n");
}

int sv_cmd_plot(int argc, char **argv)
{
    static const struct option options[] = {
        {"out", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *dir = NULL;
    int opt;
    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, ":o:h", options, NULL)) != -1) {
        switch (opt) {
        case 'o': dir = optarg; break;
        case 'h': usage(stdout); return SV_OK;
        default: return sv_option_error("plot", opt, options, argv);
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return sv_fail(SV_EBAD, "plot: give at least one bench file");
    }
    if (dir && mkdir(dir, 0777) != 0 && errno != EEXIST)
        return sv_fail(SV_EBAD, "plot: cannot create the folder %s: %s", dir, strerror(errno));
    for (int i = optind; i < argc; i++) {
        const size_t len = strlen(argv[i]);
        if (len > 5 && strcmp(argv[i] + len - 5, ".json") == 0) {
            char beside[4200];
            snprintf(beside, sizeof beside, "%.*s-plots", (int)(len - 5), argv[i]);
            int rc = sv_mass_plot_json(argv[i], dir ? dir : beside, stdout);
            if (rc != SV_OK)
                return rc;
            continue;
        }
        sv_bench_device d;
        sv_bench_point *pts = NULL;
        size_t n = 0;
        int rc = sv_bench_read_h5(argv[i], &d, &pts, &n);
        if (rc == SV_OK && n == 0)
            rc = sv_fail(SV_EBAD, "plot: %s has no points", argv[i]);
        if (rc == SV_OK)
            rc = sv_bench_plot_beside(SV_OK, argv[i], &d, pts, n, dir);
        free(pts);
        if (rc != SV_OK)
            return rc;
    }
    return SV_OK;
}
