export { apiKeyLifecycle } from './api-key-lifecycle.ts';
