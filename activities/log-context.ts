import { asyncLocalStorage } from '@temporalio/activity';
import type { Logger } from '../infra/logger.ts';

/**
 * The activities' logger: a line written while an activity runs carries which one (type, id,
 * attempt) and for which workflow (id, type, run), so a worker's lines can be matched with the
 * Temporal UI. Outside an activity the line is written as it is.
 */
export function withActivityContext(log: Logger): Logger {
  const context = (): Record<string, unknown> => {
    const info = asyncLocalStorage.getStore()?.info;
    if (!info) return {};
    return {
      activityType: info.activityType,
      activityId: info.activityId,
      attempt: info.attempt,
      workflowId: info.workflowExecution?.workflowId,
      workflowType: info.workflowType,
      runId: info.workflowExecution?.runId,
    };
  };
  return {
    debug: (message, fields) => log.debug(message, { ...context(), ...fields }),
    info: (message, fields) => log.info(message, { ...context(), ...fields }),
    warn: (message, fields) => log.warn(message, { ...context(), ...fields }),
    error: (message, fields) => log.error(message, { ...context(), ...fields }),
  };
}
