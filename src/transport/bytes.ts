// Byte helpers on plain Uint8Arrays, so that the decoding core runs in Node (where the chunks are
// Buffers, a Uint8Array subclass) and in a browser (where they are Uint8Arrays) alike.

/** Keeps a leading byte-order mark, as Buffer's `toString('utf8')` does. */
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * `bytes[start, end)` as UTF-8 text (malformed sequences become U+FFFD). On a Buffer, as fast as
 * `buffer.toString('utf8', start, end)` on Node 20.
 *
 * @example
 * utf8Text(new TextEncoder().encode('{"a":1}\n'), 0, 7); // '{"a":1}'
 */
export function utf8Text(bytes: Uint8Array, start = 0, end = bytes.length): string {
  return UTF8.decode(bytes.subarray(start, end));
}

/**
 * Where the buffers that hold partial lines come from (zero-filled, in Node and in a browser
 * alike); an object, so that a spec can count what the framer allocates.
 *
 * @example
 * const pending = byteAllocation.alloc(16 * 1024);
 */
export const byteAllocation = {
  alloc(size: number): Uint8Array {
    return new Uint8Array(size);
  },
};

/**
 * The chunks one after the other in one new array of `total` bytes (their summed length).
 *
 * @example
 * concatBytes([Uint8Array.of(1), Uint8Array.of(2, 3)], 3); // Uint8Array [1, 2, 3]
 */
export function concatBytes(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
