/* The replay report: text, JSON (the stable document of regloc(1)) or CSV.
 *
 * rl_replay_format() builds the whole report after a run; a writer puts
 * text and CSV rows out as the timeline grows (each entry once it is
 * final) and the rest at the end, so a long replay's output does not wait
 * for the whole log.  JSON is one document whose summary comes last: the
 * writer builds it at the end from the timeline of decision changes. */
#pragma once

#include <stdio.h>
#include <glib.h>
#include "replay/replay.h"

G_BEGIN_DECLS

typedef struct RlReportWriter RlReportWriter;

/* @format "text" (or NULL), "json" or "csv"; NULL with @error otherwise. */
RlReportWriter *rl_report_writer_new (const char *format, FILE *out, GError **error);
/* Before rl_replay_run(): rows are written as the run decides. */
void rl_report_writer_attach (RlReportWriter *writer, RlReplay *replay);
/* After the run: the summary (text), the document (json). */
void rl_report_writer_finish (RlReportWriter *writer, const RlReplay *replay);
void rl_report_writer_free (RlReportWriter *writer);
/* For rl_replay_foreach_note (): adds a note to a JsonBuilder's open
 * array, as the JSON report's "notes" has it. */
void rl_report_json_note (const char *note, gpointer builder);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlReportWriter, rl_report_writer_free)

G_END_DECLS
