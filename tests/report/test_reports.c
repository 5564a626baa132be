/* test_reports.c: the JSON and JUnit reports hold what the run found, and a
 * report that cannot be written leaves nothing behind. */
#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "suite_config.h"
#include "sv_base.h"
#include "sv_check.h"
#include "sv_registry.h"
#include "sv_report.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = '\0';
    fclose(f);
    return s;
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)); p++)
        n++;
    return n;
}

int main(void)
{
    suite_config s;
    sv_report *r = NULL;
    suite_config_init(&s, "smoke", &sv_sampler_direct, 1); /* fails: reports must say so */
    CHECK(sv_verify(&s.cfg, &r) == SV_OK);
    if (!r)
        return 1;
    char dir[] = "/tmp/sv_reports_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char json[256], junit[256];
    snprintf(json, sizeof json, "%s/report.json", dir);
    snprintf(junit, sizeof junit, "%s/report.xml", dir);

    CHECK(sv_report_json(r, json) == SV_OK);
    char *text = slurp(json);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    CHECK(root != NULL);
    if (root) {
        CHECK(strcmp(cJSON_GetObjectItem(root, "sampler")->valuestring, "direct") == 0);
        CHECK(cJSON_GetObjectItem(root, "family_alpha")->valuedouble == 1e-6);
        cJSON *cases = cJSON_GetObjectItem(root, "cases");
        CHECK(cJSON_GetArraySize(cases) == (int)r->n_cases);
        for (int i = 0; i < cJSON_GetArraySize(cases); i++) {
            cJSON *c = cJSON_GetArrayItem(cases, i);
            int K = cJSON_GetObjectItem(c, "K")->valueint;
            cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItem(c, "runs"), 0);
            CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(run, "positions")) == K + 1);
            CHECK(strcmp(cJSON_GetObjectItem(c, "verdict")->valuestring, "FAIL") == 0);
            cJSON *len = cJSON_GetObjectItem(run, "accepted_length");
            CHECK(strcmp(cJSON_GetObjectItem(len, "verdict")->valuestring, "FAIL") == 0);
            CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(run, "findings")) >= 1);
        }
        cJSON *summary = cJSON_GetObjectItem(root, "summary");
        CHECK(cJSON_GetObjectItem(summary, "failed")->valueint == (int)r->n_cases);
        cJSON_Delete(root);
    }
    free(text);
    feature("JSON report: cases, positions, verdicts, findings");

    CHECK(sv_report_junit(r, junit) == SV_OK);
    text = slurp(junit);
    CHECK(text != NULL);
    if (text) {
        size_t expected = 0;
        for (size_t i = 0; i < r->n_cases; i++)
            expected += (size_t)r->cases[i].K + 1 + 6; /* and the two probes of mixed batches */
        CHECK(strstr(text, "<testsuites>") != NULL);
        CHECK(count(text, "<testcase ") == expected);
        CHECK(count(text, "<failure ") == r->n_cases); /* the length check of each case */
        CHECK(strstr(text, "accepts no drafts") != NULL);
        free(text);
    }
    feature("JUnit report: one test case per case and check, failures named");

    char bad[300];
    snprintf(bad, sizeof bad, "%s/missing-dir/report.json", dir);
    CHECK(sv_report_json(r, bad) == SV_EBAD);
    CHECK(strstr(sv_error_message(), "cannot write there") != NULL);
    /* an existing report survives a failed rewrite: a name of 250 characters
     * leaves no room for the temporary's suffix (NAME_MAX 255), so the write
     * fails before touching it, even for root */
    char longname[300];
    int n = snprintf(longname, sizeof longname, "%s/", dir);
    memset(longname + n, 'r', 250);
    longname[n + 250] = '\0';
    FILE *keep = fopen(longname, "w");
    CHECK(keep != NULL);
    if (keep) {
        fputs("previous report\n", keep);
        fclose(keep);
        CHECK(sv_report_json(r, longname) == SV_EBAD);
        char *after = slurp(longname);
        CHECK(after && strcmp(after, "previous report\n") == 0);
        free(after);
        remove(longname);
    }
    feature("unwritable output: error, nothing lost");

    remove(json);
    remove(junit);
    rmdir(dir);
    sv_report_free(r);
    return check_exit();
}
