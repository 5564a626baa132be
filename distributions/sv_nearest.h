/* sv_nearest.h: "did you mean ...?" for a mistyped name (a case family, a
 * suite, a sampler, a command, an option): the known names nearest to what
 * was typed by edit distance (nearest.c). */
#ifndef SV_NEAREST_H
#define SV_NEAREST_H

#include <stddef.h>

/* Edits (insert, delete, substitute, swap two neighbours) that make a into
 * b, letters compared without case; counts past `limit` stop at limit + 1. */
int sv_edit_distance(const char *a, const char *b, int limit);

/* The names offered so far that lie nearest to word, within
 * max(1, strlen(word) / 3) edits; at most SV_NEAREST_MAX at the nearest. */
#define SV_NEAREST_MAX 3
#define SV_NEAREST_NAME 64
typedef struct sv_nearest {
    const char *word, *lead; /* lead: said before each name ("--"); "" from init */
    int best, n;
    char names[SV_NEAREST_MAX][SV_NEAREST_NAME];
} sv_nearest;
void sv_nearest_init(sv_nearest *s, const char *word);
void sv_nearest_offer(sv_nearest *s, const char *name);
/* "; did you mean 'zipf'?" ("'a' or 'b'", "'a', 'b' or 'c'") into out with
 * prefix before it, or "" when no name was near; returns out. */
const char *sv_nearest_say(const sv_nearest *s, const char *prefix, char *out, size_t len);

#endif
