import { MAX_DETAIL_CHARS, redactSecrets } from './redactSecrets.js';

/**
 * Text from a server (a Status message, a reason, an object's name) is data, but a terminal
 * reads some characters as commands: ESC starts sequences that set the window title, erase
 * lines or move the cursor, BEL rings, CR returns to the start of the line to overwrite it, and
 * the C1 range (U+0080 to U+009F) holds 8-bit forms of the same (U+009B is CSI). A server that
 * puts them in a message could rewrite what the user sees (kubectl's CVE-2021-25743). So such
 * text has them replaced before it reaches a WatchError message, a log line or a terminal.
 */

// C0 (U+0000 to U+001F), DEL (U+007F) and C1 (U+0080 to U+009F).
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;
// What JSON.stringify leaves as it is: DEL and C1 (it escapes C0 itself).
const UNESCAPED_BY_JSON = /[\u007f-\u009f]/g;

/** `\u001b` for ESC: what the character is, in a form that does nothing to a terminal. */
function escaped(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every C0 and C1 control character (tab and newline included) and DEL replaced by
 * its `\uXXXX` notation, which a terminal prints as it is. Everything else is kept.
 *
 * ```
 * text:    "pod \u001b]0;PWNED\u0007\u001b[2K\r"    (ESC ] 0 ; PWNED BEL ESC [ 2 K CR)
 * result:  "pod \\u001b]0;PWNED\\u0007\\u001b[2K\\u000d"   (printable backslashes)
 * ```
 *
 * @example
 * process.stderr.write(`${replaceControlCharacters(error.message)}\n`);
 */
export function replaceControlCharacters(text: string): string {
  return text.replace(CONTROL_CHARACTERS, escaped);
}

/**
 * `text` with control characters replaced line by line: newlines are kept, for text of several
 * lines (a stack) that a person reads; everything else as {@link replaceControlCharacters}.
 *
 * @example
 * process.stderr.write(`${replaceControlCharactersKeepingLines(error.stack)}\n`);
 */
export function replaceControlCharactersKeepingLines(text: string): string {
  return text.split('\n').map(replaceControlCharacters).join('\n');
}

/**
 * JSON text (from `JSON.stringify`) with DEL and the C1 control characters written as `\uXXXX`
 * escapes too, as JSON allows: the same JSON value, safe on a terminal. (JSON.stringify escapes
 * C0 itself but leaves U+007F to U+009F raw.)
 *
 * @example
 * process.stdout.write(escapeJsonControlCharacters(JSON.stringify(event)) + '\n');
 */
export function escapeJsonControlCharacters(json: string): string {
  return json.replace(UNESCAPED_BY_JSON, escaped);
}

/**
 * Server text made fit for a message: credentials removed ({@link redactSecrets}, on the whole
 * text and before anything else, so that patterns still see the server's own spacing), control
 * characters replaced, and then cut to `maxChars`.
 *
 * ```
 * text:    "denied for Bearer tok-123\u001b[2K" + 10 000 more characters
 * result:  "denied for Bearer <redacted>\\u001b[2K..." (4 096 characters and '…')
 * ```
 *
 * @example
 * const message = serverTextForMessage(`${code}: ${status.message} (${path})`);
 */
export function serverTextForMessage(text: string, maxChars = MAX_DETAIL_CHARS): string {
  return redactSecrets(replaceControlCharacters(redactSecrets(text, Infinity)), maxChars);
}
