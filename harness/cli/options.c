/* options.c: what getopt_long refused, said the same way by every command.
 *
 * glibc's getopt_long tells its refusals apart only through optopt and
 * optind (opterr = 0, an optstring that starts with ':'):
 *   ':'                  a value is missing: the option ends argv, so
 *                        argv[optind - 1] is the word that holds it;
 *   '?' with optopt 0    an unknown or ambiguous long option, which
 *                        optind has passed: argv[optind - 1];
 *   '?' with optopt set  a long option of no value given one (optopt is
 *                        its val), or an unknown short option (optopt is
 *                        its letter, and its word may be argv[optind - 1]
 *                        or, mid-cluster, argv[optind]). */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "sv_cli.h"
#include "sv_nearest.h"

/* The length of a long option's name as written: "--name" or "--name=value". */
static size_t name_length(const char *word)
{
    const char *eq = strchr(word, '=');
    return eq ? (size_t)(eq - word) - 2 : strlen(word) - 2;
}

static int refused_long(const char *command, const struct option *options, const char *word,
                        size_t len)
{
    const char *name = word + 2;
    char matches[512] = "";
    int n = 0;
    for (const struct option *o = options; o->name; o++) {
        if (strncmp(o->name, name, len) != 0)
            continue;
        size_t used = strlen(matches);
        snprintf(matches + used, sizeof matches - used, "%s--%s", n ? ", " : "", o->name);
        n++;
    }
    if (n > 1)
        return sv_fail(SV_EBAD, "%s: '--%.*s' is ambiguous: %s (see 'specverify %s --help')",
                       command, (int)len, name, matches, command);
    /* a slip of the fingers: the options nearest to what was typed */
    char typed[SV_NEAREST_NAME], hint[240];
    snprintf(typed, sizeof typed, "%.*s", (int)(len < sizeof typed ? len : sizeof typed - 1),
             name);
    sv_nearest near;
    sv_nearest_init(&near, typed);
    for (const struct option *o = options; o->name; o++)
        sv_nearest_offer(&near, o->name);
    near.lead = "--"; /* named as typed */
    return sv_fail(SV_EBAD, "%s: unknown option '--%.*s'%s (see 'specverify %s --help')",
                   command, (int)len, name, sv_nearest_say(&near, "; ", hint, sizeof hint),
                   command);
}

int sv_option_error(const char *command, int refusal, const struct option *options,
                    char **argv)
{
    const char *word = argv[optind - 1];
    const int is_long = strncmp(word, "--", 2) == 0;
    const size_t len = is_long ? name_length(word) : 0;
    if (refusal == ':') {
        if (is_long)
            return sv_fail(SV_EBAD, "%s: --%.*s needs a value (see 'specverify %s --help')",
                           command, (int)len, word + 2, command);
        return sv_fail(SV_EBAD, "%s: -%c needs a value (see 'specverify %s --help')", command,
                       optopt, command);
    }
    if (optopt == 0)
        return refused_long(command, options, word, len);
    for (const struct option *o = options; is_long && o->name; o++) /* a prefix of o->name */
        if (o->has_arg == no_argument && o->val == optopt && strchr(word, '=') &&
            strncmp(o->name, word + 2, len) == 0)
            return sv_fail(SV_EBAD, "%s: --%s takes no value, got '%s' (see 'specverify %s "
                           "--help')", command, o->name, word, command);
    if (isgraph(optopt))
        return sv_fail(SV_EBAD, "%s: unknown option '-%c' (see 'specverify %s --help')",
                       command, optopt, command);
    return sv_fail(SV_EBAD, "%s: unknown option (see 'specverify %s --help')", command,
                   command);
}
