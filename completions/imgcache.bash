#!/bin/bash

__imgcache_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__imgcache_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__imgcache_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__imgcache_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_imgcache() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--quiet -q --verbose -v --json --version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=(-d --dir --config --color --stats-log)
    __imgcache_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    fetch|prefetch|query|remove|clean|size|clear|list|stats|verify|config|remote|job|export|help)
        # Offer subcommand argument completions
        "_imgcache_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'fetch prefetch query remove clean size clear list stats verify config remote job export help' -- "${cur}"))
        ;;
    esac
}

_imgcache_fetch() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --offline --reload --refresh --retry-failed --any --no-remote --robots --no-robots --netrc -k --insecure --enlarge --keep-metadata --no-rotate --animated --discard-original --link --version -h --help)
    repeating_options=(--ro-dir -H --header --resolve)
    non_repeating_options=(-d --dir --config --color --stats-log --key-filter --freshness --stale-if-error --remote -u --user --cookie-jar --cacert --connect-timeout --timeout -m --max-time --max-filesize --retry --rate --rate-per-host -A --user-agent --failed-ttl --resize --gravity --format --quality --variant --output -o --key --input -i)
    __imgcache_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--key-filter')
        return
        ;;
    '--ro-dir')
        __imgcache_add_completions -d
        return
        ;;
    '--freshness')
        return
        ;;
    '--stale-if-error')
        return
        ;;
    '--remote')
        return
        ;;
    '-H'|'--header')
        return
        ;;
    '--resolve')
        return
        ;;
    '-u'|'--user')
        return
        ;;
    '--cookie-jar')
        __imgcache_add_completions -f
        return
        ;;
    '--cacert')
        __imgcache_add_completions -f
        return
        ;;
    '--connect-timeout')
        return
        ;;
    '--timeout')
        return
        ;;
    '-m'|'--max-time')
        return
        ;;
    '--max-filesize')
        return
        ;;
    '--retry')
        return
        ;;
    '--rate')
        return
        ;;
    '--rate-per-host')
        return
        ;;
    '-A'|'--user-agent')
        return
        ;;
    '--failed-ttl')
        return
        ;;
    '--resize')
        return
        ;;
    '--gravity')
        return
        ;;
    '--format')
        return
        ;;
    '--quality')
        return
        ;;
    '--variant')
        return
        ;;
    '--output'|'-o')
        __imgcache_add_completions -f
        return
        ;;
    '--key')
        return
        ;;
    '--input'|'-i')
        __imgcache_add_completions -f
        return
        ;;
    esac
}

_imgcache_prefetch() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --offline --reload --refresh --retry-failed --any --no-remote --robots --no-robots --netrc -k --insecure --enlarge --keep-metadata --no-rotate --animated --discard-original --version -h --help)
    repeating_options=(--ro-dir -H --header --resolve --save-column)
    non_repeating_options=(-d --dir --config --color --stats-log --key-filter --freshness --stale-if-error --remote -u --user --cookie-jar --cacert --connect-timeout --timeout -m --max-time --max-filesize --retry --rate --rate-per-host -A --user-agent --failed-ttl --resize --gravity --format --quality --variant --input -i --input-format --url-col --caption-col --verify-hash --jobs -j --order --max-per-host --save-failed --shard)
    __imgcache_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--key-filter')
        return
        ;;
    '--ro-dir')
        __imgcache_add_completions -d
        return
        ;;
    '--freshness')
        return
        ;;
    '--stale-if-error')
        return
        ;;
    '--remote')
        return
        ;;
    '-H'|'--header')
        return
        ;;
    '--resolve')
        return
        ;;
    '-u'|'--user')
        return
        ;;
    '--cookie-jar')
        __imgcache_add_completions -f
        return
        ;;
    '--cacert')
        __imgcache_add_completions -f
        return
        ;;
    '--connect-timeout')
        return
        ;;
    '--timeout')
        return
        ;;
    '-m'|'--max-time')
        return
        ;;
    '--max-filesize')
        return
        ;;
    '--retry')
        return
        ;;
    '--rate')
        return
        ;;
    '--rate-per-host')
        return
        ;;
    '-A'|'--user-agent')
        return
        ;;
    '--failed-ttl')
        return
        ;;
    '--resize')
        return
        ;;
    '--gravity')
        return
        ;;
    '--format')
        return
        ;;
    '--quality')
        return
        ;;
    '--variant')
        return
        ;;
    '--input'|'-i')
        __imgcache_add_completions -f
        return
        ;;
    '--input-format')
        return
        ;;
    '--url-col')
        return
        ;;
    '--caption-col')
        return
        ;;
    '--save-column')
        return
        ;;
    '--verify-hash')
        return
        ;;
    '--jobs'|'-j')
        return
        ;;
    '--order')
        return
        ;;
    '--max-per-host')
        return
        ;;
    '--save-failed')
        __imgcache_add_completions -f
        return
        ;;
    '--shard')
        return
        ;;
    esac
}

_imgcache_query() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --touch --enlarge --keep-metadata --no-rotate --animated --version -h --help)
    repeating_options=(--ro-dir)
    non_repeating_options=(-d --dir --config --color --stats-log --key-filter --resize --gravity --format --quality --variant)
    __imgcache_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--key-filter')
        return
        ;;
    '--resize')
        return
        ;;
    '--gravity')
        return
        ;;
    '--format')
        return
        ;;
    '--quality')
        return
        ;;
    '--variant')
        return
        ;;
    '--ro-dir')
        __imgcache_add_completions -d
        return
        ;;
    esac
}

_imgcache_remove() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --force -f --dry-run --enlarge --keep-metadata --no-rotate --animated --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log --input -i --key-filter --resize --gravity --format --quality --variant)
    __imgcache_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--input'|'-i')
        __imgcache_add_completions -f
        return
        ;;
    '--key-filter')
        return
        ;;
    '--resize')
        return
        ;;
    '--gravity')
        return
        ;;
    '--format')
        return
        ;;
    '--quality')
        return
        ;;
    '--variant')
        return
        ;;
    esac
}

_imgcache_clean() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --dry-run --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log --max-age --max-size --max-entries --target)
    __imgcache_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--max-age')
        return
        ;;
    '--max-size')
        return
        ;;
    '--max-entries')
        return
        ;;
    '--target')
        return
        ;;
    esac
}

_imgcache_size() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json -b --bytes --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log --by)
    __imgcache_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--by')
        __imgcache_add_completions -W 'format'$'\n''host'$'\n''variant'
        return
        ;;
    esac
}

_imgcache_clear() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --failed --dry-run --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log)
    __imgcache_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    esac
}

_imgcache_list() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --variants --originals --failed -r --reverse --urls --paths -0 --print0 --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log --url-glob --format --larger-than --smaller-than --unused-for --used-within --created-before --created-after --sort -n --limit)
    __imgcache_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--url-glob')
        return
        ;;
    '--format')
        return
        ;;
    '--larger-than')
        return
        ;;
    '--smaller-than')
        return
        ;;
    '--unused-for')
        return
        ;;
    '--used-within')
        return
        ;;
    '--created-before')
        return
        ;;
    '--created-after')
        return
        ;;
    '--sort')
        __imgcache_add_completions -W 'access'$'\n''size'$'\n''created'$'\n''url'$'\n''hits'
        return
        ;;
    '-n'|'--limit')
        return
        ;;
    esac
}

_imgcache_stats() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json -z --zero --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log --format --textfile)
    __imgcache_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--format')
        __imgcache_add_completions -W 'text'$'\n''json'$'\n''openmetrics'$'\n''prometheus'
        return
        ;;
    '--textfile')
        return
        ;;
    esac
}

_imgcache_verify() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --full --repair --dry-run --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log)
    __imgcache_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    esac
}

_imgcache_config() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __imgcache_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    show|get|set|unset|path)
        # Offer subcommand argument completions
        "_imgcache_config_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'show get set unset path' -- "${cur}"))
        ;;
    esac
}

_imgcache_config_show() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log)
    __imgcache_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    esac
}

_imgcache_config_get() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log)
    __imgcache_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    esac
}

_imgcache_config_set() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --user --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log)
    __imgcache_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    esac
}

_imgcache_config_unset() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --user --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log)
    __imgcache_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    esac
}

_imgcache_config_path() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log)
    __imgcache_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    esac
}

_imgcache_remote() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __imgcache_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    status|push)
        # Offer subcommand argument completions
        "_imgcache_remote_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'status push' -- "${cur}"))
        ;;
    esac
}

_imgcache_remote_status() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log --remote)
    __imgcache_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--remote')
        return
        ;;
    esac
}

_imgcache_remote_push() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --all --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log --remote --key-filter --input -i)
    __imgcache_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--remote')
        return
        ;;
    '--key-filter')
        return
        ;;
    '--input'|'-i')
        __imgcache_add_completions -f
        return
        ;;
    esac
}

_imgcache_job() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __imgcache_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    submit|work|status|manifest|retry|cancel|delete)
        # Offer subcommand argument completions
        "_imgcache_job_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'submit work status manifest retry cancel delete' -- "${cur}"))
        ;;
    esac
}

_imgcache_job_submit() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --replace --robots --no-robots --any --enlarge --keep-metadata --no-rotate --animated --discard-original --version -h --help)
    repeating_options=(--save-column)
    non_repeating_options=(-d --dir --config --color --stats-log --queue --input -i --input-format --url-col --caption-col --verify-hash --shard-size --jobs -j --max-per-host --rate --rate-per-host --retry --timeout --connect-timeout -m --max-time --max-filesize -A --user-agent --key-filter --job-lease --max-deliveries --resize --gravity --format --quality --variant)
    __imgcache_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--queue')
        return
        ;;
    '--input'|'-i')
        __imgcache_add_completions -f
        return
        ;;
    '--input-format')
        return
        ;;
    '--url-col')
        return
        ;;
    '--caption-col')
        return
        ;;
    '--save-column')
        return
        ;;
    '--verify-hash')
        return
        ;;
    '--shard-size')
        return
        ;;
    '--jobs'|'-j')
        return
        ;;
    '--max-per-host')
        return
        ;;
    '--rate')
        return
        ;;
    '--rate-per-host')
        return
        ;;
    '--retry')
        return
        ;;
    '--timeout')
        return
        ;;
    '--connect-timeout')
        return
        ;;
    '-m'|'--max-time')
        return
        ;;
    '--max-filesize')
        return
        ;;
    '-A'|'--user-agent')
        return
        ;;
    '--key-filter')
        return
        ;;
    '--job-lease')
        return
        ;;
    '--max-deliveries')
        return
        ;;
    '--resize')
        return
        ;;
    '--gravity')
        return
        ;;
    '--format')
        return
        ;;
    '--quality')
        return
        ;;
    '--variant')
        return
        ;;
    esac
}

_imgcache_job_work() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --follow --netrc -k --insecure --no-remote --version -h --help)
    repeating_options=(-H --header --resolve)
    non_repeating_options=(-d --dir --config --color --stats-log --queue --worker --jobs -j -u --user --cookie-jar --cacert --connect-timeout --timeout -m --max-time --max-filesize --retry --rate --rate-per-host -A --user-agent --failed-ttl --remote)
    __imgcache_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--queue')
        return
        ;;
    '--worker')
        return
        ;;
    '--jobs'|'-j')
        return
        ;;
    '-H'|'--header')
        return
        ;;
    '--resolve')
        return
        ;;
    '-u'|'--user')
        return
        ;;
    '--cookie-jar')
        __imgcache_add_completions -f
        return
        ;;
    '--cacert')
        __imgcache_add_completions -f
        return
        ;;
    '--connect-timeout')
        return
        ;;
    '--timeout')
        return
        ;;
    '-m'|'--max-time')
        return
        ;;
    '--max-filesize')
        return
        ;;
    '--retry')
        return
        ;;
    '--rate')
        return
        ;;
    '--rate-per-host')
        return
        ;;
    '-A'|'--user-agent')
        return
        ;;
    '--failed-ttl')
        return
        ;;
    '--remote')
        return
        ;;
    esac
}

_imgcache_job_status() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log --queue --format)
    __imgcache_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--queue')
        return
        ;;
    '--format')
        __imgcache_add_completions -W 'text'$'\n''json'$'\n''openmetrics'$'\n''prometheus'
        return
        ;;
    esac
}

_imgcache_job_manifest() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log --queue)
    __imgcache_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--queue')
        return
        ;;
    esac
}

_imgcache_job_retry() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --dead --only-dead --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log --queue --class)
    __imgcache_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--queue')
        return
        ;;
    '--class')
        return
        ;;
    esac
}

_imgcache_job_cancel() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log --queue)
    __imgcache_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--queue')
        return
        ;;
    esac
}

_imgcache_job_delete() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --version -h --help)
    repeating_options=()
    non_repeating_options=(-d --dir --config --color --stats-log --queue)
    __imgcache_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--queue')
        return
        ;;
    esac
}

_imgcache_export() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --verbose -v --json --offline --reload --refresh --retry-failed --any --no-remote --robots --no-robots --netrc -k --insecure --enlarge --keep-metadata --no-rotate --animated --version -h --help)
    repeating_options=(--ro-dir -H --header --resolve --save-column)
    non_repeating_options=(-d --dir --config --color --stats-log --key-filter --freshness --stale-if-error --remote -u --user --cookie-jar --cacert --connect-timeout --timeout -m --max-time --max-filesize --retry --rate --rate-per-host -A --user-agent --failed-ttl --resize --gravity --format --quality --variant --input -i --input-format --url-col --caption-col --verify-hash --output -o --output-format --shard-size --shard --dedup --jobs -j --max-per-host)
    __imgcache_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-d'|'--dir')
        __imgcache_add_completions -d
        return
        ;;
    '--config')
        __imgcache_add_completions -f
        return
        ;;
    '--color')
        __imgcache_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--stats-log')
        __imgcache_add_completions -f
        return
        ;;
    '--key-filter')
        return
        ;;
    '--ro-dir')
        __imgcache_add_completions -d
        return
        ;;
    '--freshness')
        return
        ;;
    '--stale-if-error')
        return
        ;;
    '--remote')
        return
        ;;
    '-H'|'--header')
        return
        ;;
    '--resolve')
        return
        ;;
    '-u'|'--user')
        return
        ;;
    '--cookie-jar')
        __imgcache_add_completions -f
        return
        ;;
    '--cacert')
        __imgcache_add_completions -f
        return
        ;;
    '--connect-timeout')
        return
        ;;
    '--timeout')
        return
        ;;
    '-m'|'--max-time')
        return
        ;;
    '--max-filesize')
        return
        ;;
    '--retry')
        return
        ;;
    '--rate')
        return
        ;;
    '--rate-per-host')
        return
        ;;
    '-A'|'--user-agent')
        return
        ;;
    '--failed-ttl')
        return
        ;;
    '--resize')
        return
        ;;
    '--gravity')
        return
        ;;
    '--format')
        return
        ;;
    '--quality')
        return
        ;;
    '--variant')
        return
        ;;
    '--input'|'-i')
        __imgcache_add_completions -f
        return
        ;;
    '--input-format')
        return
        ;;
    '--url-col')
        return
        ;;
    '--caption-col')
        return
        ;;
    '--save-column')
        return
        ;;
    '--verify-hash')
        return
        ;;
    '--output'|'-o')
        __imgcache_add_completions -d
        return
        ;;
    '--output-format')
        return
        ;;
    '--shard-size')
        return
        ;;
    '--shard')
        return
        ;;
    '--dedup')
        return
        ;;
    '--jobs'|'-j')
        return
        ;;
    '--max-per-host')
        return
        ;;
    esac
}

_imgcache_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __imgcache_offer_flags_options -1
}

complete -o filenames -F _imgcache imgcache
