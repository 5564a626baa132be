/* sv_python.c: Python samplers, as a specverify plugin that embeds CPython.
 *
 * `specverify verify --python FILE.py:FUNCTION` loads this plugin like any
 * other, so a Python sampler runs where a C one does: in the isolated child
 * (a crash, an exit, a hang or a write to the inputs is a finding, never the
 * harness's end), its plugin first opened in a forked probe. What to load
 * comes in the environment, which the CLI sets before loading and every
 * process inherits:
 *   SV_PYTHON_SAMPLERS  one spec a line ("path/file.py:name" or "module:name")
 *   SV_PYTHON_CONFIG    JSON object of keyword arguments for every sampler
 *   SV_PYTHON_PATH      the folder holding the specverify package (the glue)
 *
 * The pitfalls of embedding, solved here once:
 *   - this plugin is opened RTLD_LOCAL, so libpython's symbols would be
 *     hidden from the extension modules Python loads (numpy, torch): it is
 *     opened again RTLD_GLOBAL first;
 *   - Python must not take the harness's signals: no handlers installed;
 *   - the harness calls from several threads: each call takes the GIL
 *     (PyGILState), which the loading thread gives up once Python is ready;
 *   - unloading while torch's threads live: the plugin is linked nodelete,
 *     and Python is never finalised (the process's end takes it down).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "py_plugin.h"

#define MAX_SAMPLERS 8

static sv_sampler table[MAX_SAMPLERS];
static int bonus_policy[MAX_SAMPLERS];
static char names[MAX_SAMPLERS][72], descriptions[MAX_SAMPLERS][200];
static sv_plugin plugin = {SV_CONTRACT_VERSION, 0, table};
static PyObject *glue_init, *glue_call, *glue_describe;
static PyObject *glue_device_missing; /* init's exception for a declared device not here */
static char load_error[1024];

SV_PLUGIN_EXPORT const char *sv_plugin_error(void) { return load_error; }

/* The pending Python exception in one line, into buf (the glue's words). */
static void describe_exception(char *buf, size_t len)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *text = NULL;
    if (glue_describe && value)
        text = PyObject_CallFunctionObjArgs(glue_describe, value, NULL);
    else if (value)
        text = PyObject_Str(value);
    const char *s = text ? PyUnicode_AsUTF8(text) : NULL;
    snprintf(buf, len, "%s", s ? s : "a Python error that could not be described");
    PyErr_Clear();
    Py_XDECREF(text);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
}

static int start_python(void)
{
    /* numpy's and torch's extension modules need libpython's symbols global */
    if (!dlopen(SV_LIBPYTHON, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD) &&
        !dlopen(SV_LIBPYTHON, RTLD_NOW | RTLD_GLOBAL)) {
        snprintf(load_error, sizeof load_error, "python samplers: cannot open %s: %s",
                 SV_LIBPYTHON, dlerror());
        return -1;
    }
    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    config.install_signal_handlers = 0; /* SIGINT and SIGTERM are the harness's */
    config.parse_argv = 0;
    PyStatus st = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(st)) {
        snprintf(load_error, sizeof load_error, "python samplers: Python did not start: %s",
                 st.err_msg ? st.err_msg : "(no message)");
        return -1;
    }
    const char *path = getenv("SV_PYTHON_PATH");
    PyObject *sys_path = PySys_GetObject("path"); /* borrowed */
    PyObject *dir = PyUnicode_FromString(path && *path ? path : SV_PYTHON_PACKAGE_DIR);
    if (!sys_path || !dir || PyList_Insert(sys_path, 0, dir) != 0) {
        Py_XDECREF(dir);
        snprintf(load_error, sizeof load_error, "python samplers: cannot set sys.path");
        return -1;
    }
    Py_DECREF(dir);
    PyObject *glue = PyImport_ImportModule("specverify._plugin");
    if (!glue) {
        char why[600];
        describe_exception(why, sizeof why);
        snprintf(load_error, sizeof load_error,
                 "python samplers: cannot import specverify._plugin from %s: %s",
                 path && *path ? path : SV_PYTHON_PACKAGE_DIR, why);
        return -1;
    }
    glue_init = PyObject_GetAttrString(glue, "init");
    glue_call = PyObject_GetAttrString(glue, "call");
    glue_describe = PyObject_GetAttrString(glue, "describe");
    glue_device_missing = PyObject_GetAttrString(glue, "DeviceMissing");
    Py_DECREF(glue);
    return glue_init && glue_call && glue_describe && glue_device_missing ? 0 : -1;
}

/* ---- the calls ---------------------------------------------------------------- */

static int py_init(int i, void **state, const sv_limits *limits)
{
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *s = PyObject_CallFunction(glue_init, "iiii", i, limits->max_B, limits->max_K,
                                        limits->max_V);
    /* no device: the environment's failure, which the harness makes exit 3 */
    const int no_device = !s && PyErr_ExceptionMatches(glue_device_missing);
    if (!s) { /* the harness puts the words in its finding */
        char why[320];
        describe_exception(why, sizeof why);
        if (limits->message && limits->message_len > 0)
            snprintf(limits->message, (size_t)limits->message_len, "%s", why);
    }
    *state = s;
    PyGILState_Release(g);
    return s ? SV_SAMPLER_OK : no_device ? SV_SAMPLER_EDEVICE : SV_SAMPLER_EINTERNAL;
}

static void say(const sv_batch *bt, const char *what)
{
    if (bt->message && bt->message_len > 0)
        snprintf(bt->message, (size_t)bt->message_len, "%s", what);
}

static int py_verify(int i, void *state, const sv_batch *bt)
{
    int32_t *bonus = NULL;
    if (bonus_policy[i] != SV_PY_BONUS_SAMPLER) { /* drawn before the GIL is taken */
        bonus = PyMem_RawMalloc((size_t)(bt->B ? bt->B : 1) * sizeof *bonus);
        if (!bonus || sv_py_bonus(bt, bonus) != 0) {
            PyMem_RawFree(bonus);
            say(bt, "out of memory drawing the bonus tokens");
            return SV_SAMPLER_ENOMEM;
        }
    }
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = SV_SAMPLER_OK;
    PyObject *raw = sv_py_batch(bt, bonus);
    PyObject *r = raw ? PyObject_CallFunctionObjArgs(glue_call, (PyObject *)state, raw, NULL)
                      : NULL;
    if (!r) { /* the glue itself failed: say what Python says */
        char why[320];
        describe_exception(why, sizeof why);
        say(bt, why);
        rc = SV_SAMPLER_EINTERNAL;
    } else if (r != Py_None) { /* the sampler failed: the glue's words */
        const char *s = PyUnicode_Check(r) ? PyUnicode_AsUTF8(r) : NULL;
        say(bt, s ? s : "the sampler failed");
        PyErr_Clear();
        rc = SV_SAMPLER_EINTERNAL;
    }
    Py_XDECREF(r);
    Py_XDECREF(raw);
    PyGILState_Release(g);
    PyMem_RawFree(bonus);
    return rc;
}

static void py_destroy(void *state)
{
    if (!state)
        return;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF((PyObject *)state);
    PyGILState_Release(g);
}

/* One init and verify per table entry: the contract's calls do not say
 * which sampler they are for. */
#define ENTRY(i)                                                                             \
    static int init_##i(void **s, const sv_limits *l) { return py_init(i, s, l); }          \
    static int verify_##i(void *s, const sv_batch *b) { return py_verify(i, s, b); }
ENTRY(0) ENTRY(1) ENTRY(2) ENTRY(3) ENTRY(4) ENTRY(5) ENTRY(6) ENTRY(7)
static int (*const inits[MAX_SAMPLERS])(void **, const sv_limits *) = {
    init_0, init_1, init_2, init_3, init_4, init_5, init_6, init_7};
static int (*const verifies[MAX_SAMPLERS])(void *, const sv_batch *) = {
    verify_0, verify_1, verify_2, verify_3, verify_4, verify_5, verify_6, verify_7};

/* ---- loading ------------------------------------------------------------------ */

/* The glue's load(specs, config): one (name, description, inputs, layouts,
 * bonus, rule) per sampler into the table. */
static int load_samplers(const char *specs, const char *config)
{
    PyObject *glue = PyImport_ImportModule("specverify._plugin");
    PyObject *list = glue ? PyObject_CallMethod(glue, "load", "ss", specs, config) : NULL;
    Py_XDECREF(glue);
    if (!list) {
        describe_exception(load_error, sizeof load_error);
        return -1;
    }
    Py_ssize_t n = PyList_Size(list);
    if (n < 1 || n > MAX_SAMPLERS) {
        snprintf(load_error, sizeof load_error, "python samplers: %zd given; 1 to %d at once",
                 n, MAX_SAMPLERS);
        Py_DECREF(list);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *name, *description;
        unsigned int inputs, layouts, rule;
        int bonus;
        if (!PyArg_ParseTuple(PyList_GetItem(list, i), "ssIIiI", &name, &description, &inputs,
                              &layouts, &bonus, &rule)) {
            describe_exception(load_error, sizeof load_error);
            Py_DECREF(list);
            return -1;
        }
        snprintf(names[i], sizeof names[i], "%s", name);
        snprintf(descriptions[i], sizeof descriptions[i], "%s", description);
        bonus_policy[i] = bonus;
        table[i] = (sv_sampler){names[i], descriptions[i], SV_MEM_HOST, inits[i], verifies[i],
                                py_destroy, inputs, layouts, rule};
    }
    plugin.n_samplers = (uint32_t)n;
    Py_DECREF(list);
    return 0;
}

SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void)
{
    static int done, ok;
    if (done)
        return ok ? &plugin : NULL;
    done = 1;
    const char *specs = getenv("SV_PYTHON_SAMPLERS"), *config = getenv("SV_PYTHON_CONFIG");
    if (!specs || !*specs) {
        snprintf(load_error, sizeof load_error,
                 "python samplers: none named (SV_PYTHON_SAMPLERS is empty; specverify's "
                 "--python FILE.py:FUNCTION sets it)");
        return NULL;
    }
    if (start_python() != 0)
        return NULL;
    ok = load_samplers(specs, config ? config : "") == 0;
    PyEval_SaveThread(); /* the calls take the GIL on whatever thread they run */
    return ok ? &plugin : NULL;
}
