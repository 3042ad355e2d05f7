// Preflight of every npm script: the sources are TypeScript run directly by Node 24 (type
// stripping), which older Node answers with ERR_UNKNOWN_FILE_EXTENSION. Plain CommonJS and old
// syntax on purpose, so that it runs, and explains, on whatever node is first on PATH.
'use strict';

var REQUIRED_MAJOR = 24;

/** Whether a Node version (`process.versions.node`, e.g. "20.20.2") runs the project, and what to tell its user. */
function checkNode(version) {
  var major = parseInt(String(version).split('.')[0], 10);
  if (major >= REQUIRED_MAJOR) return { ok: true, message: null };
  return {
    ok: false,
    message: 'Node ' + REQUIRED_MAJOR + '+ needed, this shell has Node ' + version + '; run: source scripts/tools.sh',
  };
}

module.exports = { checkNode: checkNode, REQUIRED_MAJOR: REQUIRED_MAJOR };

if (require.main === module) {
  var result = checkNode(process.versions.node);
  if (!result.ok) {
    process.stderr.write(result.message + '\n');
    process.exit(1);
  }
}
