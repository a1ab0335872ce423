/* What a country's regulatory rules change against the world domain 00,
 * in words: per band (2.4, 5, 6, 60 GHz) the 20 MHz channels (2160 MHz at
 * 60 GHz) that become usable, stay passive (NO-IR), need DFS or are not
 * allowed, and whose power limit rises or falls.  Pure: works on parsed
 * domains (core/regdb.h). */
#pragma once

#include <glib.h>
#include "core/regdb.h"

G_BEGIN_DECLS

/* One sentence per run of channels that differ from 00 or stay passive or
 * under DFS; "Same rules as 00." when nothing differs.  Never NULL. */
GPtrArray *rl_reg_domain_changes (const RlRegDomain *country, const RlRegDomain *world);

/* "20 dBm (100 mW)" for 2000 mBm. */
char *rl_reg_format_power (guint mbm);
double rl_reg_mbm_to_mw (guint mbm);

G_END_DECLS
