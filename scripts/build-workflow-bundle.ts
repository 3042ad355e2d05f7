/**
 * Bundles the workflows once for production workers, which then skip bundling at start: the plain
 * bundle, and the traced one (with the OpenTelemetry workflow interceptors) that workers load
 * when tracing is on (docs/operations.md "Tracing").
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import {
  TRACED_WORKFLOW_BUNDLE_PATH,
  TRACING_INTERCEPTORS_PATH,
  WORKFLOW_BUNDLE_PATH,
  WORKFLOWS_PATH,
} from '../app/worker.ts';

const bundles = [
  { file: WORKFLOW_BUNDLE_PATH, workflowInterceptorModules: [] },
  { file: TRACED_WORKFLOW_BUNDLE_PATH, workflowInterceptorModules: [TRACING_INTERCEPTORS_PATH] },
];
for (const { file, workflowInterceptorModules } of bundles) {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules });
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, code);
  console.log(`wrote ${file}`);
}
