/* verify_outputs.c: where verify writes its reports: --json and --junit
 * kept apart, and an interrupted run's FILE.partial. */
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

