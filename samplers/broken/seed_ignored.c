/* seed_ignored.c: broken variant — the random numbers do not depend on the
 * seed: every sequence draws with the fixed key 0 and its own index.
 *
 * Bug class: seed ignored.
 * Effect: exactly ref with seeds[b] (or the batch's seed) replaced by 0. The
 * numbers of sequence b are still addressed by indices[b], so distinct
 * sequences get independent numbers and every output is a correct draw:
 * the output law is p at every position, and so is every joint the
 * independence checks look at. Two runs with different seeds and the same
 * drafts give the same tokens, token for token.
 * Where: kernels that take a Philox seed and offset (FlashInfer's sampling
 * kernels do) called with the seed argument left at its default and the
 * request index as the offset, or a generator seeded once at start-up; a
 * request's seed then changes nothing. The issue: a sampler that ignores
 * `seed` passes every distribution check.
 * Why uniform batches miss it, and mixed ones too: nothing in one run's
 * output law is wrong. Only a check that runs twice can see it.
 * What catches it: seed sensitivity (the same drafts under two seeds must
 * not give identical outputs where outputs are random): the probed
 * sequences are identical with probability 1, so a case fails for certain
 * wherever the chance that a seed-following sampler repeats them all (the
 * product of their collision probabilities) is below the check's
 * false-alarm rate: power 1, whatever the draws. The distribution checks
 * have power alpha (their false-alarm rate), so harness/stats/predict.c has
 * nothing to predict.
 */
#include "chain.h"

enum { FIXED_KEY = 0 }; /* what a seed argument left at its default gives */

static int verify(void *state, const sv_batch *bt)
{
    sv_batch fixed = *bt;
    fixed.seeds = NULL; /* BUG: the key is FIXED_KEY for every sequence, whatever its seed */
    fixed.seed = FIXED_KEY;
    return sv_chain_verify(state, &fixed, NULL);
}

const sv_sampler sv_broken_seed_ignored = {
    "seed_ignored", "broken: random numbers keyed by 0 and the sequence index, not the seed",
    SV_MEM_HOST, sv_chain_init, verify, sv_chain_destroy, 0, SV_CHAIN_LAYOUTS, SV_RULE_CHAIN};
