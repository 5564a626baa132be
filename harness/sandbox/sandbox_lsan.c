/* sandbox_lsan.c: no leak check at exit in a confined process.
 *
 * LeakSanitizer checks for leaks when a process calls exit(), and to do so it
 * stops the world: it clones a task that ptraces every thread of the process.
 * In a confined process ptrace is trapped (sandbox_layers.c), so the cloned
 * task dies of SIGSYS while the process waits for it forever: a sampler that
 * calls exit() would hang its process instead of ending as a named finding.
 * A confined process ends with _exit when all goes well, so it never had a
 * leak check to lose; only the sanitizer builds (ci/sanitize) see this. */
#include "sandbox_internal.h"

static volatile int leak_check_off;

void sv_sandbox_no_leak_check(void)
{
    leak_check_off = 1;
}

/* LeakSanitizer's hook: a nonzero return skips the check (read at the check,
 * not at start). Unused outside sanitizer builds. */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
    return leak_check_off;
}
