# Shared by the scripts of this directory (sourced, not run): each moves
# identifiers between packages by rewriting their callers in place.

# rewrite_go EXCLUDE FUNC calls FUNC FILE for every Go file of the
# repository (tracked or new, not ignored) whose path does not match the
# extended regular expression EXCLUDE, then runs goimports on the files FUNC
# changed, which adds the imports the rewrite needs and drops the unused.
rewrite_go() {
	local exclude=$1 fn=$2 f before
	local changed=()
	cd "$(git rev-parse --show-toplevel)"
	while read -r f; do
		[ -f "$f" ] || continue
		before=$(cksum < "$f")
		"$fn" "$f"
		[ "$(cksum < "$f")" = "$before" ] || changed+=("$f")
	done < <(git ls-files -co --exclude-standard -- '*.go' | grep -v -E "$exclude")
	if [ ${#changed[@]} -gt 0 ]; then
		go tool goimports -w -local github.com/nginxtune/nginxtune "${changed[@]}"
		printf 'rewritten: %s\n' "${changed[@]}"
	fi
}
