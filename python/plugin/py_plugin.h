/* py_plugin.h: the parts of the Python samplers' plugin (sv_python.c the
 * interpreter and the sampler table, py_batch.c a batch as Python sees it,
 * py_bonus.c the bonus token a caller draws). */
#ifndef SV_PY_PLUGIN_H
#define SV_PY_PLUGIN_H

#include <stdint.h>
#include "sv_sampler.h"

/* How a sampler's bonus token comes (the decorator's `bonus`). */
enum { SV_PY_BONUS_SAMPLER = 0, SV_PY_BONUS_HARNESS = 1, SV_PY_BONUS_NONE = 2 };

/* out[b]: sequence b's bonus token, drawn from its bonus row with the
 * harness's uniform (SV_PURPOSE_BONUS). 0, or -1 when out of memory. */
int sv_py_bonus(const sv_batch *bt, int32_t *out);

#ifdef PY_SSIZE_T_CLEAN
/* The tuple _plugin.call reads (its order is _plugin.RAW_FIELDS): the
 * batch's numbers and zero-copy memoryviews of its arrays, the inputs
 * read-only, the outputs writable; bonus may be NULL. New reference, or
 * NULL with a Python exception set. */
PyObject *sv_py_batch(const sv_batch *bt, const int32_t *bonus);
#endif

#endif
