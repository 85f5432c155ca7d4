/**
 * The protobuf wire format, reading side only: varints, fixed 32/64-bit values and
 * length-delimited fields. Enough for the messages Kubernetes writes (proto2, no groups).
 */

/** A malformed protobuf input (truncated, an unknown wire type...). */
export class WireError extends Error {}

/** One field of a message as it appears on the wire. */
export type WireField =
  | { no: number; wireType: 0; value: bigint }
  | { no: number; wireType: 1; value: Buffer }
  | { no: number; wireType: 2; value: Buffer }
  | { no: number; wireType: 5; value: Buffer };

/** Reads a varint at `pos`; the value (unsigned, up to 64 bits) and the next position. */
export function readVarint(buf: Buffer, pos: number): [bigint, number] {
  let value = 0n;
  for (let shift = 0n; shift < 70n; shift += 7n) {
    if (pos >= buf.length) throw new WireError('truncated varint');
    const byte = buf[pos++];
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [BigInt.asUintN(64, value), pos];
  }
  throw new WireError('varint longer than 10 bytes');
}

/** The fields of one message, in wire order (a repeated field appears once per element). */
export function readFields(buf: Buffer): WireField[] {
  const fields: WireField[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [tag, afterTag] = readVarint(buf, pos);
    pos = afterTag;
    const no = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    if (no === 0) throw new WireError('field number 0');
    switch (wireType) {
      case 0: {
        const [value, next] = readVarint(buf, pos);
        fields.push({ no, wireType, value });
        pos = next;
        break;
      }
      case 1:
      case 5: {
        const size = wireType === 1 ? 8 : 4;
        if (pos + size > buf.length) throw new WireError(`truncated field ${no}`);
        fields.push({ no, wireType, value: buf.subarray(pos, pos + size) });
        pos += size;
        break;
      }
      case 2: {
        const [length, start] = readVarint(buf, pos);
        const end = start + Number(length);
        if (end > buf.length) throw new WireError(`truncated field ${no}`);
        fields.push({ no, wireType, value: buf.subarray(start, end) });
        pos = end;
        break;
      }
      default:
        throw new WireError(`unsupported wire type ${wireType} (field ${no})`);
    }
  }
  return fields;
}

/** The values of a packed repeated varint field. */
export function readPackedVarints(buf: Buffer): bigint[] {
  const values: bigint[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [value, next] = readVarint(buf, pos);
    values.push(value);
    pos = next;
  }
  return values;
}
