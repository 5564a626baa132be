/* isolation_args.c: the isolation flags of the commands that run a sampler. */
#include "sv_sandbox.h"
#include "sv_cli.h"

int sv_isolation_option(int opt, const char *arg, sv_isolation *iso, int *rc)
{
    switch (opt) {
    case SV_O_IN_PROCESS:
        iso->in_process = 1;
        *rc = SV_OK;
        return 1;
    case SV_O_CALL_TIMEOUT:
        /* up to a year: a larger limit is none, say 0 */
        *rc = sv_parse_double("--call-timeout", arg, 0.0, 31536000.0, 0, &iso->call_timeout);
        return 1;
    case SV_O_SANDBOX: {
        const int mode = sv_sandbox_mode_parse(arg);
        *rc = mode < 0 ? sv_fail(SV_EBAD, "--sandbox: '%s' is not auto, strict or off", arg)
                       : sv_sandbox_setup((sv_sandbox_mode)mode);
        return 1;
    }
    default: return 0;
    }
}
