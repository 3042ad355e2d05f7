import { z } from 'zod';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((value) => value === 'true' || value === '1');

const environmentSchema = z.object({
  SVC_ENVIRONMENT: z.enum(['sandbox', 'production']).default('sandbox'),
  DATABASE_URL: z.url().optional(),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('distribution'),
  DATA_DIR: z.string().min(1).default('.data'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8443),
  HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  TLS_CERT: z.string().optional(),
  TLS_KEY: z.string().optional(),
  TRUST_PROXY: booleanFlag,
  PUBLIC_ORIGIN: z.url().optional(),
  /** Secret from which the service derives cursor tags and approximate points; 32+ bytes, base64 or hex. */
  SERVER_SECRET: z.string().min(32).optional(),
  /** Rotation: `<id>:<secret>,...`; the highest id tags and seals, every listed one still verifies and opens. */
  SERVER_SECRETS: z.string().optional(),
  /** The secret approximate points are keyed with once SERVER_SECRET is retired. */
  SERVER_GEO_SECRET: z.string().min(32).optional(),
  /** Bearer token of the platform on /internal/v1; 32+ characters. */
  PLATFORM_TOKEN: z.string().min(32).optional(),
  /** Development and tests only: webhook targets on this machine (loopback, any port). Refused in production. */
  WEBHOOK_ALLOW_LOCAL: booleanFlag,
  /** PEM file of an extra CA trusted for webhook targets (a local receiver's certificate). Refused in production. */
  WEBHOOK_CA_FILE: z.string().min(1).optional(),
  /** How often the event dispatcher looks at the log when no write woke it. */
  DISPATCH_POLL_SECONDS: z.coerce.number().int().min(1).max(86_400 * 30).default(30),
  /** The API starts the daily horizon roll of a zone it sees for the first time (the worker starts those of every zone in use when it starts). */
  HORIZON_ROLLS_FROM_API: z.enum(['true', 'false', '1', '0']).default('true').transform((v) => v === 'true' || v === '1'),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  MAIL_FROM: z.string().min(3).default('Distribution Service <no-reply@distribution.invalid>'),
  AUTH_FAILURE_LIMIT: z.coerce.number().int().min(1).default(20),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
});

export type Environment = z.infer<typeof environmentSchema>;

export interface ServiceConfig {
  environment: 'sandbox' | 'production';
  databaseUrl: string | undefined;
  temporal: { address: string | undefined; namespace: string; taskQueue: string };
  dataDir: string;
  http: { host: string; port: number; plainPort: number; tlsCert?: string; tlsKey?: string; trustProxy: boolean };
  /** Origin announced in problem types and the description: PUBLIC_ORIGIN, else the local TLS listener. */
  publicOrigin: string;
  serverSecret: string | undefined;
  serverSecrets: string | undefined;
  serverGeoSecret: string | undefined;
  platformToken: string | undefined;
  authFailureLimit: number;
  webhooks: { allowLocal: boolean; caFile: string | undefined; dispatchPollSeconds: number };
  horizonRollsFromApi: boolean;
  mail: { smtpUrl: string | undefined; from: string };
  logLevel: Environment['LOG_LEVEL'];
}

/** Reads the process environment once; a bad value stops the process with the variable's name. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.SVC_ENVIRONMENT === 'production' && (e.WEBHOOK_ALLOW_LOCAL || e.WEBHOOK_CA_FILE)) {
    throw new Error('invalid configuration:\n  WEBHOOK_ALLOW_LOCAL and WEBHOOK_CA_FILE are for development and tests; production delivers only to public HTTPS addresses');
  }
  return {
    environment: e.SVC_ENVIRONMENT,
    databaseUrl: e.DATABASE_URL,
    temporal: { address: e.TEMPORAL_ADDRESS, namespace: e.TEMPORAL_NAMESPACE, taskQueue: e.TEMPORAL_TASK_QUEUE },
    dataDir: e.DATA_DIR,
    http: {
      host: e.HOST,
      port: e.PORT,
      plainPort: e.HTTP_PORT,
      ...(e.TLS_CERT ? { tlsCert: e.TLS_CERT } : {}),
      ...(e.TLS_KEY ? { tlsKey: e.TLS_KEY } : {}),
      trustProxy: e.TRUST_PROXY,
    },
    publicOrigin: e.PUBLIC_ORIGIN ?? `https://localhost:${e.PORT}`,
    serverSecret: e.SERVER_SECRET,
    serverSecrets: e.SERVER_SECRETS,
    serverGeoSecret: e.SERVER_GEO_SECRET,
    platformToken: e.PLATFORM_TOKEN,
    authFailureLimit: e.AUTH_FAILURE_LIMIT,
    webhooks: { allowLocal: e.WEBHOOK_ALLOW_LOCAL, caFile: e.WEBHOOK_CA_FILE, dispatchPollSeconds: e.DISPATCH_POLL_SECONDS },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    horizonRollsFromApi: e.HORIZON_ROLLS_FROM_API,
    logLevel: e.LOG_LEVEL,
  };
}
