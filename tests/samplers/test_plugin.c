/* test_plugin.c: the example plugin loads and passes; plugins of another
 * contract version, without the entry symbol, missing, or not shared
 * libraries are refused with a message that says what is wrong.
 * A contract version 1 plugin loads, widened, and passes.
 * argv: example plugin, bad-version plugin, no-symbol plugin, version 1 plugin. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
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

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: test_plugin EXAMPLE BAD_VERSION NO_SYMBOL V1\n");
        return 2;
    }
    char err[1024] = "";
    size_t before = sv_registry_count();
    CHECK(sv_plugin_load(argv[1], err, sizeof err) == 0);
    CHECK(sv_registry_count() == before + 1);
    const sv_sampler *race = sv_registry_find("example_race");
    CHECK(race != NULL);
    if (race) {
        suite_config s;
        sv_report *r = NULL;
        suite_config_init(&s, "smoke", race, 0);
        CHECK(sv_verify(&s.cfg, &r) == SV_OK);
        CHECK(r && r->n_cases == 6 && r->failed == 0);
        sv_report_free(r);
    }
    feature("example plugin loads and passes the smoke suite (1e-6 family-wise)");

    CHECK(sv_plugin_load(argv[4], err, sizeof err) == 0);
    const sv_sampler *old = sv_registry_find("old_linear"), *second = sv_registry_find("old_second");
    CHECK(old && second && old->inputs == 0 && second->inputs == 0);
    CHECK(second && second->verify == old->verify && strstr(second->description, "stride"));
    if (old) {
        suite_config s;
        sv_report *r = NULL;
        suite_config_init(&s, "smoke", old, 0);
        CHECK(sv_verify(&s.cfg, &r) == SV_OK);
        CHECK(r && r->n_cases == 6 && r->failed == 0);
        sv_report_free(r);
    }
    feature("a contract version 1 plugin loads widened (probs only) and passes smoke");

    CHECK(refused_with(argv[1], "already taken"));
    CHECK(refused_with(argv[2], "contract version 42"));
    CHECK(refused_with(argv[2], "speaks versions 1 to 2"));
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
