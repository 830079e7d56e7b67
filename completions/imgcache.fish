function __imgcache_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __imgcache_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __imgcache_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __imgcache_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __imgcache_parse_tokens -S
    set -l unparsed_tokens (__imgcache_tokens -pc)
    switch $unparsed_tokens[1]
    case 'imgcache'
        __imgcache_parse_subcommand 0 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'fetch'
            __imgcache_parse_subcommand -r 1 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'offline' 'reload' 'refresh' 'retry-failed' 'any' 'key-filter=' 'ro-dir=+' 'freshness=' 'stale-if-error=' 'remote=' 'no-remote' 'robots' 'no-robots' 'H/header=+' 'resolve=+' 'u/user=' 'netrc' 'cookie-jar=' 'k/insecure' 'cacert=' 'connect-timeout=' 'timeout=' 'm/max-time=' 'max-filesize=' 'retry=' 'rate=' 'rate-per-host=' 'A/user-agent=' 'failed-ttl=' 'resize=' 'gravity=' 'format=' 'quality=' 'enlarge' 'keep-metadata' 'no-rotate' 'animated' 'variant=' 'discard-original' 'o/output=' 'link' 'key=' 'i/input=' 'version' 'h/help'
        case 'prefetch'
            __imgcache_parse_subcommand -r 1 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'offline' 'reload' 'refresh' 'retry-failed' 'any' 'key-filter=' 'ro-dir=+' 'freshness=' 'stale-if-error=' 'remote=' 'no-remote' 'robots' 'no-robots' 'H/header=+' 'resolve=+' 'u/user=' 'netrc' 'cookie-jar=' 'k/insecure' 'cacert=' 'connect-timeout=' 'timeout=' 'm/max-time=' 'max-filesize=' 'retry=' 'rate=' 'rate-per-host=' 'A/user-agent=' 'failed-ttl=' 'resize=' 'gravity=' 'format=' 'quality=' 'enlarge' 'keep-metadata' 'no-rotate' 'animated' 'variant=' 'discard-original' 'i/input=' 'input-format=' 'url-col=' 'caption-col=' 'save-column=+' 'verify-hash=' 'j/jobs=' 'order=' 'max-per-host=' 'save-failed=' 'shard=' 'version' 'h/help'
        case 'query'
            __imgcache_parse_subcommand -r 1 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'touch' 'key-filter=' 'resize=' 'gravity=' 'format=' 'quality=' 'enlarge' 'keep-metadata' 'no-rotate' 'animated' 'variant=' 'ro-dir=+' 'version' 'h/help'
        case 'remove'
            __imgcache_parse_subcommand -r 1 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'i/input=' 'f/force' 'dry-run' 'key-filter=' 'resize=' 'gravity=' 'format=' 'quality=' 'enlarge' 'keep-metadata' 'no-rotate' 'animated' 'variant=' 'version' 'h/help'
        case 'clean'
            __imgcache_parse_subcommand 0 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'max-age=' 'max-size=' 'max-entries=' 'target=' 'dry-run' 'version' 'h/help'
        case 'size'
            __imgcache_parse_subcommand 0 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'b/bytes' 'by=' 'version' 'h/help'
        case 'clear'
            __imgcache_parse_subcommand 0 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'failed' 'dry-run' 'version' 'h/help'
        case 'list'
            __imgcache_parse_subcommand 0 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'url-glob=' 'format=' 'larger-than=' 'smaller-than=' 'unused-for=' 'used-within=' 'created-before=' 'created-after=' 'variants' 'originals' 'failed' 'sort=' 'r/reverse' 'n/limit=' 'urls' 'paths' '0/print0' 'version' 'h/help'
        case 'stats'
            __imgcache_parse_subcommand 0 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'z/zero' 'format=' 'textfile=' 'version' 'h/help'
        case 'verify'
            __imgcache_parse_subcommand 0 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'full' 'repair' 'dry-run' 'version' 'h/help'
        case 'config'
            __imgcache_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'show'
                __imgcache_parse_subcommand 0 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'version' 'h/help'
            case 'get'
                __imgcache_parse_subcommand 1 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'version' 'h/help'
            case 'set'
                __imgcache_parse_subcommand 2 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'user' 'version' 'h/help'
            case 'unset'
                __imgcache_parse_subcommand 1 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'user' 'version' 'h/help'
            case 'path'
                __imgcache_parse_subcommand 0 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'version' 'h/help'
            end
        case 'remote'
            __imgcache_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'status'
                __imgcache_parse_subcommand 0 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'remote=' 'version' 'h/help'
            case 'push'
                __imgcache_parse_subcommand -r 1 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'remote=' 'key-filter=' 'all' 'i/input=' 'version' 'h/help'
            end
        case 'job'
            __imgcache_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'submit'
                __imgcache_parse_subcommand 1 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'queue=' 'i/input=' 'input-format=' 'url-col=' 'caption-col=' 'save-column=+' 'verify-hash=' 'shard-size=' 'replace' 'j/jobs=' 'max-per-host=' 'rate=' 'rate-per-host=' 'retry=' 'timeout=' 'connect-timeout=' 'm/max-time=' 'max-filesize=' 'A/user-agent=' 'key-filter=' 'robots' 'no-robots' 'any' 'job-lease=' 'max-deliveries=' 'resize=' 'gravity=' 'format=' 'quality=' 'enlarge' 'keep-metadata' 'no-rotate' 'animated' 'variant=' 'discard-original' 'version' 'h/help'
            case 'work'
                __imgcache_parse_subcommand 1 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'queue=' 'follow' 'worker=' 'j/jobs=' 'H/header=+' 'resolve=+' 'u/user=' 'netrc' 'cookie-jar=' 'k/insecure' 'cacert=' 'connect-timeout=' 'timeout=' 'm/max-time=' 'max-filesize=' 'retry=' 'rate=' 'rate-per-host=' 'A/user-agent=' 'failed-ttl=' 'remote=' 'no-remote' 'version' 'h/help'
            case 'status'
                __imgcache_parse_subcommand 1 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'queue=' 'format=' 'version' 'h/help'
            case 'manifest'
                __imgcache_parse_subcommand 1 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'queue=' 'version' 'h/help'
            case 'retry'
                __imgcache_parse_subcommand 1 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'queue=' 'class=' 'dead' 'only-dead' 'version' 'h/help'
            case 'cancel'
                __imgcache_parse_subcommand 1 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'queue=' 'version' 'h/help'
            case 'delete'
                __imgcache_parse_subcommand 1 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'queue=' 'version' 'h/help'
            end
        case 'export'
            __imgcache_parse_subcommand 0 'd/dir=' 'config=' 'q/quiet' 'v/verbose' 'json' 'color=' 'stats-log=' 'offline' 'reload' 'refresh' 'retry-failed' 'any' 'key-filter=' 'ro-dir=+' 'freshness=' 'stale-if-error=' 'remote=' 'no-remote' 'robots' 'no-robots' 'H/header=+' 'resolve=+' 'u/user=' 'netrc' 'cookie-jar=' 'k/insecure' 'cacert=' 'connect-timeout=' 'timeout=' 'm/max-time=' 'max-filesize=' 'retry=' 'rate=' 'rate-per-host=' 'A/user-agent=' 'failed-ttl=' 'resize=' 'gravity=' 'format=' 'quality=' 'enlarge' 'keep-metadata' 'no-rotate' 'animated' 'variant=' 'i/input=' 'input-format=' 'url-col=' 'caption-col=' 'save-column=+' 'verify-hash=' 'o/output=' 'output-format=' 'shard-size=' 'shard=' 'dedup=' 'j/jobs=' 'max-per-host=' 'version' 'h/help'
        case 'help'
            __imgcache_parse_subcommand -r 1 'version'
        end
    end
end

function __imgcache_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __imgcache_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __imgcache_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __imgcache_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__imgcache_tokens -p)
    if test -z "$(__imgcache_tokens -t)"
        set -l index (count (__imgcache_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'imgcache' -f
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache" -eq 1' -fa 'fetch' -d 'Get images through the cache and print their cached paths.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache" -eq 1' -fa 'prefetch' -d 'Warm the cache from a list of URLs, concurrently.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache" -eq 1' -fa 'query' -d 'Print the cached path of each URL; exit 0 if all are cached, 1 if any is not.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache" -eq 1' -fa 'remove' -d 'Remove the entries of URLs from the cache.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache" -eq 1' -fa 'clean' -d 'Expire old entries, trim least recently used ones, sweep leftovers.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache" -eq 1' -fa 'size' -d 'Print the number of entries and their size.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache" -eq 1' -fa 'clear' -d 'Remove every entry and the failed-URL list (--failed: only that list).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache" -eq 1' -fa 'list' -d 'List cached entries (or failed requests) from the index.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache" -eq 1' -fa 'stats' -d 'Print hit, miss, download, failure and eviction counters.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache" -eq 1' -fa 'verify' -d 'Check the index against the files; --repair fixes what it finds.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache" -eq 1' -fa 'config' -d 'Show or change the policy: every key\'s value and where it comes from.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache" -eq 1' -fa 'remote' -d 'Check the remote tier, or upload local entries to it.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache" -eq 1' -fa 'job' -d 'Share one URL list among many machines through Redis (docs/fleet.md).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache" -eq 1' -fa 'export' -d 'Write a URL table\'s images from the cache as dataset shards (WebDataset).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" offline' -l 'offline' -d 'Never touch the network; a miss exits 1.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" reload' -l 'reload' -d 'Skip the cache lookup and download (still stores).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" refresh' -l 'refresh' -d 'Revalidate with the stored ETag/Last-Modified (304 keeps, 200 replaces).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" retry-failed' -l 'retry-failed' -d 'Ignore the failed-URL list; a success clears the URL from it.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" any' -l 'any' -d 'Accept any body, not only images.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" key-filter' -l 'key-filter' -d 'Cache key filter: none or strip-query.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch"' -l 'ro-dir' -d 'Extra read-only cache directory in SDWebImage\'s flat layout (repeatable).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" freshness' -l 'freshness' -d 'never: use entries while they exist; http: revalidate stale ones.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" stale-if-error' -l 'stale-if-error' -d 'Serve the stored copy if revalidation fails (network, 5xx, 429); alone: any age.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" remote' -l 'remote' -d 'Remote tier: backend URLs (redis://, redis+unix:, http(s)://, s3://) with |attributes.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" no-remote' -l 'no-remote' -d 'Neither ask nor write the remote tier.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" robots' -l 'robots' -d 'Obey robots.txt (RFC 9309) and X-Robots-Tag opt-outs; a disallowed URL exits 14.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" no-robots' -l 'no-robots' -d 'Obey robots.txt (RFC 9309) and X-Robots-Tag opt-outs; a disallowed URL exits 14.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch"' -s 'H' -l 'header' -d 'Extra request header \'Name: value\' (repeatable).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch"' -l 'resolve' -d 'Pin HOST:PORT to ADDRESS, as curl\'s --resolve (repeatable).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" u user' -s 'u' -l 'user' -d 'user:password for HTTP basic authentication.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" netrc' -l 'netrc' -d 'Read credentials from ~/.netrc.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" cookie-jar' -l 'cookie-jar' -d 'Read and write cookies in this file.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" insecure k' -s 'k' -l 'insecure' -d 'Do not verify TLS certificates (warns).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" cacert' -l 'cacert' -d 'Verify servers with this CA bundle.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" connect-timeout' -l 'connect-timeout' -d 'Time allowed to connect, e.g. 15s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" timeout' -l 'timeout' -d 'Idle timeout: time without a byte, e.g. 15s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" m max-time' -s 'm' -l 'max-time' -d 'Time a whole transfer may take, e.g. 2m.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" max-filesize' -l 'max-filesize' -d 'Largest body accepted, e.g. 100M.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" retry' -l 'retry' -d 'Retries of transient failures.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" rate' -l 'rate' -d 'Requests started a second over all hosts, e.g. 10/s, 600/m.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" rate-per-host' -l 'rate-per-host' -d 'Requests started a second to each host, e.g. 2/s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" A user-agent' -s 'A' -l 'user-agent' -d 'User-Agent header.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" failed-ttl' -l 'failed-ttl' -d 'How long a failed URL is not requested again, e.g. 1d.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" resize' -l 'resize' -d 'Resize: W, xH, WxH (fit inside), WxH^ (cover, then crop), WxH! (exact), WxH> (shrink only).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" gravity' -l 'gravity' -d 'Crop gravity for WxH^: centre, north, south, east, west, northeast, northwest, southeast, southwest, attention, entropy.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" format' -l 'format' -d 'Variant format: same (the original\'s when it can be written), jpeg, png, webp, avif, gif.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" quality' -l 'quality' -d 'Quality 1-100 (default: JPEG and WebP 80, AVIF 50).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" enlarge' -l 'enlarge' -d 'Enlarge an original smaller than the geometry.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" keep-metadata' -l 'keep-metadata' -d 'Keep the metadata and colour profile (default: stripped, sRGB).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" no-rotate' -l 'no-rotate' -d 'Do not apply the EXIF orientation.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" animated' -l 'animated' -d 'Keep every frame of an animation (default: the first).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" variant' -l 'variant' -d 'A variant preset of the policy (variant.NAME = ...).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" discard-original' -l 'discard-original' -d 'Drop the original once its variant is stored.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" o output' -l 'output' -s 'o' -d 'Copy the cached file to FILE (one URL only).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" link' -l 'link' -d 'With -o, hard-link instead of copying.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" key' -l 'key' -d 'Cache key to use instead of one made from the URL (one URL only).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" i input' -l 'input' -s 'i' -d 'Read URLs from FILE (\'-\': stdin), one a line; print a line per URL as it is known.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache fetch" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" offline' -l 'offline' -d 'Never touch the network; a miss exits 1.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" reload' -l 'reload' -d 'Skip the cache lookup and download (still stores).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" refresh' -l 'refresh' -d 'Revalidate with the stored ETag/Last-Modified (304 keeps, 200 replaces).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" retry-failed' -l 'retry-failed' -d 'Ignore the failed-URL list; a success clears the URL from it.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" any' -l 'any' -d 'Accept any body, not only images.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" key-filter' -l 'key-filter' -d 'Cache key filter: none or strip-query.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch"' -l 'ro-dir' -d 'Extra read-only cache directory in SDWebImage\'s flat layout (repeatable).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" freshness' -l 'freshness' -d 'never: use entries while they exist; http: revalidate stale ones.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" stale-if-error' -l 'stale-if-error' -d 'Serve the stored copy if revalidation fails (network, 5xx, 429); alone: any age.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" remote' -l 'remote' -d 'Remote tier: backend URLs (redis://, redis+unix:, http(s)://, s3://) with |attributes.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" no-remote' -l 'no-remote' -d 'Neither ask nor write the remote tier.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" robots' -l 'robots' -d 'Obey robots.txt (RFC 9309) and X-Robots-Tag opt-outs; a disallowed URL exits 14.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" no-robots' -l 'no-robots' -d 'Obey robots.txt (RFC 9309) and X-Robots-Tag opt-outs; a disallowed URL exits 14.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch"' -s 'H' -l 'header' -d 'Extra request header \'Name: value\' (repeatable).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch"' -l 'resolve' -d 'Pin HOST:PORT to ADDRESS, as curl\'s --resolve (repeatable).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" u user' -s 'u' -l 'user' -d 'user:password for HTTP basic authentication.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" netrc' -l 'netrc' -d 'Read credentials from ~/.netrc.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" cookie-jar' -l 'cookie-jar' -d 'Read and write cookies in this file.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" insecure k' -s 'k' -l 'insecure' -d 'Do not verify TLS certificates (warns).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" cacert' -l 'cacert' -d 'Verify servers with this CA bundle.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" connect-timeout' -l 'connect-timeout' -d 'Time allowed to connect, e.g. 15s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" timeout' -l 'timeout' -d 'Idle timeout: time without a byte, e.g. 15s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" m max-time' -s 'm' -l 'max-time' -d 'Time a whole transfer may take, e.g. 2m.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" max-filesize' -l 'max-filesize' -d 'Largest body accepted, e.g. 100M.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" retry' -l 'retry' -d 'Retries of transient failures.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" rate' -l 'rate' -d 'Requests started a second over all hosts, e.g. 10/s, 600/m.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" rate-per-host' -l 'rate-per-host' -d 'Requests started a second to each host, e.g. 2/s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" A user-agent' -s 'A' -l 'user-agent' -d 'User-Agent header.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" failed-ttl' -l 'failed-ttl' -d 'How long a failed URL is not requested again, e.g. 1d.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" resize' -l 'resize' -d 'Resize: W, xH, WxH (fit inside), WxH^ (cover, then crop), WxH! (exact), WxH> (shrink only).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" gravity' -l 'gravity' -d 'Crop gravity for WxH^: centre, north, south, east, west, northeast, northwest, southeast, southwest, attention, entropy.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" format' -l 'format' -d 'Variant format: same (the original\'s when it can be written), jpeg, png, webp, avif, gif.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" quality' -l 'quality' -d 'Quality 1-100 (default: JPEG and WebP 80, AVIF 50).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" enlarge' -l 'enlarge' -d 'Enlarge an original smaller than the geometry.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" keep-metadata' -l 'keep-metadata' -d 'Keep the metadata and colour profile (default: stripped, sRGB).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" no-rotate' -l 'no-rotate' -d 'Do not apply the EXIF orientation.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" animated' -l 'animated' -d 'Keep every frame of an animation (default: the first).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" variant' -l 'variant' -d 'A variant preset of the policy (variant.NAME = ...).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" discard-original' -l 'discard-original' -d 'Drop the original once its variant is stored.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" i input' -l 'input' -s 'i' -d 'Read URLs from FILE, one a line (\'-\' for stdin).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" input-format' -l 'input-format' -d 'Read -i as txt, csv, tsv or jsonl, each optionally .gz (default: from its extension).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" url-col' -l 'url-col' -d 'The table\'s URL column (default url).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" caption-col' -l 'caption-col' -d 'The table\'s caption column (export: KEY.txt; --json and manifests: caption).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch"' -l 'save-column' -d 'Keep column NAME in each sample\'s record (repeatable).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" verify-hash' -l 'verify-hash' -d 'Refuse a body whose hash differs from column COL\'s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" j jobs' -l 'jobs' -s 'j' -d 'Transfers at once (default 6).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" order' -l 'order' -d 'Start order: fifo or lifo.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" max-per-host' -l 'max-per-host' -d 'Transfers at once per host (0: no limit of its own).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" save-failed' -l 'save-failed' -d 'Write failed and unfinished URLs to FILE, for a rerun with -i.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" shard' -l 'shard' -d 'Take only shard K of N of the list (by key hash; K from 0, as JOB_COMPLETION_INDEX).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache prefetch" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" touch' -l 'touch' -d 'Record the lookup as a use (last access).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" key-filter' -l 'key-filter' -d 'Cache key filter: none or strip-query.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" resize' -l 'resize' -d 'Resize: W, xH, WxH (fit inside), WxH^ (cover, then crop), WxH! (exact), WxH> (shrink only).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" gravity' -l 'gravity' -d 'Crop gravity for WxH^: centre, north, south, east, west, northeast, northwest, southeast, southwest, attention, entropy.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" format' -l 'format' -d 'Variant format: same (the original\'s when it can be written), jpeg, png, webp, avif, gif.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" quality' -l 'quality' -d 'Quality 1-100 (default: JPEG and WebP 80, AVIF 50).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" enlarge' -l 'enlarge' -d 'Enlarge an original smaller than the geometry.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" keep-metadata' -l 'keep-metadata' -d 'Keep the metadata and colour profile (default: stripped, sRGB).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" no-rotate' -l 'no-rotate' -d 'Do not apply the EXIF orientation.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" animated' -l 'animated' -d 'Keep every frame of an animation (default: the first).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" variant' -l 'variant' -d 'A variant preset of the policy (variant.NAME = ...).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query"' -l 'ro-dir' -d 'Extra read-only cache directory (repeatable).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache query" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" i input' -l 'input' -s 'i' -d 'Read URLs from FILE, one a line (\'-\' for stdin).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" f force' -l 'force' -s 'f' -d 'An absent entry is not an error.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" dry-run' -l 'dry-run' -d 'Show what would be removed; change nothing.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" key-filter' -l 'key-filter' -d 'Cache key filter: none or strip-query.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" resize' -l 'resize' -d 'Resize: W, xH, WxH (fit inside), WxH^ (cover, then crop), WxH! (exact), WxH> (shrink only).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" gravity' -l 'gravity' -d 'Crop gravity for WxH^: centre, north, south, east, west, northeast, northwest, southeast, southwest, attention, entropy.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" format' -l 'format' -d 'Variant format: same (the original\'s when it can be written), jpeg, png, webp, avif, gif.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" quality' -l 'quality' -d 'Quality 1-100 (default: JPEG and WebP 80, AVIF 50).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" enlarge' -l 'enlarge' -d 'Enlarge an original smaller than the geometry.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" keep-metadata' -l 'keep-metadata' -d 'Keep the metadata and colour profile (default: stripped, sRGB).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" no-rotate' -l 'no-rotate' -d 'Do not apply the EXIF orientation.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" animated' -l 'animated' -d 'Keep every frame of an animation (default: the first).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" variant' -l 'variant' -d 'A variant preset of the policy (variant.NAME = ...).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remove" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clean" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clean" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clean" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clean" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clean" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clean" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clean" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clean" max-age' -l 'max-age' -d 'Expire entries unused this long, e.g. 7d (\'never\' or negative: never).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clean" max-size' -l 'max-size' -d 'Trim above this size, e.g. 2G (0: no limit).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clean" max-entries' -l 'max-entries' -d 'Trim above this many entries (0: no limit).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clean" target' -l 'target' -d 'Trim to strictly below target x limit (default 0.5).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clean" dry-run' -l 'dry-run' -d 'Show what would be removed; change nothing.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clean" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clean" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache size" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache size" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache size" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache size" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache size" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache size" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache size" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache size" b bytes' -s 'b' -l 'bytes' -d 'Print the byte count only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache size" by' -l 'by' -d 'Break the totals down by format, host or variant.' -rfka 'format host variant'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache size" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache size" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clear" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clear" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clear" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clear" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clear" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clear" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clear" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clear" failed' -l 'failed' -d 'Clear only the failed-URL list.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clear" dry-run' -l 'dry-run' -d 'Show what would be removed; change nothing.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clear" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache clear" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" url-glob' -l 'url-glob' -d 'Only URLs matching this shell glob (case-sensitive).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" format' -l 'format' -d 'Only these formats, comma-separated (jpeg,png,gif,webp,…).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" larger-than' -l 'larger-than' -d 'Only entries larger than SIZE (500K, 2M).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" smaller-than' -l 'smaller-than' -d 'Only entries smaller than SIZE.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" unused-for' -l 'unused-for' -d 'Only entries not used for DURATION (last use at or before now - D).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" used-within' -l 'used-within' -d 'Only entries used within DURATION.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" created-before' -l 'created-before' -d 'Only entries stored before TIME (RFC 3339, or a duration ago).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" created-after' -l 'created-after' -d 'Only entries stored after TIME (RFC 3339, or a duration ago).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" variants' -l 'variants' -d 'Only variants (derived images).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" originals' -l 'originals' -d 'Only originals (downloaded images).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" failed' -l 'failed' -d 'List the failed-request records instead of entries.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" sort' -l 'sort' -d 'Order: access (least recently used first), size, created, url, hits.' -rfka 'access size created url hits'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" r reverse' -s 'r' -l 'reverse' -d 'Reverse the order.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" limit n' -s 'n' -l 'limit' -d 'Print at most N entries.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" urls' -l 'urls' -d 'Print only the URLs (input for \'remove -i -\').'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" paths' -l 'paths' -d 'Print only the absolute paths of the files.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" 0 print0' -s '0' -l 'print0' -d 'End each item with NUL, not a newline.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache stats" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache stats" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache stats" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache stats" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache stats" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache stats" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache stats" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache stats" z zero' -s 'z' -l 'zero' -d 'Zero the counters (not the sizes).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache stats" format' -l 'format' -d 'Output: text, json, openmetrics or prometheus (text 0.0.4).' -rfka 'text json openmetrics prometheus'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache stats" textfile' -l 'textfile' -d 'Write the metrics (prometheus form) to DIR/imgcache-<digest of the cache\'s path>.prom.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache stats" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache stats" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache verify" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache verify" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache verify" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache verify" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache verify" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache verify" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache verify" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache verify" full' -l 'full' -d 'Also read every body: image check and SHA-256.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache verify" repair' -l 'repair' -d 'Fix what is found: drop rows, delete orphans, update sizes, totals.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache verify" dry-run' -l 'dry-run' -d 'Change nothing (the default without --repair).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache verify" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache verify" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache config" -eq 1' -fa 'show' -d 'Print every key with its value and origin.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache config" -eq 1' -fa 'get' -d 'Print the effective value of one key.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache config" -eq 1' -fa 'set' -d 'Write one key in the cache\'s policy file (or the user file with --user).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache config" -eq 1' -fa 'unset' -d 'Remove one key from the cache\'s policy file (or the user file with --user).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache config" -eq 1' -fa 'path' -d 'Print the cache directory, then the policy files consulted, in order.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config show" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config show" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config show" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config show" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config show" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config show" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config show" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config show" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config get" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config get" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config get" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config get" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config get" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config get" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config get" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config get" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config get" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config set" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config set" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config set" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config set" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config set" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config set" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config set" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config set" user' -l 'user' -d 'Write the user file instead of $DIR/imgcache.conf.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config set" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config set" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config unset" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config unset" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config unset" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config unset" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config unset" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config unset" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config unset" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config unset" user' -l 'user' -d 'Edit the user file instead of $DIR/imgcache.conf.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config unset" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config unset" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config path" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config path" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config path" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config path" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config path" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config path" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config path" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config path" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache config path" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache remote" -eq 1' -fa 'status' -d 'Say whether each backend answers, how fast, and what it holds where cheap.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache remote" -eq 1' -fa 'push' -d 'Upload local entries to every writable backend (ccache\'s --reshare).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote status" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote status" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote status" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote status" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote status" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote status" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote status" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote status" remote' -l 'remote' -d 'Backend URLs instead of remote_storage\'s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote status" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote push" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote push" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote push" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote push" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote push" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote push" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote push" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote push" remote' -l 'remote' -d 'Backend URLs instead of remote_storage\'s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote push" key-filter' -l 'key-filter' -d 'Cache key filter: none or strip-query.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote push" all' -l 'all' -d 'Every entry of the cache.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote push" i input' -l 'input' -s 'i' -d 'Read URLs from FILE, one a line (\'-\' for stdin).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote push" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache remote push" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache job" -eq 1' -fa 'submit' -d 'Record a job and cut its URL list into shards for workers to take.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache job" -eq 1' -fa 'work' -d 'Take a job\'s shards one at a time and prefetch them, until none is left.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache job" -eq 1' -fa 'status' -d 'Show a job\'s shards done, pending, in progress (by worker) and dead, and its URLs.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache job" -eq 1' -fa 'manifest' -d 'Print one JSON line per URL of a job\'s finished shards: the dataset\'s index.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache job" -eq 1' -fa 'retry' -d 'Hand a job\'s failed URLs (by class), and with --dead its dead shards, out again.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache job" -eq 1' -fa 'cancel' -d 'Cancel a job: workers take no more shards and give back the ones they hold.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_positional "imgcache job" -eq 1' -fa 'delete' -d 'Delete a job from Redis: its record, shards, manifest and counts.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" queue' -l 'queue' -d 'The Redis of the job queue (default: remote_storage\'s first).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" i input' -l 'input' -s 'i' -d 'Read URLs from FILE, one a line (\'-\' for stdin).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" input-format' -l 'input-format' -d 'Read -i as txt, csv, tsv or jsonl, each optionally .gz (default: from its extension).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" url-col' -l 'url-col' -d 'The table\'s URL column (default url).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" caption-col' -l 'caption-col' -d 'The table\'s caption column (export: KEY.txt; --json and manifests: caption).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit"' -l 'save-column' -d 'Keep column NAME in each sample\'s record (repeatable).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" verify-hash' -l 'verify-hash' -d 'Refuse a body whose hash differs from column COL\'s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" shard-size' -l 'shard-size' -d 'URLs a shard (default 10000).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" replace' -l 'replace' -d 'Delete a job of that name first.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" j jobs' -l 'jobs' -s 'j' -d 'Transfers at once on each worker (default 6).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" max-per-host' -l 'max-per-host' -d 'Transfers at once per host (0: no limit of its own).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" rate' -l 'rate' -d 'Requests started a second over all hosts, e.g. 10/s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" rate-per-host' -l 'rate-per-host' -d 'Requests started a second to each host, e.g. 2/s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" retry' -l 'retry' -d 'Retries of transient failures.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" timeout' -l 'timeout' -d 'Idle timeout: time without a byte, e.g. 15s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" connect-timeout' -l 'connect-timeout' -d 'Time allowed to connect, e.g. 15s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" m max-time' -s 'm' -l 'max-time' -d 'Time a whole transfer may take, e.g. 2m.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" max-filesize' -l 'max-filesize' -d 'Largest body accepted, e.g. 100M.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" A user-agent' -s 'A' -l 'user-agent' -d 'User-Agent header.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" key-filter' -l 'key-filter' -d 'Cache key filter: none or strip-query.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" robots' -l 'robots' -d 'Obey robots.txt and X-Robots-Tag opt-outs.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" no-robots' -l 'no-robots' -d 'Obey robots.txt and X-Robots-Tag opt-outs.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" any' -l 'any' -d 'Accept any body, not only images.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" job-lease' -l 'job-lease' -d 'Workers\' hold on a shard, renewed every third (default 30s).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" max-deliveries' -l 'max-deliveries' -d 'Deliveries of a shard before it is dead (default 3).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" resize' -l 'resize' -d 'Resize: W, xH, WxH (fit inside), WxH^ (cover, then crop), WxH! (exact), WxH> (shrink only).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" gravity' -l 'gravity' -d 'Crop gravity for WxH^: centre, north, south, east, west, northeast, northwest, southeast, southwest, attention, entropy.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" format' -l 'format' -d 'Variant format: same (the original\'s when it can be written), jpeg, png, webp, avif, gif.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" quality' -l 'quality' -d 'Quality 1-100 (default: JPEG and WebP 80, AVIF 50).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" enlarge' -l 'enlarge' -d 'Enlarge an original smaller than the geometry.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" keep-metadata' -l 'keep-metadata' -d 'Keep the metadata and colour profile (default: stripped, sRGB).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" no-rotate' -l 'no-rotate' -d 'Do not apply the EXIF orientation.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" animated' -l 'animated' -d 'Keep every frame of an animation (default: the first).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" variant' -l 'variant' -d 'A variant preset of the policy (variant.NAME = ...).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" discard-original' -l 'discard-original' -d 'Drop the original once its variant is stored.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job submit" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" queue' -l 'queue' -d 'The Redis of the job queue (default: remote_storage\'s first).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" follow' -l 'follow' -d 'When no shard is left, wait for more instead of ending.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" worker' -l 'worker' -d 'This worker\'s name (default HOST:PID; unique in the fleet).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" j jobs' -l 'jobs' -s 'j' -d 'Transfers at once (default: the job\'s).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work"' -s 'H' -l 'header' -d 'Extra request header \'Name: value\' (repeatable).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work"' -l 'resolve' -d 'Pin HOST:PORT to ADDRESS, as curl\'s --resolve (repeatable).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" u user' -s 'u' -l 'user' -d 'user:password for HTTP basic authentication.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" netrc' -l 'netrc' -d 'Read credentials from ~/.netrc.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" cookie-jar' -l 'cookie-jar' -d 'Read and write cookies in this file.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" insecure k' -s 'k' -l 'insecure' -d 'Do not verify TLS certificates (warns).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" cacert' -l 'cacert' -d 'Verify servers with this CA bundle.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" connect-timeout' -l 'connect-timeout' -d 'Time allowed to connect, e.g. 15s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" timeout' -l 'timeout' -d 'Idle timeout: time without a byte, e.g. 15s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" m max-time' -s 'm' -l 'max-time' -d 'Time a whole transfer may take, e.g. 2m.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" max-filesize' -l 'max-filesize' -d 'Largest body accepted, e.g. 100M.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" retry' -l 'retry' -d 'Retries of transient failures.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" rate' -l 'rate' -d 'Requests started a second over all hosts, e.g. 10/s, 600/m.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" rate-per-host' -l 'rate-per-host' -d 'Requests started a second to each host, e.g. 2/s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" A user-agent' -s 'A' -l 'user-agent' -d 'User-Agent header.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" failed-ttl' -l 'failed-ttl' -d 'How long a failed URL is not requested again, e.g. 1d.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" remote' -l 'remote' -d 'Remote tier backends (default remote_storage).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" no-remote' -l 'no-remote' -d 'Neither ask nor write the remote tier.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job work" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job status" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job status" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job status" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job status" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job status" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job status" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job status" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job status" queue' -l 'queue' -d 'The Redis of the job queue (default: remote_storage\'s first).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job status" format' -l 'format' -d 'Output: text, json, openmetrics or prometheus (text 0.0.4).' -rfka 'text json openmetrics prometheus'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job status" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job manifest" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job manifest" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job manifest" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job manifest" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job manifest" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job manifest" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job manifest" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job manifest" queue' -l 'queue' -d 'The Redis of the job queue (default: remote_storage\'s first).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job manifest" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job manifest" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job retry" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job retry" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job retry" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job retry" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job retry" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job retry" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job retry" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job retry" queue' -l 'queue' -d 'The Redis of the job queue (default: remote_storage\'s first).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job retry" class' -l 'class' -d 'Failure classes to retry, comma-separated (network, http_4xx, http_5xx, …).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job retry" dead' -l 'dead' -d 'Also hand the dead shards out again.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job retry" only-dead' -l 'only-dead' -d 'Only the dead shards, no failed URLs.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job retry" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job retry" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job cancel" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job cancel" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job cancel" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job cancel" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job cancel" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job cancel" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job cancel" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job cancel" queue' -l 'queue' -d 'The Redis of the job queue (default: remote_storage\'s first).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job cancel" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job cancel" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job delete" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job delete" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job delete" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job delete" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job delete" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job delete" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job delete" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job delete" queue' -l 'queue' -d 'The Redis of the job queue (default: remote_storage\'s first).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job delete" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache job delete" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" d dir' -s 'd' -l 'dir' -d 'Cache directory (default $XDG_CACHE_HOME/imgcache).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" config' -l 'config' -d 'User config file instead of $XDG_CONFIG_HOME/imgcache/config.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" q quiet' -l 'quiet' -s 'q' -d 'Print errors only.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" v verbose' -l 'verbose' -s 'v' -d 'Say more on stderr.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" json' -l 'json' -d 'Machine-readable output on stdout.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" color' -l 'color' -d 'Colour on stderr: auto, always or never (NO_COLOR is honoured).' -rfka 'auto always never'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" stats-log' -l 'stats-log' -d 'Append a JSON line of this run\'s counters to FILE (policy stats_log).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" offline' -l 'offline' -d 'Never touch the network; a miss exits 1.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" reload' -l 'reload' -d 'Skip the cache lookup and download (still stores).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" refresh' -l 'refresh' -d 'Revalidate with the stored ETag/Last-Modified (304 keeps, 200 replaces).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" retry-failed' -l 'retry-failed' -d 'Ignore the failed-URL list; a success clears the URL from it.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" any' -l 'any' -d 'Accept any body, not only images.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" key-filter' -l 'key-filter' -d 'Cache key filter: none or strip-query.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export"' -l 'ro-dir' -d 'Extra read-only cache directory in SDWebImage\'s flat layout (repeatable).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" freshness' -l 'freshness' -d 'never: use entries while they exist; http: revalidate stale ones.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" stale-if-error' -l 'stale-if-error' -d 'Serve the stored copy if revalidation fails (network, 5xx, 429); alone: any age.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" remote' -l 'remote' -d 'Remote tier: backend URLs (redis://, redis+unix:, http(s)://, s3://) with |attributes.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" no-remote' -l 'no-remote' -d 'Neither ask nor write the remote tier.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" robots' -l 'robots' -d 'Obey robots.txt (RFC 9309) and X-Robots-Tag opt-outs; a disallowed URL exits 14.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" no-robots' -l 'no-robots' -d 'Obey robots.txt (RFC 9309) and X-Robots-Tag opt-outs; a disallowed URL exits 14.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export"' -s 'H' -l 'header' -d 'Extra request header \'Name: value\' (repeatable).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export"' -l 'resolve' -d 'Pin HOST:PORT to ADDRESS, as curl\'s --resolve (repeatable).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" u user' -s 'u' -l 'user' -d 'user:password for HTTP basic authentication.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" netrc' -l 'netrc' -d 'Read credentials from ~/.netrc.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" cookie-jar' -l 'cookie-jar' -d 'Read and write cookies in this file.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" insecure k' -s 'k' -l 'insecure' -d 'Do not verify TLS certificates (warns).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" cacert' -l 'cacert' -d 'Verify servers with this CA bundle.' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" connect-timeout' -l 'connect-timeout' -d 'Time allowed to connect, e.g. 15s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" timeout' -l 'timeout' -d 'Idle timeout: time without a byte, e.g. 15s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" m max-time' -s 'm' -l 'max-time' -d 'Time a whole transfer may take, e.g. 2m.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" max-filesize' -l 'max-filesize' -d 'Largest body accepted, e.g. 100M.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" retry' -l 'retry' -d 'Retries of transient failures.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" rate' -l 'rate' -d 'Requests started a second over all hosts, e.g. 10/s, 600/m.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" rate-per-host' -l 'rate-per-host' -d 'Requests started a second to each host, e.g. 2/s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" A user-agent' -s 'A' -l 'user-agent' -d 'User-Agent header.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" failed-ttl' -l 'failed-ttl' -d 'How long a failed URL is not requested again, e.g. 1d.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" resize' -l 'resize' -d 'Resize: W, xH, WxH (fit inside), WxH^ (cover, then crop), WxH! (exact), WxH> (shrink only).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" gravity' -l 'gravity' -d 'Crop gravity for WxH^: centre, north, south, east, west, northeast, northwest, southeast, southwest, attention, entropy.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" format' -l 'format' -d 'Variant format: same (the original\'s when it can be written), jpeg, png, webp, avif, gif.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" quality' -l 'quality' -d 'Quality 1-100 (default: JPEG and WebP 80, AVIF 50).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" enlarge' -l 'enlarge' -d 'Enlarge an original smaller than the geometry.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" keep-metadata' -l 'keep-metadata' -d 'Keep the metadata and colour profile (default: stripped, sRGB).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" no-rotate' -l 'no-rotate' -d 'Do not apply the EXIF orientation.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" animated' -l 'animated' -d 'Keep every frame of an animation (default: the first).'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" variant' -l 'variant' -d 'A variant preset of the policy (variant.NAME = ...).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" i input' -l 'input' -s 'i' -d 'The URL table (\'-\' for stdin).' -rF
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" input-format' -l 'input-format' -d 'Read -i as txt, csv, tsv or jsonl, each optionally .gz (default: from its extension).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" url-col' -l 'url-col' -d 'The table\'s URL column (default url).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" caption-col' -l 'caption-col' -d 'The table\'s caption column (export: KEY.txt; --json and manifests: caption).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export"' -l 'save-column' -d 'Keep column NAME in each sample\'s record (repeatable).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" verify-hash' -l 'verify-hash' -d 'Refuse a body whose hash differs from column COL\'s.' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" o output' -l 'output' -s 'o' -d 'The folder the shards go to (or an https:// or s3:// one).' -rfa '(__imgcache_complete_directories)'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" output-format' -l 'output-format' -d 'Shard layout: webdataset (NNNNN.tar) or files (NNNNN/).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" shard-size' -l 'shard-size' -d 'Rows a shard (default 10000).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" shard' -l 'shard' -d 'Write only shards numbered K modulo N (one machine of N; K from 0).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" dedup' -l 'dedup' -d 'One sample per distinct url or sha256 (body).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" j jobs' -l 'jobs' -s 'j' -d 'Transfers at once (default 6).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" max-per-host' -l 'max-per-host' -d 'Transfers at once per host (0: no limit of its own).' -rfka ''
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" version' -l 'version' -d 'Show the version.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache export" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'imgcache' -n '__imgcache_should_offer_completions_for_flags_or_options "imgcache help" version' -l 'version' -d 'Show the version.'
