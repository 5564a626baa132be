/* python_args.c: --python FILE.py:NAME, --python-config JSON and
 * --python-exe PATH, the same in every command that loads samplers (verify,
 * calibrate, list). A Python sampler comes through the plugin sv_python.so,
 * which runs it in an interpreter process of its own
 * (python/plugin/sv_python.c): this file only finds that plugin and the
 * specverify package beside this executable (the build tree), around it (a
 * wheel) or where they were installed, chooses the interpreter (python_exe.c), says what to load
 * in the environment the plugin reads, and loads it like any --plugin. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "sv_cli.h"

#define MAX_PYTHON 8

static const char *specs[MAX_PYTHON];
static int n_specs;
static const char *config;
static const char *exe;

size_t sv_python_specs(const char *const **out)
{
    *out = specs;
    return (size_t)n_specs;
}

const char *sv_python_config(void) { return config; }

int sv_python_option(int opt, const char *arg, int *rc)
{
    switch (opt) {
    case SV_O_PYTHON:
        if (n_specs == MAX_PYTHON)
            *rc = sv_fail(SV_EBAD, "--python: at most %d Python samplers at once", MAX_PYTHON);
        else if (!strchr(arg, ':') || strchr(arg, '\n') || strchr(arg, '\r'))
            *rc = sv_fail(SV_EBAD, "--python: '%s' is not FILE.py:NAME or MODULE:NAME (one "
                          "line, the callable after the last ':')", arg);
        else {
            specs[n_specs++] = arg;
            *rc = SV_OK;
        }
        return 1;
    case SV_O_PYTHON_CONFIG: {
        cJSON *j = cJSON_Parse(arg);
        if (!cJSON_IsObject(j))
            *rc = sv_fail(SV_EBAD, "--python-config: '%s' is not a JSON object of keyword "
                          "arguments, e.g. '{\"eps\": 1e-6}'", arg);
        else {
            config = arg;
            *rc = SV_OK;
        }
        cJSON_Delete(j);
        return 1;
    }
    case SV_O_PYTHON_EXE:
        exe = arg;
        *rc = arg[0] ? SV_OK : sv_fail(SV_EBAD, "--python-exe: the path is empty");
        return 1;
    default: return 0;
    }
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* This executable's folder, into dir; 0, or -1. */
static int exe_dir(char *dir, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", dir, len - 1);
    if (n <= 0)
        return -1;
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    return 0;
}

int sv_python_load(const char *command)
{
    if (n_specs == 0) {
        if (config || exe)
            return sv_fail(SV_EBAD, "%s: %s without --python", command,
                           config ? "--python-config" : "--python-exe");
        return SV_OK;
    }
    char here[PATH_MAX], plugin[PATH_MAX + 64], package[PATH_MAX + 64];
    char package_init[PATH_MAX + 64];
    const char *given = getenv("SV_PYTHON_PLUGIN");
    plugin[0] = package[0] = '\0';
    if (given && *given)
        snprintf(plugin, sizeof plugin, "%s", given);
    else if (exe_dir(here, sizeof here) == 0) {
        /* the build tree: the plugin and the package beside the executable */
        snprintf(plugin, sizeof plugin, "%s/sv_python.so", here);
        snprintf(package, sizeof package, "%s/python", here);
        snprintf(package_init, sizeof package_init, "%s/../__init__.py", here);
        if (is_file(package_init)) /* a wheel: both in site-packages/specverify/_bin */
            snprintf(package, sizeof package, "%s/../..", here);
        else if (!is_file(plugin)) { /* installed: bin/ and lib/specverify/ under one prefix */
            snprintf(plugin, sizeof plugin, "%s/../%s/specverify/sv_python.so", here,
                     SV_INSTALL_LIBDIR);
            snprintf(package, sizeof package, "%s/../%s", here, SV_INSTALL_PYTHONDIR);
        }
    }
    if (!is_file(plugin))
        return sv_fail(SV_EENV, "%s: --python: this specverify has no Python samplers (no %s): "
                       "it was built where no Python 3 with numpy was found (Debian: "
                       "python3-numpy; bash ci/setup installs it)", command,
                       plugin[0] ? plugin : "sv_python.so");
    int rc = sv_python_exe_choose(exe, command);
    if (rc != SV_OK)
        return rc;
    char joined[MAX_PYTHON * 1024] = "";
    for (int i = 0; i < n_specs; i++) {
        size_t used = strlen(joined);
        snprintf(joined + used, sizeof joined - used, "%s%s", i ? "\n" : "", specs[i]);
    }
    /* what the plugin reads, in every process that opens it (probe, child) */
    if (setenv("SV_PYTHON_SAMPLERS", joined, 1) != 0 ||
        setenv("SV_PYTHON_CONFIG", config ? config : "", 1) != 0 ||
        (package[0] && setenv("SV_PYTHON_PATH", package, 0) != 0))
        return sv_fail(SV_EENV, "%s: --python: cannot set the environment", command);
    sv_python_server_start(); /* before the load: the load's probe forks from it too */
    char err[1536];
    if (sv_plugin_load(plugin, err, sizeof err) != 0)
        return sv_fail(SV_EBAD, "%s: --python: %s", command, err);
    sv_python_server_state(); /* asked now, with a time limit: what the runs will do */
    return SV_OK;
}
