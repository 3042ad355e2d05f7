/**
 * What an exported span may say (docs/operations.md "Tracing"). An allow-list, not a deny-list:
 * an attribute leaves only if it is named here, so one a new instrumentation version or a new
 * span of ours brings is dropped until someone decides it carries no value of a guest, host,
 * channel or secret. Four kinds of attribute are reduced rather than kept: a statement's text
 * (MikroORM sends statements with their values written into the text) keeps its shape without
 * its literals, and URLs, targets and query strings keep their parameter names only.
 */

export type AttributeValue = unknown;
export type AttributeMap = Readonly<Record<string, AttributeValue>>;

/** Names, ids, codes, routes and numbers that the service and its instrumentations set. */
const KEPT = new Set([
  // HTTP server spans (the stable conventions and, with OTEL_SEMCONV_STABILITY_OPT_IN, the old)
  'http.request.method',
  'http.response.status_code',
  'http.route',
  'url.path',
  'url.scheme',
  'server.address',
  'server.port',
  'network.protocol.version',
  'error.type',
  'http.method',
  'http.status_code',
  'http.scheme',
  'http.flavor',
  'net.host.name',
  'net.host.port',
  // Express
  'express.name',
  'express.type',
  // pg: the database and its server, never the user, the connection string or the parameters
  'db.system',
  'db.system.name',
  'db.name',
  'db.namespace',
  'db.operation.name',
  'db.collection.name',
  'db.response.status_code',
  'db.postgresql.plan',
  'db.postgresql.idle.timeout.millis',
  'db.postgresql.max.client',
  'net.peer.name',
  'net.peer.port',
  // Temporal's interceptors: ids and types (a termination's reason is free text)
  'temporalWorkflowId',
  'temporalWorkflowType',
  'temporalTaskQueue',
  'temporalActivityId',
  'temporalUpdateId',
  'run_id',
  // Ours (infra/tracing.ts and its callers)
  'webhook.delivery_id',
  'webhook.endpoint_id',
  'webhook.event_id',
  'webhook.event_type',
  'webhook.channel',
  // A delivery attempt's span: its number (1, 2, …), its outcome (delivered, failed, gone,
  // cancelled); its answer's status and failure reason are `http.response.status_code` and `error.type`
  'webhook.attempt',
  'webhook.outcome',
  // An exception event: its type (an error's code or class), never its message or stack
  'exception.type',
  'exception.escaped',
]);

const REDACTED = 'REDACTED';

/** Attributes exported in a reduced form, each by its rule. */
const REDUCED: Record<string, (text: string) => string> = {
  'db.query.text': sqlWithoutLiterals,
  'db.statement': sqlWithoutLiterals,
  'url.query': queryNamesOnly,
  'url.full': urlWithoutQueryValues,
  'http.url': urlWithoutQueryValues,
  'http.target': urlWithoutQueryValues,
};

/**
 * The resource's attributes that are kept: the service, the SDK, the host and the runtime. The
 * command line (it may carry a flag's value) and the process's owner are not.
 */
const RESOURCE_KEPT = new Set([
  'service.name',
  'service.namespace',
  'service.version',
  'service.instance.id',
  'deployment.environment',
  'deployment.environment.name',
  'telemetry.sdk.language',
  'telemetry.sdk.name',
  'telemetry.sdk.version',
  'host.name',
  'host.arch',
  'host.id',
  'os.type',
  'process.pid',
  'process.executable.name',
  'process.runtime.name',
  'process.runtime.version',
  'process.runtime.description',
]);

/** A span's (or an event's, or a link's) attributes as exported: the listed ones, reduced where they carry values. */
export function exportedAttributes(attributes: AttributeMap): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    const reduce = REDUCED[key];
    if (reduce) {
      if (typeof value === 'string') out[key] = reduce(value);
    } else if (KEPT.has(key)) out[key] = value;
  }
  return out;
}

/** A resource's attributes as exported: the listed ones and those the operator set (OTEL_RESOURCE_ATTRIBUTES). */
export function exportedResourceAttributes(
  attributes: AttributeMap,
  operatorKeys: ReadonlySet<string>,
): Record<string, AttributeValue> {
  return Object.fromEntries(
    Object.entries(attributes).filter(([key]) => RESOURCE_KEPT.has(key) || operatorKeys.has(key)),
  );
}

/** `a=1&b=2` as `a=REDACTED&b=REDACTED`: which parameters a request had, not their values. */
export function queryNamesOnly(query: string): string {
  return [...new URLSearchParams(query).keys()].map((name) => `${encodeURIComponent(name)}=${REDACTED}`).join('&');
}

/** A URL or request target without credentials, fragment or query values. */
export function urlWithoutQueryValues(url: string): string {
  const cut = url.search(/[?#]/);
  const path = cut === -1 ? url : url.slice(0, cut);
  const query = url.startsWith('?', cut) ? url.slice(cut + 1).split('#')[0]! : undefined;
  let base = path;
  if (/^[a-z][a-z0-9+.-]*:/i.test(path)) {
    try {
      const parsed = new URL(path);
      base = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
    } catch {
      base = '';
    }
  }
  return query === undefined ? base : `${base}?${queryNamesOnly(query)}`;
}

/**
 * A statement's tokens, in the order they are tried: comments, quoted identifiers, placeholders,
 * E strings (backslash escapes), other strings (quotes doubled; bit, hex, national and Unicode
 * ones too), dollar-quoted strings, identifiers and keywords (whole, so `t0` is no number), and
 * numbers. A string, quoted identifier or comment left open runs to the end.
 */
const TOKEN = new RegExp(
  [
    String.raw`(?<comment>--[^\n]*|/\*[\s\S]*?(?:\*/|$))`,
    String.raw`(?<quoted>"(?:[^"]|"")*(?:"|$))`,
    String.raw`(?<placeholder>\$\d+)`,
    String.raw`(?<literal>[eE]'(?:[^'\\]|''|\\[\s\S])*(?:'|$)`,
    String.raw`(?:[bBxXnN]|[uU]&)?'(?:[^']|'')*(?:'|$)`,
    String.raw`\$(?<tag>[A-Za-z_][A-Za-z0-9_]*)?\$[\s\S]*?(?:\$\k<tag>\$|$)`,
    String.raw`0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+`,
    String.raw`(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?)`,
    String.raw`(?<word>[A-Za-z_][A-Za-z0-9_$]*)`,
  ].join('|'),
  'g',
);

/**
 * The statement's text with every literal (string, number, dollar-quoted) replaced by `?` and
 * comments removed: what it does and to which tables and columns, not with which values.
 * Placeholders (`$1`), identifiers and keywords (`null`, `true`) stay.
 */
export function sqlWithoutLiterals(text: string): string {
  return text.replace(TOKEN, (token, ...rest) => {
    const groups = rest.at(-1) as Record<string, string | undefined>;
    if (groups.comment !== undefined) return ' ';
    if (groups.quoted !== undefined) return token.endsWith('"') && token.length > 1 ? token : '?';
    if (groups.placeholder !== undefined || groups.word !== undefined) return token;
    return '?';
  });
}
