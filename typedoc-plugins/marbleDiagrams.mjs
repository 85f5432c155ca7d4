// TypeDoc plugin: marble diagrams render as plain-text code blocks.
//
// kube-rx documents each operator with a marble diagram in a fenced block without a language:
//
//   ```
//   source:    -a-b-|
//   objects(): -a-b-|
//   ```
//
// TypeDoc highlights a fence without a language as TypeScript, which colours letters of the
// diagram at random. This plugin gives such fences the language `text` (no highlighting), in the
// summary and in every block tag except `@example` (whose code stays TypeScript). A fence that
// names its language is left alone, so a TypeScript snippet in prose can say ```ts.
import { Converter } from 'typedoc';

const UNLABELLED_FENCE = /^```[ \t]*\r?\n/;

/** Rewrites the unlabelled fences of one list of comment parts. */
function plainTextFences(parts) {
  for (const part of parts) {
    if (part.kind === 'code' && UNLABELLED_FENCE.test(part.text)) {
      part.text = part.text.replace(UNLABELLED_FENCE, '```text\n');
    }
  }
}

/** Rewrites the summary and non-example block tags of one comment. */
function plainTextDiagrams(comment) {
  if (!comment) return;
  plainTextFences(comment.summary);
  for (const tag of comment.blockTags) {
    if (tag.tag !== '@example') plainTextFences(tag.content);
  }
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const reflection of Object.values(context.project.reflections)) {
      plainTextDiagrams(reflection.comment);
    }
  });
}
