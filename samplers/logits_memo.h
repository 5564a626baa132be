/* logits_memo.h: ref_logits's memory of rows it has converted.
 *
 * In a mixed batch every sequence has rows of its own, so a logits sampler
 * converts every sequence's rows: (2K+1) rows of V logits ranked, cut and
 * normalized per draw, where a broadcast batch converted once per call.
 * The harness lays rows out once per slot and gives the same rows again and
 * again; the memo keeps the converted rows of the last rows it saw at each
 * of its entries, with a copy of their logits, and reuses them only when
 * the logits, the rule and the shape are byte for byte the same. So it is
 * exact for any caller, and as fast as a broadcast batch for the harness. */
#ifndef SV_LOGITS_MEMO_H
#define SV_LOGITS_MEMO_H

#include <stddef.h>
#include "sv_sampler.h"

typedef struct sv_logits_memo sv_logits_memo;

/* A memo for rows of up to max_K drafts over max_V tokens, within `budget`
 * bytes (at least one entry). NULL when out of memory. */
sv_logits_memo *sv_logits_memo_alloc(int32_t max_K, int32_t max_V, size_t budget);
void sv_logits_memo_free(sv_logits_memo *m);

/* The probability rows of one-sequence logits batch `one` (its K, V, input,
 * rule, target_logits and draft_logits): target rows [K+1][V], then draft
 * rows [K][V] when it has draft logits. work: 2 V doubles. */
const float *sv_logits_memo_rows(sv_logits_memo *m, const sv_batch *one, double *work);

#endif
