/* nearest.c: the known names nearest to a mistyped one, by edit distance
 * (optimal string alignment: Levenshtein's insert, delete and substitute,
 * and a swap of two neighbouring letters, the commonest typing slip). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "sv_nearest.h"

#define LONGEST 128 /* longer words: no suggestion (nobody mistypes a path into a name) */

int sv_edit_distance(const char *a, const char *b, int limit)
{
    const size_t m = strlen(a), n = strlen(b);
    if (m > LONGEST || n > LONGEST)
        return limit + 1;
    if ((m > n ? m - n : n - m) > (size_t)limit)
        return limit + 1;
    /* three rows of the table: i - 2, i - 1 and i */
    int rows[3][LONGEST + 1];
    for (size_t j = 0; j <= n; j++)
        rows[0][j] = (int)j;
    for (size_t i = 1; i <= m; i++) {
        const int *prev2 = rows[(i + 1) % 3], *prev = rows[(i + 2) % 3];
        int *cur = rows[i % 3];
        cur[0] = (int)i;
        for (size_t j = 1; j <= n; j++) {
            const int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            int d = prev[j - 1] + !same;
            if (prev[j] + 1 < d)
                d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (i > 1 && j > 1 &&
                tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) &&
                prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
        }
    }
    const int d = rows[m % 3][n];
    return d > limit ? limit + 1 : d;
}

void sv_nearest_init(sv_nearest *s, const char *word)
{
    s->word = word;
    s->lead = "";
    s->n = 0;
    const int len = (int)strlen(word);
    s->best = len / 3 > 1 ? len / 3 : 1; /* the cut-off; then the nearest offered */
}

void sv_nearest_offer(sv_nearest *s, const char *name)
{
    if (strlen(name) >= SV_NEAREST_NAME)
        return;
    const int d = sv_edit_distance(s->word, name, s->best);
    if (d > s->best)
        return;
    if (d < s->best) {
        s->best = d;
        s->n = 0;
    }
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->names[i], name) == 0)
            return;
    if (s->n < SV_NEAREST_MAX)
        snprintf(s->names[s->n++], SV_NEAREST_NAME, "%s", name);
}

const char *sv_nearest_say(const sv_nearest *s, const char *prefix, char *out, size_t len)
{
    if (len)
        out[0] = '\0';
    if (s->n == 0 || len == 0)
        return out;
    size_t used = (size_t)snprintf(out, len, "%sdid you mean ", prefix);
    for (int i = 0; i < s->n && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s'%s%s'",
                                 i == 0 ? "" : i == s->n - 1 ? " or " : ", ", s->lead,
                                 s->names[i]);
    if (used < len)
        snprintf(out + used, len - used, "?");
    return out;
}
