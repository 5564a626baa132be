/* verify_outputs.c: where verify writes its reports: --json and --junit
 * kept apart, an interrupted run's FILE.partial, and a shard's file in
 * place of a report (--shard I/N). */
#include "sv_cli.h"
#include "sv_output.h"
#include "sv_report.h"
#include "sv_store.h"

/* --json and --junit must not name one file (however spelt): the second
 * would replace the first. On a device or a FIFO both are written, one after
 * the other, and nothing is lost. */
int sv_verify_distinct_outputs(const char *json, const char *junit)
{
    sv_output a, b;
    char err[SV_OUTPUT_PATH + 256];
    if (sv_output_resolve(json, 0, &a, err, sizeof err) != 0 ||
        sv_output_resolve(junit, 0, &b, err, sizeof err) != 0)
        return sv_fail(SV_EBAD, "verify: %s", err);
    if (sv_output_same(&a, &b))
        return sv_fail(SV_EBAD, "verify: --json %s and --junit %s are the same file: the "
                       "JUnit report would replace the JSON; give each its own", json, junit);
    return SV_OK;
}

/* Writes the JSON or JUnit report to path, named in name; an interrupted
 * run writes FILE.partial instead, leaving an earlier FILE whole. */
int sv_verify_write_report(const sv_report *r, const char *path, int junit, char *name, size_t len)
{
    int rc = r->interrupted ? sv_atomic_partial(path, name, len) : SV_OK;
    if (rc == SV_OK && !r->interrupted && snprintf(name, len, "%s", path) >= (int)len)
        rc = sv_fail(SV_EBAD, "%.60s...: the path is too long", path);
    if (rc == SV_OK)
        rc = junit ? sv_report_junit(r, name) : sv_report_json(r, name);
    return rc;
}

/* --shard I/N: this shard's part of each case's first run, its raw counts
 * written to the shard file; the verdicts are merge's (re-runs of suspects
 * too, as the whole run would make them). */
int sv_verify_shard(const sv_verify_config *whole, const char *shard_file, uint32_t index,
                    uint32_t count, const char *const *command, size_t n_command)
{
    char path[64];
    const char *file = shard_file;
    if (!file) {
        snprintf(path, sizeof path, "shard-%u-of-%u.h5", index + 1, count);
        file = path;
    }
    sv_shard_writer *w = NULL;
    int rc = sv_h5_check(file);
    if (rc == SV_OK)
        rc = sv_shard_writer_open(file, command, n_command, index, count, whole->n_cases, &w);
    if (rc == SV_OK)
        rc = sv_shard_writer_about(w, whole->sampler->name, whole->seed, whole->alpha);
    if (rc != SV_OK) {
        sv_shard_writer_close(w, 0); /* removed: nothing half written stays */
        return rc;
    }
    sv_shard_hooks hooks = {index, count, sv_shard_take, NULL, w, 0, 0};
    sv_verify_config cfg = *whole;
    cfg.shard = &hooks;
    cfg.rerun_suspects = 0;
    sv_report *r = NULL;
    sv_interrupt_install();
    rc = sv_verify(&cfg, &r);
    const int interrupted = r ? r->interrupted : 0;
    const int wrc = sv_shard_writer_close(w, rc == SV_OK && !interrupted);
    if (rc == SV_OK && interrupted) {
        fprintf(stderr, "specverify: interrupted by %s; shard %u of %u not written (a shard "
                "holds whole counts or nothing)\n", sv_signal_name(interrupted),
                index + 1, count);
        rc = 128 + interrupted;
    } else if (rc == SV_OK && wrc == SV_OK && r) {
        printf("shard %u of %u: %zu cases, %llu draws in %.1f s, written to %s; 'specverify "
               "merge' its %u shard files for the verdict\n", index + 1, count, r->n_cases,
               (unsigned long long)r->total_draws, r->seconds, file, count);
    }
    sv_report_free(r);
    return rc != SV_OK ? rc : wrc;
}
