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

G_END_DECLS
