#!/bin/bash
# The bash completion of regloc (data/completion/regloc.bash): what it offers
# at a few points, and that it knows every command and every option that
# `regloc --help` and `regloc COMMAND --help` list (so it cannot fall behind).
# Usage: test-completion.sh COMPLETION REGLOC
set -u
completion=$1 regloc=$2
# shellcheck source=/dev/null
. "$completion"
failed=0

complete_line () {   # the words of a command line; the last is being completed
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _regloc
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

expect () {   # expect "WANTED" WORDS…
  local want=$1; shift
  local got
  got=$(complete_line "$@")
  if [ "$got" != "$want" ]; then
    echo "FAIL: ${*}<TAB>: got '$got', want '$want'"; failed=1
  else
    echo "ok: ${*}<TAB> -> $got"
  fi
}

expect 'record replay' regloc re
expect 'monitor' regloc mo
expect '--json' regloc monitor --j
expect '--json' regloc status --js
expect 'csv geojson json kml text' regloc replay --format ''
expect 'gpsd gpx nmea' regloc replay --gps-format ''
expect 'clear set' regloc override ''
expect '' regloc override set ''
expect '--check' regloc replay --scenario x.scn --ch
expect 'Europe/Berlin' regloc replay --timezone Europe/Berl

# every command of `regloc --help`
commands=$("$regloc" --help | sed -n 's/^  \([a-z-][a-z-]*\)  .*/\1/p')
[ -n "$commands" ] || { echo "FAIL: no commands in regloc --help"; failed=1; }
offered=" $(complete_line regloc '') "
for c in $commands; do
  case $offered in *" $c "*) ;; *) echo "FAIL: command $c is not offered"; failed=1 ;; esac
  # every option of `regloc COMMAND --help` (GOption's or the usage line's)
  opts=$("$regloc" "$c" --help 2>&1 | grep -oE '(^|[ [])--[a-z][a-z-]*' | sed 's/^[ [ ]*//' | sort -u)
  have=" $(complete_line regloc "$c" --) "
  for o in $opts; do
    case $o in --help-all|--help-*) continue ;; esac
    case $have in *" $o "*) ;; *) echo "FAIL: regloc $c: option $o is not offered (offered:$have)"; failed=1 ;; esac
  done
  echo "ok: regloc $c: $(echo $opts | wc -w) options of its --help offered"
done
exit $failed
