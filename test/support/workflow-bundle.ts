import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { WORKFLOW_CODE } from '../../app/worker.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The workflow code bundled once per run (`workflowBundle: { code }` of a test worker). */
    workflowBundle: string;
  }
}

/**
 * Global setup of the unit project: bundles the workflow code a worker runs (`WORKFLOW_CODE`),
 * once, so each workflow test file starts its workers without bundling again.
 */
export default async function setup(project: TestProject): Promise<void> {
  const { code } = await bundleWorkflowCode({ ...WORKFLOW_CODE, logger: new DefaultLogger('WARN') });
  project.provide('workflowBundle', code);
}
