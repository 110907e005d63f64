#!/usr/bin/env bash
# Installs everything the project needs on Debian 12 (bookworm) or 13 (trixie).
# Idempotent: packages already present are left alone.
set -euo pipefail

need_root() { if [ "$(id -u)" -ne 0 ]; then exec sudo -E "$0" "$@"; fi; }
need_root "$@"

codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
export DEBIAN_FRONTEND=noninteractive

# DESIGN §3: QEMU 10.0 — from bookworm-backports on Debian 12, plain on Debian 13.
if [ "$codename" = bookworm ]; then
  list=/etc/apt/sources.list.d/bookworm-backports.sources
  if [ ! -f "$list" ]; then
    cat >"$list" <<'SRC'
Types: deb deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  fi
  qemu_target=(-t bookworm-backports)
else
  qemu_target=()
fi

# Issue 15: the real mix is cross-built from Debian source packages
# (toolchain/build-real-programs.sh runs apt-get source lua5.4 bzip2 zlib).
sources_added=no
src_list=/etc/apt/sources.list.d/dcpi-${codename}-src.sources
if [ -n "$codename" ] && [ ! -f "$src_list" ]; then
  cat >"$src_list" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $codename
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  sources_added=yes
fi

packages=(
  build-essential cmake ninja-build pkg-config git cpio python3
  binutils-alpha-linux-gnu gcc-alpha-linux-gnu g++-alpha-linux-gnu
  newlib-source gdb-multiarch
  qemu-user                       # qemu-alpha: tests/newlib runs its programs in user mode
  libgtest-dev libgmock-dev googletest
  libelf-dev libdw-dev elfutils
  libprotobuf-dev protobuf-compiler zlib1g-dev
  libfmt-dev                      # fmt::format: hex in messages and file names (host.cmake)
  liblemon-dev                    # NetworkSimplex: the flow estimate's min-cost flow (analysis/calc)
  clang-format clang-tidy
  graphviz                        # dcpi report --html draws control-flow graphs with dot
  chromium                        # tests render the HTML report headless
  help2man                        # man pages from dcpi's help text
  dpkg-dev                        # apt-get source unpacks with dpkg-source
  tcl                             # sqlite3 generates its amalgamation with tclsh (real mix)
  # Issue 14: the ev5 machine's qemu-system-alpha is built from Debian's
  # qemu source with our plugin patch (qemu/machine/build-qemu.sh)
  python3-venv python3-pycotap libglib2.0-dev libpixman-1-dev flex bison
)

missing=()
for p in "${packages[@]}" qemu-system-misc meson; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# QEMU 10 needs meson >= 1.5 (bookworm has 1.0; its backports 1.7).
meson_ok() { command -v meson >/dev/null && meson --version | grep -Eq '^(1\.([5-9]|[1-9][0-9])|[2-9])'; }
qemu_ok() { command -v qemu-system-alpha >/dev/null && qemu-system-alpha --version | grep -Eq 'version (1[0-9]|[2-9][0-9])\.'; }
if [ ${#missing[@]} -eq 0 ] && qemu_ok && meson_ok && [ $sources_added = no ]; then
  echo "install-deps: everything is installed"
  exit 0
fi

apt-get update -q
apt-get install -y -q --no-install-recommends "${packages[@]}"
apt-get install -y -q --no-install-recommends "${qemu_target[@]}" qemu-system-misc meson
meson_ok || { echo "install-deps: meson >= 1.5 is required to build QEMU 10" >&2; exit 1; }
qemu_ok || { echo "install-deps: qemu-system-alpha >= 10 is required" >&2; exit 1; }
echo "install-deps: done ($(qemu-system-alpha --version | head -1))"
