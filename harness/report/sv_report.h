/* sv_report.h: a verification's report as text, JSON and JUnit XML (files
 * through sv_store.h: written whole). */
#ifndef SV_REPORT_H
#define SV_REPORT_H

#include <stdio.h>
#include "sv_check.h"
#include "sv_store.h"

/* ---- reports ----------------------------------------------------------------- */
void sv_report_text(const sv_report *r, FILE *out);
/* verify --measure's table (report_measure.c): distances, no verdicts. */
void sv_report_measure(const sv_report *r, FILE *out);
int sv_report_json(const sv_report *r, const char *path);
int sv_report_junit(const sv_report *r, const char *path);

#endif
