/**
 * Bundles the workflow code once for production workers, which then skip bundling at start: the
 * workflows with their OpenTelemetry interceptors, one bundle whatever the tracing setting
 * (app/worker.ts `WORKFLOW_CODE`).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_BUNDLE_PATH, WORKFLOW_CODE } from '../app/worker.ts';

const { code } = await bundleWorkflowCode(WORKFLOW_CODE);
await mkdir(path.dirname(WORKFLOW_BUNDLE_PATH), { recursive: true });
await writeFile(WORKFLOW_BUNDLE_PATH, code);
console.log(`wrote ${WORKFLOW_BUNDLE_PATH}`);
