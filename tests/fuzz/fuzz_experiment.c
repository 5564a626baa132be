/* fuzz_experiment.c: libFuzzer target for experiment files (`specverify
 * run`): any bytes through the parser and its checks, as read from a file.
 * Besides what the sanitizers catch, it asserts the contract: the status is
 * SV_OK or SV_EBAD, and a refusal names the file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "sv_base.h"
#include "sv_cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a real file, not fmemopen: the parser reads with fgets as on disk */
    FILE *f = tmpfile();
    if (!f)
        fuzz_die("fuzz_experiment: tmpfile failed");
    if (size && fwrite(data, 1, size, f) != size)
        fuzz_die("fuzz_experiment: cannot write the input");
    rewind(f);
    int rc = sv_experiment_check(f, "fuzz.ini", "root");
    fclose(f);
    if (rc != SV_OK && rc != SV_EBAD)
        fuzz_die("fuzz_experiment: status %d (want 0 or 2): %s", rc, sv_error_message());
    if (rc == SV_EBAD && strncmp(sv_error_message(), "fuzz.ini", 8) != 0)
        fuzz_die("fuzz_experiment: the message does not name the file: %s",
                 sv_error_message());
    return 0;
}
