#!/bin/sh
# Man pages from dcpi's own help text (Debian's help2man), one for dcpi and
# one per subcommand (dcpi-run.1, ...), so they never drift from --help.
# Usage: make_man_pages.sh HELP2MAN DCPI OUTDIR
set -eu
help2man=$1 dcpi=$2 out=$3
mkdir -p "$out"
rm -f "$out"/dcpi*.1  # a renamed subcommand leaves no stale page
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# help2man asks PROGRAM --version unless given the version; a dcpi without
# --version gets the build's.
if version=$("$dcpi" --version 2>/dev/null); then :; else version="dcpi (build)"; fi
version=$(printf '%s\n' "$version" | head -n 1)
"$help2man" --no-info --no-discard-stderr --version-string="$version" \
  --name="continuous profiling of an emulated Alpha (DCPI on QEMU)" \
  --output="$out/dcpi.1" "$dcpi"
# The subcommands are the indented words under "commands:" in dcpi --help.
"$dcpi" --help | sed -n '/^commands:/,$p' | awk 'NR > 1 && /^  [a-z]/ { print $1 }' |
while read -r command; do
  wrapper=$work/dcpi-$command
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$dcpi" "$command" >"$wrapper"
  chmod +x "$wrapper"
  summary=$("$dcpi" --help | awk -v c="$command" '$1 == c { $1 = ""; sub(/^ /, ""); print; exit }')
  "$help2man" --no-info --no-discard-stderr --version-string="$version" \
    --name="$summary" --output="$out/dcpi-$command.1" "$wrapper"
done
