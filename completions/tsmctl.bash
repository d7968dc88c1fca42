# bash completion for tsmctl. Everything comes from tsmctl itself:
# --list-cmds, --list-opts CMD, --list-cols CMD, and its own views for live objects.
# shellcheck disable=SC2207  # COMPREPLY=($(compgen ...)) is the completion idiom

# Queries answered from tsmctl's own tables (no tree needed).
_tsmctl_meta() {
	"${COMP_WORDS[0]}" "$@" 2>/dev/null
}

_tsmctl_run() {
	local i sysroot=()
	for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
		case ${COMP_WORDS[i]} in
		--sysroot) sysroot=(--sysroot "${COMP_WORDS[i + 1]}") ;;
		--sysroot=*) sysroot=(--sysroot "${COMP_WORDS[i]#--sysroot=}") ;;
		esac
	done
	"${COMP_WORDS[0]}" "${sysroot[@]}" "$@" 2>/dev/null
}

# BDFs with tsm/connect: unconnected first (connect) or connected only (disconnect).
_tsmctl_bdfs() {
	local want=$1 bdf tsm
	while read -r bdf tsm; do
		case $want in
		unconnected) [ -z "$tsm" ] && echo "$bdf" ;;
		connected) [ -n "$tsm" ] && echo "$bdf" ;;
		*) echo "$bdf" ;;
		esac
	done < <(_tsmctl_run devices -n -r -o BDF,CONNECTED)
	if [ "$want" = unconnected ]; then
		while read -r bdf tsm; do [ -n "$tsm" ] && echo "$bdf"; done \
			< <(_tsmctl_run devices -n -r -o BDF,CONNECTED)
	fi
}

# BDFs on stdin, then each one's slot (DDDD:BB:DD: every function, or a DSM), once:
# what -d and the verbs take besides a BDF.
_tsmctl_slots() {
	local bdf seen=" " out=()
	while read -r bdf; do
		echo "$bdf"
		[[ $bdf == *:*.* ]] && out+=("${bdf%.*}")	# a TSM name passes as it is
	done
	for bdf in "${out[@]}"; do
		[[ $seen == *" $bdf "* ]] && continue
		seen+="$bdf "
		echo "$bdf"
	done
}

# A comma-separated list's last element completed from WORDS, those chosen
# already left out (--state, -d, BDF lists).
_tsmctl_list() {
	local prefix="" last=$cur w words=()
	case $cur in *,*) prefix=${cur%,*},; last=${cur##*,} ;; esac
	for w in $1; do
		[[ ",$prefix" == *",$w,"* ]] || words+=("$w")
	done
	COMPREPLY=($(compgen -P "$prefix" -W "${words[*]}" -- "$last"))
	compopt -o nospace 2>/dev/null
}

# The devices lock --all, accept --all or unlock --all would pick: with tsm/lock
# and unlocked, no TSM context and no driver (lock); locked, not accepted, no
# driver (accept); locked (unlock). Then the devsec TSMs.
_tsmctl_tdisp() {
	local want=$1 line bdf locked accepted linked driver
	local re='^BDF="([^"]*)" LOCKED="([^"]*)" ACCEPTED="([^"]*)" CONNECTED="([^"]*)" DSM="([^"]*)" DRIVER="([^"]*)"$'
	while read -r line; do
		[[ $line =~ $re ]] || continue
		bdf=${BASH_REMATCH[1]} locked=${BASH_REMATCH[2]} accepted=${BASH_REMATCH[3]}
		linked=${BASH_REMATCH[4]}${BASH_REMATCH[5]} driver=${BASH_REMATCH[6]}
		case $want in
		lock) [ -z "$locked" ] && [ -n "$accepted" ] && [ -z "$linked" ] && [ -z "$driver" ] && echo "$bdf" ;;
		accept) [ -n "$locked" ] && [ "$accepted" = no ] && [ -z "$driver" ] && echo "$bdf" ;;
		unlock) [ -n "$locked" ] && echo "$bdf" ;;
		esac
	done < <(_tsmctl_run devices -n -P -o BDF,LOCKED,ACCEPTED,CONNECTED,DSM,DRIVER)
	[ "$want" = accept ] && return
	while read -r line; do
		[[ $line =~ ^NAME=\"([^\"]*)\"\ MODE=\"devsec\"$ ]] && echo "${BASH_REMATCH[1]}"
	done < <(_tsmctl_run list -n -P -o NAME,MODE)
}

_tsmctl() {
	local cur prev cmd i words opts
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--sysroot) ((i++)) ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done

	# metrics' -o FILE ('-': stdout)
	if [ "${cmd:-}" = metrics ] && [[ $prev == -o || $prev == --output ]]; then
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return
	fi
	# evidence's own -o DIR and -t TYPE[,TYPE...]
	if [ "${cmd:-}" = evidence ]; then
		case $prev in
		-o|--output)
			compopt -o dirnames 2>/dev/null
			COMPREPLY=($(compgen -d -- "$cur"))
			return ;;
		-t|--type)
			local tprefix="" tlast=$cur
			case $cur in *,*) tprefix=${cur%,*},; tlast=${cur##*,} ;; esac
			COMPREPLY=($(compgen -P "$tprefix" -W "cert0 cert1 cert2 cert3 cert4 cert5 cert6 cert7 vca measurements report all" -- "$tlast"))
			compopt -o nospace 2>/dev/null
			return ;;
		--nonce-file)
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			return ;;
		esac
	fi
	case $prev in
	--sysroot|--from)
		compopt -o dirnames 2>/dev/null
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	# evidence --verify's, accept --verify's, audit's and metrics' inputs: files (a trust store may be a directory)
	--trust|--reference|--pin)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	-o|--output)
		local prefix="" last=$cur
		case $cur in *,*) prefix=${cur%,*},; last=${cur##*,} ;; esac
		case $prefix$last in +*) [ -z "$prefix" ] && prefix=+ && last=${last#+} ;; esac
		# the columns already in the list are not offered again
		local chosen=",${prefix#+}" w
		words=$(for w in $(_tsmctl_meta --list-cols "$cmd"); do
			[[ ${chosen^^} == *",$w,"* ]] || echo "$w"
		done)
		COMPREPLY=($(compgen -P "$prefix" -W "$words" -- "$last"))
		compopt -o nospace 2>/dev/null
		return ;;
	-d|--device)
		_tsmctl_list "$(_tsmctl_bdfs any | _tsmctl_slots)"
		return ;;
	-t|--tsm)
		COMPREPLY=($(compgen -W "$(_tsmctl_run list -n -r -o NAME)" -- "$cur"))
		return ;;
	-b|--host-bridge)
		COMPREPLY=($(compgen -W "$(_tsmctl_run host-bridges -n -r -o NAME)" -- "$cur"))
		return ;;
	--wait)
		return ;;
	# BDF lists or all (audit takes slots too; the BDFs say which function)
	--require-connected|--require-verified)
		_tsmctl_list "all $(_tsmctl_bdfs any)"
		return ;;
	--state)
		_tsmctl_list "secure insecure ide-fail dangling"
		return ;;
	--inblob|--outblob|--auxblob|--manifestblob|--digest-file|--event)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--nonce|--privlevel|--service-provider|--service-guid|--service-manifest-version|--digest)
		return ;;
	--timeout|-i|--interval|--count)
		return ;;
	--output-file)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	esac

	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--sysroot --help --version" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_tsmctl_meta --list-cmds)" -- "$cur"))
		fi
		return
	fi
	if [[ $cur == -* ]]; then
		opts=$(_tsmctl_meta --list-opts "$cmd" | cut -d' ' -f1)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	case $cmd in
	connect)
		compopt -o nosort 2>/dev/null	# unconnected devices first
		COMPREPLY=($(compgen -W "$(_tsmctl_bdfs unconnected | _tsmctl_slots) $(_tsmctl_run list -n -r -o NAME)" -- "$cur")) ;;
	disconnect)
		COMPREPLY=($(compgen -W "$(_tsmctl_bdfs connected | _tsmctl_slots) $(_tsmctl_run list -n -r -o NAME)" -- "$cur")) ;;
	wait)
		COMPREPLY=($(compgen -W "$(_tsmctl_run list -n -r -o NAME)" -- "$cur")) ;;
	lock|accept|unlock)
		COMPREPLY=($(compgen -W "$(_tsmctl_tdisp "$cmd" | _tsmctl_slots)" -- "$cur")) ;;
	evidence|devices)
		COMPREPLY=($(compgen -W "$(_tsmctl_bdfs any | _tsmctl_slots)" -- "$cur")) ;;
	measurements)
		COMPREPLY=($(compgen -W "$(_tsmctl_run measurements -n -r -o NAME)" -- "$cur")) ;;
	extend)	# the registers root may extend (the RTMRs)
		COMPREPLY=($(compgen -W "$(_tsmctl_run measurements -n -r -o NAME,EXTEND |
			while read -r name ext; do [ "$ext" = yes ] && echo "$name"; done)" -- "$cur")) ;;
	verify-mitigation)	# the bits supported and not verified (reading them needs root)
		COMPREPLY=($(compgen -W "$(_tsmctl_run mitigations --unverified -n -r -o BIT) all" -- "$cur")) ;;
	help)
		COMPREPLY=($(compgen -W "$(_tsmctl_meta --list-cmds)" -- "$cur")) ;;
	esac
}
complete -F _tsmctl tsmctl
