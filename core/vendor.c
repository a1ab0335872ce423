/* OUI → vendor (core/vendor.h). */
#include "core/vendor.h"

#include "core/oui-vendors.h"

guint32
rl_oui_vendor (guint32 oui)
{
  gsize lo = 0, hi = RL_OUI_MEMBER_COUNT;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (oui_member[mid] < oui)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < RL_OUI_MEMBER_COUNT && oui_member[lo] == oui)
    return oui_vendor_first[oui_member_vendor[lo]];
  return oui;
}
