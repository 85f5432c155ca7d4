// A hand-written protobuf encoder for the decoder's specs: the test vectors are built field by
// field here, independently of the decoder's tables.

/** A varint's bytes (negative numbers as 64-bit two's complement, 10 bytes). */
export function varint(n: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v === 0n ? byte : byte | 0x80);
  } while (v !== 0n);
  return Buffer.from(out);
}

/** A varint field (wire type 0). */
export const int = (no: number, n: number | bigint | boolean): Buffer =>
  Buffer.concat([varint(no << 3), varint(typeof n === 'boolean' ? Number(n) : n)]);

/** A length-delimited field (wire type 2): a string, bytes, or nested fields. */
export function len(no: number, ...parts: Array<string | Buffer>): Buffer {
  const body = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
  return Buffer.concat([varint((no << 3) | 2), varint(body.length), body]);
}

/** A map entry of a `map<string, ...>` field. */
export const entry = (no: number, key: string, value: string | Buffer): Buffer =>
  len(no, len(1, key), len(2, value));

/** A whole request body: `k8s\0` + runtime.Unknown {typeMeta, raw}. */
export const envelope = (apiVersion: string, kind: string, raw: Buffer): Buffer =>
  Buffer.concat([
    Buffer.from('k8s\0', 'latin1'),
    len(1, len(1, apiVersion), len(2, kind)),
    len(2, raw),
    len(3, ''),
    len(4, ''),
  ]);

/** Bytes from a hex dump (`6b 38 73 00 ...`), as kubectl -v=8 prints a request body. */
export const hex = (dump: string): Buffer => Buffer.from(dump.replace(/\s+/g, ''), 'hex');
