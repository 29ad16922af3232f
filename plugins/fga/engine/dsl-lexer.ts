/**
 * Tokens of the OpenFGA DSL (schema 1.1). A `#` starts a comment when it begins a line or
 * follows whitespace; glued to a name (`group#member`) it is the userset separator, as in
 * OpenFGA's grammar. Newlines are tokens because a `define` ends at the end of its line,
 * except inside brackets or parentheses.
 */
export type TokenKind = 'name' | 'punct' | 'newline' | 'eof';

export interface Token {
  kind: TokenKind;
  value: string;
  /** 0-based line and column, as in OpenFGA's own error positions. */
  line: number;
  col: number;
  /** Indentation (leading spaces) of the token's line. */
  indent: number;
}

const PUNCT = new Set([':', '#', '[', ']', ',', '(', ')', '*', '{', '}', '<', '>']);

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const lines = text.split(/\r?\n/);
  let depth = 0;
  for (let ln = 0; ln < lines.length; ln++) {
    const line = lines[ln];
    const indent = /^[ \t]*/.exec(line)![0].length;
    let i = 0;
    let any = false;
    while (i < line.length) {
      const c = line[i];
      if (c === ' ' || c === '\t') {
        i++;
        continue;
      }
      if (c === '#' && (i === 0 || line[i - 1] === ' ' || line[i - 1] === '\t')) break;
      if (PUNCT.has(c)) {
        if (c === '[' || c === '(') depth++;
        if ((c === ']' || c === ')') && depth > 0) depth--;
        tokens.push({ kind: 'punct', value: c, line: ln, col: i, indent });
        any = true;
        i++;
        continue;
      }
      let j = i;
      while (j < line.length && !PUNCT.has(line[j]) && line[j] !== ' ' && line[j] !== '\t') j++;
      tokens.push({ kind: 'name', value: line.slice(i, j), line: ln, col: i, indent });
      any = true;
      i = j;
    }
    if (any && depth === 0) tokens.push({ kind: 'newline', value: '\n', line: ln, col: line.length, indent });
  }
  const last = lines.length - 1;
  tokens.push({ kind: 'eof', value: '<EOF>', line: last, col: 0, indent: 0 });
  return tokens;
}
