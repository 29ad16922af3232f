/**
 * Parses the OpenFGA DSL (schema 1.1) into a syntax tree with positions. Grammar, as OpenFGA's:
 *
 *   model NL schema 1.1 NL { type NAME NL [relations NL { define NAME ':' expr NL }] }
 *   expr    := operand ( {or operand} | {and operand} | but not operand )
 *   operand := '[' direct {',' direct} ']' | NAME [from NAME] | '(' expr ')'
 *   direct  := NAME [':*' | '#' NAME] [with NAME]
 *
 * One operator kind per level: mixing `or`, `and`, `but not` needs parentheses. Conditions,
 * modules and `extend type` are recognised and refused as unsupported.
 */
import { tokenize, type Token } from './dsl-lexer.js';
import { ModelError } from './dsl-error.js';

export interface Pos {
  /** 0-based, like OpenFGA's fixtures. */
  line: number;
  col: number;
}

export interface AstDirect extends Pos {
  type: string;
  relation?: string;
  wildcard?: boolean;
  condition?: string;
}

export type AstExpr =
  | ({ kind: 'direct'; types: AstDirect[] } & Pos)
  | ({ kind: 'computed'; relation: string } & Pos)
  | ({ kind: 'ttu'; computed: string; tupleset: string; tuplesetPos: Pos } & Pos)
  | ({ kind: 'union' | 'intersection'; children: AstExpr[] } & Pos)
  | ({ kind: 'exclusion'; base: AstExpr; subtract: AstExpr } & Pos);

export interface AstRelation extends Pos {
  name: string;
  expr: AstExpr;
}

export interface AstType extends Pos {
  name: string;
  relations: AstRelation[];
}

export interface AstModel {
  schema: string;
  types: AstType[];
}

const KEYWORDS = new Set(['or', 'and', 'but', 'not', 'from', 'with']);

/** How deep parentheses may nest in one definition. */
export const MAX_NESTING = 64;

class Parser {
  private i = 0;
  private nesting = 0;
  constructor(private readonly tokens: Token[]) {}

  private get tok(): Token {
    return this.tokens[this.i];
  }

  private fail(message: string, at: Token = this.tok, kind = 'syntax'): never {
    throw new ModelError(message, at.line + 1, kind);
  }

  private describe(t: Token): string {
    return t.kind === 'newline' ? 'end of line' : t.kind === 'eof' ? 'end of model' : `'${t.value}'`;
  }

  private isWord(value: string): boolean {
    return this.tok.kind === 'name' && this.tok.value === value;
  }

  private isPunct(value: string): boolean {
    return this.tok.kind === 'punct' && this.tok.value === value;
  }

  private expectWord(value: string): Token {
    if (!this.isWord(value)) this.fail(`expected '${value}' but found ${this.describe(this.tok)}`);
    return this.tokens[this.i++];
  }

  private expectPunct(value: string): Token {
    if (!this.isPunct(value)) this.fail(`expected '${value}' but found ${this.describe(this.tok)}`);
    return this.tokens[this.i++];
  }

  private expectName(what: string): Token {
    if (this.tok.kind !== 'name') this.fail(`expected ${what} but found ${this.describe(this.tok)}`);
    return this.tokens[this.i++];
  }

  private expectEndOfLine(): void {
    if (this.tok.kind === 'eof') return;
    if (this.tok.kind !== 'newline') this.fail(`unexpected ${this.describe(this.tok)}, expected end of line`);
    this.i++;
  }

  private skipNewlines(): void {
    while (this.tok.kind === 'newline') this.i++;
  }

  parse(): AstModel {
    this.skipNewlines();
    if (this.isWord('module')) this.fail('modular models (module) are not supported', this.tok, 'unsupported');
    this.expectWord('model');
    this.expectEndOfLine();
    this.skipNewlines();
    this.expectWord('schema');
    const version = this.expectName('a schema version');
    if (version.value === '1.2') this.fail('schema 1.2 (modular models) is not supported', version, 'unsupported');
    if (version.value !== '1.1')
      this.fail(`unsupported schema version '${version.value}', expected 1.1`, version, 'invalid-schema');
    this.expectEndOfLine();
    const types: AstType[] = [];
    for (;;) {
      this.skipNewlines();
      if (this.tok.kind === 'eof') break;
      if (this.isWord('condition')) this.fail('conditions are not supported', this.tok, 'unsupported');
      if (this.isWord('extend')) this.fail('extend type (modular models) is not supported', this.tok, 'unsupported');
      if (this.isWord('model') || this.isWord('schema') || this.isWord('module')) {
        this.fail(`unexpected '${this.tok.value}': the model header must appear once, first`);
      }
      types.push(this.typeDef());
    }
    return { schema: version.value, types };
  }

  private typeDef(): AstType {
    this.expectWord('type');
    const name = this.expectName('a type name');
    this.expectEndOfLine();
    const relations: AstRelation[] = [];
    this.skipNewlines();
    if (this.isWord('relations')) {
      const kw = this.tok;
      this.i++;
      this.expectEndOfLine();
      this.skipNewlines();
      if (!this.isWord('define'))
        this.fail(`expected 'define' in the relations of type '${name.value}' but found ${this.describe(this.tok)}`);
      void kw;
      while (this.isWord('define')) {
        relations.push(this.relationDef());
        this.skipNewlines();
      }
    } else if (this.isWord('define')) {
      this.fail(`missing 'relations' line before define in type '${name.value}'`);
    }
    return { name: name.value, line: name.line, col: name.col, relations };
  }

  private relationDef(): AstRelation {
    this.expectWord('define');
    const name = this.expectName('a relation name');
    this.expectPunct(':');
    const expr = this.expr();
    this.expectEndOfLine();
    return { name: name.value, line: name.line, col: name.col, expr };
  }

  private operatorAt(): 'or' | 'and' | 'but not' | null {
    if (this.isWord('or')) return 'or';
    if (this.isWord('and')) return 'and';
    if (this.isWord('but')) return 'but not';
    return null;
  }

  private takeOperator(op: 'or' | 'and' | 'but not'): void {
    this.i++;
    if (op === 'but not') this.expectWord('not');
  }

  /**
   * One expression. `directFirst`: whether a type restriction may open it, which OpenFGA's
   * grammar allows at the start of the definition and of a group that itself comes first, and
   * nowhere after an operator (`a or ([user] or b)` is refused).
   */
  private expr(directFirst = true): AstExpr {
    const first = this.operand(directFirst);
    const op = this.operatorAt();
    if (!op) return first;
    const at = this.tok;
    if (op === 'but not') {
      this.takeOperator(op);
      const subtract = this.operand();
      const next = this.operatorAt();
      if (next) this.fail(`mixed operators '${op}' and '${next}' need parentheses`, this.tok, 'mixed-operators');
      return { kind: 'exclusion', base: first, subtract, line: at.line, col: at.col };
    }
    const children = [first];
    while (this.operatorAt() === op) {
      this.takeOperator(op);
      children.push(this.operand());
    }
    const next = this.operatorAt();
    if (next) this.fail(`mixed operators '${op}' and '${next}' need parentheses`, this.tok, 'mixed-operators');
    return { kind: op === 'or' ? 'union' : 'intersection', children, line: at.line, col: at.col };
  }

  /** A type restriction `[...]` may only open an expression (OpenFGA's grammar). */
  private operand(first = false): AstExpr {
    const t = this.tok;
    if (this.isPunct('[')) {
      if (!first) this.fail('a type restriction [...] must come first in its expression');
      return this.directList();
    }
    if (this.isPunct('(')) {
      // A bound on nesting keeps the recursive descent far from the stack's end: 20k levels
      // fit in a 1 MB model and overflowed it (a 500 instead of invalid_argument).
      if (++this.nesting > MAX_NESTING) this.fail(`parentheses nested more than ${MAX_NESTING} levels deep`);
      this.i++;
      const inner = this.expr(first);
      this.expectPunct(')');
      this.nesting--;
      return inner;
    }
    if (t.kind !== 'name' || KEYWORDS.has(t.value))
      this.fail(`expected a relation, '[' or '(' but found ${this.describe(t)}`);
    this.i++;
    if (this.isWord('from')) {
      this.i++;
      const ts = this.expectName('a tupleset relation after from');
      return {
        kind: 'ttu',
        computed: t.value,
        tupleset: ts.value,
        tuplesetPos: { line: ts.line, col: ts.col },
        line: t.line,
        col: t.col,
      };
    }
    return { kind: 'computed', relation: t.value, line: t.line, col: t.col };
  }

  private directList(): AstExpr {
    const open = this.expectPunct('[');
    const types: AstDirect[] = [];
    if (this.isPunct(']')) this.fail('a type restriction [...] cannot be empty');
    for (;;) {
      const name = this.expectName('a type');
      const d: AstDirect = { type: name.value, line: name.line, col: name.col };
      if (this.isPunct(':')) {
        this.i++;
        this.expectPunct('*');
        d.wildcard = true;
      } else if (this.isPunct('#')) {
        this.i++;
        d.relation = this.expectName('a relation after #').value;
      }
      if (this.isWord('with')) {
        this.fail('conditions (with) are not supported', this.tok, 'unsupported');
      }
      types.push(d);
      if (this.isPunct(',')) {
        this.i++;
        continue;
      }
      this.expectPunct(']');
      break;
    }
    return { kind: 'direct', types, line: open.line, col: open.col };
  }
}

export function parseDsl(text: string): AstModel {
  return new Parser(tokenize(text)).parse();
}
