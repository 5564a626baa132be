/* sweep_json.c: `sweep --json FILE`: every sampler's points as data
 * (docs/formats.md, "Sweep JSON"): per (T, K) the acceptance of each draft
 * position, analytic and measured with its interval, tokens per step, the
 * accepted lengths, the speedup for each cost ratio c (and batch size B),
 * and a lossy rule's distance from p. Written once the sweep ends. */
#include <math.h>
#include <cjson/cJSON.h>
#include "sv_report.h"
#include "sweep_points.h"

static cJSON *point_json(const sv_sweep_setup *set, const sweep_point *p)
{
    cJSON *o = cJSON_CreateObject();
    sv_json_number(o, "T", p->T); /* null: the sweep has no T axis */
    cJSON_AddNumberToObject(o, "K", p->K);
    cJSON_AddNumberToObject(o, "draws", (double)p->draws);
    sv_json_number(o, "tokens_analytic", p->tokens_analytic);
    sv_json_number(o, "tokens_measured", p->tokens_measured);
    cJSON *alpha = cJSON_AddArrayToObject(o, "alpha");
    for (int32_t k = 0; k < p->K; k++) {
        cJSON *a = cJSON_CreateObject();
        cJSON_AddNumberToObject(a, "position", k + 1);
        sv_json_number(a, "analytic", p->analytic[k]);
        sv_json_number(a, "measured", p->measured[k].value);
        sv_json_number(a, "lo", p->measured[k].lo);
        sv_json_number(a, "hi", p->measured[k].hi);
        cJSON_AddNumberToObject(a, "accepted", (double)p->measured[k].successes);
        cJSON_AddNumberToObject(a, "tested", (double)p->measured[k].trials);
        cJSON_AddItemToArray(alpha, a);
    }
    cJSON *lengths = cJSON_AddArrayToObject(o, "accepted_lengths");
    for (int32_t n = 0; n <= p->K; n++)
        cJSON_AddItemToArray(lengths, cJSON_CreateNumber((double)p->length[n]));
    cJSON *speedup = cJSON_AddArrayToObject(o, "speedup");
    for (int j = 0; j < set->n_c; j++) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddNumberToObject(s, "c", set->c[j]);
        sv_json_number(s, "analytic", sv_speedup(p->tokens_analytic, p->K, set->c[j]));
        if (set->n_B > 0) { /* with the sampler's own time per step at each B */
            cJSON *batched = cJSON_AddArrayToObject(s, "batched");
            for (int i = 0; i < set->n_B; i++) {
                cJSON *b = cJSON_CreateObject();
                double us = NAN;
                const double v = sv_sweep_batched(set, p, set->B[i], set->c[j], &us);
                cJSON_AddNumberToObject(b, "B", set->B[i]);
                sv_json_number(b, "sampler_us", us);
                sv_json_number(b, "target_us", sv_batch_cost_target_us(&set->cost, set->B[i]));
                sv_json_number(b, "speedup", v);
                cJSON_AddItemToArray(batched, b);
            }
        }
        cJSON_AddItemToArray(speedup, s);
    }
    cJSON *dist = cJSON_AddArrayToObject(o, "distance"); /* a lossy rule's, per position */
    for (int32_t k = 0; k <= p->K; k++) {
        if (isnan(p->dist[k].tv) && isnan(p->dist[k].kl))
            continue; /* not measured (a recording's pooled steps, a resumed point) */
        cJSON *d = cJSON_CreateObject();
        cJSON_AddNumberToObject(d, "position", k + 1);
        sv_json_distance(d, &p->dist[k]);
        cJSON_AddItemToArray(dist, d);
    }
    return o;
}

int sweep_write_json(const sweep_args *a, const char (*labels)[160],
                     sweep_point *const *pts, const size_t *done, size_t planned)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "sweep_format", 1);
    cJSON_AddStringToObject(root, "specverify_version", SV_VERSION);
    sv_json_text(root, "case", a->spec); /* the user's spec, a recording's path */
    cJSON_AddNumberToObject(root, "seed", (double)a->seed);
    cJSON_AddNumberToObject(root, "draws", (double)a->draws);
    cJSON_AddNumberToObject(root, "level", a->level);
    cJSON *c = cJSON_AddArrayToObject(root, "c");
    for (int j = 0; j < a->set.n_c; j++)
        cJSON_AddItemToArray(c, cJSON_CreateNumber(a->set.c[j]));
    if (a->set.n_B > 0)
        sv_json_text(root, "sampler_time_source", a->set.cost.source);
    cJSON *samplers = cJSON_AddArrayToObject(root, "samplers");
    for (int i = 0; i < a->n_samplers; i++) {
        cJSON *s = cJSON_CreateObject();
        sv_json_text(s, "sampler", a->samplers[i]->name);
        sv_json_text(s, "label", labels[i]); /* with its tree, for a tree sampler */
        cJSON_AddStringToObject(s, "rule", sv_rule_name(a->samplers[i]->rule));
        cJSON_AddNumberToObject(s, "points_planned", (double)planned);
        cJSON *points = cJSON_AddArrayToObject(s, "points");
        for (size_t j = 0; j < done[i]; j++)
            cJSON_AddItemToArray(points, point_json(&a->set, &pts[i][j]));
        cJSON_AddItemToArray(samplers, s);
    }
    return sv_write_json(root, a->json);
}
