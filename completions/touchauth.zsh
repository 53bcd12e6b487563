#compdef touchauth
# SPDX-License-Identifier: Apache-2.0
# zsh completion for touchauth(1), installed by scripts/install.sh as
# /usr/share/zsh/vendor-completions/_touchauth. The commands and options are those of
# `touchauth --help` (Sources/TouchAuthCommands/Commands.swift); tests/e2e/cli.sh checks that
# every option there is in this file's entry for its command.

_touchauth() {
    local -a commands fingers devices
    commands=(
        'enroll:enroll a finger'
        'list:list the enrolled fingers'
        'delete:delete a finger, or all'
        'verify:one scan; no PAM, no strikes'
        'enable:turn the fingerprint on (after one matching scan)'
        'disable:turn the fingerprint off (the password only)'
        'doctor:check the installation'
        'status:fingers, strikes, lockout, what the next prompt asks for'
        'unlock:clear the lockout'
        'config-dump:the settings as the helper reads them'
    )
    fingers=(left-thumb left-index-finger left-middle-finger left-ring-finger left-little-finger
             right-thumb right-index-finger right-middle-finger right-ring-finger right-little-finger)
    # The sensors the prints are on (driver/device_id), when the print directory is readable (root).
    devices=(${(u)${${(f)"$(print -l /var/lib/fprint/*/*/*(N/))"}#/var/lib/fprint/*/}})
    if (( CURRENT == 2 )); then
        _describe -t commands 'touchauth command' commands
        compadd -- --help --version
        return
    fi
    local command=$words[2]
    shift 1 words
    (( CURRENT-- ))
    # One branch per command, its options spelled out (as in its --help line).
    case $command in
        enroll) _arguments '--user=[the user]:user:_users' "--finger=[the finger]:finger:(${fingers})" \
            '--replace[enroll over an enrolled finger]' "--device=[the sensor]:sensor:(${devices})" '--config=[settings file]:file:_files' ;;
        list) _arguments '--user=[the user]:user:_users' '--json[machine-readable]' '--config=[settings file]:file:_files' ;;
        delete) _arguments "--finger=[the finger]:finger:(${fingers})" '--all[every finger]' '--user=[the user]:user:_users' \
            "--device=[the sensor]:sensor:(${devices})" '--config=[settings file]:file:_files' ;;
        verify|enable) _arguments '--user=[the user]:user:_users' "--device=[the sensor]:sensor:(${devices})" \
            '--config=[settings file]:file:_files' ;;
        disable) _arguments '--user=[the user]:user:_users' '--config=[settings file]:file:_files' ;;
        doctor) _arguments '--user=[the user]:user:_users' '--json[machine-readable]' '--pam-dir=[the PAM stacks]:directory:_directories' \
            '--config=[settings file]:file:_files' ;;
        status) _arguments '--json[machine-readable]' '--config=[settings file]:file:_files' '1:user:_users' ;;
        unlock) _arguments '--config=[settings file]:file:_files' '1:user:_users' ;;
        config-dump) _arguments '--config=[settings file]:file:_files' '--arguments=[module arguments, one a line]:file:_files' \
            '--restricted[as for a caller that is not root]' ;;
    esac
}

_touchauth "$@"
