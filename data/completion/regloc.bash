# bash completion for regloc(1).  Plain bash: it needs none of the
# bash-completion package's helpers, so it also works when sourced alone.

_regloc ()
{
    local cur prev cmd i
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}

    local commands='replay record check-config status monitor explain override rules lookup help'
    cmd=
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            -*) ;;
            *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done

    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi

    # Options that take a value: complete the value.
    case $prev in
        --scenario)
            COMPREPLY=($(compgen -f -X '!*.scn' -- "$cur") $(compgen -d -- "$cur"))
            compopt -o filenames 2>/dev/null
            return ;;
        --gps|--scans|--config|-c|--regdb|--output|-o|--index|--map)
            COMPREPLY=($(compgen -f -- "$cur"))
            compopt -o filenames 2>/dev/null
            return ;;
        --format)
            COMPREPLY=($(compgen -W 'text json csv geojson kml' -- "$cur"))
            return ;;
        --gps-format)
            COMPREPLY=($(compgen -W 'nmea gpsd gpx' -- "$cur"))
            return ;;
        --timezone)
            local zones=
            [[ -r /usr/share/zoneinfo/tzdata.zi ]] &&
                zones=$(awk '$1 == "Z" { print $2 } $1 == "L" { print $3 }' /usr/share/zoneinfo/tzdata.zi)
            COMPREPLY=($(compgen -W "$zones" -- "$cur"))
            return ;;
        --date|--duration|--scan-interval|--jobs|-j)
            return ;;
    esac

    local opts
    case $cmd in
        replay) opts='--scenario --gps --gps-format --date --scans --timezone --config --regdb --format --evidence --check --map --batch --jobs' ;;
        record) opts='--output --duration --scan-interval --config' ;;
        check-config) opts='--list' ;;
        status) opts='--json --session-bus' ;;
        monitor) opts='--json --session-bus' ;;
        explain) opts='--session-bus' ;;
        override)
            local words=0
            for ((i = i + 1; i < COMP_CWORD; i++)); do
                [[ ${COMP_WORDS[i]} == -* ]] || words=$((words + 1))
            done
            if [[ $cur != -* ]]; then
                # set XX: a country code, which is for the user to say
                ((words == 0)) && COMPREPLY=($(compgen -W 'set clear' -- "$cur"))
                return
            fi
            opts='--session-bus' ;;
        lookup) opts='--json --index --country-only --jobs' ;;
        rules) opts='--json --regdb --config --session-bus' ;;
        *) return ;;
    esac
    if [[ $cmd == check-config && $cur != -* ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))
        compopt -o filenames 2>/dev/null
        return
    fi
    COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
}

complete -F _regloc regloc
