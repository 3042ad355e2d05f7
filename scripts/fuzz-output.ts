/**
 * Schemathesis closes its report with pytest's banner (`==== 2 warnings in 150.01s ====`). A CI
 * reader that knows pytest takes such a line for pytest's own summary, and one that names no
 * passed test for a run that executed none, whatever the real test run before it counted. The
 * fuzz run passes its report through with those banners drawn in dashes instead: same words,
 * no pytest summary.
 */
const PYTEST_BANNER = /^(=+)( .* )(=+)$/;

export function withoutPytestBanner(line: string): string {
  const banner = PYTEST_BANNER.exec(line);
  if (!banner) return line;
  return `${'-'.repeat(banner[1]!.length)}${banner[2]}${'-'.repeat(banner[3]!.length)}`;
}
