/* families.h: the synthetic p/q families behind case specs. */
#ifndef SV_FAMILIES_H
#define SV_FAMILIES_H

#include "sv_cases.h"

#define SV_FAMILY_MAX_PARAMS 10

/* What a key takes besides a number in [min, max] (sv_family_param.flags). */
enum {
    SV_WHOLE = 1,        /* a whole number */
    SV_OR_MINUS_ONE = 2, /* -1 too, outside [min, max] (T2: the same as T) */
    SV_UPTO_V = 4,       /* at most V */
    SV_BELOW_V = 8       /* at most V - 1 */
};

typedef struct sv_family_param {
    const char *key;
    double def, min, max;
    int flags;         /* SV_WHOLE, ... */
    const char *help;
} sv_family_param;

/* Values in the order of the family's params; the first three of every
 * family are V, K and seed. */
typedef struct sv_family {
    const char *name;
    const char *description;
    sv_family_param params[SV_FAMILY_MAX_PARAMS];
    /* Fills c's rows (c->K, c->V already set) from the values. */
    void (*build)(sv_case *c, const double *values);
} sv_family;

size_t sv_family_count(void);
const sv_family *sv_family_get(size_t i);
const sv_family *sv_family_find(const char *name);
size_t sv_family_param_count(const sv_family *f);

#endif
