/** Options of a test worker that keeps no workflow cache (see `createTestWorker`); apart, so a child process can use them without vitest. */
export const NO_CACHE = { maxCachedWorkflows: 0, maxConcurrentWorkflowTaskExecutions: 1 } as const;
