/* sv_plot.h: gnuplot, run from an argument vector (never a shell) on a
 * script whose every string went through sv_gp_string. */
#ifndef SV_PLOT_H
#define SV_PLOT_H

#include <stddef.h>
#include <stdio.h>
#include "sv_base.h"

/* ---- gnuplot.c: gnuplot scripts, and gnuplot run on DIR/SCRIPT in DIR -------- */
/* The one way text enters a gnuplot script: as a single-quoted gnuplot
 * string ('' for a quote, '?' for a control character), which gnuplot
 * interprets no further. Cut to fit len (SV_GP_QUOTED(strlen) always fits),
 * quotes balanced. Returns out. */
#define SV_GP_QUOTED(n) (2 * (n) + 3)
const char *sv_gp_string(const char *text, char *out, size_t len);
/* A file in the script's folder: "./NAME" quoted as above, so that no name
 * reads as gnuplot's pipes ('<cmd', '|cmd') or special files ('-', '+', ''). */
const char *sv_gp_file(const char *name, char *out, size_t len);
/* The style of series i (0-based): "lc rgb '#...' dt D", with points
 * " pt P": a colour of eight, a dash type of five and a point shape of
 * seven, all changing from one series to the next, so that 40 series differ
 * in colour and dash together and print in grey stays readable. */
const char *sv_gp_style(int i, int points, char *out, size_t len);
/* Its colour alone, "#RRGGBB". */
const char *sv_gp_colour(int i);
/* "set terminal ... size ..." for ext png (pngcairo), svg or pdf (pdfcairo,
 * w/100 by h/100 inches), noenhanced, then "set output './STEM.ext'". */
void sv_gp_terminal(FILE *f, const char *ext, int w, int h, const char *stem);
/* Runs gnuplot (an argument vector, no shell) on SCRIPT in DIR, its messages
 * in DIR/NAME.log (removed when empty). SV_OK when drawn, and when gnuplot is
 * not installed (note then says so and how to install it); SV_EENV when
 * gnuplot failed or could not run (note says why, with its last message).
 * Sets no error message of its own: see sv_gnuplot_status. */
int sv_gnuplot_run(const char *dir, const char *script, char *note, size_t note_len);
/* Tells a plot's outcome (plot_rc, note) within a command whose status so
 * far is rc_so_far: a failed plot in a command that has not failed becomes
 * its error message (main prints it); otherwise the note is printed here, so
 * an earlier error keeps its message. Returns plot_rc. */
int sv_gnuplot_status(int rc_so_far, int plot_rc, const char *note);

#endif
