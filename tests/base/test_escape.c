/* test_escape.c: sv_escape, the one function that makes text from outside
 * the harness printable (issue 36): exact outputs for control characters,
 * the backslash, valid and invalid UTF-8, the Unicode controls, NULs inside
 * the length; a buffer's end never cuts an escape or a character; and the
 * helpers on top (text read back, Markdown cells). */
#include <string.h>
#include "check.h"
#include "sv_base.h"

/* sv_escape of n bytes of in into a buffer of len: the text and its length. */
static int escapes(const char *in, size_t n, size_t len, const char *want)
{
    char out[256];
    memset(out, '#', sizeof out);
    size_t got = sv_escape(out, len, in, n);
    int ok = says(out, want) && got == strlen(want);
    if (got != strlen(want))
        fprintf(stderr, "  returned %zu, wanted %zu\n", got, strlen(want));
    if (len < sizeof out && out[len] != '#') {
        fprintf(stderr, "  wrote past the buffer's %zu bytes\n", len);
        ok = 0;
    }
    return ok;
}

#define ESCAPES(in, want) escapes(in, sizeof in - 1, 256, want)

static void test_controls(void)
{
    CHECK(ESCAPES("plain text, 0-9 ~", "plain text, 0-9 ~"));
    CHECK(ESCAPES("a\nb\rc\td", "a\\nb\\rc\\td"));
    CHECK(ESCAPES("\x1b[2J", "\\x1b[2J"));
    CHECK(ESCAPES("\x01\x0b\x0c\x1f\x7f", "\\x01\\x0b\\x0c\\x1f\\x7f"));
    CHECK(ESCAPES("back\\slash \\n", "back\\\\slash \\\\n"));
    CHECK(ESCAPES("a\0b", "a\\x00b")); /* n bytes, NUL or not */
    CHECK(escapes("abc", 2, 256, "ab")); /* no NUL needed at n */
    CHECK(ESCAPES("bad\n1 cases: 1 passed, 0 suspect, 0 failed.\x1b[2J\rX",
                  "bad\\n1 cases: 1 passed, 0 suspect, 0 failed.\\x1b[2J\\rX"));
    CHECK(ESCAPES("", ""));
    feature("sv_escape: control characters and the backslash");
}

static void test_utf8(void)
{
    CHECK(ESCAPES("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
    CHECK(ESCAPES("\xe2\x80\xa8\xe2\x80\xa9", "\\xe2\\x80\\xa8\\xe2\\x80\\xa9")); /* U+2028, U+2029 */
    CHECK(ESCAPES("\xc2\x9b" "1m\xc2\x85", "\\xc2\\x9b1m\\xc2\\x85")); /* C1: CSI, NEL */
    CHECK(ESCAPES("\xc2\xa0", "\xc2\xa0")); /* U+00A0, past the C1 block: printable */
    CHECK(ESCAPES("\xff\xfe", "\\xff\\xfe"));
    CHECK(ESCAPES("\x80x", "\\x80x"));                 /* a stray continuation byte */
    CHECK(ESCAPES("\xc0\xaf", "\\xc0\\xaf"));          /* overlong '/' */
    CHECK(ESCAPES("\xe0\x80\xaf", "\\xe0\\x80\\xaf")); /* overlong, three bytes */
    CHECK(ESCAPES("\xed\xa0\x80", "\\xed\\xa0\\x80")); /* a surrogate */
    CHECK(ESCAPES("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80")); /* past U+10FFFF */
    CHECK(ESCAPES("\xe2\x82", "\\xe2\\x82"));          /* cut short by the text's end */
    CHECK(escapes("\xe2\x82\xac", 2, 256, "\\xe2\\x82")); /* ... or by n */
    CHECK(ESCAPES("\xe2\x82x", "\\xe2\\x82x"));        /* ... or by an ASCII byte */
    feature("sv_escape: valid UTF-8 kept, invalid bytes and Unicode controls as \\xHH");
}

static void test_truncation(void)
{
    /* the buffer ends inside an escape: the whole escape is left out */
    CHECK(escapes("ab\x1b", 3, 5, "ab"));  /* "ab\x1b" needs 6 with the NUL */
    CHECK(escapes("ab\x1b", 3, 7, "ab\\x1b"));
    CHECK(escapes("ab\n", 3, 4, "ab"));    /* "ab\n" needs 5 */
    CHECK(escapes("ab\n", 3, 5, "ab\\n"));
    CHECK(escapes("a\\", 2, 3, "a"));      /* half a "\\" is a different text */
    CHECK(escapes("a\xe2\x82\xac", 4, 4, "a")); /* never half a character */
    CHECK(escapes("a\xe2\x82\xac", 4, 5, "a\xe2\x82\xac"));
    CHECK(escapes("a\xff", 2, 5, "a"));
    CHECK(escapes("abc", 3, 1, ""));
    char untouched = '#';
    CHECK(sv_escape(&untouched, 0, "abc", 3) == 0 && untouched == '#');
    CHECK(escapes(NULL, 0, 8, ""));
    feature("sv_escape: a buffer's end never cuts an escape or a character");
}

static void test_helpers(void)
{
    char buf[64];
    CHECK(says(sv_escaped(buf, sizeof buf, "x\ty"), "x\\ty"));
    CHECK(says(sv_escaped(buf, sizeof buf, NULL), ""));
    /* text sv_escape wrote is what it is; anything else still needs it */
    CHECK(!sv_escape_needed("bad\\n1 \\x1b \\\\ caf\xc3\xa9"));
    CHECK(sv_escape_needed("bad\n1"));
    CHECK(sv_escape_needed("\xff"));
    CHECK(sv_escape_needed("\xe2\x80\xa8"));
    sv_escape_stored(buf, sizeof buf, "bad\\n1 \\x1b");
    CHECK(says(buf, "bad\\n1 \\x1b")); /* read back: not escaped twice */
    sv_escape_stored(buf, sizeof buf, "bad\n1 \\x1b");
    CHECK(says(buf, "bad\\n1 \\\\x1b")); /* someone else's file: escaped */
    sv_escape_stored(buf, 5, "abc\xe2\x82\xac");
    CHECK(says(buf, "abc")); /* cut at a character */
    CHECK(says(sv_md_cell(buf, sizeof buf, "a|b\\|c"), "a\\|b\\\\|c"));
    CHECK(says(sv_md_cell(buf, 3, "a|b"), "a")); /* never half a "\|" */
    feature("escaped text read back, and Markdown cells");
}

int main(void)
{
    test_controls();
    test_utf8();
    test_truncation();
    test_helpers();
    return check_exit();
}
