/* suggest.c: "did you mean ...?" for the names the command line takes (a
 * suite, a sampler, a command), from the names it knows (sv_nearest.h). */
#include <string.h>
#include "sv_cli.h"
#include "sv_nearest.h"

const char *sv_suggest_among(const char *word, const char *names, char *out, size_t len)
{
    sv_nearest near;
    sv_nearest_init(&near, word);
    while (*names) {
        const size_t n = strcspn(names, ", ");
        char name[SV_NEAREST_NAME];
        if (n > 0 && n < sizeof name) {
            memcpy(name, names, n);
            name[n] = '\0';
            sv_nearest_offer(&near, name);
        }
        names += n;
        names += strspn(names, ", ");
    }
    return sv_nearest_say(&near, "; ", out, len);
}

const char *sv_suggest_sampler(const char *name, char *out, size_t len)
{
    sv_nearest near;
    sv_nearest_init(&near, name);
    for (size_t i = 0; i < sv_registry_count(); i++)
        sv_nearest_offer(&near, sv_registry_get(i)->name);
    return sv_nearest_say(&near, "; ", out, len);
}
