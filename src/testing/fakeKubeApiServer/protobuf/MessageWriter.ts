/** The protobuf wire format, writing side: what the fake server encodes (OpenAPI v2). */

/** A varint's bytes. */
function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Buffer.from(out);
}

/** Builds a message field by field; `bytes()` is its encoding. */
export class MessageWriter {
  private readonly parts: Buffer[] = [];

  /** A string field; an empty string is left out, as proto3 leaves out default values. */
  string(no: number, value: string | undefined): this {
    if (value === undefined || value === '') return this;
    return this.message(no, Buffer.from(value, 'utf8'));
  }

  /** A bool field (false left out). */
  bool(no: number, value: boolean | undefined): this {
    if (value !== true) return this;
    this.parts.push(varint(no << 3), varint(1));
    return this;
  }

  /** A length-delimited field holding an encoded message (or raw bytes). */
  message(no: number, bytes: Buffer): this {
    this.parts.push(varint((no << 3) | 2), varint(bytes.length), bytes);
    return this;
  }

  /** The message's encoding. */
  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}
