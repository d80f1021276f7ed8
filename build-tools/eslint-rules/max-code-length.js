'use strict';
/**
 * max-code-length: no line longer than `max` characters, where a string, template or regular expression literal
 * counts as its delimiters only, and a comment line with a URL is exempt. A long message or URL may run past the
 * limit; code may not. ESLint's own max-len with `ignoreStrings` would exempt any line holding any string, however
 * short ('' or 'x'), so a packed line of code passes it (issue #36).
 */
const LITERAL_TYPES = new Set(['String', 'Template', 'RegularExpression']);
const URL_IN_COMMENT = /^\s*(\/\/|\*|\/\*).*\bhttps?:\/\//;

/** Characters of `token` that sit on line `line` (1-based), less the delimiters a literal keeps. */
function literalCharsOnLine(token, line, lines) {
  const { start, end } = token.loc;
  if (line < start.line || line > end.line) return 0;
  const from = line === start.line ? start.column : 0;
  const to = line === end.line ? end.column : lines[line - 1].length;
  const delimiters = (line === start.line ? 1 : 0) + (line === end.line ? 1 : 0);
  return Math.max(0, to - from - delimiters);
}

module.exports = {
  meta: {
    type: 'layout',
    docs: { description: 'Limit the length of code lines; long literals and URLs in comments are exempt' },
    schema: [{ type: 'object', properties: { max: { type: 'integer', minimum: 1 } }, additionalProperties: false }],
    messages: {
      tooLong: 'This line has {{codeLength}} characters of code (literals counted as their quotes only); at most {{max}}: split it by meaning',
    },
  },
  create(context) {
    const max = (context.options[0] && context.options[0].max) || 120;
    const sourceCode = context.sourceCode || context.getSourceCode();
    return {
      'Program:exit'() {
        const lines = sourceCode.lines;
        const literals = sourceCode.ast.tokens.filter((t) => LITERAL_TYPES.has(t.type));
        lines.forEach((text, index) => {
          if (text.length <= max || URL_IN_COMMENT.test(text)) return;
          const line = index + 1;
          const literalChars = literals.reduce((sum, t) => sum + literalCharsOnLine(t, line, lines), 0);
          const codeLength = text.length - literalChars;
          if (codeLength <= max) return;
          context.report({
            loc: { start: { line, column: 0 }, end: { line, column: text.length } },
            messageId: 'tooLong',
            data: { codeLength, max },
          });
        });
      },
    };
  },
};
