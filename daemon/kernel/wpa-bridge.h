/* The wpa_supplicant bridge (docs/wifi.md, "NetworkManager, wpa_supplicant
 * and iwd"): the decided country also goes to wpa_supplicant, so that its
 * AP, P2P and scan logic agrees with the kernel.
 *
 * wpa_supplicant (fi.w1.wpa_supplicant1 on the system bus) keeps a country
 * of its own per interface: the read/write `Country` property (s) of
 * fi.w1.wpa_supplicant1.Interface.  Setting it also makes wpa_supplicant
 * send the kernel the same user hint regloc sends.  The bridge watches the
 * name (no polling, no timer: an absent wpa_supplicant costs nothing), reads
 * the root object's `Interfaces` when it appears, follows InterfaceAdded /
 * InterfaceRemoved, and writes the country in force to every interface with
 * asynchronous calls only.  A refusal (wpa_supplicant's bus policy lets root
 * and the netdev group call it) is logged once per interface and error,
 * never fatal. */
#pragma once

#include <glib.h>
#include "core/evidence.h"

G_BEGIN_DECLS

typedef struct RlWpaBridge RlWpaBridge;

/* Connects to the system bus and watches for wpa_supplicant. */
RlWpaBridge *rl_wpa_bridge_new (void);
void rl_wpa_bridge_free (RlWpaBridge *bridge);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RlWpaBridge, rl_wpa_bridge_free)

/* The decided country in force ("00" for the world): written to every
 * interface that does not have it yet, now and when one appears. */
void rl_wpa_bridge_set_country (RlWpaBridge *bridge, RlCountry country);

/* One line for `regloc explain`: "wpa_supplicant is not on the system bus",
 * "wpa_supplicant: 2 interfaces set to DE", … */
const char *rl_wpa_bridge_status (RlWpaBridge *bridge);

G_END_DECLS
