/* sandbox_proc.c: what /proc says of processes, for the sweep and the
 * namespace's init: a process's session and state, and a list of pids
 * (a task's children). Parsed with strtol: /proc's numbers are trusted,
 * but a process's name, in parentheses, may hold anything. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sandbox_internal.h"

/* The next decimal in *s (spaces skipped), or -1 when there is none. */
static long next_number(const char **s)
{
    char *end;
    errno = 0;
    long v = strtol(*s, &end, 10);
    if (end == *s || errno)
        return -1;
    *s = end;
    return v;
}

pid_t sv_proc_session(pid_t pid, char *state)
{
    *state = '?';
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *at = strrchr(buf, ')'); /* after the name: state ppid pgrp session */
    if (!at || at[1] != ' ' || !at[2])
        return -1;
    *state = at[2];
    at += 3;
    long fields[3];
    for (int i = 0; i < 3; i++)
        if ((fields[i] = next_number(&at)) < 0)
            return -1;
    return (pid_t)fields[2];
}

int sv_proc_read_pids(const char *path, pid_t *out, int max)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    int got = 0;
    const char *at = buf;
    for (long v; got < max && (v = next_number(&at)) > 0;)
        out[got++] = (pid_t)v;
    return got;
}

int sv_proc_nspid(const char *status_path, pid_t *innermost)
{
    FILE *f = fopen(status_path, "re");
    if (!f)
        return 0;
    char line[512];
    int levels = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "NSpid:", 6) == 0) {
            const char *at = line + 6;
            for (long v; (v = next_number(&at)) > 0; levels++)
                *innermost = (pid_t)v;
            break;
        }
    fclose(f);
    return levels;
}
