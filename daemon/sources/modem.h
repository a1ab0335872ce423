/* The mobile-network source: which network each modem is registered on,
 * from ModemManager (org.freedesktop.ModemManager1) on the system bus.
 *
 * Follows ModemManager's ObjectManager (modems appearing and going away)
 * and, per modem, Modem.Modem3gpp's RegistrationState and OperatorCode and,
 * where enabled, the Location interface's 3GPP LAC/CI ("MCC,MNC,LAC,CI").
 * Registered at home or roaming: one cell item ("cell:<modem>") naming the
 * countries of its MCC (readers/mcc.h); idle, searching, denied, unknown,
 * emergency-only, a disabled modem (airplane mode, no SIM) or a modem gone:
 * the item is withdrawn.  No ModemManager on the bus: unavailable until its
 * name appears (watched, never polled). */
#pragma once

#include "daemon/sources/source.h"

G_BEGIN_DECLS

extern const RlSourceOps rl_modem_source_ops;

/* Called with every change of the network a modem is registered on, before
 * any evidence: @mcc/@mnc, or @registered FALSE when it lost it (or went
 * away).  Networks that name no country are reported too.  For
 * `regloc record`, which writes them into the scan log. */
typedef void (*RlModemObserver) (const char *modem, gboolean registered, guint mcc, const char *mnc,
                                 gint64 observed_at, gpointer user_data);
void rl_modem_set_observer (RlSource *source, RlModemObserver observer, gpointer user_data);

G_END_DECLS
