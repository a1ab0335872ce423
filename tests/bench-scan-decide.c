/* CPU time from a scan dump to a decision: parse every BSS message of a
 * GET_SCAN dump, build beacon evidence, update the evidence set and run the
 * policy, as the daemon does on NEW_SCAN_RESULTS.
 * usage: bench-scan-decide [N_BSS] [ROUNDS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <linux/nl80211.h>
#include "core/evidence-set.h"
#include "core/policy.h"
#include "readers/nl80211-scan.h"

static double
cpu_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A typical modern AP's elements (~330 bytes): SSID, rates, DS, Country,
 * RSN, HT/VHT capabilities and operation, extended caps, vendor WMM/WPS. */
static gsize
make_ies (guint8 *out, guint i)
{
  gsize n = 0;
  char ssid[33];
  int sl = g_snprintf (ssid, sizeof ssid, "network-%u", i);
  static const char *countries[] = { "DE ", "DE ", "DE ", "DE ", "DE ", "FR " };
  const char *cc = countries[i % G_N_ELEMENTS (countries)];
  out[n++] = 0; out[n++] = (guint8) sl; memcpy (out + n, ssid, (gsize) sl); n += (gsize) sl;
  static const guint8 rates[] = { 1, 8, 0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24, 3, 1, 6 };
  memcpy (out + n, rates, sizeof rates); n += sizeof rates;
  guint8 country[] = { 7, 16, (guint8) cc[0], (guint8) cc[1], (guint8) cc[2], 1, 13, 20, 36, 4, 23, 52, 4, 20, 100, 11, 27, 0 };
  memcpy (out + n, country, sizeof country); n += sizeof country;
  /* filler elements standing for RSN, HT, VHT, vendor: realistic length */
  for (guint k = 0; k < 10; k++)
    {
      guint8 id = (guint8) (48 + k * 13);
      out[n++] = id == 7 ? 221 : id;
      out[n++] = 26;
      memset (out + n, (int) k, 26);
      n += 26;
    }
  return n;
}

int
main (int argc, char **argv)
{
  guint n_bss = argc > 1 ? (guint) atoi (argv[1]) : 200;
  guint rounds = argc > 2 ? (guint) atoi (argv[2]) : 50;
  GPtrArray *msgs = g_ptr_array_new_with_free_func ((GDestroyNotify) nlmsg_free);
  RlPolicyParams params;
  guint8 ies[512];

  if (n_bss == 0 || n_bss > 100000 || rounds == 0 || rounds > 10000)
    {
      fprintf (stderr, "usage: bench-scan-decide [N_BSS 1..100000] [ROUNDS 1..10000]\n");
      return 2;
    }
  rl_policy_params_init (&params);
  for (guint i = 0; i < n_bss; i++)
    {
      struct nl_msg *msg = nlmsg_alloc_size (4096);
      guint8 bssid[6] = { (guint8) (i * 7), (guint8) (i * 13), (guint8) i, 0, (guint8) (i >> 8), (guint8) i };
      gsize ies_len = make_ies (ies, i);
      nla_put_u32 (msg, NL80211_ATTR_GENERATION, 1);
      nla_put_u32 (msg, NL80211_ATTR_IFINDEX, 3);
      struct nlattr *bss = nla_nest_start (msg, NL80211_ATTR_BSS);
      nla_put (msg, NL80211_BSS_BSSID, 6, bssid);
      nla_put_u32 (msg, NL80211_BSS_FREQUENCY, 2412 + 5 * (i % 13));
      nla_put_u64 (msg, NL80211_BSS_TSF, 1000 * i);
      nla_put_u16 (msg, NL80211_BSS_BEACON_INTERVAL, 100);
      nla_put_u16 (msg, NL80211_BSS_CAPABILITY, 0x1411);
      nla_put (msg, NL80211_BSS_INFORMATION_ELEMENTS, (int) ies_len, ies);
      nla_put (msg, NL80211_BSS_BEACON_IES, (int) ies_len, ies);
      nla_put_u32 (msg, NL80211_BSS_SIGNAL_MBM, (guint32) (-4000 - 10 * (gint) i));
      nla_put_u32 (msg, NL80211_BSS_SEEN_MS_AGO, 100);
      nla_nest_end (msg, bss);
      g_ptr_array_add (msgs, msg);
    }

  g_autoptr (RlEvidenceSet) set = rl_evidence_set_new (100000);
  RlDecision *decision = NULL;
  gint64 now = G_GINT64_CONSTANT (1767225600) * RL_USEC_PER_SEC;
  /* the timezone confirms, as on a machine set to Europe/Berlin */
  RlEvidence tz;
  rl_evidence_init (&tz, RL_SOURCE_TIMEZONE, "timezone", now, RL_NEVER);
  rl_evidence_add_country (&tz, RL_COUNTRY ('D', 'E'));
  rl_evidence_set_put (set, &tz);
  double start = cpu_ms ();
  for (guint r = 0; r < rounds; r++)
    {
      now += 10 * RL_USEC_PER_SEC;
      for (guint i = 0; i < msgs->len; i++)
        {
          struct nlmsghdr *h = nlmsg_hdr (msgs->pdata[i]);
          RlScanBss sb;
          RlEvidence ev;
          if (!rl_nl80211_parse_bss (nlmsg_data (h), (gsize) nlmsg_datalen (h), &sb, NULL))
            return 1;
          if (rl_beacon_evidence_build (&ev, sb.bssid, sb.signal_mbm, sb.freq_mhz, sb.ies, sb.ies_len, sb.beacon_ies,
                                        sb.beacon_ies_len, now - sb.seen_ms_ago * 1000, 900) == RL_COUNTRY_IE_OK)
            rl_evidence_set_put (set, &ev);
        }
      gsize n;
      const RlEvidence *items = rl_evidence_set_items (set, &n);
      RlDecision *next = rl_policy_decide (&params, NULL, NULL, decision, items, n, NULL, now);
      rl_decision_free (decision);
      decision = next;
    }
  double per = (cpu_ms () - start) / rounds;
  char cc[3];
  printf ("%u BSS per scan, %u rounds: %.3f ms CPU per scan result -> decision (decided %s)\n",
          n_bss, rounds, per, rl_country_to_string (decision->country, cc));
  rl_decision_free (decision);
  g_ptr_array_unref (msgs);
  return per < 10.0 ? 0 : 1;
}
