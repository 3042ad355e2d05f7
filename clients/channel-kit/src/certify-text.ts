import type { CertificationRow, CertificationRun, CertifyLine } from './certify.ts';

/** What `channel-kit certify` prints: a line per change as the run goes, then the report as a table. */

const OUTCOME: Readonly<Record<string, string>> = {
  pending: 'pending',
  passed: 'passed',
  failed: 'FAILED',
  self_declared: 'self-declared',
};
/** An outcome as printed; one this kit does not know (the enum is open) as the service wrote it. */
const outcome = (row: CertificationRow) => OUTCOME[row.outcome] ?? row.outcome;

const time = () => new Date().toTimeString().slice(0, 8);

export function certifyLineText(line: CertifyLine): string {
  switch (line.kind) {
    case 'started':
      return `Certification ${line.run.certification_id} of ${line.run.webhook_id} started; ${line.run.rules.length} rules to judge.`;
    case 'step':
      return `${time()}  … ${line.step}`;
    case 'rule':
      return `${time()}  ${outcome(line.row).padEnd(13)} ${line.row.rule}: ${line.row.evidence}`;
    case 'hand_off':
      return `${time()}  owner connect: handing the token for ${line.handOff.owner_id} to ${line.handOff.redirect_url} (confirm by ${line.handOff.window_ends_at})`;
    case 'hand_off_done':
      return `${time()}  owner connect: ${line.detail}`;
    case 'hand_off_failed':
      return `${time()}  owner connect: the hand-off failed: ${line.error}`;
    case 'finished':
      return '';
  }
}

/** The report: rule, outcome, evidence, one row per rule, then the verdict. */
export function certifyReport(run: CertificationRun): string[] {
  const width = Math.max(4, ...run.rules.map((row) => row.rule.length));
  const header = `${'rule'.padEnd(width)}  ${'outcome'.padEnd(13)}  evidence`;
  const rows = run.rules.map((row) => `${row.rule.padEnd(width)}  ${outcome(row).padEnd(13)}  ${row.evidence || '-'}`);
  const failed = run.rules.filter((row) => row.outcome === 'failed').length;
  const verdict =
    run.state === 'passed'
      ? `Certification ${run.certification_id} passed.`
      : run.state === 'failed'
        ? `Certification ${run.certification_id} failed: ${failed} rule${failed === 1 ? '' : 's'} failed.`
        : `Certification ${run.certification_id} is still running.`;
  return [header, '-'.repeat(header.length), ...rows, '', verdict];
}
