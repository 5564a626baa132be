"""The contract's logits rules in torch, for adapters whose caller turns
logits into probabilities before the sampler sees them (vLLM's does).

The rules are distributions/logits.c's: tokens ranked by logit, larger
first, the lower index first on ties; T = 0 is greedy (one-hot at the first
ranked); else top-k keeps the first k ranked, the softmax of logit / T is
taken over them (in double), and top-p keeps the shortest ranked prefix
whose mass reaches top_p, renormalised. Sums run left to right as the C
loops do (cumsum), so the cut falls where the checks put it; exp may differ
from C's in the last bit.
"""


def _one_rule(x, T, k, p):
    import torch

    N, V = x.shape
    dev = x.device
    if T == 0.0:
        out = torch.zeros((N, V), dtype=torch.float32, device=dev)
        out[torch.arange(N, device=dev), torch.argmax(x, dim=1)] = 1.0  # the first of maxima
        return out
    cut_k = 0 < k < V
    cut_p = p < 1.0
    if not cut_k and not cut_p:
        w = torch.exp((x - x.max(dim=1, keepdim=True).values) / T)
        return (w / torch.cumsum(w, dim=1)[:, -1:]).to(torch.float32)
    if cut_k:  # the k first ranked without sorting the row: ties at the k-th by index
        kth = torch.topk(x, k, dim=1).values[:, -1:]
        above = x > kth
        room = k - above.sum(dim=1, keepdim=True)
        tied = (x == kth) & (torch.cumsum((x == kth).to(torch.int64), dim=1) <= room)
        order = torch.nonzero(above | tied)[:, 1].view(N, k)  # ascending index
        ranked, within = torch.sort(x.gather(1, order), dim=1, descending=True, stable=True)
        order = order.gather(1, within)
    else:
        ranked, order = torch.sort(x, dim=1, descending=True, stable=True)
    kept = k if cut_k else V
    w = torch.exp((ranked[:, :kept] - ranked[:, :1]) / T)
    run = torch.cumsum(w, dim=1)
    total = run[:, -1:]
    if cut_p:
        mass = torch.cumsum(w / total, dim=1)
        reach = (mass >= p).to(torch.int64)
        # the first position whose mass reaches p, else all kept
        last = torch.where(reach.any(dim=1), reach.argmax(dim=1), torch.full((N,), kept - 1, device=dev))
        total = run.gather(1, last[:, None])
        w = torch.where(torch.arange(kept, device=dev)[None, :] <= last[:, None], w,
                        torch.zeros_like(w))
    out = torch.zeros((N, V), dtype=torch.float32, device=dev)
    out.scatter_(1, order[:, :kept], (w / total).to(torch.float32))
    return out


def target_probs_from_logits(logits, temperatures, top_ks, top_ps):
    """[N][V] float32 probabilities from [N][V] logits (float32 or bfloat16),
    each row by its own temperature, top-k and top-p."""
    import torch

    x = logits.to(torch.float64)
    out = torch.empty(x.shape, dtype=torch.float32, device=x.device)
    rules = torch.stack([temperatures.to(torch.float64), top_ks.to(torch.float64),
                         top_ps.to(torch.float64)], dim=1)
    for rule in torch.unique(rules, dim=0):  # a batch holds few rules: one pass each
        rows = (rules == rule).all(dim=1)
        T, k, p = float(rule[0]), int(rule[1]), float(rule[2])
        out[rows] = _one_rule(x[rows], T, k, p)
    return out
