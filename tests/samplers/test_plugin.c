/* test_plugin.c: the example plugin loads, says it takes both layouts of
 * contract v3, passes, and gives a ragged batch in either layout what it
 * gives each sequence alone; plugins of another contract version, without
 * the entry symbol, missing, or not shared libraries are refused with a
 * message that says what is wrong. Contract version 1 and 2 plugins load,
 * widened (layouts 0), and pass.
 * argv: example plugin, bad-version plugin, no-symbol plugin, version 1
 * plugin, version 2 plugin. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "ragged_batch.h"
#include "suite_config.h"
#include "sv_base.h"
#include "sv_check.h"
#include "sv_registry.h"
#include "sv_sampler.h"

static int refused_with(const char *path, const char *words)
{
    char err[1024] = "";
    int rc = sv_plugin_load(path, err, sizeof err);
    if (rc == 0 || !strstr(err, words)) {
        fprintf(stderr, "  plugin %s: rc %d, message '%s', wanted '%s'\n", path, rc, err, words);
        return 0;
    }
    return 1;
}

/* 1 when s passes the smoke suite (family-wise false-alarm rate 1e-6). */
static int passes_smoke(const sv_sampler *s)
{
    suite_config suite;
    sv_report *r = NULL;
    suite_config_init(&suite, "smoke", s, 0);
    int ok = sv_verify(&suite.cfg, &r) == SV_OK && r && r->n_cases == 6 && r->failed == 0;
    sv_report_free(r);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 9) {
        fprintf(stderr, "usage: test_plugin EXAMPLE BAD_VERSION NO_SYMBOL V1 V2 V4 RULE BAD_RULE\n");
        return 2;
    }
    char err[1024] = "";
    size_t before = sv_registry_count();
    CHECK(sv_plugin_load(argv[1], err, sizeof err) == 0);
    CHECK(sv_registry_count() == before + 1);
    const sv_sampler *race = sv_registry_find("example_race");
    CHECK(race != NULL);
    CHECK(race && passes_smoke(race));
    feature("example plugin loads and passes the smoke suite (1e-6 family-wise)");

    const uint32_t both = SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED);
    CHECK(race && race->layouts == both); /* what the probe said */
    const sv_sampler *real = race ? sv_sampler_resolve(race, err, sizeof err) : NULL;
    CHECK(real && real->layouts == both);
    if (real) {
        static ragged r;
        for (int one_hot = 0; one_hot <= 1; one_hot++) {
            ragged_random(&r, 24, 4, 37, SV_INPUT_PROBS, one_hot, 11);
            CHECK(ragged_agrees(real, &r, 0));
        }
    }
    feature("example plugin takes contract v3: padded = packed = each sequence alone");

    CHECK(sv_plugin_load(argv[4], err, sizeof err) == 0);
    const sv_sampler *old = sv_registry_find("old_linear"), *second = sv_registry_find("old_second");
    CHECK(old && second && old->inputs == 0 && second->inputs == 0);
    CHECK(old && second && old->layouts == 0 && second->layouts == 0);
    CHECK(second && second->verify == old->verify && strstr(second->description, "stride"));
    CHECK(old && passes_smoke(old));
    feature("a contract version 1 plugin loads widened (probs only) and passes smoke");

    err[0] = '\0';
    CHECK(sv_plugin_load(argv[5], err, sizeof err) == 0);
    if (err[0])
        fprintf(stderr, "  %s\n", err);
    const sv_sampler *v2 = sv_registry_find("old_v2"), *v2_second = sv_registry_find("old_v2_second");
    CHECK(v2 && v2_second && v2->layouts == 0 && v2_second->layouts == 0 && v2->inputs == 0);
    CHECK(v2_second && strstr(v2_second->description, "version 2's stride"));
    const sv_sampler *v2_real = v2 ? sv_sampler_resolve(v2, err, sizeof err) : NULL;
    CHECK(v2_real && v2_real->layouts == 0);
    CHECK(v2 && passes_smoke(v2));
    feature("a contract version 2 plugin loads widened (layouts 0) and passes smoke");

    err[0] = '\0';
    CHECK(sv_plugin_load(argv[6], err, sizeof err) == 0);
    if (err[0])
        fprintf(stderr, "  %s\n", err);
    const sv_sampler *v4 = sv_registry_find("old_v4"), *v4_second = sv_registry_find("old_v4_second");
    CHECK(v4 && v4_second && v4->rule == SV_RULE_CHAIN && v4_second->rule == SV_RULE_CHAIN);
    CHECK(v4 && v4->layouts == (SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED)));
    CHECK(v4_second && strstr(v4_second->description, "version 4's stride"));
    const sv_sampler *v4_real = v4_second ? sv_sampler_resolve(v4_second, err, sizeof err) : NULL;
    CHECK(v4_real && v4_real->rule == SV_RULE_CHAIN && strcmp(v4_real->name, "old_v4_second") == 0);
    CHECK(v4_second && passes_smoke(v4_second));
    feature("a contract version 4 plugin loads at its stride, as chain samplers, and passes smoke");

    err[0] = '\0';
    CHECK(sv_plugin_load(argv[7], err, sizeof err) == 0);
    const sv_sampler *pe = sv_registry_find("plugin_exact");
    CHECK(pe && pe->rule == SV_RULE_EXACT_MATCH);
    const sv_sampler *pe_real = pe ? sv_sampler_resolve(pe, err, sizeof err) : NULL;
    CHECK(pe_real && pe_real->rule == SV_RULE_EXACT_MATCH);
    CHECK(pe && passes_smoke(pe));
    CHECK(refused_with(argv[8], "implements rule 7"));
    feature("a version 5 plugin says its rule (exact match passes smoke); an unknown rule is refused");

    CHECK(refused_with(argv[1], "already taken"));
    CHECK(refused_with(argv[2], "contract version 42"));
    char versions[64];
    snprintf(versions, sizeof versions, "speaks versions 1 to %u", SV_CONTRACT_VERSION);
    CHECK(refused_with(argv[2], versions));
    CHECK(refused_with(argv[3], "exports no 'sv_plugin_get'"));
    CHECK(refused_with("/nonexistent/plugin.so", "no such file"));
    char text[] = "/tmp/sv_not_a_library_XXXXXX";
    int fd = mkstemp(text);
    CHECK(fd >= 0);
    if (fd >= 0) {
        FILE *f = fdopen(fd, "w");
        fputs("not an ELF file\n", f);
        fclose(f);
        CHECK(refused_with(text, "cannot load it as a shared library"));
        remove(text);
    }
    CHECK(sv_registry_find("future") == NULL);
    feature("bad plugins refused: version, symbol, missing, not a library");

    sv_plugin_unload_all();
    CHECK(sv_registry_find("example_race") == NULL);
    CHECK(sv_registry_count() == before);
    feature("unloading forgets plugin samplers");
    return check_exit();
}
