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
  attributes: Record<string, AttributeValue>;
  /** W3C `tracestate` of the span's context; empty without one. */
  traceState: string;
  events: { name: string; attributes: Record<string, AttributeValue> }[];
  links: { traceId: string; spanId: string; traceState: string; attributes: Record<string, AttributeValue> }[];
  /** OTLP's numbering: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  /** The exporting process's resource, every attribute. */
  resource: Record<string, AttributeValue>;
  /** `http/json` or `http/protobuf`: how it arrived. */
  encoding: string;
}

export type AttributeValue = string | number | boolean | AttributeValue[] | { [key: string]: AttributeValue };

export interface OtlpReceiver {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT: the exporters add `/v1/traces`. */
  endpoint: string;
  spans: ReceivedSpan[];
  /**
   * Every accepted request's body as text (decompressed; a protobuf body's strings appear in it as
   * sent): a search there finds a value whatever field carries it, one this receiver decodes or not.
   */
  bodies: string[];
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
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message InstrumentationScope { string name = 1; string version = 2; }
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; }
message Status { string message = 2; int32 code = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5;
  int32 kind = 6; repeated KeyValue attributes = 9; repeated Event events = 11; repeated Link links = 13;
  Status status = 15;
}
`;
const requestType = protobuf.parse(PROTO).root.lookupType('ExportTraceServiceRequest');

type Value = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: Value[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: string | Uint8Array;
};
type KeyValue = { key: string; value?: Value };
type Id = string | Uint8Array | undefined;

const hex = (id: Id) =>
  id === undefined ? '' : typeof id === 'string' ? id.toLowerCase() : Buffer.from(id).toString('hex');

function valueOf(value: Value): AttributeValue | undefined {
  if (value.arrayValue) return (value.arrayValue.values ?? []).flatMap((item) => valueOf(item) ?? []);
  if (value.kvlistValue) return attributesOf(value.kvlistValue.values);
  if (value.bytesValue !== undefined) return hex(value.bytesValue);
  return (
    value.stringValue ??
    value.boolValue ??
    value.doubleValue ??
    (value.intValue !== undefined ? Number(value.intValue) : undefined)
  );
}

function attributesOf(list: KeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    const v = value ? valueOf(value) : undefined;
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
        traceState?: string;
        attributes?: KeyValue[];
        events?: { name?: string; attributes?: KeyValue[] }[];
        links?: { traceId?: Id; spanId?: Id; traceState?: string; attributes?: KeyValue[] }[];
        status?: { code?: number | string; message?: string };
      }[];
    }[];
  }[];
}

/** The JSON encoding may name the status code (`STATUS_CODE_ERROR`) where protobuf numbers it. */
function statusCode(code: number | string | undefined): number {
  if (typeof code === 'number') return code;
  return ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'].indexOf(code ?? 'STATUS_CODE_UNSET');
}

function flatten(request: RequestShape, encoding: string): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    const name = resource['service.name'];
    const service = typeof name === 'string' ? name : '';
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
        traceState: span.traceState ?? '',
        events: (span.events ?? []).map((event) => ({
          name: event.name ?? '',
          attributes: attributesOf(event.attributes),
        })),
        links: (span.links ?? []).map((link) => ({
          traceId: hex(link.traceId),
          spanId: hex(link.spanId),
          traceState: link.traceState ?? '',
          attributes: attributesOf(link.attributes),
        })),
        status: { code: statusCode(span.status?.code), message: span.status?.message ?? '' },
        resource,
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
  const bodies: string[] = [];
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
        bodies.push(body.toString('utf8'));
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
    bodies,
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
