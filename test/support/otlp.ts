// A real OTLP/HTTP traces receiver on loopback (port 0), as a collector would be: it accepts
// POST /v1/traces in both encodings the exporter speaks, http/protobuf (decoded with protobufjs
// against the OTLP trace messages below) and http/json, and keeps every span and every raw body
// (for tests that search what was sent). Tests wait for spans by polling `spans()`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

// The messages of opentelemetry-proto's collector/trace/v1, trace/v1, common/v1 and resource/v1
// that an export request holds, with their field numbers.
const OTLP_TRACE_PROTO = `
syntax = "proto3";
package otlp;
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; fixed32 flags = 16;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10;
  repeated Event events = 11; uint32 dropped_events_count = 12; repeated Link links = 13; uint32 dropped_links_count = 14;
  Status status = 15;
  message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
  message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; uint32 dropped_attributes_count = 5; fixed32 flags = 6; }
}
message Status { string message = 2; int32 code = 3; }
`;
const Request = protobuf.parse(OTLP_TRACE_PROTO, { keepCase: false }).root.lookupType('otlp.ExportTraceServiceRequest');

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: number;
  resource: Record<string, unknown>;
}

export interface Receiver {
  /** The base URL (OTEL_EXPORTER_OTLP_ENDPOINT). */
  url: string;
  spans(): ReceivedSpan[];
  /** Every export request's body as it arrived (decompressed). */
  bodies(): Buffer[];
  /** Connections accepted so far. */
  connections(): number;
  /** Content types of the exports received. */
  contentTypes(): string[];
  close(): Promise<void>;
}

/** Either encoding to plain values: ids in hex, ints as numbers. */
const hex = (v: unknown): string =>
  typeof v === 'string'
    ? /^[0-9a-f]*$/i.test(v)
      ? v.toLowerCase()
      : Buffer.from(v, 'base64').toString('hex')
    : v instanceof Uint8Array
      ? Buffer.from(v).toString('hex')
      : '';

function anyValue(v: any): unknown {
  if (!v) return undefined;
  const s = v.stringValue ?? v.boolValue ?? v.doubleValue;
  if (s !== undefined && s !== null) return s;
  if (v.intValue !== undefined && v.intValue !== null) return Number(v.intValue);
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(anyValue);
  if (v.bytesValue) return Buffer.from(v.bytesValue).toString('base64');
  return undefined;
}

const attrs = (list: any[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, anyValue(kv.value)]));

function spansOf(req: any): ReceivedSpan[] {
  return (req.resourceSpans ?? []).flatMap((rs: any) =>
    (rs.scopeSpans ?? []).flatMap((ss: any) =>
      (ss.spans ?? []).map((s: any): ReceivedSpan => ({
        traceId: hex(s.traceId),
        spanId: hex(s.spanId),
        parentSpanId: hex(s.parentSpanId),
        name: s.name,
        kind: Number(s.kind ?? 0),
        startNs: BigInt(String(s.startTimeUnixNano ?? 0)),
        endNs: BigInt(String(s.endTimeUnixNano ?? 0)),
        attributes: attrs(s.attributes),
        status: Number(s.status?.code ?? 0),
        resource: attrs(rs.resource?.attributes),
      })),
    ),
  );
}

export async function startReceiver(): Promise<Receiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: Buffer[] = [];
  const types: string[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const type = String(req.headers['content-type'] ?? '');
      types.push(type);
      bodies.push(body);
      try {
        const decoded = type.includes('json')
          ? JSON.parse(body.toString('utf8'))
          : Request.toObject(Request.decode(body), { longs: String, enums: Number, defaults: false, oneofs: false });
        spans.push(...spansOf(decoded));
      } catch (e) {
        return void res.writeHead(400, { 'content-type': 'text/plain' }).end(String(e));
      }
      res.writeHead(200, { 'content-type': type.includes('json') ? 'application/json' : 'application/x-protobuf' }).end(type.includes('json') ? '{}' : '');
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => spans,
    bodies: () => bodies,
    connections: () => connections,
    contentTypes: () => types,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
