import { MessageWriter } from '../protobuf/MessageWriter.js';
import type { JsonSchema } from './schemas.js';

/** The media types kubectl may ask /openapi/v2 in (the only encoding its v2 client reads). */
export const OPENAPI_V2_PROTOBUF_TYPES = [
  'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
  'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
];
/** The Content-Type kube-openapi answers protobuf with (Go's mime parser refuses the `@`). */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

// Field numbers of gnostic's openapi_v2 messages (google/gnostic openapiv2/OpenAPIv2.proto).
const SCHEMA = {
  ref: 1,
  format: 2,
  description: 4,
  required: 19,
  additionalProperties: 21,
  type: 22,
  items: 23,
  allOf: 24,
  properties: 25,
  vendorExtension: 31,
};

/** A `NamedX { name = 1; value = 2 }` entry. */
const named = (name: string, value: Buffer): Buffer =>
  new MessageWriter().string(1, name).message(2, value).bytes();

/**
 * A vendor extension: `NamedAny { name, value: Any { yaml = 2 } }`; JSON is YAML, which is how
 * kube-openapi reads the value back.
 */
const extension = (name: string, value: unknown): Buffer =>
  named(name, new MessageWriter().string(2, JSON.stringify(value)).bytes());

/** A Schema message from a Swagger 2.0 schema (the keywords the fake's schemas use). */
export function encodeSchema(schema: JsonSchema): Buffer {
  const w = new MessageWriter();
  w.string(SCHEMA.ref, schema.$ref as string | undefined);
  w.string(SCHEMA.format, schema.format as string | undefined);
  w.string(SCHEMA.description, schema.description as string | undefined);
  for (const r of (schema.required as string[] | undefined) ?? []) w.string(SCHEMA.required, r);
  const additional = schema.additionalProperties;
  if (typeof additional === 'boolean') {
    w.message(SCHEMA.additionalProperties, new MessageWriter().bool(2, additional).bytes());
  } else if (additional !== undefined && additional !== null) {
    const item = new MessageWriter().message(1, encodeSchema(additional as JsonSchema));
    w.message(SCHEMA.additionalProperties, item.bytes());
  }
  if (typeof schema.type === 'string') {
    w.message(SCHEMA.type, new MessageWriter().string(1, schema.type).bytes());
  }
  if (schema.items !== undefined) {
    w.message(
      SCHEMA.items,
      new MessageWriter().message(1, encodeSchema(schema.items as JsonSchema)).bytes(),
    );
  }
  for (const s of (schema.allOf as JsonSchema[] | undefined) ?? [])
    w.message(SCHEMA.allOf, encodeSchema(s));
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties !== undefined) {
    const p = new MessageWriter();
    for (const [name, s] of Object.entries(properties)) p.message(1, named(name, encodeSchema(s)));
    w.message(SCHEMA.properties, p.bytes());
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-')) w.message(SCHEMA.vendorExtension, extension(key, value));
  }
  return w.bytes();
}

/**
 * The `/openapi/v2` document as gnostic's `openapi_v2.Document` protobuf: swagger = 1,
 * info = 2 {title, version}, paths = 8, definitions = 9 (named schemas). What kubectl reads
 * from v2 (explain `--output=plaintext-openapiv2`, and validation without /openapi/v3).
 */
export function encodeV2Document(doc: JsonSchema): Buffer {
  const info = doc.info as { title: string; version: string };
  const definitions = new MessageWriter();
  for (const [name, schema] of Object.entries(doc.definitions as Record<string, JsonSchema>)) {
    definitions.message(1, named(name, encodeSchema(schema)));
  }
  return new MessageWriter()
    .string(1, doc.swagger as string)
    .message(2, new MessageWriter().string(1, info.title).string(2, info.version).bytes())
    .message(8, Buffer.alloc(0))
    .message(9, definitions.bytes())
    .bytes();
}
