/* contract.c: one sequence's outputs against the sampler contract: n in
 * [0, K], every emitted position written and in [0, V), the accepted drafts
 * emitted as they were, no token of target probability 0, -1 after the
 * last. A breach is counted and, the first few, said in words. */
#include <stdarg.h>
#include <stdio.h>
#include "sampler_host.h"

/* Names the request as the sampler was given it: its index in the call's
 * batch and its seed (batch.seeds[b]), not the harness's sequence index (a
 * probe's is 2^62 and up), so a user can find it in their sampler. */
int sv_request_words(const sv_request *who, char *out, size_t len)
{
    return snprintf(out, len, "request %d of the batch (seed %llu)", (int)who->b,
                    (unsigned long long)who->seed);
}

__attribute__((format(printf, 3, 4))) static void note(sv_tally *t, const sv_request *who,
                                                        const char *fmt, ...)
{
    t->violations++;
    char text[SV_NOTE_LEN];
    int at = sv_request_words(who, text, sizeof text);
    if (at < 0 || (size_t)at + 2 >= sizeof text)
        at = 0;
    else
        at += snprintf(text + at, sizeof text - (size_t)at, ": ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text + at, sizeof text - (size_t)at, fmt, ap);
    va_end(ap);
    sv_tally_note(t, who->index, text);
}

int sv_check_sequence(sv_tally *t, int32_t K, int32_t V, const float *target,
                      const sv_request *who, const int32_t *x, const int32_t *y, int32_t n)
{
    if (n == SV_POISON) {
        note(t, who, "accepted count left unwritten");
        return 0;
    }
    if (n < 0 || n > K) {
        note(t, who, "accepted count %d outside [0, %d]", n, K);
        return 0;
    }
    for (int32_t k = 0; k <= n; k++) {
        if (y[k] == SV_POISON) {
            note(t, who, "position %d left unwritten (n = %d)", k + 1, n);
            return 0;
        }
        if (y[k] < 0 || y[k] >= V) {
            note(t, who, "position %d emitted token %d outside [0, %d)", k + 1, y[k], V);
            return 0;
        }
        if (k < n && y[k] != x[k]) {
            note(t, who, "position %d emitted %d but the accepted draft was %d", k + 1,
                 y[k], x[k]);
            return 0;
        }
        if (target[(size_t)k * V + y[k]] == 0.0f) {
            note(t, who, "position %d emitted token %d, whose target probability is 0",
                 k + 1, y[k]);
            return 0;
        }
    }
    for (int32_t k = n + 1; k <= K; k++) {
        if (y[k] != -1) {
            note(t, who, "position %d holds %d after the last emitted token, expected -1",
                 k + 1, y[k]);
            return 0;
        }
    }
    return 1;
}

int sv_check_drafts(sv_tally *t, int32_t d, int32_t V, const float *draft,
                    const sv_request *who, const int32_t *drafts)
{
    for (int32_t k = 0; k < d; k++) {
        if (drafts[k] == SV_POISON) {
            note(t, who, "out_drafts slot %d left unwritten (it drafts %d)", k + 1, d);
            return 0;
        }
        if (drafts[k] < 0 || drafts[k] >= V) {
            note(t, who, "drew draft %d = %d, outside [0, %d)", k + 1, drafts[k], V);
            return 0;
        }
        if (draft[(size_t)k * V + drafts[k]] == 0.0f) {
            note(t, who, "drew draft %d = %d, whose draft probability is 0", k + 1,
                 drafts[k]);
            return 0;
        }
    }
    return 1;
}

/* A tree step (contract version 6): n accepted nodes forming a path from
 * the root, each node's token emitted, then one token of mass at the last. */
int sv_check_tree_sequence(sv_tally *t, const sv_tree *tree, int32_t V, const float *target,
                           const sv_request *who, const int32_t *tokens, const int32_t *path,
                           const int32_t *y, int32_t n)
{
    const int32_t N = tree->nodes;
    if (n == SV_POISON) {
        note(t, who, "accepted count left unwritten");
        return 0;
    }
    if (n < 0 || n > tree->depth) {
        note(t, who, "accepted count %d outside [0, %d], the tree's depth", n,
             tree->depth);
        return 0;
    }
    int32_t u = 0;
    for (int32_t k = 0; k <= n; k++) {
        if (y[k] == SV_POISON || (k < n && path[k] == SV_POISON)) {
            note(t, who, "%s slot %d left unwritten (n = %d)",
                 y[k] == SV_POISON ? "out_tokens" : "out_path", k, n);
            return 0;
        }
        if (k < n && (path[k] < 1 || path[k] > N || tree->parents[path[k] - 1] != u)) {
            note(t, who, "out_path slot %d holds node %d, which is not a child of "
                 "node %d (tree %s)", k, path[k], u, tree->name);
            return 0;
        }
        if (y[k] < 0 || y[k] >= V) {
            note(t, who, "position %d emitted token %d outside [0, %d)", k + 1,
                 y[k], V);
            return 0;
        }
        if (k < n && y[k] != tokens[path[k] - 1]) {
            note(t, who, "position %d emitted %d but accepted node %d's token is "
                 "%d", k + 1, y[k], path[k], tokens[path[k] - 1]);
            return 0;
        }
        if (target[(size_t)u * V + y[k]] == 0.0f) {
            note(t, who, "position %d emitted token %d, whose target probability "
                 "at node %d is 0%s", k + 1, y[k], u,
                 k < n ? " (a zero-mass draft accepted)" : "");
            return 0;
        }
        if (k < n)
            u = path[k];
    }
    for (int32_t k = n; k <= N; k++) {
        if (k > n && y[k] != -1) {
            note(t, who, "out_tokens slot %d holds %d after the last emitted "
                 "token, expected -1", k, y[k]);
            return 0;
        }
        if (path[k] != -1) {
            note(t, who, "out_path slot %d holds %d past the %d accepted nodes, "
                 "expected -1", k, path[k], n);
            return 0;
        }
    }
    return 1;
}
