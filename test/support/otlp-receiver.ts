import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

/** One exported span, from either encoding; ids as lower-case hex. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's numbering: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  /** The exporting process's `service.name`. */
  service: string;
  scope: string;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  /** `http/json` or `http/protobuf`: how it arrived. */
  encoding: string;
}

export interface OtlpReceiver {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT: the exporters add `/v1/traces`. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Requests refused (another path, a body that does not decode). */
  refused: string[];
  /** Resolves once `predicate` holds for what arrived (polled), or rejects after `timeoutMs`. */
  waitFor: (predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs: number) => Promise<ReceivedSpan[]>;
  close: () => Promise<void>;
}

/** The part of OTLP's trace request this receiver reads; unknown fields are skipped. */
const PROTO = `
syntax = "proto3";
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; }
}
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message InstrumentationScope { string name = 1; string version = 2; }
message Link { bytes trace_id = 1; bytes span_id = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5;
  int32 kind = 6; repeated KeyValue attributes = 9; repeated Link links = 13;
}
`;
const requestType = protobuf.parse(PROTO).root.lookupType('ExportTraceServiceRequest');

type Value = { stringValue?: string; boolValue?: boolean; intValue?: number | string; doubleValue?: number };
type KeyValue = { key: string; value?: Value };
type Id = string | Uint8Array | undefined;

const hex = (id: Id) =>
  id === undefined ? '' : typeof id === 'string' ? id.toLowerCase() : Buffer.from(id).toString('hex');

function attributesOf(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    if (!value) continue;
    const v =
      value.stringValue ??
      value.boolValue ??
      value.doubleValue ??
      (value.intValue !== undefined ? Number(value.intValue) : undefined);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

interface RequestShape {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: {
        traceId?: Id;
        spanId?: Id;
        parentSpanId?: Id;
        name?: string;
        kind?: number;
        attributes?: KeyValue[];
        links?: { traceId?: Id; spanId?: Id }[];
      }[];
    }[];
  }[];
}

function flatten(request: RequestShape, encoding: string): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
      (scopeSpans.spans ?? []).map((span) => ({
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: hex(span.parentSpanId),
        name: span.name ?? '',
        kind: span.kind ?? 0,
        service,
        scope: scopeSpans.scope?.name ?? '',
        attributes: attributesOf(span.attributes),
        links: (span.links ?? []).map((link) => ({ traceId: hex(link.traceId), spanId: hex(link.spanId) })),
        encoding,
      })),
    );
  });
}

/**
 * A collector of the test's own: POST /v1/traces in OTLP `http/json` or `http/protobuf` (decoded
 * with protobufjs from the spec's field numbers), every span kept in order of arrival.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const refused: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      try {
        if (req.method !== 'POST' || req.url !== '/v1/traces') throw new Error(`${req.method} ${req.url}`);
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        if (type.startsWith('application/json')) {
          spans.push(...flatten(JSON.parse(body.toString('utf8')) as RequestShape, 'http/json'));
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } else if (type.startsWith('application/x-protobuf')) {
          const decoded = requestType.toObject(requestType.decode(body), { longs: String }) as RequestShape;
          spans.push(...flatten(decoded, 'http/protobuf'));
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        } else throw new Error(`content-type ${type}`);
      } catch (error) {
        refused.push(String(error));
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    refused,
    waitFor: async (predicate, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > deadline)
          throw new Error(`OTLP receiver: condition not met after ${timeoutMs} ms (${spans.length} spans)`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return [...spans];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
