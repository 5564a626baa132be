/* test_nearest.c: "did you mean ...?" (issue 39): the edit distance, its
 * cut-off, and the words said for a mistyped family, suite, sampler,
 * command or option. */
#include <string.h>
#include "check.h"
#include "sv_nearest.h"

static void test_distance(void)
{
    CHECK(sv_edit_distance("zipf", "zipf", 3) == 0);
    CHECK(sv_edit_distance("zpf", "zipf", 3) == 1);      /* a letter left out */
    CHECK(sv_edit_distance("smok", "smoke", 3) == 1);
    CHECK(sv_edit_distance("verfy", "verify", 3) == 1);
    CHECK(sv_edit_distance("ref_rcae", "ref_race", 3) == 1); /* two swapped: one edit */
    CHECK(sv_edit_distance("ref_rxce", "ref_race", 3) == 1); /* one replaced */
    CHECK(sv_edit_distance("Zipf", "zipf", 3) == 0);     /* case is no edit */
    CHECK(sv_edit_distance("kitten", "sitting", 5) == 3);
    CHECK(sv_edit_distance("", "abc", 5) == 3);
    CHECK(sv_edit_distance("abcdef", "uvwxyz", 2) == 3); /* past the limit: limit + 1 */
    CHECK(sv_edit_distance("a", "abcdefgh", 2) == 3);
    feature("edit distance: insert, delete, replace, swap of neighbours, no case");
}

static void offer_all(sv_nearest *s, const char *word, const char *const *names)
{
    sv_nearest_init(s, word);
    for (; *names; names++)
        sv_nearest_offer(s, *names);
}

static void test_suggestions(void)
{
    static const char *const families[] = {"zipf", "flat", "peaked", "disjoint", "dirichlet",
                                           NULL};
    static const char *const suites[] = {"smoke", "ci", "full", "logits", "deep", NULL};
    static const char *const samplers[] = {"ref", "ref_race", "ref_float", "ref_layout",
                                           "ref_exact", NULL};
    char out[200];
    sv_nearest s;
    offer_all(&s, "zpf", families);
    CHECK(says(sv_nearest_say(&s, "; ", out, sizeof out), "; did you mean 'zipf'?"));
    offer_all(&s, "smok", suites);
    CHECK(says(sv_nearest_say(&s, ": ", out, sizeof out), ": did you mean 'smoke'?"));
    offer_all(&s, "ref_rce", samplers);
    CHECK(says(sv_nearest_say(&s, "; ", out, sizeof out), "; did you mean 'ref_race'?"));
    /* the nearest only: ref_exac is one from ref_exact, two from nothing else */
    offer_all(&s, "ref_exac", samplers);
    CHECK(says(sv_nearest_say(&s, "", out, sizeof out), "did you mean 'ref_exact'?"));
    /* ties: every name at the nearest distance, in the order offered */
    static const char *const near_both[] = {"cat", "bat", "rat", "hat", "dog", NULL};
    offer_all(&s, "xat", near_both);
    CHECK(says(sv_nearest_say(&s, "", out, sizeof out), "did you mean 'cat', 'bat' or 'rat'?"));
    static const char *const two[] = {"draws", "drafts", NULL};
    offer_all(&s, "drafs", two);
    CHECK(says(sv_nearest_say(&s, "", out, sizeof out), "did you mean 'draws' or 'drafts'?"));
    feature("the nearest names, ties listed, said as 'did you mean'");
}

static void test_cut_off(void)
{
    static const char *const suites[] = {"smoke", "ci", "full", "logits", NULL};
    char out[200];
    sv_nearest s;
    offer_all(&s, "xyzzy", suites); /* nothing near: nothing said */
    CHECK(says(sv_nearest_say(&s, "; ", out, sizeof out), ""));
    offer_all(&s, "ca", suites); /* a short word: one edit at most */
    CHECK(says(sv_nearest_say(&s, "; ", out, sizeof out), "; did you mean 'ci'?"));
    offer_all(&s, "sm", suites); /* 'smoke' is three away */
    CHECK(says(sv_nearest_say(&s, "; ", out, sizeof out), ""));
    offer_all(&s, "logistic", suites); /* len 8: two edits allowed; 'logits' is three away */
    CHECK(says(sv_nearest_say(&s, "; ", out, sizeof out), ""));
    offer_all(&s, "lgoits", suites); /* two neighbours swapped: one edit */
    CHECK(says(sv_nearest_say(&s, "; ", out, sizeof out), "; did you mean 'logits'?"));
    feature("a cut-off of max(1, length / 3) edits: nothing far is suggested");
}

int main(void)
{
    test_distance();
    test_suggestions();
    test_cut_off();
    return check_exit();
}
