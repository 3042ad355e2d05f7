import type { Attributes, Link } from '@opentelemetry/api';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { exportedAttributes, exportedResourceAttributes } from '../domain/span-attributes.ts';

/**
 * The one door every span leaves by when tracing is on (each exporter of infra/tracing-sdk.ts is
 * wrapped in it, the workflows' spans included): what passes is what domain/span-attributes.ts
 * allows. So no instrumentation's option, hook or version decides alone what a collector sees.
 *
 * - attributes, and those of events and links: the allow-list, statements and URLs reduced;
 * - an exception event keeps its type (an error's code or class), not its message or stack: a
 *   database error's message quotes the row ("Key (email)=(…) already exists");
 * - the status keeps its code, not its message (the error's message again);
 * - a link keeps the span it points to, not its `tracestate` (a caller's text);
 * - the resource keeps the service, SDK, host and runtime, and what OTEL_RESOURCE_ATTRIBUTES set.
 *
 * Names are kept: the instrumentations name spans by operation, route and type, never by value.
 */
export function redactingExporter(exporter: SpanExporter, operatorResourceKeys: ReadonlySet<string>): SpanExporter {
  const resources = new WeakMap<Resource, Resource>();
  const resourceOf = (resource: Resource) => {
    let kept = resources.get(resource);
    if (!kept) {
      kept = resourceFromAttributes(
        exportedResourceAttributes(resource.attributes, operatorResourceKeys) as Attributes,
        resource.schemaUrl ? { schemaUrl: resource.schemaUrl } : {},
      );
      resources.set(resource, kept);
    }
    return kept;
  };
  const redact = (span: ReadableSpan): ReadableSpan => ({
    name: span.name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    ...(span.parentSpanContext ? { parentSpanContext: span.parentSpanContext } : {}),
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    ended: span.ended,
    status: { code: span.status.code },
    attributes: exportedAttributes(span.attributes) as Attributes,
    events: span.events.map((event) => ({
      name: event.name,
      time: event.time,
      attributes: exportedAttributes(event.attributes ?? {}) as Attributes,
      droppedAttributesCount: event.droppedAttributesCount ?? 0,
    })),
    links: span.links.map(({ context: { traceId, spanId, traceFlags }, attributes }): Link => ({
      context: { traceId, spanId, traceFlags },
      attributes: exportedAttributes(attributes ?? {}) as Attributes,
    })),
    resource: resourceOf(span.resource),
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  });
  return {
    export: (spans, done) => exporter.export(spans.map(redact), done),
    shutdown: () => exporter.shutdown(),
    ...(exporter.forceFlush ? { forceFlush: () => exporter.forceFlush!() } : {}),
  };
}
