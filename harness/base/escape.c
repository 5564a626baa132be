/* escape.c: text from outside the harness (a sampler's words, a file's
 * strings, a user's arguments) made printable before anything prints or
 * writes it, so that it can neither forge a line of a report (a newline), nor
 * redraw a terminal or an ANSI CI log (ESC, CR), nor break a JUnit file (XML
 * forbids most control characters). The one function that decides what is
 * escaped is sv_escape; the rest call it. */
#include <stdlib.h>
#include <string.h>
#include "sv_base.h"

/* The length of the valid UTF-8 character at s (at most n bytes) and its code
 * point, or 0 when s does not start one: a stray continuation byte, an
 * overlong form, a surrogate, a code point past U+10FFFF, or one cut short. */
static size_t utf8_char(const unsigned char *s, size_t n, uint32_t *cp)
{
    size_t len;
    uint32_t min;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2, min = 0x80, *cp = s[0] & 0x1fu;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        len = 3, min = 0x800, *cp = s[0] & 0x0fu;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        len = 4, min = 0x10000, *cp = s[0] & 0x07u;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        *cp = (*cp << 6) | (s[i] & 0x3fu);
    }
    if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
        return 0;
    return len;
}

/* Characters that move the cursor or end a line although they are not
 * ASCII controls: C1 controls (U+0080..U+009F, CSI among them) and the
 * Unicode line and paragraph separators. */
static int unicode_control(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029;
}

size_t sv_escape(char *out, size_t len, const char *in, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    if (!out || len == 0)
        return 0;
    const unsigned char *s = (const unsigned char *)in;
    size_t used = 0, i = 0;
    while (in && i < n) {
        char piece[16]; /* one input character's output: written whole or not at all */
        size_t plen = 0, take = 1;
        uint32_t cp = 0;
        const unsigned char c = s[i];
        if (c == '\\') {
            piece[plen++] = '\\', piece[plen++] = '\\';
        } else if (c == '\n' || c == '\r' || c == '\t') {
            piece[plen++] = '\\', piece[plen++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
        } else if (c >= 0x20 && c < 0x7f) {
            piece[plen++] = (char)c;
        } else {
            size_t u = c >= 0x80 ? utf8_char(s + i, n - i, &cp) : 0;
            take = u ? u : 1;
            if (u && !unicode_control(cp)) {
                memcpy(piece, s + i, u);
                plen = u;
            } else { /* each byte of it as \xHH */
                for (size_t j = 0; j < take; j++) {
                    piece[plen++] = '\\', piece[plen++] = 'x';
                    piece[plen++] = hex[s[i + j] >> 4], piece[plen++] = hex[s[i + j] & 15];
                }
            }
        }
        if (used + plen >= len)
            break; /* it would not fit with the NUL: stop before it, never in it */
        memcpy(out + used, piece, plen);
        used += plen;
        i += take;
    }
    out[used] = '\0';
    return used;
}

const char *sv_escaped(char *buf, size_t len, const char *s)
{
    sv_escape(buf, len, s, s ? strlen(s) : 0);
    return buf;
}

size_t sv_shell_quote(char *out, size_t len, size_t used, const char *word)
{
    if (used + 2 >= len)
        return used;
    out[used++] = '\'';
    for (const char *c = word; *c && used + 6 < len; c++) {
        if (*c == '\'')
            used += (size_t)snprintf(out + used, len - used, "'\\''");
        else
            out[used++] = *c;
    }
    out[used++] = '\'';
    out[used] = '\0';
    return used;
}

int sv_escape_needed(const char *s)
{
    size_t n = strlen(s), backslashes = 0;
    for (size_t i = 0; i < n; i++)
        backslashes += s[i] == '\\';
    /* every escape lengthens the text; a backslash's by exactly one: any other
     * growth is a character that needs escaping */
    char *buf = malloc(4 * n + 1);
    if (!buf)
        return 1;
    int needed = sv_escape(buf, 4 * n + 1, s, n) != n + backslashes;
    free(buf);
    return needed;
}

void sv_escape_stored(char *out, size_t len, const char *s)
{
    if (len == 0)
        return;
    size_t n = strlen(s);
    if (sv_escape_needed(s)) {
        sv_escape(out, len, s, n);
        return;
    }
    if (n >= len) { /* cut to fit, at the start of a character */
        n = len - 1;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--;
    }
    memmove(out, s, n);
    out[n] = '\0';
}

const char *sv_md_cell(char *buf, size_t len, const char *s)
{
    size_t used = 0;
    for (; len && *s; s++) {
        const size_t need = *s == '|' ? 2 : 1;
        if (used + need >= len)
            break; /* never half a "\|" */
        if (*s == '|')
            buf[used++] = '\\';
        buf[used++] = *s;
    }
    if (len)
        buf[used] = '\0';
    return buf;
}
