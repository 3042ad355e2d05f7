/**
 * `node --import ./bench/tracing.ts bench/<name>.ts`: a benchmark whose API runs in its own process
 * (bench/catalogue.ts) traced as `npm run start:api` is, when the OTEL_* variables ask for it
 * (docs/operations.md "Tracing"). Loaded before the benchmark, so Express and pg are patched as
 * they load; without OTEL_* it starts nothing. Child processes (bench/push.ts's worker) start
 * their own tracing from the environment they inherit.
 */
import { startTracing } from '../infra/tracing.ts';

const tracing = await startTracing('api');
process.stderr.write(`bench: tracing ${tracing.on ? 'on' : 'off'}\n`);
