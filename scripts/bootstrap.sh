#!/usr/bin/env bash
# Install the system packages Warmer needs to build, test, demo and benchmark.
#
#   scripts/bootstrap.sh           # everything below
#   scripts/bootstrap.sh --build   # only the C libraries' headers `swift build` needs
#                                  # (scripts/test.sh installs the rest while it builds)
#
# Safe to run any number of times: each package is checked with `dpkg-query`
# (python3: any `python3` on PATH will do, see is_present below) and apt is
# only invoked (one `apt-get update`, one `apt-get install`) when at
# least one is missing. When everything is already there it prints nothing.
#
# It also checks that the Swift toolchain is on PATH; Swift is not installed
# from apt (the machines come with it, e.g. under /opt/swift).
set -euo pipefail

# What each package is for:
#   libcurl4-openssl-dev  libcurl headers (CCurl module, downloads)
#   libhiredis-dev        hiredis headers (CHiredis module, Redis queue)
#   libssl-dev            libcrypto headers (CCrypto module: SHA-1, SHA-256)
#   libvips-dev           libvips headers (CVips module, imaging)
#   libvips-tools         the `vips` CLI, used by scripts/make-corpus.sh
#   redis-server          local Redis for tests, demo and bench (brings redis-cli)
#   nginx-light           local HTTP origin serving test images
#   curl                  readiness checks and the bench reference download
#   make                  the Makefile entry points
#   iproute2              `ip netns`, for the network partition proof
#                         (scripts/partition-test.sh)
#   python3               runs scripts/fault-origin.py, the tests' fault-injecting
#                         origin (standard library only). Any python3 on PATH is
#                         enough (pyenv, a CI image's own...); the Debian package
#                         is installed only when there is none.
#   chromium              headless browser for the dashboard's real-browser test
#   chromium-driver       its WebDriver (chromedriver), which Selenium drives
#                         (scripts/dashboard-check.py, DashboardBrowserTests)
REQUIRED_PACKAGES=(
  libcurl4-openssl-dev
  libhiredis-dev
  libssl-dev
  libvips-dev
  libvips-tools
  redis-server
  nginx-light
  curl
  make
  iproute2
  python3
  chromium
  chromium-driver
)

# What `swift build` needs: the C modules' headers (and make, to run it).
BUILD_PACKAGES=(libcurl4-openssl-dev libhiredis-dev libssl-dev libvips-dev make)

log() { echo "bootstrap: $*" >&2; }

case ${1:-} in
  "") ;;
  --build) REQUIRED_PACKAGES=("${BUILD_PACKAGES[@]}") ;;
  *) log "usage: scripts/bootstrap.sh [--build]"; exit 2 ;;
esac

# is_present PKG: whether PKG is installed. For python3 the scripts only need
# the interpreter, wherever it comes from: a python3 on PATH counts.
is_present() {
  case $1 in
    python3) command -v python3 >/dev/null 2>&1 ;;
    # Installed, not merely known: a package removed without --purge keeps
    # its configuration files, and `dpkg -s` still succeeds for it.
    *) [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) == "install ok installed" ]] ;;
  esac
}

# Collect the packages that are not installed yet.
missing=()
for pkg in "${REQUIRED_PACKAGES[@]}"; do
  if ! is_present "$pkg"; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} > 0)); then
  # apt needs root; use sudo when we are not root.
  SUDO=()
  if ((EUID != 0)); then
    if ! command -v sudo >/dev/null 2>&1; then
      log "missing packages: ${missing[*]}"
      log "not root and sudo is not available: install them by hand, then re-run."
      exit 1
    fi
    SUDO=(sudo)
  fi

  log "installing: ${missing[*]}"
  "${SUDO[@]}" apt-get update -qq
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Swift itself is not an apt package here: only check for it.
if ! command -v swift >/dev/null 2>&1; then
  log "error: 'swift' is not on PATH."
  if [[ -x /opt/swift/usr/bin/swift ]]; then
    log "a toolchain exists at /opt/swift: export PATH=\"/opt/swift/usr/bin:\$PATH\""
  else
    log "install a Swift 6 toolchain (https://www.swift.org/install/linux/) and put its usr/bin on PATH."
  fi
  exit 1
fi

