/** Bundles the workflows once for production workers, which then skip bundling at start. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_BUNDLE_PATH, WORKFLOWS_PATH } from '../app/worker.ts';

const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH });
await mkdir(path.dirname(WORKFLOW_BUNDLE_PATH), { recursive: true });
await writeFile(WORKFLOW_BUNDLE_PATH, code);
console.log(`wrote ${WORKFLOW_BUNDLE_PATH}`);
