/* suites.c: named lists of cases with the draws each one gets. */
#include <string.h>
#include "sv_cases.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* seconds: small vocabularies, every kind of drafter, one Markov pair */
static const sv_suite_entry smoke[] = {
    {"seedlab:V=100,K=3", 200000},
    {"identical:V=100,K=2", 100000},
    {"zipf:V=200,K=4", 200000},
    {"onehot:V=100,K=3", 200000},
    {"greedy:V=100,K=3", 100000},
    {"markov:V=16,K=3,support=8", 100000},
};

/* the default: every family, K from 1 to 8, the large vocabularies, two
 * Markov pairs; under two minutes for `ref` on two cores */
static const sv_suite_entry ci[] = {
    {"seedlab:V=1000,K=5", 4000000},
    {"identical:V=1000,K=4", 2000000},
    {"disjoint:V=1000,K=3", 1000000},
    {"zipf:V=1000,K=8", 4000000},
    {"peaked:V=1000,K=5", 2000000},
    {"greedy:V=1000,K=5", 2000000},
    {"logits:V=1000,K=5,T=0.7", 4000000},
    {"logits:V=1000,K=1,T=1.5", 2000000},
    {"onehot:V=1000,K=5", 2000000},
    {"tail:V=32000,K=3", 400000},
    {"logits:V=32000,K=4", 400000},
    {"logits:V=128256,K=2", 200000},
    {"logits:V=151936,K=2,T=0.7", 200000},
    {"markov:V=64,K=4", 1000000},
    {"markov:V=512,K=3,streams=4096,support=64", 2000000},
    /* built to provoke two float-rounding bugs, sized by the power formula
     * (docs/statistics.md#cases-built-to-provoke). oov_float_rounding emits
     * V when u passes the float32 running sum's end: 1.18e-3 of cumshort's
     * draws (its rows lose (32003 - 16) 2.5e-8 = 8.0e-4 of their mass to
     * rounding, residual rows more of theirs); ln(1e6) / 1.18e-3 = 1.17e4
     * draws catch it with power 1 - 1e-6, 30000 with 1 - 5e-16 (1 - 3e-12
     * from the three quarters of a mixed run given all K drafts). */
    {"cumshort:V=32003,K=2", 30000},
    /* race_float32_truncated leaves tokens of 2^-26 a / sinh(a) = 0.147 of
     * their mass (a = 2^-24 / 2^-26 = 4): tinytail's bonus row has 31999 of
     * them, 4.77e-4, so w^2 = 4.77e-4 (1 - 0.147)^2 = 3.47e-4 over 5 bins
     * (df 4). At this suite's split (1e-6 over 261 p-values: 3.8e-9) the
     * chi-square needs lambda = N w^2 = 128 for power 1 - 1e-6: 3.69e5
     * draws that reach the bonus row (specverify verify --power
     * race_float32_truncated). Mixed batches give a quarter of the
     * sequences no draft (harness/run/mix.c), whose race is tallied at
     * position 1, diluted; so 3.69e5 / (3/4) = 4.92e5, and 520000 give
     * 1 - 2e-7 from the other three quarters alone. The other cases
     * together: 3e-7 (test_mutants power). */
    {"tinytail:V=32003,K=1", 520000},
};

/* long: ten times the draws, more shapes */
static const sv_suite_entry full[] = {
    {"seedlab:V=1000,K=5", 40000000},
    {"seedlab:V=64,K=8", 20000000},
    {"identical:V=1000,K=4", 20000000},
    {"disjoint:V=1000,K=3", 10000000},
    {"zipf:V=1000,K=8", 40000000},
    {"zipf:V=32000,K=4,s=1.3,s2=1", 2000000},
    {"peaked:V=1000,K=5", 20000000},
    {"greedy:V=1000,K=5", 20000000},
    {"logits:V=1000,K=5,T=0.7", 40000000},
    {"logits:V=1000,K=1,T=1.5", 20000000},
    {"logits:V=1000,K=8,T=0.2", 10000000},
    {"onehot:V=1000,K=5", 20000000},
    {"tail:V=32000,K=3", 4000000},
    {"logits:V=32000,K=4", 4000000},
    {"logits:V=128256,K=2", 2000000},
    {"logits:V=151936,K=2,T=0.7", 2000000},
    {"logits:V=32000,K=4,T=0.8,topk=50,topp=0.9", 4000000}, /* as serving stacks sample */
    {"onehot:V=32000,K=3,topp=0.95", 4000000},
    {"markov:V=64,K=4", 10000000},
    {"markov:V=4096,K=4,streams=8192,support=256", 2000000},
    {"cumshort:V=32003,K=2", 300000},
    {"cumshort:V=4099,K=4", 1000000}, /* 4096 + 3: oov_float_rounding fires 1.6e-4 a draw */
    {"tinytail:V=32003,K=1", 5200000},
};

/* cases made from logits by one sampling rule for target and drafter: what
 * verify --input logits-f32|logits-bf16 runs by default. Greedy, top-k with
 * a vocabulary that leaves a partial last tile (4099), top-p, both, a
 * one-hot drafter, sharp logits (tiny p), and a Llama-3-sized vocabulary. */
static const sv_suite_entry logits[] = {
    {"logits:V=1000,K=5,T=0.7", 2000000},
    {"logits:V=1000,K=4,T=0", 1000000},
    {"logits:V=4099,K=4,topk=50", 1000000},
    {"logits:V=1000,K=3,T=1.5,topp=0.9", 1000000},
    {"logits:V=32000,K=4,T=0.8,topk=50,topp=0.9", 1000000},
    {"onehot:V=1000,K=5,topp=0.95", 1000000},
    {"logits:V=1000,K=4,sigma=8", 1000000},
    {"logits:V=128256,K=2", 50000}, /* ref_logits races over V per draw: slow on a CPU */
};

static const sv_suite suites[] = {
    {"smoke", "six small cases, seconds", smoke, N(smoke)},
    {"ci", "every family, K 1..8, V up to 151936; the default", ci, N(ci)},
    {"full", "ten times the ci draws and more shapes", full, N(full)},
    {"logits", "cases with logits, for logits input (verify --input)", logits, N(logits)},
};

size_t sv_suite_count(void) { return N(suites); }
const sv_suite *sv_suite_get(size_t i) { return i < N(suites) ? &suites[i] : NULL; }

const sv_suite *sv_suite_find(const char *name)
{
    for (size_t i = 0; i < N(suites); i++)
        if (strcmp(suites[i].name, name) == 0)
            return &suites[i];
    return NULL;
}
