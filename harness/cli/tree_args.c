/* tree_args.c: --tree and --siblings, the same in every command that runs a
 * tree rule's sampler. */
#include <string.h>
#include "sv_cli.h"

int sv_tree_option(int opt, const char *arg, sv_tree_args *a)
{
    switch (opt) {
    case SV_O_TREE: a->shape = arg; return 1;
    case SV_O_SIBLINGS: a->siblings = arg; return 1;
    default: return 0;
    }
}

int sv_tree_resolve(const char *command, const sv_tree_args *a, const sv_sampler *sampler,
                    int32_t input, sv_tree *out, const sv_tree **tree)
{
    *tree = NULL;
    if (!sv_rule_is_tree(sampler->rule)) {
        if (a->shape || a->siblings)
            return sv_fail(SV_EBAD, "%s: %s is for a tree rule's sampler; sampler %s implements "
                           "the %s rule", command, a->shape ? "--tree" : "--siblings",
                           sampler->name, sv_rule_name(sampler->rule));
        return SV_OK;
    }
    int siblings = SV_SIBLINGS_IID;
    if (a->siblings && strcmp(a->siblings, "distinct") == 0)
        siblings = SV_SIBLINGS_DISTINCT;
    else if (a->siblings && strcmp(a->siblings, "iid") != 0)
        return sv_fail(SV_EBAD, "%s: --siblings '%s': give iid (drawn independently) or "
                       "distinct (without replacement)", command, a->siblings);
    if (input != SV_INPUT_PROBS)
        return sv_fail(SV_EBAD, "%s: sampler %s verifies trees, whose rows it takes as "
                       "probabilities; --input %s is for chain samplers", command,
                       sampler->name, sv_input_name(input));
    int rc = sv_tree_parse(a->shape ? a->shape : SV_TREE_DEFAULT, siblings, out);
    if (rc == SV_OK)
        *tree = out;
    return rc;
}
