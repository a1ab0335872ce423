/* The time `gpspipe -t` writes before each line it copies from gpsd
 * (gpsd's clients/gpspipe.c: strftime's "%F %T", then ": "), in every
 * form its options give:
 *   -t    2025-10-04 10:59:59: …
 *   -u    2025-10-04 10:59:59.123456: …
 *   -uu   2025-10-04 10:59:59 1759575599.123456: …
 *   -Z    2025-10-04T10:59:59: …   (-Zu: 10:59:59.12345Z, -Zuu: 10:59:59Z 1759575599.123456)
 * Both the gpsd JSON and the NMEA reader take it off a line (gpspipe -w
 * and gpspipe -r alike).  A format of one's own (-T) is not recognised:
 * it could be anything, so such a line stays what it is. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The length of that time and its ": " at @p (@n bytes), else 0. */
gsize rl_gpspipe_time_length (const char *p, gsize n);

G_END_DECLS
