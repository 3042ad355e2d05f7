import { readFileSync } from 'node:fs';

/**
 * An interface's revision: the newest entry of its changelog (its first `## x.y.z` heading), read
 * once when the module loads. Writing the entry is the bump: no second place holds the number, so
 * a description that changes without its entry fails the description-revisions test, and one with
 * an entry cannot forget the number.
 */
export function revisionFromChangelog(changelog: URL): string {
  const newest = /^## (\d+\.\d+\.\d+)\s*$/m.exec(readFileSync(changelog, 'utf8'));
  if (!newest) throw new Error(`${changelog.pathname} has no "## x.y.z" entry`);
  return newest[1]!;
}
