import { describe, expect, test } from 'vitest';
import {
  exportedAttributes,
  exportedResourceAttributes,
  queryNamesOnly,
  sqlWithoutLiterals,
  urlWithoutQueryValues,
} from '../../domain/span-attributes.ts';

describe("a statement's text without its values", () => {
  test.each([
    [
      'strings, as MikroORM inlines them',
      "insert into guest (email, phone) values ('ana@example.ro', '+40721000000')",
      'insert into guest (email, phone) values (?, ?)',
    ],
    [
      'a quote doubled inside a string',
      "select * from owner where name = 'O''Brien' and id = 'x'",
      'select * from owner where name = ? and id = ?',
    ],
    ['an E string with escaped backslashes', "values ( E'C:\\\\secret\\\\path')", 'values ( ?)'],
    ['an E string with an escaped quote', "values (e'it\\'s secret')", 'values (?)'],
    ['a bytea value', "values ( E'\\\\x736563726574')", 'values ( ?)'],
    ['bit, hex and national strings', "select B'0101', X'ff', N'nume'", 'select ?, ?, ?'],
    ['a Unicode-escaped string', "select U&'d\\0061ta'", 'select ?'],
    ['dollar quoting', 'select $$secret$$, $tag$also $ secret$tag$', 'select ?, ?'],
    [
      'JSON with a cast',
      `update property set data = '{"description":"Vedere"}'::jsonb`,
      'update property set data = ?::jsonb',
    ],
    [
      'numbers',
      'select * from event where position > 41 limit 200 offset 1.5e3',
      'select * from event where position > ? limit ? offset ?',
    ],
    ['a negative number and a hexadecimal one', 'select -42, 0x1F, .5, 1_000', 'select -?, ?, ?, ?'],
    [
      'identifiers with digits, quoted identifiers and placeholders stay',
      'select "t0"."col 1", t1.v2 from "table" as t0 where x = $1',
      'select "t0"."col 1", t1.v2 from "table" as t0 where x = $1',
    ],
    [
      'keywords stay',
      'update x set deleted = true, note = null where ok = false',
      'update x set deleted = true, note = null where ok = false',
    ],
    [
      'comments go',
      'select 1 -- ana@example.ro\nfrom x /* token abc */ where y = 2',
      'select ?  \nfrom x   where y = ?',
    ],
    ['an unterminated string hides the rest', "select 'ana@example.ro, +40721", 'select ?'],
    ['an unterminated quoted identifier hides the rest', 'select "ana@example.ro', 'select ?'],
    ['an unterminated dollar quote hides the rest', 'select $q$ secret', 'select ?'],
    [
      'a statement of several lines keeps its shape',
      "with recorded as (\n  insert into webhook_attempt (delivery_id, number) values ('dlv_1', 2)\n) select 1",
      'with recorded as (\n  insert into webhook_attempt (delivery_id, number) values (?, ?)\n) select ?',
    ],
  ])('%s', (_case, text, reduced) => {
    expect(sqlWithoutLiterals(text)).toBe(reduced);
  });
});

describe('a query string with its names only', () => {
  test.each([
    ['token=abc&lang=ro', 'token=REDACTED&lang=REDACTED'],
    ['flag', 'flag=REDACTED'],
    ['', ''],
    ['a%20b=1', 'a%20b=REDACTED'],
  ])('%j → %j', (query, names) => {
    expect(queryNamesOnly(query)).toBe(names);
  });

  test.each([
    ['https://svc.example/host/open?token=abc#x', 'https://svc.example/host/open?token=REDACTED'],
    ['https://user:pass@svc.example:8443/api', 'https://svc.example:8443/api'],
    ['/host/open?token=abc', '/host/open?token=REDACTED'],
    ['/api/v1/distribution/events', '/api/v1/distribution/events'],
  ])('a URL or target %j → %j', (url, reduced) => {
    expect(urlWithoutQueryValues(url)).toBe(reduced);
  });
});

describe('what a span exports of its attributes', () => {
  test('what is listed is kept as it is', () => {
    const kept = {
      'http.request.method': 'PUT',
      'http.route': '/internal/v1/guests/:ref',
      'http.response.status_code': 201,
      'url.path': '/internal/v1/guests/g-1',
      'url.scheme': 'https',
      'server.port': 8443,
      'express.type': 'request_handler',
      'db.system.name': 'postgresql',
      'db.namespace': 'distribution',
      temporalWorkflowId: 'webhook-delivery:whk_1:evt_1',
      run_id: 'r-1',
      'webhook.channel': 'demo-travel',
      'webhook.delivery_id': 'dlv_1',
      'exception.type': '23505',
      'error.type': 'timeout',
    };
    expect(exportedAttributes(kept)).toEqual(kept);
  });

  test('statements, URLs, targets and query strings are exported without their values', () => {
    expect(
      exportedAttributes({
        'db.query.text': "select * from guest where email = 'ana@example.ro'",
        'db.statement': 'select 1',
        'url.query': 'cursor=abc',
        'url.full': 'https://svc.example/api?cursor=abc',
        'http.url': 'https://svc.example/api?key=abc',
        'http.target': '/api?key=abc',
      }),
    ).toEqual({
      'db.query.text': 'select * from guest where email = ?',
      'db.statement': 'select ?',
      'url.query': 'cursor=REDACTED',
      'url.full': 'https://svc.example/api?cursor=REDACTED',
      'http.url': 'https://svc.example/api?key=REDACTED',
      'http.target': '/api?key=REDACTED',
    });
  });

  test.each([
    ['an unknown attribute', 'app.guest_email'],
    ["the caller's user agent", 'user_agent.original'],
    ["the caller's address", 'client.address'],
    ['a peer address', 'network.peer.address'],
    ['a request header', 'http.request.header.authorization'],
    ["a statement's parameters", 'db.postgresql.values'],
    ["an exception's message", 'exception.message'],
    ["an exception's stack", 'exception.stacktrace'],
    ["a termination's reason", 'temporalTerminateReason'],
  ])('dropped: %s', (_case, key) => {
    expect(exportedAttributes({ [key]: 'ana@example.ro', 'http.route': '/x' })).toEqual({ 'http.route': '/x' });
  });

  test('a value that is not text is not reduced: a listed statement or URL that is not a string is dropped', () => {
    expect(exportedAttributes({ 'db.query.text': ['a'], 'url.full': 3 })).toEqual({});
  });
});

describe("what a process's resource exports", () => {
  test("the service, SDK, host and runtime are kept; the command line and the process's owner are not; what the operator set is", () => {
    expect(
      exportedResourceAttributes(
        {
          'service.name': 'distribution-service-api',
          'telemetry.sdk.version': '2.12.0',
          'host.name': 'vm',
          'process.pid': 7,
          'process.runtime.version': '24.11.1',
          'process.command_args': ['node', 'scripts/api.ts', '--token=abc'],
          'process.command_line': 'node scripts/api.ts --token=abc',
          'process.owner': 'ana',
          'deployment.environment.name': 'production',
          'k8s.pod.name': 'api-1',
        },
        new Set(['k8s.pod.name']),
      ),
    ).toEqual({
      'service.name': 'distribution-service-api',
      'telemetry.sdk.version': '2.12.0',
      'host.name': 'vm',
      'process.pid': 7,
      'process.runtime.version': '24.11.1',
      'deployment.environment.name': 'production',
      'k8s.pod.name': 'api-1',
    });
  });
});
