import type { ReceiverCheck, ReceiverReport } from './check-receiver.ts';
import { RECEIVING_WEBHOOKS } from './receiver-rules.ts';

/** `check-receiver`'s report as the command prints it. */

const VERDICT: Record<ReceiverCheck['verdict'], string> = {
  pass: 'PASS',
  fail: 'FAIL',
  error: 'ERROR',
  not_run: 'NOT RUN',
};

export function checkHeading(url: string): string {
  return `Checking ${url} against the receiver rules (${RECEIVING_WEBHOOKS})\n`;
}

/** One check: `  PASS     signature       a delivery signed with another secret is refused   401 in 2 ms`. */
export function checkRow(check: ReceiverCheck): string {
  return `  ${VERDICT[check.verdict].padEnd(7)}  ${check.rule.padEnd(15)} ${check.check.padEnd(72)} ${check.detail}`;
}

/**
 * What follows the rows (or stands alone): a run stopped at its first delivery says why and only
 * that, with no table when nothing answered; otherwise what cannot be observed, the counts, and
 * each failed rule and error with what to change.
 */
export function checkSummary(report: ReceiverReport): string {
  if (report.stopped?.reason === 'unreachable') return report.stopped.message;
  if (report.stopped) {
    return [report.stopped.message, '', ...report.checks.map(checkRow), '', counts(report)].join('\n');
  }
  const lines = [
    '',
    'Not observable from outside, yours to make sure of:',
    ...report.notObservable.map((item) => `  - ${item}`),
    '',
    counts(report),
  ];
  for (const finding of report.findings) {
    const label = finding.verdict === 'fail' ? 'FAILED' : `ERROR (no answer to: ${finding.checks.join('; ')})`;
    lines.push('', `${label} ${finding.rule}: ${finding.statement}`, `  ${finding.remedy}`);
  }
  return lines.join('\n');
}

function counts(report: ReceiverReport): string {
  const of = (verdict: ReceiverCheck['verdict']) => report.checks.filter((check) => check.verdict === verdict).length;
  const parts = [`${of('pass')} passed`, `${of('fail')} failed`];
  if (of('error') > 0) parts.push(`${of('error')} without an answer`);
  if (of('not_run') > 0) parts.push(`${of('not_run')} not run`);
  return `${report.checks.length} checks: ${parts.join(', ')}`;
}
