/* What reglocd keeps across restarts: the override set over D-Bus.
 *
 * One small key file, "override", in the state directory: $STATE_DIRECTORY
 * (systemd's StateDirectory=regloc; the first entry when it lists several)
 * or /var/lib/regloc.  Written atomically (write + fsync + rename), so a
 * crash leaves the old file or the new one, never half of one. */
#pragma once

#include <glib.h>
#include "core/evidence.h"

G_BEGIN_DECLS

#define RL_STATE_DEFAULT_DIR "/var/lib/regloc"
#define RL_STATE_OVERRIDE_FILE "override"

/* $STATE_DIRECTORY's first entry, else RL_STATE_DEFAULT_DIR. */
char *rl_state_dir (void);

/* A missing file is no override (TRUE, RL_COUNTRY_NONE).  An unreadable or
 * corrupt one is FALSE with an error naming the file and the problem; the
 * caller logs it and runs with no override. */
gboolean rl_state_load_override (const char *dir, RlCountry *country, GError **error);
/* RL_COUNTRY_NONE removes the file. */
gboolean rl_state_save_override (const char *dir, RlCountry country, GError **error);

G_END_DECLS
