import { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporalExecutable } from '../../infra/temporal-binaries.ts';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.ts';

/**
 * A time-skipping test server (the installed binary, TEMPORAL_TEST_SERVER or PATH) with the
 * service's search attributes registered. The caller tears it down.
 */
export async function startTimeSkippingServer(): Promise<TestWorkflowEnvironment> {
  const executable = temporalExecutable('test-server');
  const env = await TestWorkflowEnvironment.createTimeSkipping(executable ? { server: { executable } } : {});
  // The test server takes no search-attribute option at start; register the service's here.
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    // 2 is INDEXED_VALUE_TYPE_KEYWORD, the type of every attribute the service defines.
    searchAttributes: Object.fromEntries(SEARCH_ATTRIBUTES.map((key) => [key.name, 2])),
  });
  return env;
}
