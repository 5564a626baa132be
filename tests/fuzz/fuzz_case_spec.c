/* fuzz_case_spec.c: libFuzzer target for case specs ("family[:key=value,...]",
 * sv_case_from_spec), the text --case, suites and sweeps hand over. Besides
 * what the sanitizers catch, it asserts the contract: a refusal leaves no
 * case and says why; an accepted spec gives a case within the documented
 * limits whose rows pass validation and whose name starts with its family. */
#include "fuzz.h"
#include "sv_cases.h"

#define MAX_K 16 /* the families' largest K */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = fuzz_string(data, size);
    sv_case *c = (sv_case *)spec; /* must be reset to NULL on failure */
    char err[1024] = "";
    if (sv_case_from_spec(spec, &c, err, sizeof err) != 0) {
        if (c)
            fuzz_die("fuzz_case_spec: '%s' refused but a case was returned", spec);
        if (!err[0])
            fuzz_die("fuzz_case_spec: '%s' refused without a message", spec);
        free(spec);
        return 0;
    }
    if (!c)
        fuzz_die("fuzz_case_spec: '%s' accepted but no case", spec);
    if (c->K < 1 || c->K > MAX_K || c->V < 2 || c->V > SV_MAX_V)
        fuzz_die("fuzz_case_spec: '%s' gives K=%d, V=%d", spec, (int)c->K, (int)c->V);
    size_t family = strcspn(spec, ":");
    if (strncmp(c->name, spec, family) != 0 || c->name[family] != ':')
        fuzz_die("fuzz_case_spec: '%s' is named '%s'", spec, c->name);
    if (sv_case_validate(c, err, sizeof err) != 0)
        fuzz_die("fuzz_case_spec: '%s' accepted with bad rows: %s", spec, err);
    sv_case_free(c);
    free(spec);
    return 0;
}
