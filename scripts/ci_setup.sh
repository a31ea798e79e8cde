#!/usr/bin/env bash
# System packages the test suite needs: Debian's Chromium (+ driver) for tests/browser.
# Idempotent and quick when already installed. Never runs `playwright install` (it downloads a
# browser build, which the CI network does not allow); Playwright drives /usr/bin/chromium.
set -euo pipefail

if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
  echo "ci_setup: chromium already installed ($(chromium --version 2>/dev/null | head -n1))"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
echo "ci_setup: installed $(chromium --version 2>/dev/null | head -n1)"
