import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';
import { REPROJECTION_RATE_DEFAULT } from '../domain/catalogue/projection-digest.ts';
import type { ListenerLimits } from '../infra/listener-limits.ts';
import { LISTENER_LIMIT_VARIABLES, listenerLimits } from './listener-config.ts';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((value) => value === 'true' || value === '1');

/** A port, or `off` (also `false`, `none`) for no listener. */
function metricsPort(defaultPort: number) {
  return z
    .string()
    .optional()
    .transform((value, context) => {
      const text = (value ?? '').trim().toLowerCase();
      if (text === '') return defaultPort;
      if (['off', 'false', 'none'].includes(text)) return undefined;
      if (/^\d{1,5}$/.test(text) && Number(text) <= 65535) return Number(text);
      context.addIssue({ code: 'custom', message: 'a port (0-65535) or off' });
      return z.NEVER;
    });
}

const environmentSchema = z.object({
  SVC_ENVIRONMENT: z.enum(['sandbox', 'production']).default('sandbox'),
  DATABASE_URL: z.url().optional(),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('distribution'),
  /** PEM files of the client certificate and key (mTLS) and of the CA that signs the frontend's certificate. */
  TEMPORAL_TLS_CERT: z.string().min(1).optional(),
  TEMPORAL_TLS_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS_CA: z.string().min(1).optional(),
  /** The name the frontend's certificate is checked against, when it differs from the address's host. */
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  /** Temporal Cloud API key (implies TLS). */
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  /** TLS to the frontend with the system's CAs and nothing else configured. */
  TEMPORAL_TLS: booleanFlag,
  DATA_DIR: z.string().min(1).default('.data'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8443),
  HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  TLS_CERT: z.string().optional(),
  TLS_KEY: z.string().optional(),
  /** Express `trust proxy`: a hop count or a comma-separated list of proxy addresses / CIDRs; never a bare `true`. */
  TRUST_PROXY: z.string().optional(),
  /** A listener of its own for /internal/v1 (and /health); unset in the sandbox: the public listener serves it. */
  INTERNAL_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  INTERNAL_HOST: z.string().min(1).default('127.0.0.1'),
  /** Timeouts and connection caps of the API's listeners (app/listener-config.ts). */
  ...LISTENER_LIMIT_VARIABLES,
  PUBLIC_ORIGIN: z.url().optional(),
  /** Secret from which the service derives cursor tags and approximate points; 32+ bytes, base64 or hex. */
  SERVER_SECRET: z.string().min(32).optional(),
  /** Rotation: `<id>:<secret>,...`; the highest id tags and seals, every listed one still verifies and opens. */
  SERVER_SECRETS: z.string().optional(),
  /** The secret approximate points are keyed with once SERVER_SECRET is retired. */
  SERVER_GEO_SECRET: z.string().min(32).optional(),
  /** Bearer token of the platform on /internal/v1; 32+ characters. */
  PLATFORM_TOKEN: z.string().min(32).optional(),
  /** Which kind of run this is: only `development` and `test` may relax the rules meant for deployments. */
  NODE_ENV: z.string().optional(),
  /** Development and tests only: also admit webhook targets on this machine (loopback, `localhost`), any port. */
  WEBHOOK_ALLOW_LOCAL: booleanFlag,
  /** PEM file of an extra CA trusted for webhook targets (a local receiver's certificate). Development and tests only. */
  WEBHOOK_CA_FILE: z.string().min(1).optional(),
  /** How often the event dispatcher looks at the log when no write woke it. */
  DISPATCH_POLL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(86_400 * 30)
    .default(30),
  /** The API starts the daily horizon roll of a zone it sees for the first time (the worker starts those of every zone in use when it starts). */
  HORIZON_ROLLS_FROM_API: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
  /** Days between two switches of the owner-connect token signing key (the next key is published a day before). */
  OWNER_CONNECT_KEY_ROTATION_DAYS: z.coerce.number().int().min(2).max(365).default(30),
  /** A sandbox deployment's first start with an empty catalogue generates one from this seed (services/sandbox-catalogue.ts); ignored in production. */
  SVC_SANDBOX_CATALOGUE_SEED: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
  /** Properties a second a catalogue re-projection after a deploy visits at most. */
  REPROJECTION_RATE: z.coerce.number().positive().max(10_000).default(REPROJECTION_RATE_DEFAULT),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  /** A local relay without TLS: allows `smtp://` without STARTTLS (otherwise required). */
  SMTP_ALLOW_PLAIN: booleanFlag,
  MAIL_FROM: z.string().min(3).default('Distribution Service <no-reply@distribution.invalid>'),
  AUTH_FAILURE_LIMIT: z.coerce.number().int().min(1).default(20),
  /** Owner-connect tokens one host session may mint per minute. */
  HAND_OFF_SESSION_LIMIT: z.coerce.number().int().min(1).default(10),
  /** Owner-connect tokens minted for one organization's owners per minute, host pages and platform together. */
  HAND_OFF_ORGANIZATION_LIMIT: z.coerce.number().int().min(1).default(60),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** The process's Prometheus `/metrics` listener; `off` serves none. */
  METRICS_PORT: metricsPort(9464),
  /** The Temporal SDK's own worker metrics (its Prometheus exporter), worker processes only; `off` serves none. */
  TEMPORAL_METRICS_PORT: metricsPort(9465),
  /** Both metrics listeners bind here: loopback unless configured (they have no authentication). */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** `npm start`'s embedded servers, on loopback, when DATABASE_URL / TEMPORAL_ADDRESS are unset. */
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  EMBEDDED_TEMPORAL_PORT: z.coerce.number().int().min(1).max(65535).default(7233),
  EMBEDDED_TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233),
});

export type Environment = z.infer<typeof environmentSchema>;

/** Express's `trust proxy`: how many proxies stand in front, or which addresses are proxies. */
export type TrustProxy = false | number | string[];

export interface TemporalSettings {
  address: string | undefined;
  namespace: string;
  taskQueue: string;
  /** Absent: plain gRPC (the embedded dev server, a cluster on a private network). */
  tls?: { certFile?: string; keyFile?: string; caFile?: string; serverName?: string };
  apiKey?: string;
}

export interface ServiceConfig {
  environment: 'sandbox' | 'production';
  databaseUrl: string | undefined;
  temporal: TemporalSettings;
  dataDir: string;
  http: {
    host: string;
    port: number;
    plainPort: number;
    tlsCert?: string;
    tlsKey?: string;
    trustProxy: TrustProxy;
    /** Timeouts and connection caps of every listener the API opens. */
    limits: ListenerLimits;
  };
  /** The listener of /internal/v1 when it has its own; undefined: the public listener serves it. */
  internal: { host: string; port: number } | undefined;
  /** Origin announced in problem types and the description: PUBLIC_ORIGIN, else the local TLS listener. */
  publicOrigin: string;
  serverSecret: string | undefined;
  serverSecrets: string | undefined;
  serverGeoSecret: string | undefined;
  platformToken: string | undefined;
  authFailureLimit: number;
  /** Owner-connect tokens minted per minute: per host session, and per organization. */
  handOffLimits: { perSession: number; perOrganization: number };
  webhooks: { allowLocal: boolean; caFile: string | undefined; dispatchPollSeconds: number };
  horizonRollsFromApi: boolean;
  /** Days between two switches of the owner-connect signing key. */
  ownerConnectKeyRotationDays: number;
  /** Seed of the catalogue a sandbox generates at its first start when its catalogue is empty; undefined: none. */
  sandboxCatalogueSeed: number | undefined;
  /** Properties a second a catalogue re-projection visits at most (workflows/catalogue-reprojection.ts). */
  reprojectionRate: number;
  mail: { smtpUrl: string | undefined; from: string; allowPlain: boolean };
  logLevel: Environment['LOG_LEVEL'];
  /** Listeners of the process's metrics; a port undefined: not served. */
  metrics: { host: string; port: number | undefined; temporalPort: number | undefined };
  /** Ports of `npm start`'s embedded servers (used only where DATABASE_URL / TEMPORAL_ADDRESS are unset). */
  embedded: { postgresPort: number; temporalPort: number; temporalUiPort: number };
}

/** Variables that carry a secret: each may instead name a file holding it (`NAME_FILE`). */
export const SECRET_VARIABLES = [
  'SERVER_SECRET',
  'PLATFORM_TOKEN',
  'DATABASE_URL',
  'SMTP_URL',
  'TEMPORAL_API_KEY',
] as const;

/** `NAME_FILE` read into `NAME` (one trailing newline dropped), so secrets need not sit in the environment. */
function withSecretFiles(env: NodeJS.ProcessEnv, problems: string[]): NodeJS.ProcessEnv {
  const resolved = { ...env };
  for (const name of SECRET_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (!file) continue;
    if (env[name]) {
      problems.push(`${name}_FILE: set either ${name} or ${name}_FILE, not both`);
      continue;
    }
    try {
      resolved[name] = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      problems.push(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  return resolved;
}

function isCidrOrAddress(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** TRUST_PROXY as Express takes it; `true` (trust every hop, so the client picks its own address) is refused. */
function trustProxy(value: string | undefined, problems: string[]): TrustProxy {
  const text = (value ?? '').trim();
  if (text === '' || text === 'false' || text === '0') return false;
  if (/^\d+$/.test(text)) return Number(text);
  if (text === 'true') {
    problems.push(
      'TRUST_PROXY: `true` trusts every hop, so any client could choose its own address; give the number of proxies in front (e.g. 1) or their addresses / CIDRs',
    );
    return false;
  }
  const entries = text.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !isCidrOrAddress(entry));
  if (bad.length > 0) problems.push(`TRUST_PROXY: not an address, CIDR or hop count: ${bad.join(', ')}`);
  return entries;
}

/** Reads the process environment once; a bad value stops the process with the variable's name. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const problems: string[] = [];
  const parsed = environmentSchema.safeParse(withSecretFiles(env, problems));
  if (!parsed.success)
    problems.push(...parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  const e = parsed.data;
  const trust = trustProxy(e?.TRUST_PROXY, problems);
  const limits = listenerLimits(e, trust !== false, problems);
  if (e && (e.WEBHOOK_ALLOW_LOCAL || e.WEBHOOK_CA_FILE) && e.NODE_ENV !== 'development' && e.NODE_ENV !== 'test') {
    problems.push(
      'WEBHOOK_ALLOW_LOCAL and WEBHOOK_CA_FILE are for development and tests (NODE_ENV=development or test); a deployment delivers only to public HTTPS addresses',
    );
  }
  if (e && Boolean(e.TEMPORAL_TLS_CERT) !== Boolean(e.TEMPORAL_TLS_KEY))
    problems.push('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together');
  if (!e || problems.length > 0)
    throw new Error(`invalid configuration:\n${problems.map((line) => `  ${line}`).join('\n')}`);
  // Production keeps the platform interface off the public listener unless told otherwise.
  const internalPort = e.INTERNAL_PORT ?? (e.SVC_ENVIRONMENT === 'production' ? 8444 : undefined);
  return {
    environment: e.SVC_ENVIRONMENT,
    databaseUrl: e.DATABASE_URL,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      ...temporalSecurity(e),
    },
    dataDir: e.DATA_DIR,
    http: {
      host: e.HOST,
      port: e.PORT,
      plainPort: e.HTTP_PORT,
      ...(e.TLS_CERT ? { tlsCert: e.TLS_CERT } : {}),
      ...(e.TLS_KEY ? { tlsKey: e.TLS_KEY } : {}),
      trustProxy: trust,
      limits,
    },
    internal: internalPort === undefined ? undefined : { host: e.INTERNAL_HOST, port: internalPort },
    publicOrigin: e.PUBLIC_ORIGIN ?? `https://localhost:${e.PORT}`,
    serverSecret: e.SERVER_SECRET,
    serverSecrets: e.SERVER_SECRETS,
    serverGeoSecret: e.SERVER_GEO_SECRET,
    platformToken: e.PLATFORM_TOKEN,
    authFailureLimit: e.AUTH_FAILURE_LIMIT,
    handOffLimits: { perSession: e.HAND_OFF_SESSION_LIMIT, perOrganization: e.HAND_OFF_ORGANIZATION_LIMIT },
    webhooks: {
      allowLocal: e.WEBHOOK_ALLOW_LOCAL,
      caFile: e.WEBHOOK_CA_FILE,
      dispatchPollSeconds: e.DISPATCH_POLL_SECONDS,
    },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, allowPlain: e.SMTP_ALLOW_PLAIN },
    horizonRollsFromApi: e.HORIZON_ROLLS_FROM_API,
    ownerConnectKeyRotationDays: e.OWNER_CONNECT_KEY_ROTATION_DAYS,
    sandboxCatalogueSeed: e.SVC_SANDBOX_CATALOGUE_SEED,
    reprojectionRate: e.REPROJECTION_RATE,
    logLevel: e.LOG_LEVEL,
    metrics: { host: e.METRICS_HOST, port: e.METRICS_PORT, temporalPort: e.TEMPORAL_METRICS_PORT },
    embedded: {
      postgresPort: e.EMBEDDED_PG_PORT,
      temporalPort: e.EMBEDDED_TEMPORAL_PORT,
      temporalUiPort: e.EMBEDDED_TEMPORAL_UI_PORT,
    },
  };
}

function temporalSecurity(e: Environment): Pick<TemporalSettings, 'tls' | 'apiKey'> {
  const tlsWanted =
    e.TEMPORAL_TLS || e.TEMPORAL_TLS_CERT || e.TEMPORAL_TLS_CA || e.TEMPORAL_TLS_SERVER_NAME || e.TEMPORAL_API_KEY;
  return {
    ...(tlsWanted
      ? {
          tls: {
            ...(e.TEMPORAL_TLS_CERT ? { certFile: e.TEMPORAL_TLS_CERT } : {}),
            ...(e.TEMPORAL_TLS_KEY ? { keyFile: e.TEMPORAL_TLS_KEY } : {}),
            ...(e.TEMPORAL_TLS_CA ? { caFile: e.TEMPORAL_TLS_CA } : {}),
            ...(e.TEMPORAL_TLS_SERVER_NAME ? { serverName: e.TEMPORAL_TLS_SERVER_NAME } : {}),
          },
        }
      : {}),
    ...(e.TEMPORAL_API_KEY ? { apiKey: e.TEMPORAL_API_KEY } : {}),
  };
}
