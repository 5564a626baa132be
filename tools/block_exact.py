#!/usr/bin/env python3
"""block_exact.py: block verification's law, computed exactly.

The rule that samplers/block_rule.c implements (sv_sampler.h states it) is
checked here by enumeration, with no sampling: for small random target and
draft models that depend on the whole prefix (V tokens, K drafts), every
draft block, every accepted count and every last token is weighed by its
exact probability; the emitted tokens are then continued by the target up to
K + 1 tokens. Three facts must hold, and this prints them:

  1. lossless: the continued sequences are distributed exactly as the
     target's own K + 1 tokens (largest difference of probabilities);
  2. at least the chain rule's expected number of accepted drafts;
  3. the facts the harness tests on context-free models, as for the chain
     rule: among steps that emit position k, y_k is distributed as p_k, and
     y_1, y_2 given n >= 1 are independent (both follow from fact 1: the
     continued sequence is the target's; docs/statistics.md).

  4. a drafter without probabilities (a point mass per prefix, as the
     harness's one-hot drafter is told) gains nothing: the expected accepted
     count equals the chain rule's.

And one control, so that the check has power: the block rule with the
chain's residual (samplers/broken/block_residual_tokenwise.c) is not
lossless for V >= 3 (with V = 2 both residuals put all their mass on the
one token where p exceeds q, so the flaw cannot show).

    python3 tools/block_exact.py           # the table
    python3 tools/block_exact.py --check   # exit 1 unless every fact holds

Pure Python (the standard library), so CTest runs it wherever python3 is.
"""
import argparse
import itertools
import random
import sys


def normalized(weights):
    s = sum(weights)
    return [w / s for w in weights]


def random_dist(rng, V):
    # a Dirichlet(0.7) draw, from gamma variates
    return normalized([rng.gammavariate(0.7, 1.0) + 1e-12 for _ in range(V)])


def models(rng, V, K, context_free):
    """target(prefix) and draft(prefix): dicts keyed by the prefix tuple."""
    target, draft = {}, {}
    rows_p = [random_dist(rng, V) for _ in range(K + 1)]
    rows_q = [random_dist(rng, V) for _ in range(K)]
    for length in range(K + 1):
        for prefix in itertools.product(range(V), repeat=length):
            target[prefix] = rows_p[length] if context_free else random_dist(rng, V)
            if length < K:
                draft[prefix] = rows_q[length] if context_free else random_dist(rng, V)
    return target, draft


def block_outcomes(target, draft, V, K, tokenwise_residual=False):
    """{emitted tuple: probability} of one step of block verification."""
    out = {}
    for x in itertools.product(range(V), repeat=K):
        px = 1.0
        for i in range(K):
            px *= draft[x[:i]][x[i]]
        w = [1.0]
        for i in range(1, K + 1):
            p, q = target[x[:i - 1]][x[i - 1]], draft[x[:i - 1]][x[i - 1]]
            w.append(min(1.0, w[-1] * p / q))
        h = [None]
        for i in range(1, K + 1):
            if i == K:
                h.append(w[K])
                continue
            mass = sum(max(w[i] * a - b, 0.0) for a, b in zip(target[x[:i]], draft[x[:i]]))
            den = mass + 1.0 - w[i]
            h.append(mass / den if den > 0 else 1.0)
        for n in range(K + 1):
            # n is the last i that passes: i = n passes (n >= 1), none after it does
            pn = h[n] if n >= 1 else 1.0
            for j in range(n + 1, K + 1):
                pn *= 1.0 - h[j]
            if pn * px == 0.0:
                continue
            prefix = x[:n]
            if n == K:
                last = target[prefix]
            else:
                wn = 1.0 if tokenwise_residual else w[n]
                r = [max(wn * a - b, 0.0) for a, b in zip(target[prefix], draft[prefix])]
                last = normalized(r) if sum(r) > 0 else target[prefix]
            for y in range(V):
                if last[y] > 0.0:
                    key = prefix + (y,)
                    out[key] = out.get(key, 0.0) + px * pn * last[y]
    return out


def chain_mean(target, draft, V, K):
    mean = 0.0
    for x in itertools.product(range(V), repeat=K):
        px, reach = 1.0, 1.0
        for i in range(K):
            px *= draft[x[:i]][x[i]]
        for i in range(K):
            p, q = target[x[:i]][x[i]], draft[x[:i]][x[i]]
            reach *= min(1.0, p / q)
            mean += px * reach
    return mean


def continued_error(outcomes, target, V, K):
    """Largest |P(continued sequence) - P_target(sequence)| over all K+1 tokens."""
    worst = 0.0
    for seq in itertools.product(range(V), repeat=K + 1):
        want = 1.0
        for i in range(K + 1):
            want *= target[seq[:i]][seq[i]]
        got = 0.0
        for cut in range(1, K + 2):  # the step emitted seq[:cut], the target the rest
            pe = outcomes.get(seq[:cut], 0.0)
            if pe == 0.0:
                continue
            for i in range(cut, K + 1):
                pe *= target[seq[:i]][seq[i]]
            got += pe
        worst = max(worst, abs(got - want))
    return worst


def marginal_error(outcomes, target, V, K):
    """Context-free models: the largest TV of y_k given position k emitted from p_k."""
    worst = 0.0
    for k in range(K + 1):
        counts, mass = [0.0] * V, 0.0
        for seq, pr in outcomes.items():
            if len(seq) > k:
                counts[seq[k]] += pr
                mass += pr
        row = target[tuple([0] * k)]
        worst = max(worst, 0.5 * sum(abs(c / mass - row[i]) for i, c in enumerate(counts)))
    return worst


def pair_dependence(outcomes, target, V):
    """TV between (y_1, y_2) given n >= 1 and the product of its marginals."""
    joint, mass = {}, 0.0
    for seq, pr in outcomes.items():
        if len(seq) > 1:
            joint[seq[:2]] = joint.get(seq[:2], 0.0) + pr
            mass += pr
    a = [sum(v for s, v in joint.items() if s[0] == i) / mass for i in range(V)]
    b = [sum(v for s, v in joint.items() if s[1] == i) / mass for i in range(V)]
    return 0.5 * sum(abs(joint.get((i, j), 0.0) / mass - a[i] * b[j])
                     for i in range(V) for j in range(V))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 unless every fact holds")
    ap.add_argument("--seeds", type=int, default=6, help="random model pairs per shape")
    args = ap.parse_args()
    ok = True
    flaw_seen = {}
    print(f"{'V':>2} {'K':>2} {'models':<14} {'seed':>4} {'lossless err':>12} "
          f"{'E n block':>9} {'E n chain':>9} {'marg err':>9} {'pair dep':>9} {'flawed err':>10}")
    for V, K in ((2, 3), (3, 2), (3, 3)):
        for context_free in (False, True):
            for seed in range(1, args.seeds + 1):
                rng = random.Random(1000 * V + 100 * K + 10 * context_free + seed)
                target, draft = models(rng, V, K, context_free)
                out = block_outcomes(target, draft, V, K)
                err = continued_error(out, target, V, K)
                mean = sum(pr * (len(s) - 1) for s, pr in out.items())
                chain = chain_mean(target, draft, V, K)
                flawed = continued_error(block_outcomes(target, draft, V, K, True), target, V, K)
                marg = marginal_error(out, target, V, K) if context_free else float("nan")
                dep = pair_dependence(out, target, V) if context_free else float("nan")
                print(f"{V:>2} {K:>2} {'context-free' if context_free else 'prefix-dep.':<14} "
                      f"{seed:>4} {err:12.2e} {mean:9.5f} {chain:9.5f} {marg:9.2e} {dep:9.4f} "
                      f"{flawed:10.2e}")
                ok &= err < 1e-12 and mean >= chain - 1e-12
                ok &= not context_free or (marg < 1e-12 and dep < 1e-12)
                flaw_seen[V] = flaw_seen.get(V, False) or flawed > 1e-6
    # fact 4: point-mass drafters, block's mean is the chain's
    for seed in range(1, args.seeds + 1):
        rng = random.Random(seed)
        V, K = 3, 3
        target, _ = models(rng, V, K, False)
        point = {}
        for length in range(K):
            for prefix in itertools.product(range(V), repeat=length):
                x = rng.randrange(V)
                point[prefix] = [1.0 if i == x else 1e-300 for i in range(V)]
        out = block_outcomes(target, point, V, K)
        mean = sum(pr * (len(s) - 1) for s, pr in out.items())
        chain = chain_mean(target, point, V, K)
        err = continued_error(out, target, V, K)
        print(f"point-mass drafter, seed {seed}: E n block {mean:.6f}, chain {chain:.6f}, "
              f"lossless err {err:.1e}")
        ok &= abs(mean - chain) < 1e-12 and err < 1e-12
    # the control: the chain's residual is not lossless where it can differ
    ok &= all(seen for V, seen in flaw_seen.items() if V >= 3)
    print("every fact holds" if ok else "A FACT FAILS")
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
