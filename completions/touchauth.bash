# SPDX-License-Identifier: Apache-2.0
# bash completion for touchauth(1), installed by scripts/install.sh as
# /usr/share/bash-completion/completions/touchauth (bash-completion loads it on first use).
# The commands and options are those of `touchauth --help` (Sources/TouchAuthCommands/Commands.swift);
# tests/e2e/cli.sh checks that the two agree. Plain bash: bash-completion's helpers are not needed.

# _touchauth_options COMMAND: the options COMMAND takes, as its --help line shows them.
_touchauth_options() {
    case $1 in
        enroll) echo "--user --finger --replace --device --config" ;;
        list) echo "--user --json --config" ;;
        delete) echo "--finger --all --user --device --config" ;;
        verify | enable) echo "--user --device --config" ;;
        disable) echo "--user --config" ;;
        doctor) echo "--user --json --pam-dir --config" ;;
        status) echo "--json --config" ;;
        unlock) echo "--config" ;;
        config-dump) echo "--config --arguments --restricted" ;;
    esac
}

# The sensors the prints are on (driver/device_id), when the print directory is readable (root).
_touchauth_devices() {
    local d
    for d in /var/lib/fprint/*/*/*; do
        [ -d "$d" ] && d=${d#/var/lib/fprint/*/} && echo "$d"
    done 2>/dev/null | sort -u
}

_touchauth() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=""
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
    # --name=value: bash splits it at '=' (COMP_WORDBREAKS).
    if [ "$cur" = "=" ]; then
        prev=${COMP_WORDS[COMP_CWORD - 1]} cur=""
    elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
        # pam-verify and pam-account are run by pam_touchauth.so, not typed: not offered.
        mapfile -t COMPREPLY < <(compgen -W "enroll list delete verify enable disable doctor status unlock config-dump --help --version" -- "$cur")
        return 0
    fi
    local command=${COMP_WORDS[1]}
    case $prev in
        --user) mapfile -t COMPREPLY < <(compgen -u -- "$cur"); return 0 ;;
        --finger)
            mapfile -t COMPREPLY < <(compgen -W "left-thumb left-index-finger left-middle-finger left-ring-finger left-little-finger
                right-thumb right-index-finger right-middle-finger right-ring-finger right-little-finger" -- "$cur")
            return 0 ;;
        --device) mapfile -t COMPREPLY < <(compgen -W "$(_touchauth_devices)" -- "$cur"); return 0 ;;
        --config | --arguments) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0 ;;
        --pam-dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return 0 ;;
    esac
    local options word used=" "
    options=$(_touchauth_options "$command")
    [ -n "$options" ] || return 0
    for word in "${COMP_WORDS[@]:2}"; do used+="${word%%=*} "; done
    local offer="" option
    for option in $options --help; do
        [[ $used == *" $option "* ]] || offer+="$option "
    done
    if [[ $cur != -* ]] && { [ "$command" = status ] || [ "$command" = unlock ]; }; then
        mapfile -t COMPREPLY < <(compgen -u -- "$cur")  # the USER word
        return 0
    fi
    mapfile -t COMPREPLY < <(compgen -W "$offer" -- "$cur")
    return 0
}
complete -F _touchauth touchauth
