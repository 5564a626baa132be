/* atomic_file.c: the commands' outputs. Text files through sv_output
 * (distributions/sv_output.h): a regular file is written to a temporary
 * beside it and renamed, so a reader never sees half a file and a failure
 * loses nothing already there; a device or a FIFO is written in place, never
 * replaced. Here its errors become the harness's statuses; and the rules
 * every command applies to its output flags and to a write that fails after
 * the verdict. */
#include <stdio.h>
#include <string.h>
#include "sv_sandbox.h"
#include "sv_store.h"

int sv_atomic_open(sv_atomic_file *f, const char *path)
{
    char err[SV_OUTPUT_PATH + 256];
    if (sv_output_open(f, path, err, sizeof err) != 0)
        return sv_fail(SV_EBAD, "%s", err);
    return SV_OK;
}

int sv_atomic_commit(sv_atomic_file *f)
{
    char err[SV_OUTPUT_PATH + 256];
    if (sv_output_commit(f, err, sizeof err) != 0)
        return sv_fail(SV_EBAD, "%s", err);
    return SV_OK;
}

void sv_atomic_abort(sv_atomic_file *f)
{
    sv_output_abort(f);
}

int sv_atomic_check(const char *path)
{
    char err[SV_OUTPUT_PATH + 256];
    if (sv_output_check(path, 0, err, sizeof err) != 0)
        return sv_fail(SV_EBAD, "%s", err);
    return SV_OK;
}

int sv_atomic_partial(const char *path, char *out, size_t len)
{
    sv_output o;
    char err[SV_OUTPUT_PATH + 256];
    const int stream = sv_output_resolve(path, 0, &o, err, sizeof err) == 0 && o.stream;
    if (snprintf(out, len, "%s%s", path, stream ? "" : ".partial") >= (int)len)
        return sv_fail(SV_EBAD, "%.60s...: the path is too long", path);
    return SV_OK;
}

void sv_output_beside(const char *h5_path, const char *ext, char *out, size_t len)
{
    size_t n = strlen(h5_path);
    if (n > 3 && strcmp(h5_path + n - 3, ".h5") == 0)
        n -= 3;
    snprintf(out, len, "%.*s%s", (int)n, h5_path, ext);
}

int sv_output_flag(const char *command, const char *flag, const char **slot, const char *value)
{
    if (*slot)
        return sv_fail(SV_EBAD, "%s: %s given twice ('%s', then '%s'): give it once", command,
                       flag, *slot, value);
    if (!value[0])
        return sv_fail(SV_EBAD, "%s: %s: the path is empty", command, flag);
    *slot = value;
    /* a sampler's write there is an attempt on the reports, to be named */
    sv_sandbox_protect(value, !strcmp(flag, "--out") || !strcmp(flag, "--out-root"));
    return SV_OK;
}

void sv_outputs_note(sv_outputs_status *s, int rc)
{
    if (rc == SV_OK)
        return;
    if (s->rc == SV_OK)
        s->rc = rc;
    size_t used = strlen(s->said);
    snprintf(s->said + used, sizeof s->said - used, "%s%s", used ? "; " : "",
             sv_error_message());
}

int sv_outputs_end(const sv_outputs_status *s, int verdict)
{
    if (s->rc == SV_OK)
        return verdict;
    if (verdict != SV_OK) { /* main says nothing for 1 or a signal's status */
        fprintf(stderr, "specverify: %s\n", s->said);
        return verdict;
    }
    return sv_fail(s->rc, "%s", s->said);
}
