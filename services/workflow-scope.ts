import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type * as workflows from '../workflows/index.ts';

// What each part of the workflow client (services/workflow-client.ts) starts from, and the two
// helpers they share.

/** The Temporal client, connected on first use, and the task queue every workflow runs on. */
export interface WorkflowScope {
  /** The CLI connects only for commands that need it. */
  connect: () => Promise<Client>;
  taskQueue: string;
}

/** A workflow's type name, checked against the worker's exports. */
export const workflowName = <N extends keyof typeof workflows>(workflow: N): N => workflow;

/** A signal, cancel or update for a workflow that has ended (or never ran) is no error. */
export async function ignoreNotFound(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}
