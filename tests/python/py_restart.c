/* py_restart.c: the Python plugin's interpreter ends with the last of its
 * instances (a sampler ends what it starts), and an instance made after that
 * starts it again. The harness does exactly this when one thread's instance
 * is destroyed before another thread's is made (under load, in CI): the
 * init that came after the stop found no interpreter and the sampler's
 * process ended, "exited (exit status 0) in init". Prints "restarted: ok"
 * only when every step succeeded (CTest's pass condition: the old failure
 * ended the process with status 0).
 * usage: py_restart SV_PYTHON_SO SAMPLER_SPEC PACKAGE_DIR PYTHON_EXE */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "sv_sampler.h"

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: py_restart SV_PYTHON_SO SAMPLER_SPEC PACKAGE_DIR PYTHON_EXE\n");
        return 2;
    }
    setenv("SV_PYTHON_SAMPLERS", argv[2], 1);
    setenv("SV_PYTHON_PATH", argv[3], 1);
    setenv("SV_PYTHON_EXE", argv[4], 1);
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "FAIL: dlopen: %s\n", dlerror());
        return 1;
    }
    const sv_plugin *(*get)(void) = (const sv_plugin *(*)(void))dlsym(lib, "sv_plugin_get");
    const sv_plugin *p = get ? get() : NULL;
    if (!p || p->n_samplers < 1) {
        fprintf(stderr, "FAIL: the plugin offers no sampler\n");
        return 1;
    }
    const sv_sampler *s = &p->samplers[0];
    char message[256] = "";
    const sv_limits limits = {64, 4, 100, message, (int32_t)sizeof message};
    for (int round = 0; round < 3; round++) {
        void *state = NULL;
        int rc = s->init(&state, &limits);
        if (rc != SV_SAMPLER_OK) {
            fprintf(stderr, "FAIL: init %d after the interpreter stopped: status %d: %s\n",
                    round + 1, rc, message);
            return 1;
        }
        s->destroy(state); /* the last instance: the interpreter stops */
        printf("init %d, destroy: ok\n", round + 1);
    }
    printf("restarted: ok\n");
    return 0;
}
