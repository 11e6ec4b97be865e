#!/usr/bin/env bash
# Install the Python packages the test suite uses, from PyPI (pinned), when
# they are missing. Run by scripts/test.sh after scripts/bootstrap.sh; not
# part of bootstrap.sh, which the worker's image build runs too (deploy/).
#
#   prometheus_client  the reference parser of the Prometheus text format:
#                      tests parse `warmer worker`'s /metrics with it
#                      (scripts/prometheus-samples.py)
#   redis              redis-py, the client a Python service would use:
#                      scripts/integrator-check.py plays such a service
#                      from the docs alone (IntegratorTests)
#   selenium           drives headless Chromium (Debian's chromium and
#                      chromium-driver, from scripts/bootstrap.sh) through the
#                      dashboard: scripts/dashboard-check.py (DashboardBrowserTests)
set -euo pipefail

log() { echo "test-python-packages: $*" >&2; }

# REQUIREMENT=MODULE when the module imported is named otherwise.
PYTHON_PACKAGES=(prometheus_client==0.26.0 redis==5.2.1 openapi-core==0.23.1=openapi_core schemathesis==4.32.5 selenium==4.50.0)
missing_python=()
for entry in "${PYTHON_PACKAGES[@]}"; do
  requirement=${entry%=*}
  module=${entry##*=}
  if [[ $entry != *==*=* ]]; then requirement=$entry; module=${entry%%==*}; fi
  if ! python3 -c "import $module" >/dev/null 2>&1; then
    missing_python+=("$requirement")
  fi
done
if ((${#missing_python[@]} > 0)); then
  # Debian's own python3 comes without pip: add it (python3-pip) first.
  if ! python3 -m pip --version >/dev/null 2>&1; then
    SUDO=()
    if ((EUID != 0)); then SUDO=(sudo); fi
    log "installing python3-pip"
    "${SUDO[@]}" apt-get update -qq
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pip
  fi
  log "installing from PyPI: ${missing_python[*]}"
  python3 -m pip install -q "${missing_python[@]}" 2>/dev/null \
    || python3 -m pip install -q --break-system-packages "${missing_python[@]}"
fi
